"""A VGG-style CNN at batch 1024 under bf16 autocast, data on the GPU: a well-fed GPU.

No bottleneck to report: each step is several ms of large bf16 convolutions, the host queues work
far ahead of the GPU (no per-step .item(); the loss is summed on the device and read every 100
steps), there is no DataLoader and no host-to-device copy in the loop. The GPU should be busy almost
all the time.

EXPECT: (none of the bottlenecks)
NOT: input_bound, sync_bound, launch_bound, host_bound, low_utilization, amp_eligible

Runs ~23 s on an H200 (--epochs 12 of 65536 images, ~60k img/s); --smoke runs a few tiny steps,
on the CPU if needed.
"""
import argparse
import time

import torch
import torch.nn as nn


def conv_bn(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class VGGish(nn.Module):
    def __init__(self, num_classes=10, width=64):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            *conv_bn(3, w), *conv_bn(w, w), nn.MaxPool2d(2),
            *conv_bn(w, 2 * w), *conv_bn(2 * w, 2 * w), nn.MaxPool2d(2),
            *conv_bn(2 * w, 4 * w), *conv_bn(4 * w, 4 * w), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--train-size", type=int, default=65536)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.epochs, args.train_size, args.batch_size, args.log_every = 1, 64, 16, 2

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    # synthetic data set, generated straight on the device
    x_all = torch.randn(args.train_size, 3, 32, 32, device=device)
    y_all = torch.randint(0, 10, (args.train_size,), device=device)
    steps_per_epoch = args.train_size // args.batch_size

    model = VGGish().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    criterion = nn.CrossEntropyLoss()

    step = 0
    running = torch.zeros((), device=device)
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(args.train_size, device=device)
        for i in range(steps_per_epoch):
            idx = perm[i * args.batch_size:(i + 1) * args.batch_size]
            x, y = x_all[idx], y_all[idx]

            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()

            running += loss.detach()
            step += 1
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} mean loss {running.item() / args.log_every:.4f} "
                      f"{step * args.batch_size / (time.time() - start):.0f} img/s", flush=True)
                running.zero_()
    print(f"{step} steps, {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
