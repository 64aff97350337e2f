"""`comm: ...` ranges of torch.distributed collectives and of DistributedDataParallel's
communication (PROTOCOL.md section 1): the time a rank spends communicating or waiting for the
other ranks, which the job analysis (profiling/job) tells apart from its own work.

Owns the wrappers of the c10d collective functions, of Work.wait, and of DDP's buffer broadcast,
register_comm_hook / _register_builtin_comm_hook and forward (where the gradient all-reduce gets its
timing hook). The ranges:

  comm: all_reduce train.py:57          push/pop around a blocking collective (async_op=False)
  comm: async all_reduce train.py:57    start/end: an async_op=True collective, from the call to
                                        the end of its Work.wait(), or to its completion when that
                                        comes first (communication in flight)
  comm: wait all_reduce train.py:57     push/pop around that Work.wait() (the thread blocks)
  comm: ddp broadcast buffers           push/pop around DDP's buffer broadcast in forward
  comm: async ddp all_reduce bucket 3   start/end: a gradient bucket, from DDP's comm hook call
                                        to the completion of the future it returned

DDP's gradient all-reduce runs in its C++ reducer; the only Python seam is a communication hook.
Where the program registers none, the first forward of each DDP module registers PyTorch's own
default (torch.distributed.algorithms.ddp_comm_hooks.default_hooks.allreduce_hook: divide by the
group size, all-reduce, the same sum DDP computes without a hook) wrapped in the timing. A user's
register_comm_hook is never refused: before our registration it gets the timing wrapper around
their hook (chained, their future's value unchanged); after it, their hook replaces the default
inside ours (DDP allows one hook per module). A built-in C++ hook (_register_builtin_comm_hook),
DDP's mixed_precision, or a module that delays all-reduce to the end makes us step aside: no
bucket ranges for that module. TRAINSCOPE_PYTHON_SKIP=ddp turns the DDP part off.
"""
import functools
import inspect
import os
import sys
import threading

from . import phases, sync
from .state import S, TLS, debug, switch_off

# The collectives of torch.distributed.distributed_c10d a program calls (point-to-point send/recv
# are not collectives and are left alone).
COLLECTIVES = (
    "all_reduce", "all_reduce_coalesced", "broadcast", "barrier", "monitored_barrier", "reduce",
    "all_gather", "all_gather_into_tensor", "_all_gather_base", "all_gather_coalesced", "all_gather_object",
    "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "all_to_all", "all_to_all_single",
    "gather", "gather_object", "scatter", "scatter_object_list", "broadcast_object_list",
)
MAX_PENDING = 1024  # async works not waited yet; beyond, the oldest range is closed unwaited

_getframe = sys._getframe
_start = None  # torch.cuda.nvtx.range_start / range_end, resolved by set_emitters()
_end = None
_pending = {}  # id(work) -> (range id, collective name, work)
_lock = threading.Lock()


def set_emitters(torch):
    """range_start/range_end of torch.cuda.nvtx (process-wide ranges: a bucket's future completes
    on another thread). Without them there are no async ranges; the rest still works."""
    global _start, _end
    nvtx = getattr(getattr(torch, "cuda", None), "nvtx", None)
    _start, _end = getattr(nvtx, "range_start", None), getattr(nvtx, "range_end", None)


def _range_start(name):
    if _start is None or not S.on:
        return None
    try:
        return _start(name)
    except Exception as err:
        debug("NVTX range_start failed, Python insight off: %r" % (err,))
        switch_off()
        return None


def _range_end(rid):
    if rid is None or _end is None:
        return
    try:
        _end(rid)
    except Exception as err:
        debug("NVTX range_end failed, Python insight off: %r" % (err,))
        switch_off()


def _site_name(prefix, frame):
    f = sync._site(frame)
    if f is None:
        return prefix + " ?:0"
    return "%s %s:%d" % (prefix, os.path.basename(f.f_code.co_filename), f.f_lineno or 0)


def _async_index(orig):
    """The position of `async_op` in orig's parameters (None when it has none)."""
    try:
        names = list(inspect.signature(orig).parameters)
    except (TypeError, ValueError):
        return None
    return names.index("async_op") if "async_op" in names else None


def _is_async(args, kwargs, index):
    if "async_op" in kwargs:
        return bool(kwargs["async_op"])
    return index is not None and len(args) > index and bool(args[index])


def _finish(key):
    """End the in-flight range of work `key` once (its wait or its completion, the first)."""
    with _lock:
        entry = _pending.pop(key, None)
    if entry is not None:
        _range_end(entry[0])


def _track(work, rid, call):
    """Keep the async range open until work.wait() or its completion, whichever comes first (a work
    waited through its future, as DDP comm hooks do, has no wait() call); close the oldest beyond
    MAX_PENDING."""
    if rid is None:
        return
    if work is None or not hasattr(work, "wait"):
        _range_end(rid)  # not a member of the group: nothing in flight
        return
    key = id(work)
    with _lock:
        if len(_pending) >= MAX_PENDING:
            _range_end(_pending.pop(next(iter(_pending)))[0])
        _pending[key] = (rid, call, work)
    try:
        work.get_future().add_done_callback(lambda _f: _finish(key))
    except Exception:  # a Work without a future: its wait() ends the range
        pass


def collective(orig, call):
    """Wrap a c10d collective: a blocking range, or an async one ended by its Work.wait()."""
    index = _async_index(orig)

    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if phases._is_compiling() or not S.on or TLS.comm:
            return orig(*args, **kwargs)
        t = TLS
        frame = _getframe(1)
        if _is_async(args, kwargs, index):
            rid = _range_start(_site_name("comm: async " + call, frame))
            t.comm = 1
            try:
                work = orig(*args, **kwargs)
            except BaseException:
                _range_end(rid)
                raise
            finally:
                t.comm = 0
            _track(work, rid, call)
            return work
        t.comm = 1
        S.push(_site_name("comm: " + call, frame))
        try:
            return orig(*args, **kwargs)
        finally:
            t.comm = 0
            S.pop()
    return wrapper


def work_wait(orig):
    """Work.wait: a blocking `comm: wait CALL` range; it ends the async range of that work."""
    @functools.wraps(orig)
    def wait(self, *args, **kwargs):
        if not _pending:
            return orig(self, *args, **kwargs)
        with _lock:
            entry = _pending.pop(id(self), None)
        if entry is None or not S.on:
            if entry is not None:
                _range_end(entry[0])
            return orig(self, *args, **kwargs)
        S.push(_site_name("comm: wait " + entry[1], _getframe(1)))
        try:
            return orig(self, *args, **kwargs)
        finally:
            S.pop()
            _range_end(entry[0])
    return wait


# --- DistributedDataParallel -------------------------------------------------------------------

def _bucket_index(bucket):
    try:
        return int(bucket.index())
    except Exception:
        return -1


def timed_hook(hook):
    """A comm hook that records its bucket from the call to its future's completion; the future's
    value (and error) are the hook's own. functools.wraps keeps the hook's name and signature,
    which DDP checks (a `bucket` parameter, the return annotation)."""
    @functools.wraps(hook)
    def timed(state, bucket):
        rid = _range_start("comm: async ddp all_reduce bucket %d" % _bucket_index(bucket))
        t = TLS
        saved, t.comm = t.comm, 1  # the hook's own collectives are this bucket's: no range of theirs
        try:
            fut = hook(state, bucket)
        except BaseException:
            _range_end(rid)
            raise
        finally:
            t.comm = saved
        if rid is None:
            return fut

        def done(f):
            _range_end(rid)
            return f.value()
        return fut.then(done)
    timed.__trainscope__ = True
    return timed


def _steps_aside(ddp):
    """A DDP module whose gradient communication we leave alone (module docstring)."""
    return (bool(getattr(ddp, "_comm_hooks", None)) or getattr(ddp, "_trainscope_builtin", False)
            or getattr(ddp, "mixed_precision", None) is not None
            or getattr(ddp, "_delay_all_reduce_all_params", False))


def _register_default(ddp, register, default_hooks):
    """Register allreduce_hook, timed, on `ddp`; the cell lets a later user hook replace it. When
    the reducer refuses (a hook we did not see, e.g. a built-in one registered through another
    path), DDP's Python list of hooks is put back as it was and the error goes to the caller."""
    cell = [getattr(ddp, "process_group", None), default_hooks.allreduce_hook, True]

    @functools.wraps(default_hooks.allreduce_hook)
    def dispatch(state, bucket):
        return cell[1](cell[0], bucket)
    hooks = getattr(ddp, "_comm_hooks", None)
    before = len(hooks) if isinstance(hooks, list) else None
    try:
        register(ddp, None, timed_hook(dispatch))
    except BaseException:
        if before is not None:
            del hooks[before:]
        raise
    ddp._trainscope_hook = cell


def ddp_register_comm_hook(orig):
    """DDP.register_comm_hook: time the user's hook (chained), or swap it in for our default."""
    @functools.wraps(orig)
    def register_comm_hook(self, state, hook):
        cell = getattr(self, "_trainscope_hook", None)
        if cell is not None and cell[2]:
            self._check_comm_hook(hook)  # DDP's own checks, as it would make them
            cell[0], cell[1], cell[2] = state, hook, False
            hooks = getattr(self, "_comm_hooks", None)
            if isinstance(hooks, list):
                hooks.append((hook, state))
            try:  # DDP's logging data names the hook in use
                self.logger._set_comm_hook_name(hook.__qualname__)
            except Exception:
                pass
            return None
        if getattr(hook, "__trainscope__", False) or not S.on:
            return orig(self, state, hook)
        return orig(self, state, timed_hook(hook))
    register_comm_hook.__trainscope_orig__ = orig
    return register_comm_hook


def ddp_register_builtin(orig):
    """DDP._register_builtin_comm_hook: a C++ hook, not wrappable: step aside for this module."""
    @functools.wraps(orig)
    def register_builtin_comm_hook(self, *args, **kwargs):
        self._trainscope_builtin = True
        return orig(self, *args, **kwargs)
    return register_builtin_comm_hook


def ddp_forward(orig, ddp_cls, default_hooks_module):
    """DDP.forward: at a module's first forward, the timed default hook where it has none."""
    @functools.wraps(orig)
    def forward(self, *args, **kwargs):
        if phases._is_compiling():  # torch.compile traces DDP: nothing of ours inside the graph
            return orig(self, *args, **kwargs)
        if S.on and not getattr(self, "_trainscope_checked", False):
            self._trainscope_checked = True
            if not _steps_aside(self):
                try:
                    register = getattr(ddp_cls.register_comm_hook, "__trainscope_orig__", ddp_cls.register_comm_hook)
                    _register_default(self, register, default_hooks_module())
                except Exception as err:  # a DDP we do not know: no bucket ranges, nothing else changes
                    debug("DDP comm hook not registered: %r" % (err,))
        return orig(self, *args, **kwargs)
    return forward


def ddp_broadcast(orig):
    """DDP._distributed_broadcast_coalesced: the buffer broadcast in forward blocks every rank."""
    @functools.wraps(orig)
    def broadcast(self, *args, **kwargs):
        if phases._is_compiling() or not S.on or TLS.comm:
            return orig(self, *args, **kwargs)
        TLS.comm = 1
        S.push("comm: ddp broadcast buffers")
        try:
            return orig(self, *args, **kwargs)
        finally:
            TLS.comm = 0
            S.pop()
    return broadcast
