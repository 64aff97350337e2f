"""Under torch.compile (is_compiling() True) nothing is emitted; after it, ranges again."""
import progutil
import torch

model, crit, opt = progutil.make_model()
x = torch.tensor(1.0, "cuda")
progutil.reset()
torch.compiler._compiling = True
loss = crit(model(x), x)
loss.backward()
opt.step()
loss.item()
compiling = progutil.calls()
torch.compiler._compiling = False
model(x)
progutil.result(compiling=compiling, after=progutil.calls())
