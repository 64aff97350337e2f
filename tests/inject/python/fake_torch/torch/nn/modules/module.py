"""Fake nn.Module: children registered by __setattr__, named_modules() as torch names them."""
from collections import OrderedDict


class Module:
    def __init__(self):
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_modules(self, memo=None, prefix=""):
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(memo, prefix + ("." if prefix else "") + name)

    def parameters(self):
        return [object()]

    def _wrapped_call_impl(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    __call__ = _wrapped_call_impl


class Linear(Module):
    def forward(self, x):
        return x


class ReLU(Module):
    def forward(self, x):
        return x


class Failing(Module):
    def forward(self, x):
        raise ValueError("failing forward")


class Sequential(Module):
    def __init__(self, *mods):
        super().__init__()
        for i, m in enumerate(mods):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


class MSELoss(Module):
    def forward(self, out, target):
        from torch import Tensor
        return Tensor(out.value, out.device.type)
