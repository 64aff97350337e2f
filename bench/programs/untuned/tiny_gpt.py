"""A character-level GPT the way small language-model scripts are written (nanoGPT's shape): token and
position embeddings, 4 pre-norm transformer blocks (causal self-attention through
F.scaled_dot_product_attention, a GELU MLP), AdamW with weight decay on the matrices only, a cosine
learning-rate schedule with warm-up, gradient clipping at 1.0, batches of 16 sequences of 128 tokens
sliced from a random uint16 corpus in host memory (pinned, non_blocking copies), and the loss printed
every 50 iterations.

This program was written after the rules were fixed and was not used to tune any of them:
bench/programs/README.md says how it is recorded and bench/RESULTS.md what TrainScope said about it.
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, block_size, n_layer=4, n_head=4, n_embd=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab, bias=False)

    def forward(self, idx, targets=None):
        T = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def get_lr(it, warmup, max_iters, lr):
    if it < warmup:
        return lr * (it + 1) / warmup
    ratio = (it - warmup) / max(1, max_iters - warmup)
    return 0.1 * lr + 0.45 * lr * (1 + math.cos(math.pi * ratio))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=1500)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--block-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--smoke", action="store_true", help="a few iterations (CPU works)")
    args = p.parse_args()
    if args.smoke:
        args.iters = 5
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(1337)
    vocab = 65
    data = np.random.default_rng(0).integers(0, vocab, 1_000_000, dtype=np.uint16)

    def get_batch():
        ix = torch.randint(len(data) - args.block_size - 1, (args.batch_size,))
        x = torch.stack([torch.from_numpy(data[i:i + args.block_size].astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + args.block_size].astype(np.int64)) for i in ix])
        if device == "cuda":
            return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
        return x, y

    model = GPT(vocab, args.block_size).to(device)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    t0 = time.time()
    for it in range(args.iters):
        for g in opt.param_groups:
            g["lr"] = get_lr(it, 100, args.iters, args.lr)
        x, y = get_batch()
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if it % 50 == 0 or it == args.iters - 1:
            dt = time.time() - t0
            print(f"iter {it}: loss {loss.item():.4f}, {dt * 1000 / max(1, it):.1f} ms/iter", flush=True)
    print(f"done in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
