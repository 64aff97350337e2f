"""`sync: <call>() <file>:<line>` ranges around blocking calls on CUDA tensors (PROTOCOL.md §1).

Owns the wrappers of Tensor.item/.cpu/.tolist/.numpy/.to(cpu) and torch.cuda.synchronize, and the
call-site name: the first caller frame outside torch's package and outside ours (so a torch helper
that calls .item() names the program's line), as `basename:line`, cached per (code, line) and call.

A tensor method wrapper costs one `is_cuda` read when the tensor is on the CPU; only CUDA tensors
get a range (their call waits for the GPU). The library attributes the `sync` it records inside
the range on the same thread to this call site.
"""
import functools
import os
import sys

from . import phases
from .state import S, TLS

_getframe = sys._getframe
_skip_prefixes = ()


def set_skip_dirs(*dirs):
    """Folders whose frames are never a call site: torch's package and ours."""
    global _skip_prefixes
    _skip_prefixes = tuple(os.path.join(os.path.abspath(d), "") for d in dirs if d)


def _site(frame):
    """The first frame outside the skipped folders (the innermost one when all are inside)."""
    f = frame
    while f is not None:
        if not f.f_code.co_filename.startswith(_skip_prefixes):
            return f
        f = f.f_back
    return frame


def _site_namer(call):
    """A function frame -> 'sync: .item() train.py:57', cached per (code object, line)."""
    cache = {}
    prefix = "sync: %s " % call

    def name(frame):
        f = _site(frame)
        if f is None:
            return prefix + "?:0"
        key = (f.f_code, f.f_lineno)
        label = cache.get(key)
        if label is None:
            label = "%s%s:%d" % (prefix, os.path.basename(f.f_code.co_filename), f.f_lineno or 0)
            cache[key] = label
        return label
    return name


def _ranged(orig, namer, t, args, kwargs, frame):
    t.sync = 1
    S.push(namer(frame))
    try:
        return orig(*args, **kwargs)
    finally:
        t.sync = 0
        S.pop()


def tensor_method(orig, call):
    """Wrap a Tensor method that blocks when the tensor is on a CUDA device."""
    namer = _site_namer(call)

    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if phases._is_compiling() or not S.on or not self.is_cuda or TLS.sync:
            return orig(self, *args, **kwargs)
        return _ranged(orig, namer, TLS, (self,) + args, kwargs, _getframe(1))
    return method


def tensor_to(orig, torch):
    """Tensor.to: a `sync` range only when a CUDA tensor goes to the CPU with a blocking copy."""
    namer = _site_namer(".to()")
    to_cpu = _to_cpu_checker(torch)

    @functools.wraps(orig)
    def to(self, *args, **kwargs):
        if phases._is_compiling() or not S.on or not self.is_cuda or TLS.sync:
            return orig(self, *args, **kwargs)
        if not to_cpu(args, kwargs):
            return orig(self, *args, **kwargs)
        return _ranged(orig, namer, TLS, (self,) + args, kwargs, _getframe(1))
    return to


def synchronize(orig):
    """torch.cuda.synchronize: always a `sync` range (it waits for the whole device)."""
    namer = _site_namer("torch.cuda.synchronize()")

    @functools.wraps(orig)
    def synchronize_(*args, **kwargs):
        if phases._is_compiling() or not S.on or TLS.sync:
            return orig(*args, **kwargs)
        return _ranged(orig, namer, TLS, args, kwargs, _getframe(1))
    return synchronize_


def _to_cpu_checker(torch):
    """(args, kwargs) of Tensor.to -> True when the target is the CPU and the copy blocks.

    The forms: to(device, dtype, non_blocking, ...), to(dtype, non_blocking, ...),
    to(other_tensor, non_blocking, ...), device= and non_blocking= as keywords.
    """
    tensor_type = getattr(torch, "Tensor", ())
    device_type = getattr(torch, "device", ())

    def is_cpu(device):
        if isinstance(device, str):
            return device == "cpu" or device.startswith("cpu:")
        if isinstance(device, device_type):
            return device.type == "cpu"
        return False

    def to_cpu(args, kwargs):
        device = kwargs.get("device")
        nb_index = None
        if device is None and args:
            first = args[0]
            if isinstance(first, tensor_type):
                device, nb_index = first.device, 1
            elif isinstance(first, (str, device_type)):
                device, nb_index = first, 2
        if device is None or not is_cpu(device):
            return False
        if kwargs.get("non_blocking"):
            return False
        return not (nb_index is not None and len(args) > nb_index and args[nb_index])
    return to_cpu

