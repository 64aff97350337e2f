"""TRAINSCOPE_PYTHON unset/off: torch is left as it is, nothing is emitted, no thread runs."""
import sys
import threading

import progutil
import torch

model, crit, opt = progutil.make_model()
x = torch.tensor(1.0, "cuda")
loss = crit(model(x), x)
loss.backward()
opt.step()
loss.item()
progutil.result(calls=progutil.calls(), wrapped=hasattr(torch.nn.Module.__call__, "__wrapped__"),
                loaded="trainscope_py" in sys.modules, threads=[t.name for t in threading.enumerate()],
                finders=[type(f).__name__ for f in sys.meta_path])
