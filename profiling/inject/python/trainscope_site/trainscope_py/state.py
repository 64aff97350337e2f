"""The process-wide switches and the per-thread depths every hook reads (PROTOCOL.md).

Owns: the mode (lean/full), the on/off switch (off in a forked child, in a DataLoader worker, or
when NVTX is unusable), the three NVTX emitters the hooks call (S.push, S.pop, S.mark), the
stepping thread (the one that marked the last step; the main thread before the first), and the
first-event hook that starts the stack sampler lazily, so processes that never reach a hooked call
(DataLoader workers) start no thread.

Why one place: the wrappers are on the program's hot path, so each reads at most a slot of S and
an attribute of TLS; everything that changes at run time changes here, never inside a wrapper.
"""
import os
import sys
import threading

_get_ident = threading.get_ident
_get_native_id = threading.get_native_id


def _noop(*_args):
    return None


class _State:
    """Process-wide switches; slots keep the hot-path reads cheap."""
    __slots__ = ("on", "mode", "push", "pop", "mark", "step_thread", "real", "on_first_event", "debug")

    def __init__(self):
        self.on = False
        self.mode = "off"
        self.push = _noop
        self.pop = _noop
        self.mark = _noop
        main = threading.main_thread()
        self.step_thread = (main.ident, getattr(main, "native_id", None) or os.getpid())
        self.real = (_noop, _noop, _noop)
        self.on_first_event = _noop
        self.debug = bool(os.environ.get("TRAINSCOPE_DEBUG"))


class _Tls(threading.local):
    """Per-thread depths. Class attributes are each new thread's defaults (no AttributeError).

    fwd: 0 outside any module call, 1 inside the outermost one, -1 inside a `data` range (module
    calls there, such as transforms, belong to the data wait). names: full mode's qualified-name
    map of the outermost module (names_root), rebuilt at most once per call (names_rebuilt).
    data/bwd/sync/comm: 1 inside the outermost range of that kind (comm: a collective, collectives.py).
    opt: optimizer nesting depth; opt_frame: the frame of the outermost optimizer call.
    """
    fwd = 0
    names = None
    names_root = None
    names_rebuilt = False
    data = 0
    bwd = 0
    sync = 0
    comm = 0
    opt = 0
    opt_frame = None


S = _State()
TLS = _Tls()
_first_lock = threading.Lock()


def debug(message):
    """One line on stderr, only with TRAINSCOPE_DEBUG set."""
    if S.debug:
        try:
            sys.stderr.write("trainscope-py: %s\n" % message)
        except Exception:
            pass


def switch_on(mode, push, pop, mark, on_first_event):
    """Turn the hooks on with these emitters; the first push runs `on_first_event` once."""
    S.mode = mode
    S.real = (push, pop, mark)
    S.on_first_event = on_first_event
    S.push, S.pop, S.mark = _first_push, pop, mark
    S.on = True


def switch_off():
    """Everything off for good in this process: wrappers call straight through, emitters no-op."""
    S.on = False
    S.push = S.pop = S.mark = _noop
    S.real = (_noop, _noop, _noop)


def in_dataloader_worker():
    """True in a DataLoader worker process (torch sets its worker info before the dataset runs)."""
    worker = sys.modules.get("torch.utils.data._utils.worker")
    return worker is not None and getattr(worker, "_worker_info", None) is not None


def _first_push(name):
    """The first push of the process: quiet in DataLoader workers, else start the sampler."""
    with _first_lock:
        if S.push is _first_push:
            if in_dataloader_worker():
                switch_off()
            else:
                S.push = S.real[0]
                try:  # the library's meta python.insight: this process runs with the insight, in this mode
                    S.real[2]("trainscope:python " + S.mode)
                except Exception as err:
                    debug("no python.insight mark: %r" % (err,))
                try:
                    S.on_first_event()
                except Exception as err:  # the sampler is optional; the ranges are not
                    debug("sampler not started: %r" % (err,))
    S.push(name)


def step_mark():
    """The `trainscope:step` mark, and this thread becomes the one the sampler follows."""
    S.mark("trainscope:step")
    ident = _get_ident()
    if ident != S.step_thread[0]:
        S.step_thread = (ident, _get_native_id())


def frame_on_stack(frame, start):
    """True when `frame` is `start` or one of its callers (a live outer optimizer call)."""
    f = start
    while f is not None:
        if f is frame:
            return True
        f = f.f_back
    return False
