"""A training script the way many are written to "measure speed": a small ResNet-style CNN on
CIFAR-sized tensors from a TensorDataset (DataLoader, 2 workers, pin_memory), batch 128, Adam, and a
per-iteration timer that calls torch.cuda.synchronize() before reading time.perf_counter(), logging
loss.item() and the iteration's milliseconds every 20 steps. Random data stands in for CIFAR-10.

This program was written after the rules were fixed and was not used to tune any of them:
bench/programs/README.md says how it is recorded and bench/RESULTS.md what TrainScope said about it.
"""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.short(x))


class SmallResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.layers = nn.Sequential(Block(32, 32, 1), Block(32, 64, 2), Block(64, 128, 2))
        self.head = nn.Linear(128, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--images", type=int, default=20000)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--smoke", action="store_true")
    args = p.parse_args()
    if args.smoke:
        args.images, args.epochs = 256, 1

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(args.images, 3, 32, 32)
    y = torch.randint(0, 10, (args.images,))
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, num_workers=2,
                        pin_memory=device.type == "cuda")
    model = SmallResNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        model.train()
        for i, (xb, yb) in enumerate(loader):
            t0 = time.perf_counter()
            xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            if device.type == "cuda":
                torch.cuda.synchronize()  # so the timer measures the GPU's work too
            ms = (time.perf_counter() - t0) * 1000
            if i % 20 == 0:
                print(f"epoch {epoch} iter {i} loss {loss.item():.3f} {ms:.1f} ms/iter", flush=True)


if __name__ == "__main__":
    main()
