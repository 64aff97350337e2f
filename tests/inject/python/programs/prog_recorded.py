"""A training loop on the fake torch, long enough for the stack sampler, for the end-to-end test of
trainscope-run -- python3 (tests/inject/test_program_run.cpp): 40 iterations whose dataset spends
~8 ms of Python per item (the main-thread input pipeline), then forward, backward, optimizer.step
and a loss.item() after it."""
import time

import progutil
import torch


class SlowDataset:
    def __iter__(self):
        for i in range(40):
            end = time.perf_counter() + 0.008
            while time.perf_counter() < end:  # SITE:decode
                pass
            yield torch.tensor(float(i)), torch.tensor(1.0)

    def __len__(self):
        return 40


model, crit, opt = progutil.make_model()
loader = torch.utils.data.DataLoader(SlowDataset())
for x, y in loader:
    out = model(x.to("cuda"))
    loss = crit(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running = loss.item()  # SITE:item
print("done")
