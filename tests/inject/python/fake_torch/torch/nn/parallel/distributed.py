"""Fake DistributedDataParallel: the buffer broadcast in forward, register_comm_hook (once per
module, checked as DDP checks a hook's signature), _register_builtin_comm_hook (torch's name), and a stand-in for
the C++ reducer (backward_buckets) that runs each bucket through the registered hook."""
import inspect

from torch.distributed import CALLS, GradBucket
from torch.nn.modules.module import Module


class DistributedDataParallel(Module):
    def __init__(self, module, broadcast_buffers=True, mixed_precision=None):
        super().__init__()
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.mixed_precision = mixed_precision
        self.process_group = "pg"
        self._comm_hooks = []
        self._hook = None

    def _check_comm_hook(self, hook):
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        inspect.signature(hook).parameters["bucket"]  # KeyError without one, as DDP's check

    def register_comm_hook(self, state, hook):
        self._check_comm_hook(hook)
        self._comm_hooks.append((hook, state))  # before the reducer's check, as DDP does
        if self._hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._hook = (state, hook)

    def _register_builtin_comm_hook(self, comm_hook_type):
        if self._hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._hook = ("builtin", comm_hook_type)

    def _distributed_broadcast_coalesced(self, bufs, bucket_size, authoritative_rank=0):
        CALLS.append(("broadcast_coalesced", False))

    def forward(self, x):
        if self.broadcast_buffers:
            self._distributed_broadcast_coalesced([], 0)
        return self.module(x)

    def backward_buckets(self, n):
        """The reducer: each bucket through the hook (none or a built-in: the C++ all-reduce)."""
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        futs = []
        for i in range(n):
            if self._hook is None or self._hook[0] == "builtin":
                futs.append(None)
                continue
            state, hook = self._hook
            futs.append(hook(state, GradBucket(i)))
        default_hooks.complete_all()
        return [None if f is None else f.value() for f in futs]
