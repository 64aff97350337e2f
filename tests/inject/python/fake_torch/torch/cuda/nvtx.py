"""Fake torch.cuda.nvtx: records ("push", name), ("pop",), ("mark", name) into CALLS.
FAKE_TORCH_NVTX_STUB=1 makes it the stub of a torch built without CUDA (every call raises).
FAKE_TORCH_NVTX_SHIM=PATH also makes each call through the real NVTX of that library
(tests/inject/nvtx_shim.cpp: ts_push/ts_pop/ts_mark), so the injection library records them as it
records PyTorch's."""
import ctypes
import os

CALLS = []

if os.environ.get("FAKE_TORCH_NVTX_STUB"):
    class _NVTXStub:
        @staticmethod
        def _fail(*args, **kwargs):
            raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")

        rangePushA = _fail
        rangePop = _fail
        markA = _fail

    _nvtx = _NVTXStub()
else:
    class _Recorder:
        @staticmethod
        def rangePushA(msg):
            CALLS.append(("push", msg))
            return 0

        @staticmethod
        def rangePop():
            CALLS.append(("pop",))
            return 0

        @staticmethod
        def markA(msg):
            CALLS.append(("mark", msg))

    _nvtx = _Recorder()
    if os.environ.get("FAKE_TORCH_NVTX_SHIM"):
        _shim = ctypes.CDLL(os.environ["FAKE_TORCH_NVTX_SHIM"])

        class _Forwarder:
            @staticmethod
            def rangePushA(msg):
                CALLS.append(("push", msg))
                return _shim.ts_push(msg.encode())

            @staticmethod
            def rangePop():
                CALLS.append(("pop",))
                return _shim.ts_pop()

            @staticmethod
            def markA(msg):
                CALLS.append(("mark", msg))
                _shim.ts_mark(msg.encode())

        _nvtx = _Forwarder()


_next_id = [0]


def range_start(msg):
    """Process-wide start/end ranges: ("start", msg, id) and ("end", id) into CALLS."""
    _next_id[0] += 1
    CALLS.append(("start", msg, _next_id[0]))
    return _next_id[0]


def range_end(range_id):
    CALLS.append(("end", range_id))


def range_push(msg):
    return _nvtx.rangePushA(msg)


def range_pop():
    return _nvtx.rangePop()


def mark(msg):
    return _nvtx.markA(msg)
