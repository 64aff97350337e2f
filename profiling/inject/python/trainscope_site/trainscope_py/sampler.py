"""The stack sampler: a daemon thread `trainscope-py` that reads the stepping thread's Python stack
with sys._current_frames() at a fixed rate and hands frames, stacks and samples to the sink
(PROTOCOL.md section 2).

Owns the interning: a frame is (function, file, line), keyed by (code object, line); a stack is the
tuple of frame ids, innermost first, at most 48 frames, our own package's frames left out. Ids
start at 1, each is sent before the first stack or sample that uses it, and none is sent twice.
A sink call that answers -1 (nothing is recorded: the library is off) stops the sampler for good.
The timestamp is time.monotonic_ns() taken just before the frames are read.
"""
import os
import sys
import threading
import time

from .sink import open_sink
from .state import S, debug

MAX_FRAMES = 48


class Sampler:
    """Started at most once per process (start() is idempotent); stop() ends it."""

    def __init__(self, hz, skip_dir):
        self.hz = hz
        self._skip = os.path.join(os.path.abspath(skip_dir), "")
        self._frames = {}  # (code, line) -> frame id
        self._stacks = {}  # tuple of frame ids -> stack id
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None
        self.samples = 0

    def start(self):
        """Start the thread once; a no-op at 0 Hz or after stop()."""
        with self._lock:
            if self._thread is not None or self.hz <= 0 or self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="trainscope-py", daemon=True)
            self._thread.start()

    def stop(self):
        self._stop.set()

    def _run(self):
        sink = open_sink()
        if sink is None:
            return
        period = 1.0 / self.hz
        deadline = time.monotonic()
        while True:
            deadline += period
            now = time.monotonic()
            if deadline < now - period:
                deadline = now  # fell behind (GIL held long): no burst to catch up
            if self._stop.wait(max(0.0, deadline - now)):
                return
            try:
                if not self.sample_once(sink):
                    debug("stack samples stopped: the library records nothing")
                    return
            except Exception as err:
                debug("stack samples stopped: %r" % (err,))
                return

    def sample_once(self, sink):
        """One sample of the stepping thread; False when the sink refused (stop sampling)."""
        ident, tid = S.step_thread
        steady_ns = time.monotonic_ns()
        frame = sys._current_frames().get(ident)
        if frame is None:
            return True  # the stepping thread has ended
        try:
            frame_ids = self._frame_ids(frame, sink)
        finally:
            del frame
        if frame_ids is None:
            return False
        if not frame_ids:
            return True  # only our own frames: nothing of the program's to show
        stack_id = self._stack_id(frame_ids, sink)
        if stack_id is None or sink.sample(tid, steady_ns, stack_id) != 0:
            return False
        self.samples += 1
        return True

    def _frame_ids(self, frame, sink):
        ids = []
        frames, skip = self._frames, self._skip
        f = frame
        while f is not None and len(ids) < MAX_FRAMES:
            code = f.f_code
            if not code.co_filename.startswith(skip):
                key = (code, f.f_lineno)
                frame_id = frames.get(key)
                if frame_id is None:
                    frame_id = len(frames) + 1
                    name = getattr(code, "co_qualname", code.co_name)
                    if sink.frame(frame_id, name, code.co_filename, f.f_lineno or 0) != 0:
                        return None
                    frames[key] = frame_id
                ids.append(frame_id)
            f = f.f_back
        return tuple(ids)

    def _stack_id(self, frame_ids, sink):
        stack_id = self._stacks.get(frame_ids)
        if stack_id is None:
            stack_id = len(self._stacks) + 1
            if sink.stack(stack_id, frame_ids) != 0:
                return None
            self._stacks[frame_ids] = stack_id
        return stack_id
