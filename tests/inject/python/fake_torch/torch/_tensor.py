"""Fake Tensor: a value and a device; the blocking methods live on the base class."""
import torch


class device:
    def __init__(self, spec):
        self.type = str(spec).split(":")[0]

    def __repr__(self):
        return "device(type=%r)" % self.type


class _TensorBase:
    """Stands for torch._C.TensorBase (its methods are what the hooks wrap)."""

    def __init__(self, value, device_type="cpu"):
        self.value = value
        self.device = device(device_type)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def item(self):
        return self.value

    def cpu(self):
        return Tensor(self.value, "cpu")

    def tolist(self):
        return [self.value]

    def numpy(self, force=False):
        if self.is_cuda and not force:
            raise TypeError("can't convert cuda:0 device type tensor to numpy.")
        return [self.value]

    def to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if isinstance(target, Tensor):
            target = target.device
        if isinstance(target, device):
            target = target.type
        if isinstance(target, str):
            return Tensor(self.value, target.split(":")[0])
        return self


class Tensor(_TensorBase):
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def __repr__(self):
        return "tensor(%r, device=%r)" % (self.value, self.device.type)


def tensor(value, device="cpu"):
    return Tensor(value, device)
