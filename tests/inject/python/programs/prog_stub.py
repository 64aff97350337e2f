"""A torch without usable NVTX (CPU build): torch is left untouched and the program runs.
An argument: seconds to wait after the first range (the sampler thread's start-up is seen)."""
import sys
import time

import progutil
import torch

model, crit, opt = progutil.make_model()
out = model(torch.tensor(2.0, "cuda"))
opt.step()
time.sleep(float(sys.argv[1]) if sys.argv[1:] else 0)
progutil.result(value=out.value, wrapped=hasattr(torch.nn.Module.__call__, "__wrapped__"))
