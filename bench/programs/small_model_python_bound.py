"""A deep, narrow residual MLP on tabular data at batch 32: many tiny kernels per step.

Bottleneck: 20 residual blocks of width 256 (LayerNorm -> Linear -> GELU -> Linear, dropout) at
batch 32 make ~600 kernels a step of a few microseconds each; the optimizer (AdamW, foreach),
gradient clipping and the LR scheduler add more. The data is on the GPU, nothing syncs (the loss is
read every 100 steps), so the GPU mostly waits for Python to launch the next kernel.

EXPECT: launch_bound|host_bound
NOT: input_bound, sync_bound

Runs ~23 s on an H200 (--steps 1100; ~75 steps/s there: ~13 ms of Python and launches a step);
--smoke runs a few tiny steps, on the CPU if needed.
"""
import argparse
import math
import time

import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, dim, hidden, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(self.fc2(self.act(self.fc1(self.norm(x)))))


class TabularResNet(nn.Module):
    def __init__(self, in_features, num_classes, dim=256, depth=20, dropout=0.1):
        super().__init__()
        self.embed = nn.Linear(in_features, dim)
        self.blocks = nn.ModuleList([ResidualBlock(dim, dim, dropout) for _ in range(depth)])
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, num_classes))

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def synthetic_tabular(n, features, classes, device, seed=0):
    """Features from a random teacher network, so the task is learnable."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    teacher = torch.randn(features, classes, generator=g)
    y = (x @ teacher + 0.5 * torch.randn(n, classes, generator=g)).argmax(1)
    return x.to(device), y.to(device)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1100)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--features", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.steps, args.depth, args.log_every = 20, 4, 5

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    x_train, y_train = synthetic_tabular(100_000, args.features, 8, device)
    model = TabularResNet(args.features, 8, dim=args.width, depth=args.depth).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps)))
    criterion = nn.CrossEntropyLoss()
    print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f} M parameters, device {device}")

    model.train()
    t0 = time.time()
    perm = torch.randperm(len(y_train), device=device)
    pos = 0
    for step in range(1, args.steps + 1):
        if pos + args.batch_size > len(perm):
            perm, pos = torch.randperm(len(y_train), device=device), 0
        idx = perm[pos:pos + args.batch_size]
        pos += args.batch_size
        xb, yb = x_train[idx], y_train[idx]

        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()

        if step % args.log_every == 0:
            elapsed = time.time() - t0
            print(f"step {step:6d} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e} "
                  f"{step / elapsed:.0f} steps/s", flush=True)
    print(f"done: {args.steps} steps in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
