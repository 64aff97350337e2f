"""ResNet-18 (torchvision, CIFAR stem) trained under bf16 autocast on GPU-resident data.

Bottleneck: none in particular; the convolutions run as bf16 tensor-core kernels because of
torch.autocast("cuda", dtype=torch.bfloat16). The script tells the profiler nothing about AMP:
TrainScope has to see from the kernels (bf16 GEMM/conv names, no fp32 SGEMM) that mixed precision is
already on, and must not advise turning it on. (Whether ~400 launches a step leave the GPU waiting on
a slow host is not what this program checks, so launch_bound / host_bound are allowed.)

EXPECT: (none required: this program is about the AMP verdict)
NOT: amp_eligible, input_bound, sync_bound

Runs ~22 s on an H200 (--steps 1100, ~20k img/s); --smoke runs a few tiny steps, on the CPU if needed.
"""
import argparse
import time

import torch
import torch.nn as nn
import torchvision


def cifar_resnet18(num_classes=10):
    """torchvision's resnet18 with the usual CIFAR changes: 3x3 stem, no max-pool."""
    model = torchvision.models.resnet18(num_classes=num_classes)
    model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1100)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--train-size", type=int, default=50000)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.steps, args.batch_size, args.train_size, args.log_every = 3, 8, 64, 1

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True

    # synthetic CIFAR-10, kept on the device as uint8 like the real thing
    images = torch.randint(0, 256, (args.train_size, 3, 32, 32), dtype=torch.uint8, device=device)
    labels = torch.randint(0, 10, (args.train_size,), device=device)
    mean = torch.tensor([0.4914, 0.4822, 0.4465], device=device).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.2470, 0.2435, 0.2616], device=device).view(1, 3, 1, 1) * 255

    model = cifar_resnet18().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.steps)
    criterion = nn.CrossEntropyLoss()

    model.train()
    t0 = time.time()
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, args.train_size, (args.batch_size,), device=device)
        x = (images[idx].float() - mean) / std
        y = labels[idx]
        if torch.rand(()) < 0.5:  # batch-level horizontal flip
            x = x.flip(3)

        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()

        if step % args.log_every == 0:
            print(f"step {step}/{args.steps} loss {loss.item():.3f} "
                  f"{step * args.batch_size / (time.time() - t0):.0f} img/s", flush=True)
    print(f"finished in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
