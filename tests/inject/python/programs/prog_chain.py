"""The sitecustomize ours hides still ran (its marker), and ours still hooks torch."""
import sitecustomize

import progutil
import torch

model, crit, opt = progutil.make_model()
progutil.reset()
model(torch.tensor(1.0))
progutil.result(user_mark=getattr(sitecustomize, "USER_MARK", None), calls=progutil.calls())
