"""A CNN trained on GPU-resident data that reads the loss and a metric back every step.

Bottleneck: host<->device synchronisations every step, as in many tutorial loops:
  * `running_loss += loss.item()`: the host blocks until the step's kernels have run;
  * `batch_acc = ... .cpu()` for a per-step accuracy list, and a per-class accuracy loop that
    calls `.sum().item()` (and boolean-mask indexing, which syncs too) for each of the 10 classes:
    ~30 small round trips a step while the GPU, drained, has nothing queued;
  * a per-step mixup coefficient tensor built on the CPU and copied with `.to(device)` from pageable
    memory (PyTorch waits for the copy to finish).
At batch 1024 a step is a few ms of GPU work, more than the host needs to launch it, so without the
syncs the host would run ahead and the GPU would stay busy; with them the GPU idles after every
step while the host waits on one tiny copy after another.
(The per-class loop is the sync that costs the most GPU idle; loss.item() itself mostly waits
while the GPU is still busy.)

EXPECT: sync_bound
NOT: input_bound
HOST_FRAME: expected at .sum().item()

Runs ~22 s on an H200 (--epochs 40 of 50000 images, ~150k img/s); --smoke runs a few tiny steps,
on the CPU if needed.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class DeviceDataset:
    """The whole (synthetic) training set as two tensors on the device, iterated in shuffled batches."""

    def __init__(self, n, device, batch_size, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randn(n, 3, 32, 32, generator=g).to(device)
        self.labels = torch.randint(0, 10, (n,), generator=g).to(device)
        self.batch_size = batch_size

    def __len__(self):
        return len(self.labels) // self.batch_size

    def __iter__(self):
        perm = torch.randperm(len(self.labels), device=self.images.device)
        for i in range(len(self)):
            idx = perm[i * self.batch_size:(i + 1) * self.batch_size]
            yield self.images[idx], self.labels[idx]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * 8 * 8, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--train-size", type=int, default=50000)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--mixup-alpha", type=float, default=0.2)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.epochs, args.train_size, args.batch_size = 1, 256, 32

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    data = DeviceDataset(args.train_size, device, args.batch_size)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = np.random.default_rng(0)

    for epoch in range(args.epochs):
        model.train()
        running_loss, accs, t0 = 0.0, [], time.time()
        class_correct, class_total = [0] * 10, [0] * 10
        for inputs, targets in data:
            # mixup with a per-sample coefficient drawn on the host
            lam = torch.from_numpy(rng.beta(args.mixup_alpha, args.mixup_alpha, len(targets)).astype(np.float32))
            lam = lam.to(device).view(-1, 1, 1, 1)
            perm = torch.randperm(len(targets), device=device)
            mixed = lam * inputs + (1 - lam) * inputs[perm]

            optimizer.zero_grad()
            outputs = model(mixed)
            lam1 = lam.view(-1)
            loss = (lam1 * F.cross_entropy(outputs, targets, reduction="none")
                    + (1 - lam1) * F.cross_entropy(outputs, targets[perm], reduction="none")).mean()
            loss.backward()
            optimizer.step()

            running_loss += loss.item()
            preds = outputs.argmax(dim=1)
            batch_acc = (preds == targets).float().mean().cpu()
            accs.append(float(batch_acc))
            for c in range(10):
                mask = targets == c
                class_correct[c] += (preds[mask] == c).sum().item()
                class_total[c] += mask.sum().item()

        n = len(data)
        per_class = [k / max(t, 1) for k, t in zip(class_correct, class_total)]
        print(f"[epoch {epoch + 1}/{args.epochs}] loss {running_loss / n:.4f} acc {sum(accs) / n:.3f} "
              f"worst class {min(per_class):.3f} "
              f"({n * args.batch_size / (time.time() - t0):.0f} img/s)", flush=True)


if __name__ == "__main__":
    main()
