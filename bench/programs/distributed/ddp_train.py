"""Data-parallel training of a small CNN with DistributedDataParallel, one process per rank.

Run it the usual way:

    torchrun --nproc_per_node 2 ddp_train.py --backend gloo
    trainscope-run -o job/ddp.tsession -- torchrun --nproc_per_node 4 ddp_train.py --backend gloo

Each rank takes cuda:(LOCAL_RANK % device_count), so several ranks may share one GPU; NCCL refuses
that, gloo does not (it moves CUDA tensors through host memory for its collectives). The dataset is
synthetic but decoded and augmented in numpy per image, as a real image folder would be.

A straggler, for teaching and for testing a tool:
    --slow-rank R --slow-workers W    rank R's DataLoader gets W workers (the others --num-workers):
                                      its input pipeline is slower, the others wait in all-reduce
    --sleep-rank R --sleep-ms MS      rank R does MS ms of host work after each step (logging,
                                      metrics, a checkpoint written the slow way)

Runs ~20 s per rank on an H200 with the defaults; --smoke runs a few tiny steps on the CPU with gloo.
"""
import argparse
import logging
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("ddp")


class AugmentedImages(Dataset):
    """n images of 40x40 "decoded" to a random 32x32 crop with flip and brightness, normalised."""

    def __init__(self, n, raw=40, out=32, seed=0):
        self.n, self.raw, self.out, self.seed = n, raw, out, seed
        self.targets = np.random.default_rng(seed).integers(0, 10, n)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng((self.seed, i))
        img = rng.integers(0, 256, (self.raw, self.raw, 3), dtype=np.uint8)
        y, x = rng.integers(0, self.raw - self.out + 1, 2)
        img = img[y:y + self.out, x:x + self.out].astype(np.float32) / 255.0
        if rng.random() < 0.5:
            img = img[:, ::-1]
        img = np.clip(img * rng.uniform(0.8, 1.2), 0.0, 1.0)
        img = (img - 0.5) / 0.25
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))), int(self.targets[i])


def make_model(width=32, num_classes=10):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True), nn.MaxPool2d(2))
    return nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width),
                         nn.Flatten(), nn.Linear(4 * width * 16, 256), nn.ReLU(inplace=True),
                         nn.Linear(256, num_classes))


def setup():
    """Rank, world size and device from torchrun's environment (a single process without it)."""
    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")  # a single process started without torchrun
    os.environ.setdefault("MASTER_PORT", "29511")
    os.environ.setdefault("RANK", str(rank))
    os.environ.setdefault("WORLD_SIZE", str(world))
    if torch.cuda.is_available():
        device = torch.device("cuda", local_rank % torch.cuda.device_count())
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    return rank, world, device


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gloo", choices=["gloo", "nccl"])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--train-size", type=int, default=16384, help="images across all ranks, per epoch")
    ap.add_argument("--batch-size", type=int, default=128, help="per rank")
    ap.add_argument("--num-workers", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--amp", action="store_true", help="torch.autocast(bfloat16)")
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-workers", type=int, default=0)
    ap.add_argument("--sleep-rank", type=int, default=-1)
    ap.add_argument("--sleep-ms", type=float, default=0.0)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.epochs, args.train_size, args.batch_size, args.num_workers, args.log_every = 1, 256, 16, 0, 2

    rank, world, device = setup()
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s rank{rank} %(message)s")
    dist.init_process_group(backend=args.backend)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    workers = args.slow_workers if rank == args.slow_rank else args.num_workers
    dataset = AugmentedImages(args.train_size)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, drop_last=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=device.type == "cuda", persistent_workers=workers > 0, drop_last=True)
    model = DDP(make_model().to(device), device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()
    log.info("world %d, device %s, batch %d per rank, %d workers", world, device, args.batch_size, workers)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0, n = time.perf_counter(), 0
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.amp):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            n += x.shape[0]
            if rank == args.sleep_rank and args.sleep_ms > 0:
                time.sleep(args.sleep_ms / 1000.0)
            if step % args.log_every == 0 and rank == 0:
                log.info("epoch %d step %d loss %.3f", epoch, step, loss.item())
        dt = time.perf_counter() - t0
        log.info("epoch %d: %.1f s, %.0f img/s on this rank", epoch, dt, n / dt)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
