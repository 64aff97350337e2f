"""A manual check of the Python insight's torch.distributed and DDP hooks against real PyTorch; not
part of run_tests.sh (no torch there). Run under torchrun, with or without trainscope-run:

    trainscope-run --session out/chk.tsession -- torchrun --standalone --nproc_per_node 2 \
        tests/inject/python/real_dist_check.py [--device cuda]

Each rank checks that the collectives return what they would without the hooks (sync, async_op up
to wait(), all_gather_object), that DDP's gradients are the average of the ranks' own gradients with
our default hook, with a program's hook registered before and after the first forward (both must be
called, none refused), and with a built-in hook; then prints one RESULT line (rank, checks, which
hooks the insight installed).
"""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def model_and_grads(device, rank, world, ddp_setup):
    """A DDP step on rank-specific data; returns (DDP grads, the expected averaged grads)."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4)).to(device)
    ref = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4)).to(device)
    ref.load_state_dict(net.state_dict())
    ddp = DDP(net, device_ids=[device.index] if device.type == "cuda" else None, bucket_cap_mb=0.0001)
    ddp_setup(ddp)
    x = torch.randn(32, 8, generator=torch.Generator().manual_seed(rank)).to(device)
    ddp(x).square().mean().backward()
    ref(x).square().mean().backward()
    expected = []
    for p in ref.parameters():
        g = p.grad.clone()
        dist.all_reduce(g)
        expected.append(g / world)
    got = [p.grad for p in ddp.module.parameters()]
    ok = all(torch.allclose(a, b, atol=1e-5) for a, b in zip(got, expected))
    return ok, ddp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)) % max(1, torch.cuda.device_count())) \
        if args.device == "cuda" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    checks = {}
    t = torch.full((4,), float(rank + 1), device=device)
    dist.all_reduce(t)
    checks["all_reduce"] = bool((t == sum(range(1, world + 1))).all())
    a = torch.full((4,), float(rank), device=device)
    work = dist.all_reduce(a, async_op=True)
    work.wait()
    checks["async_all_reduce"] = bool((a == sum(range(world))).all())
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    checks["all_gather_object"] = objs == [{"rank": r} for r in range(world)]
    out = torch.empty(world * 2, device=device)
    dist.all_gather_into_tensor(out, torch.full((2,), float(rank), device=device))
    checks["all_gather_into_tensor"] = out.tolist() == [float(r) for r in range(world) for _ in range(2)]
    dist.barrier()

    calls = {"early": 0, "late": 0}

    def hook_of(name):
        def hook(state, bucket):
            calls[name] += 1
            t = bucket.buffer().div_(world)
            return dist.all_reduce(t, async_op=True).get_future().then(lambda f: f.value()[0])
        return hook

    ok, ddp = model_and_grads(device, rank, world, lambda m: None)
    checks["ddp_default"] = ok
    default_hooks = [getattr(h, "__name__", "?") for h, _ in getattr(ddp, "_comm_hooks", [])]
    ok, _ = model_and_grads(device, rank, world, lambda m: m.register_comm_hook(None, hook_of("early")))
    checks["ddp_hook_before_forward"] = ok and calls["early"] > 0

    def late(m):
        with torch.no_grad():
            m(torch.randn(4, 8, device=device))  # a first forward: our default goes in
        m.register_comm_hook(None, hook_of("late"))
    try:
        ok, _ = model_and_grads(device, rank, world, late)
        checks["ddp_hook_after_forward"] = ok and calls["late"] > 0
    except Exception as err:  # must not happen: the program's hook is never refused
        checks["ddp_hook_after_forward"] = "raised %r" % (err,)
    ok, _ = model_and_grads(device, rank, world,
                            lambda m: m._register_builtin_comm_hook(dist.BuiltinCommHookType.ALLREDUCE))
    checks["ddp_builtin"] = ok
    installed = sorted(k for k in ("trainscope_py.collectives",) if k in sys.modules)
    print("RESULT:" + json.dumps({"rank": rank, "device": str(device), "checks": checks, "calls": calls,
                                  "default_hooks": default_hooks, "installed": installed,
                                  "torch": torch.__version__}), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
