"""Where stack samples go: the library's trainscope_py_* entry points through ctypes (PROTOCOL.md
section 2), or a sink the tests put in its place.

Owns opening the library named by CUDA_INJECTION64_PATH (the process has it, or will load it at
cuInit / the first NVTX call; dlopen of the same file returns the same copy) and the three calls
with their C types. Without the variable or the symbols there is no sink: sampling is off, said
in one line on stderr with TRAINSCOPE_DEBUG only.
"""
import os

from .state import debug

_override = None


def set_sink(sink):
    """Tests: use `sink` (frame/stack/sample methods returning 0, or -1 to stop) instead."""
    global _override
    _override = sink


class CtypesSink:
    """The three entry points of libtrainscope_inject.so; each returns 0, or -1 (not recorded)."""

    def __init__(self, lib):
        import ctypes
        u32, i32, i64 = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64
        self._frame = lib.trainscope_py_frame
        self._frame.argtypes = [u32, ctypes.c_char_p, ctypes.c_char_p, i32]
        self._stack = lib.trainscope_py_stack
        self._stack.argtypes = [u32, ctypes.POINTER(u32), u32]
        self._sample = lib.trainscope_py_sample
        self._sample.argtypes = [u32, i64, u32]
        for fn in (self._frame, self._stack, self._sample):
            fn.restype = ctypes.c_int
        self._u32 = u32

    def frame(self, frame_id, function, file, line):
        return self._frame(frame_id, _c(function), _c(file), line)

    def stack(self, stack_id, frame_ids):
        n = len(frame_ids)
        return self._stack(stack_id, (self._u32 * n)(*frame_ids), n)

    def sample(self, tid, steady_ns, stack_id):
        return self._sample(tid, steady_ns, stack_id)


def _c(text):
    return text.encode("utf-8", "replace")


def open_sink():
    """The test sink, the library's entry points, or None (sampling off)."""
    if _override is not None:
        return _override
    path = os.environ.get("CUDA_INJECTION64_PATH")
    if not path:
        debug("stack samples off: CUDA_INJECTION64_PATH is not set")
        return None
    try:
        import ctypes  # here, on the sampler's thread, not at the program's start-up
        return CtypesSink(ctypes.CDLL(path))
    except (OSError, AttributeError) as err:
        debug("stack samples off: %s: %s" % (path, err))
        return None
