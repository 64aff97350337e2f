"""Putting the wrappers into torch, once, each hook on its own (PROTOCOL.md section 1).

Owns the list of hooks and the torch attribute each one needs. A hook whose attribute is missing
in this torch version (or whose module is not imported yet) is skipped, never raised into the
program; one whose module torch imports lazily is installed when that module finishes importing.
Every wrapper keeps functools.wraps' __wrapped__ and carries `__trainscope__`, so nothing is
wrapped twice.
"""
import os
import sys

from . import collectives, modules, phases, sync
from .state import S, debug

_SYNC_METHODS = ((".item()", "item"), (".cpu()", "cpu"), (".tolist()", "tolist"), (".numpy()", "numpy"))


def _patch(owner, attr, make, own_only=False):
    """owner.attr = make(owner.attr); own_only: only when defined on owner itself (a class)."""
    if own_only and attr not in vars(owner):
        return False
    orig = getattr(owner, attr)
    if getattr(orig, "__trainscope__", False):
        return False
    wrapper = make(orig)
    wrapper.__trainscope__ = True
    setattr(owner, attr, wrapper)
    return True


def _module_call(torch):
    make = modules.forward_full if S.mode == "full" else phases.forward_lean
    _patch(torch.nn.Module, "__call__", make)


def _backward(torch):
    _patch(torch.autograd, "backward", lambda f: phases.outermost(f, "backward", "bwd"))


def _dataloader(torch):
    dataloader = sys.modules["torch.utils.data.dataloader"]
    _patch(dataloader._BaseDataLoaderIter, "__next__", phases.data_range)
    _patch(dataloader.DataLoader, "__iter__", phases.data_range)


def _optimizer(torch):
    optimizer = sys.modules["torch.optim.optimizer"]
    pre = getattr(optimizer, "register_optimizer_step_pre_hook", None)
    post = getattr(optimizer, "register_optimizer_step_post_hook", None)
    if pre is not None and post is not None:
        pre(phases.optimizer_pre_hook)
        post(phases.optimizer_post_hook)
        return
    # Without global hooks: each class's step gets wrapped as Optimizer.__init__ patches it.
    cls = optimizer.Optimizer
    hook_step = cls.__dict__["profile_hook_step"].__func__
    cls.profile_hook_step = staticmethod(lambda func: phases.optimizer_step(hook_step(func)))


def _grad_scaler(module_name):
    def install(_torch):
        scaler = sys.modules[module_name].GradScaler
        _patch(scaler, "step", phases.optimizer_step, own_only=True)
    return install


def _tensor(torch):
    for call, attr in _SYNC_METHODS:
        try:
            _patch(torch.Tensor, attr, lambda f, c=call: sync.tensor_method(f, c))
        except Exception as err:
            debug("hook Tensor.%s skipped: %r" % (attr, err))
    _patch(torch.Tensor, "to", lambda f: sync.tensor_to(f, torch))


def _cuda_synchronize(torch):
    _patch(torch.cuda, "synchronize", sync.synchronize)


def _distributed(torch):
    """The c10d collectives under both their names (torch.distributed re-exports them) and
    Work.wait, which ends an async collective's range (collectives.py)."""
    c10d = sys.modules["torch.distributed.distributed_c10d"]
    dist = sys.modules.get("torch.distributed")
    collectives.set_emitters(torch)
    work = getattr(c10d, "Work", None) or getattr(dist, "Work", None)
    if work is not None:
        try:
            _patch(work, "wait", collectives.work_wait)
        except Exception as err:  # a class that refuses attributes: async collectives get no range
            debug("hook Work.wait skipped: %r" % (err,))
            collectives.set_emitters(None)
    for name in collectives.COLLECTIVES:
        orig = getattr(c10d, name, None)
        if orig is None or not callable(orig):
            continue
        _patch(c10d, name, lambda f, n=name: collectives.collective(f, n))
        if dist is not None and getattr(dist, name, None) is orig:
            setattr(dist, name, getattr(c10d, name))


def _ddp(torch):
    """DistributedDataParallel: buffer broadcast, comm hooks, the timed default (collectives.py)."""
    cls = sys.modules["torch.nn.parallel.distributed"].DistributedDataParallel

    def default_hooks():
        import importlib
        return importlib.import_module("torch.distributed.algorithms.ddp_comm_hooks.default_hooks")
    _patch(cls, "_distributed_broadcast_coalesced", collectives.ddp_broadcast, own_only=True)
    _patch(cls, "register_comm_hook", collectives.ddp_register_comm_hook, own_only=True)
    for name in ("_register_builtin_comm_hook", "register_builtin_comm_hook"):  # torch's name has the underscore
        _patch(cls, name, collectives.ddp_register_builtin, own_only=True)
    _patch(cls, "forward", lambda f: collectives.ddp_forward(f, cls, default_hooks), own_only=True)


# (module that must be imported, hook): the torch attributes each hook touches live there.
HOOKS = (
    ("torch.nn.modules.module", _module_call),
    ("torch.autograd", _backward),
    ("torch.utils.data.dataloader", _dataloader),
    ("torch.optim.optimizer", _optimizer),
    ("torch.amp.grad_scaler", _grad_scaler("torch.amp.grad_scaler")),
    ("torch.cuda.amp.grad_scaler", _grad_scaler("torch.cuda.amp.grad_scaler")),
    ("torch._tensor", _tensor),
    ("torch.cuda", _cuda_synchronize),
    ("torch.distributed.distributed_c10d", _distributed),
    ("torch.nn.parallel.distributed", _ddp),
)


def _hook(fn, torch, what):
    try:
        fn(torch)
    except Exception as err:  # a torch without this attribute: that hook is skipped
        debug("hook %s skipped: %r" % (what, err))


def configure(torch, own_dir):
    """What every wrapper needs from torch: the compile check and the folders of no call site."""
    compiler = getattr(torch, "compiler", None)
    phases.set_is_compiling(getattr(compiler, "is_compiling", None))
    sync.set_skip_dirs(os.path.dirname(getattr(torch, "__file__", "") or ""), own_dir)


def _skipped():
    """TRAINSCOPE_PYTHON_SKIP: hook functions left out, by name without the underscore (module,
    backward, dataloader, optimizer, tensor, cuda_synchronize, distributed, ddp; grad_scaler is `install`), comma
    separated. For measuring what each hook costs (scripts/inject_cost.py), not a user's knob."""
    names = {n.strip() for n in os.environ.get("TRAINSCOPE_PYTHON_SKIP", "").split(",") if n.strip()}
    return {"_" + n if n != "install" else n for n in names}


def install_ready(torch, watch):
    """Install every hook whose module is imported; watch(name) the others."""
    skip = _skipped()
    for module_name, fn in HOOKS:
        if fn.__name__ in skip:
            debug("hook %s left out (TRAINSCOPE_PYTHON_SKIP)" % fn.__name__)
            continue
        if module_name in sys.modules:
            _hook(fn, torch, module_name)
        else:
            watch(module_name)


def install_module(torch, module_name):
    """A watched module finished importing: install its hooks."""
    skip = _skipped()
    for name, fn in HOOKS:
        if name == module_name and fn.__name__ not in skip:
            _hook(fn, torch, name)
