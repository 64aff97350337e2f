"""A minimal stand-in for PyTorch, just enough for the Python insight's tests (no GPU, no torch).

It keeps the shapes the hooks rely on: torch.nn.Module.__call__ as a class attribute, Tensor methods
inherited from a base class (as torch.Tensor inherits them from torch._C.TensorBase), Tensor.backward
calling torch.autograd.backward through the module, Optimizer.__init__ patching each class's step
with profile_hook_step and the global step hooks, GradScaler.step calling optimizer.step unless it
found infs, the DataLoader's iterator, torch.cuda.nvtx (recording into torch.cuda.nvtx.CALLS) and
torch.compiler.is_compiling. Env FAKE_TORCH_* switches select variants (see the submodules).
"""
from ._tensor import Tensor, device, tensor
from . import _utils
from . import nn
from . import autograd
from . import optim
from . import amp
from . import utils
from . import cuda
from . import compiler

__version__ = "0.0-fake"


def _drop_attributes(spec):
    """FAKE_TORCH_DROP='module:attr,...': a torch version without these attributes."""
    import sys
    for item in filter(None, spec.split(",")):
        module_name, attr = item.split(":")
        delattr(sys.modules[module_name], attr)


import os as _os  # noqa: E402

_drop_attributes(_os.environ.get("FAKE_TORCH_DROP", ""))
