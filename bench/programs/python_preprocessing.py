"""Per-step occlusion masks (random erasing + GridMask) built in a Python loop, data on the GPU.

Bottleneck: the images live on the GPU, but every step the script builds an occlusion mask for each
sample of the batch in Python for-loops over numpy arrays (random-erasing boxes, a GridMask of
jittered squares), then ships it as a pinned, non-blocking copy. Nothing synchronises, yet each
step the host spends ~6 ms in build_occlusion_masks() against ~2 ms of GPU work: the GPU waits
for the Python thread. The kernels themselves are large (batch 256, 64-256 channels), so this is
not launch overhead.

EXPECT: host_bound
NOT: input_bound, sync_bound, launch_bound
HOST_FRAME: expected in build_occlusion_masks

Runs ~22 s on an H200 (--steps 1300, ~70 steps/s); --smoke runs a few tiny steps, on the CPU if needed.
"""
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn


def build_occlusion_masks(batch, size, p_erase=0.8, max_boxes=3, p_grid=0.5):
    """One mask per image, 1 keeps a pixel and 0 drops it: random erasing (Zhong et al.) boxes,
    and with probability p_grid a GridMask (Chen et al.) of squares on a jittered grid."""
    masks = np.ones((batch, 1, size, size), dtype=np.float32)
    for i in range(batch):
        if random.random() < p_erase:
            for _ in range(random.randint(1, max_boxes)):
                area = random.uniform(0.02, 0.2) * size * size
                aspect = np.exp(random.uniform(np.log(0.3), np.log(3.3)))
                h = min(size, int(round(np.sqrt(area * aspect))))
                w = min(size, int(round(np.sqrt(area / aspect))))
                y, x = random.randint(0, size - h), random.randint(0, size - w)
                masks[i, 0, y:y + h, x:x + w] = 0.0
        if random.random() < p_grid:
            d = random.randint(6, 12)                      # grid period
            side = max(1, int(d * random.uniform(0.3, 0.5)))
            oy, ox = random.randrange(d), random.randrange(d)
            for y in range(oy - d, size, d):
                for x in range(ox - d, size, d):
                    masks[i, 0, max(y, 0):max(y + side, 0), max(x, 0):max(x + side, 0)] = 0.0
    return torch.from_numpy(masks)


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        layers, cin = [], 3
        for cout in (64, 128, 256):
            layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]
            cin = cout
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(256 * 4 * 4, num_classes)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1300)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.steps, args.batch_size, args.log_every = 5, 16, 1

    device = "cuda" if torch.cuda.is_available() else "cpu"
    random.seed(0)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    n = 20_000
    images = torch.randn(n, 3, 32, 32, device=device)
    labels = torch.randint(0, 10, (n,), device=device)

    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    t0 = time.time()
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, n, (args.batch_size,), device=device)
        masks = build_occlusion_masks(args.batch_size, 32)
        if device == "cuda":
            masks = masks.pin_memory()
        x = images[idx] * masks.to(device, non_blocking=True)
        y = labels[idx]

        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()

        if step % args.log_every == 0:
            print(f"step {step} loss {loss.item():.3f} ({step / (time.time() - t0):.1f} steps/s)", flush=True)
    print(f"{args.steps} steps in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
