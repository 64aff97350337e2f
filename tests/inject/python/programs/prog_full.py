"""--python full: module ranges with qualified names; a module outside the tree by class only."""
import progutil
import torch
from torch import nn

model, crit, opt = progutil.make_model()


class WithStray(nn.Module):
    def forward(self, x):
        return nn.ReLU()(x)


stray = WithStray()
x = torch.tensor(1.0, "cuda")
progutil.reset()
out = model(x)
loss = crit(out, x)
first = progutil.calls()
progutil.reset()
model(x)
again = progutil.calls()
progutil.reset()
stray(x)
stray_calls = progutil.calls()
progutil.result(first=first, again=again, stray=stray_calls)
