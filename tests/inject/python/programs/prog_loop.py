"""A training loop on the fake torch: the NVTX sequence of data/forward/backward/optimizer/step
and the sync call sites (SITE: markers name the lines the tests expect)."""
import progutil
import torch
from torch import nn


class Transforming:
    """A dataset whose items pass through a module (as torchvision v2 transforms are modules)."""

    def __init__(self, items):
        self.items, self.transform = items, nn.ReLU()

    def __iter__(self):
        return (self.transform(x) for x in self.items)

    def __len__(self):
        return len(self.items)


model, crit, opt = progutil.make_model()
pairs = [(torch.tensor(1.0), torch.tensor(2.0)), (torch.tensor(3.0), torch.tensor(4.0))]
loader = torch.utils.data.DataLoader(Transforming(pairs))
progutil.reset()
for x, y in loader:
    out = model(x.to("cuda"))
    loss = crit(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running = loss.item()  # SITE:item
loop_calls = progutil.calls()
insight = [c for c in progutil.all_calls() if progutil.is_insight_mark(c)]
first = progutil.all_calls()[0]

progutil.reset()
cpu = torch.tensor(5.0)
cpu.item(), cpu.cpu(), cpu.tolist(), cpu.to("cpu"), cpu.numpy()
cpu_calls = progutil.calls()

progutil.reset()
g = torch.tensor(6.0, "cuda")
g.cpu()  # SITE:cpu
g.tolist()  # SITE:tolist
g.to("cpu")  # SITE:to
g.to(torch.device("cpu"))  # SITE:to_device
g.to(device="cpu")  # SITE:to_kw
g.to(cpu)  # SITE:to_tensor
g.to("cpu", non_blocking=True)
g.to("cuda")
g.numpy(force=True)  # SITE:numpy
torch.cuda.synchronize()  # SITE:sync
torch._utils.read_scalar(g)  # SITE:internal
sync_calls = progutil.calls()

progutil.result(loop=loop_calls, cpu=cpu_calls, sync=sync_calls, running=running, insight=insight, first=first)
