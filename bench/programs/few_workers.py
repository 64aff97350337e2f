"""Two DataLoader workers feeding a CNN that is faster than they are.

Bottleneck: each image costs ~0.1 ms of numpy in the workers (a 64x64 "decode", random crop, flip,
brightness, normalise) plus collation and the hand-over to the main process, so two worker
processes deliver ~11-14k images a second while the model could take ~90k (H200, eager): the
training loop waits in the DataLoader's next() for most of each step. The fix is more workers
(or the augmentation on the GPU), not a different model.

EXPECT: input_bound
NOT: launch_bound, sync_bound

Runs ~22 s on an H200 (--epochs 4 of 32768 images); --smoke runs a few tiny steps, on the CPU if
needed.
"""
import argparse
import logging
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("train")


class AugmentedImages(Dataset):
    def __init__(self, n, raw_size=64, crop=56, out=32, seed=0):
        self.n, self.raw, self.crop, self.out, self.seed = n, raw_size, crop, out, seed
        self.targets = np.random.default_rng(seed).integers(0, 10, n)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng((self.seed, i))
        img = rng.integers(0, 256, (self.raw, self.raw, 3), dtype=np.uint8)   # stands in for decoding
        y, x = rng.integers(0, self.raw - self.crop + 1, 2)
        img = img[y:y + self.crop, x:x + self.crop].astype(np.float32)
        if rng.random() < 0.5:
            img = img[:, ::-1]
        img = img * (rng.uniform(0.7, 1.3) / 255.0)
        # nearest-neighbour resize to 32x32
        idx = (np.arange(self.out) * self.crop) // self.out
        img = img[idx][:, idx]
        img = (img - 0.5) / 0.25
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))), int(self.targets[i])


def make_model(width=64, num_classes=10):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True), nn.MaxPool2d(2))
    return nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, num_classes))


def train_one_epoch(model, loader, optimizer, criterion, device, epoch, log_every):
    model.train()
    t0, n = time.perf_counter(), 0
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        n += x.shape[0]
        if step % log_every == 0:
            log.info("epoch %d step %d loss %.3f", epoch, step, loss.item())
    dt = time.perf_counter() - t0
    log.info("epoch %d: %.1f s, %.0f img/s", epoch, dt, n / dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--train-size", type=int, default=32768)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.smoke:
        args.epochs, args.train_size, args.batch_size, args.log_every = 1, 128, 32, 2

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    loader = DataLoader(AugmentedImages(args.train_size), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.num_workers, pin_memory=device == "cuda",
                        persistent_workers=args.num_workers > 0, drop_last=True)
    model = make_model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    log.info("device %s, %d images, batch %d, %d workers", device, args.train_size, args.batch_size,
             args.num_workers)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, criterion, device, epoch, args.log_every)


if __name__ == "__main__":
    main()
