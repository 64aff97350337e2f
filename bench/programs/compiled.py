"""torch.compile (default mode) of a small CNN, fed by a 4-worker DataLoader over in-memory tensors.

What to expect: the first step is compilation (Dynamo + Inductor: ~15 s of host work with no GPU
activity; --analyze leaves step 1 out as its warm-up step). After
that the compiled model runs fused Triton kernels (BN + ReLU, pooling) and cuDNN convolutions, far
fewer launches than eager. Default-mode compile does not use CUDA graphs, so a narrow CNN at a small
batch would stay launch-bound; this one is wide (128-512 channels) and trains at batch 512, where a
step is ~4 ms of kernels, mostly TF32 convolutions, against ~70 median-7 us kernels to launch: not
launch-bound, and nothing syncs. What a fair judge must allow: four workers over an in-memory
TensorDataset deliver ~120k img/s on the H200's host when nothing else runs, and the training
(~70k img/s) is close enough to that, with the loader restarting every epoch, that a data wait of
5-10 % (input_bound moderate) is a true finding; the ~2 ms of host work per step of the compiled
wrappers may also show as host time. What it must say: this fp32 conv run is AMP-eligible.

EXPECT: amp_eligible
NOT: launch_bound, sync_bound

Runs ~50 s on an H200: start-up and compilation (~25 s) + ~15 s of training (--epochs 20 of 50000
images); --smoke runs a few tiny steps (on the CPU with the aot_eager backend: no C++ compiler needed).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class CNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 128, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(128)
        self.conv2 = nn.Conv2d(128, 256, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(256)
        self.conv3 = nn.Conv2d(256, 512, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(512)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.relu(self.bn3(self.conv3(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(F.dropout(x, 0.2, self.training))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--train-size", type=int, default=50000)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--num-workers", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.epochs, args.train_size, args.batch_size, args.num_workers = 1, 128, 32, 2

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    # the whole data set in host memory, normalised once
    images = (torch.randint(0, 256, (args.train_size, 3, 32, 32), dtype=torch.uint8).float() / 255 - 0.5) / 0.25
    labels = torch.randint(0, 10, (args.train_size,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.num_workers, pin_memory=device == "cuda",
                        persistent_workers=True, drop_last=True)  # drop_last: one shape, one graph

    model = CNN().to(device)
    backend = "inductor" if device == "cuda" else "aot_eager"
    model = torch.compile(model, backend=backend)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        model.train()
        t0, total_loss, n = time.time(), torch.zeros((), device=device), 0
        for i, (x, y) in enumerate(loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            total_loss += loss.detach()
            n += 1
            if epoch == 0 and i == 0:
                print(f"first step (compilation) took {time.time() - t0:.1f} s", flush=True)
        dt = time.time() - t0
        print(f"epoch {epoch}: loss {total_loss.item() / n:.4f}, {n * args.batch_size / dt:.0f} img/s, "
              f"{dt:.1f} s", flush=True)


if __name__ == "__main__":
    main()
