"""Writes the PyTorch reference state of the seed's SimpleCNN for TrainScope's engine tests.

Same initial weights and batch -> logits, loss, every gradient, and the parameters after one Adam
step (lr 1e-3, PyTorch defaults). Dropout is off (p = 0) and TF32 is off, so the reference is plain
fp32. Run it on the GPU machine, in the same run as the test that reads it (the file is ~26 MB and is
never committed):
    python3 tests/reference/make_reference.py OUT.bin [--batch 64] [--seed 0]
    TRAINSCOPE_REFERENCE_FILE=OUT.bin ts_gpu_tests --gtest_filter='PyTorchReference*'

File layout (little-endian):
    magic    8 bytes  b"TSREF\\0\\0\\0"
    version  uint32   1
    count    uint32   number of tensors
    count x: uint32 name length, name (UTF-8), uint32 ndim, int64 dims[ndim], float32 data[prod(dims)]
Tensor names: input [N,3,32,32], labels [N] (as float), init.<param>, logits [N,10], loss [1],
grad.<param>, after_adam.<param>; <param> as in SimpleCNN.named_parameters() (conv1.weight, ...).
"""
import argparse, struct
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F

MAGIC, VERSION = b"TSREF\0\0\0", 1


class SimpleCNN(nn.Module):  # the seed's model (../shared/bench/pytorch_seed_cnn.py), dropout p = 0
    def __init__(s):
        super().__init__()
        s.conv1 = nn.Conv2d(3, 32, 3, padding=1); s.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        s.pool = nn.MaxPool2d(2, 2); s.fc1 = nn.Linear(64 * 8 * 8, 512); s.fc2 = nn.Linear(512, 10)
        s.dropout = nn.Dropout(0.0)

    def forward(s, x):
        x = s.pool(F.relu(s.conv1(x))); x = s.pool(F.relu(s.conv2(x)))
        x = torch.flatten(x, 1); x = F.relu(s.fc1(x)); x = s.dropout(x); return s.fc2(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out"); ap.add_argument("--batch", type=int, default=64); ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(a.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    m = SimpleCNN().to(dev)
    rng = np.random.default_rng(a.seed)
    x = torch.tensor(rng.integers(0, 256, (a.batch, 3, 32, 32)).astype(np.float32) / 127.5 - 1.0, device=dev)
    y = torch.tensor(rng.integers(0, 10, a.batch), device=dev)
    tensors = [("input", x), ("labels", y.float())]
    tensors += [(f"init.{n}", p.detach().clone()) for n, p in m.named_parameters()]
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    m.train(); opt.zero_grad()
    logits = m(x); loss = nn.CrossEntropyLoss()(logits, y); loss.backward()
    tensors += [("logits", logits.detach()), ("loss", loss.detach().reshape(1))]
    tensors += [(f"grad.{n}", p.grad.detach().clone()) for n, p in m.named_parameters()]
    opt.step()
    tensors += [(f"after_adam.{n}", p.detach().clone()) for n, p in m.named_parameters()]
    with open(a.out, "wb") as f:
        f.write(MAGIC); f.write(struct.pack("<II", VERSION, len(tensors)))
        for name, t in tensors:
            arr = t.detach().float().cpu().contiguous().numpy()
            nb = name.encode()
            f.write(struct.pack("<I", len(nb))); f.write(nb)
            f.write(struct.pack("<I", arr.ndim)); f.write(struct.pack(f"<{arr.ndim}q", *arr.shape))
            f.write(arr.astype("<f4").tobytes())
    print(f"wrote {a.out}: {len(tensors)} tensors, loss {loss.item():.6f}, device {dev}, torch {torch.__version__}")


if __name__ == "__main__":
    main()
