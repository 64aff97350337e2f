"""CIFAR-style classifier whose images are "decoded" in Dataset.__getitem__ on the main thread.

Bottleneck: DataLoader(num_workers=0). Every image costs ~2 ms of numpy on the training thread
(regenerating a 176x176 "raw" image from its seed stands in for a JPEG decode, then a random crop,
gamma, colour jitter and a box-filter resize to 32x32), so the GPU waits for the loader almost all the
time (~230-270 ms to load a batch of 128); the small CNN itself needs ~3 ms a step.

EXPECT: input_bound
NOT: launch_bound, sync_bound
HOST_FRAME: expected in __getitem__

Runs ~20 s on an H200 (--epochs 1, 6144 images); --smoke runs a few tiny steps, on the CPU if needed.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SyntheticPhotos(Dataset):
    """Images are stored "encoded" (here: a seed per image) and decoded on access."""

    def __init__(self, n, raw_size=176, out_size=32, seed=0):
        self.n, self.raw_size, self.out_size, self.seed = n, raw_size, out_size, seed
        self.labels = np.random.default_rng(seed).integers(0, 10, n)
        self.mean = np.array([0.49, 0.48, 0.45], dtype=np.float32)
        self.std = np.array([0.25, 0.24, 0.26], dtype=np.float32)

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        rng = np.random.default_rng(self.seed * 1_000_003 + idx)
        raw = rng.integers(0, 256, (self.raw_size, self.raw_size, 3), dtype=np.uint8)  # "decode"
        # random crop of 80-100 % of the side, snapped to a multiple of the output size
        side = int(self.raw_size * rng.uniform(0.8, 1.0)) // self.out_size * self.out_size
        y0, x0 = rng.integers(0, self.raw_size - side + 1, 2)
        img = raw[y0:y0 + side, x0:x0 + side].astype(np.float32) / 255.0
        img = np.power(img, 2.2)                                     # sRGB -> linear
        img = img * rng.uniform(0.8, 1.2, 3).astype(np.float32)      # colour jitter
        img = np.clip(img + rng.normal(0, 0.02, img.shape).astype(np.float32), 0.0, 1.0)
        f = side // self.out_size                                   # box-filter resize
        img = img.reshape(self.out_size, f, self.out_size, f, 3).mean(axis=(1, 3))
        if rng.random() < 0.5:
            img = img[:, ::-1]                                       # horizontal flip
        img = (img - self.mean) / self.std
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))), int(self.labels[idx])


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm2d(32), nn.BatchNorm2d(64), nn.BatchNorm2d(128)
        self.fc = nn.Linear(128 * 4 * 4, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.max_pool2d(F.relu(self.bn3(self.conv3(x))), 2)
        return self.fc(torch.flatten(x, 1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--train-size", type=int, default=6144)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--raw-size", type=int, default=176, help="side of the 'decoded' image")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--smoke", action="store_true", help="a few tiny steps (CPU works)")
    args = p.parse_args()
    if args.smoke:
        args.train_size, args.batch_size, args.raw_size, args.log_every = 64, 16, 64, 2

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    train_set = SyntheticPhotos(args.train_size, raw_size=args.raw_size)
    # num_workers=0: __getitem__ runs on this thread, between the training steps
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=0,
                        pin_memory=(device == "cuda"), drop_last=True)

    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()

    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        seen, t0 = 0, time.time()
        for step, (images, labels) in enumerate(loader):
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)

            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()

            seen += images.size(0)
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f} "
                      f"{seen / (time.time() - t0):.0f} img/s", flush=True)
        print(f"epoch {epoch} done: {seen / (time.time() - t0):.0f} img/s", flush=True)
    print(f"total {time.time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
