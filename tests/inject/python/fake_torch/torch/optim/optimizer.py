"""Fake torch.optim.optimizer: Optimizer.__init__ patches the class's step with profile_hook_step,
which runs the global pre hooks, the step, then the global post hooks (as torch 2.x does).
FAKE_TORCH_NO_GLOBAL_HOOKS=1 leaves out the global hook registration (an older torch)."""
import functools
import os
from collections import OrderedDict

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()
STEPS = []


def register_optimizer_step_pre_hook(hook):
    key = len(_global_optimizer_pre_hooks) + 1
    _global_optimizer_pre_hooks[key] = hook
    return key


def register_optimizer_step_post_hook(hook):
    key = len(_global_optimizer_post_hooks) + 1
    _global_optimizer_post_hooks[key] = hook
    return key


if os.environ.get("FAKE_TORCH_NO_GLOBAL_HOOKS"):
    del register_optimizer_step_pre_hook, register_optimizer_step_post_hook


class Optimizer:
    def __init__(self, params, defaults):
        self.param_groups = [{"params": list(params)}]
        self.defaults = defaults
        self._patch_step_function()

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in _global_optimizer_pre_hooks.values():
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            out = func(*args, **kwargs)
            for post_hook in _global_optimizer_post_hooks.values():
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self):
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def zero_grad(self, set_to_none=True):
        pass

    def step(self, closure=None):
        raise NotImplementedError


class SGD(Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    def step(self, closure=None):
        STEPS.append(self)
        if closure is not None:
            closure()
        return "sgd-step-result"
