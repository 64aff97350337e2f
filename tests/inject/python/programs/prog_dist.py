"""torch.distributed collectives and DDP on the fake torch: the `comm: ...` ranges (SITE: markers
name the lines the tests expect)."""
import progutil
import torch
import torch.distributed as dist
from torch.futures import Future
from torch.nn.parallel import DistributedDataParallel as DDP

t = torch.tensor(1.0, "cuda")
progutil.reset()
dist.all_reduce(t)  # SITE:allreduce
dist.barrier()  # SITE:barrier
work = dist.all_reduce(t, async_op=True)  # SITE:async
work.wait()  # SITE:wait
work2 = dist.broadcast(t, 0, None, True)  # SITE:async_pos
work2.wait()  # SITE:wait_pos
objects = [None]
dist.all_gather_object(objects, 3)  # SITE:object
dist.distributed_c10d.reduce_scatter_tensor(t, t)  # SITE:c10d
blocking = progutil.calls()
c10d_calls = [list(c) for c in dist.CALLS]


def user_hook(state, bucket):
    fut = Future()
    fut.set_result("user %s %d" % (state, bucket.index()))
    return fut


# No hook of the program's: the timed default at the first forward.
plain = DDP(torch.nn.Linear())
progutil.reset()
plain(t)
plain_values = plain.backward_buckets(2)
plain_calls = progutil.calls()
plain_hooks = [h.__name__ for h, _ in plain._comm_hooks]

# The program's hook before the first forward: timed around it (chained).
early = DDP(torch.nn.Linear(), broadcast_buffers=False)
early.register_comm_hook("early", user_hook)
progutil.reset()
early(t)
early_values = early.backward_buckets(1)
early_calls = progutil.calls()

# The program's hook after the first forward: it replaces our default inside our hook.
late = DDP(torch.nn.Linear(), broadcast_buffers=False)
late(t)
late.register_comm_hook("late", user_hook)
progutil.reset()
late_values = late.backward_buckets(1)
late_calls = progutil.calls()
late_hooks = [h.__name__ for h, _ in late._comm_hooks]

# A built-in (C++) hook, and DDP's mixed precision: we step aside.
builtin = DDP(torch.nn.Linear(), broadcast_buffers=False)
builtin._register_builtin_comm_hook("FP16_COMPRESS")
mixed = DDP(torch.nn.Linear(), broadcast_buffers=False, mixed_precision=object())
# A built-in hook the wrapper did not see (registered on the reducer directly): ours is refused at
# the first forward, the forward runs on, DDP's list of hooks is as before.
unseen = DDP(torch.nn.Linear(), broadcast_buffers=False)
unseen._hook = ("builtin", "ALLREDUCE")
progutil.reset()
builtin(t)
mixed(t)
unseen(t)
unseen_hooks = list(unseen._comm_hooks)
aside_values = builtin.backward_buckets(1) + mixed.backward_buckets(1)
aside_calls = progutil.calls()

progutil.result(blocking=blocking, c10d=c10d_calls, objects=objects, plain_values=plain_values,
                plain_calls=plain_calls, plain_hooks=plain_hooks, early_values=early_values,
                early_calls=early_calls, late_values=late_values, late_calls=late_calls,
                late_hooks=late_hooks, aside_values=aside_values, aside_calls=aside_calls,
                unseen_hooks=unseen_hooks)
