"""torch imported before activate(): the hooks go in at once."""
import progutil
import torch

import trainscope_py

trainscope_py.activate("lean")
model, crit, opt = progutil.make_model()
progutil.reset()
model(torch.tensor(1.0))
opt.step()
progutil.result(calls=progutil.calls())
