"""NVTX emission through torch.cuda.nvtx (default domain), resolved once (PROTOCOL.md section 1).

Owns: finding range_push/range_pop/mark once, telling a CPU-only torch build (whose nvtx module
is a stub that raises) from a usable one, and emitters that never raise into the program: the
first failure turns the whole package off (ranges half-emitted are worse than none).
"""
from .state import debug, switch_off


def _usable(nvtx_module):
    impl = getattr(nvtx_module, "_nvtx", None)
    return impl is not None and type(impl).__name__ != "_NVTXStub"


def resolve(torch):
    """(push, pop, mark) calling torch.cuda.nvtx, or None when NVTX is unusable in this torch."""
    try:
        nvtx_module = torch.cuda.nvtx
        range_push, range_pop, mark = nvtx_module.range_push, nvtx_module.range_pop, nvtx_module.mark
    except Exception as err:
        debug("torch.cuda.nvtx unusable: %r" % (err,))
        return None
    if not _usable(nvtx_module):
        debug("torch.cuda.nvtx is a stub (a torch build without CUDA): no ranges")
        return None

    def push(name):
        try:
            range_push(name)
        except Exception as err:
            _failed(err)

    def pop():
        try:
            range_pop()
        except Exception as err:
            _failed(err)

    def mark_(name):
        try:
            mark(name)
        except Exception as err:
            _failed(err)

    return push, pop, mark_


def _failed(err):
    debug("NVTX call failed, Python insight off: %r" % (err,))
    switch_off()
