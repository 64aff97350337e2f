"""Exceptions pass unchanged and leave the depths right; results are the wrapped calls' own."""
import torch
from torch import nn

import progutil
import trainscope_py.state as ts_state


class Boom(Exception):
    pass


class Raising(nn.Module):
    def __init__(self, exc):
        super().__init__()
        self.exc = exc
        self.inner = nn.Linear()

    def forward(self, x):
        self.inner(x)
        raise self.exc


class Identity(nn.Module):
    def forward(self, x):
        return x


out = {}
exc = Boom("from forward")
progutil.reset()
try:
    Raising(exc)(torch.tensor(1.0))
except Boom as caught:
    out["same_exception"] = caught is exc
token = object()
out["same_result"] = Identity()(token) is token
out["forward_calls"] = progutil.calls()
out["fwd_depth"] = ts_state.TLS.fwd

_, _, opt = progutil.make_model()


def failing_closure():
    raise RuntimeError("closure failed")


progutil.reset()
try:
    opt.step(failing_closure)
except RuntimeError as err:
    out["step_error"] = str(err)
out["step_result"] = opt.step()
out["opt_calls"] = progutil.calls()
out["opt_depth"] = ts_state.TLS.opt

progutil.reset()
try:
    opt.step(failing_closure)
except RuntimeError:
    pass
Identity()(token)  # the next phase closes the range of the step that raised
opt.step()
out["opt_then_forward_calls"] = progutil.calls()


def lbfgs_like_closure():
    loss = Identity()(torch.tensor(1.0))
    loss.backward()


progutil.reset()
opt.step(lbfgs_like_closure)
out["closure_calls"] = progutil.calls()

progutil.reset()
try:
    torch.tensor(1.0, "cuda").numpy()  # SITE:numpy
except TypeError as err:
    out["numpy_error"] = str(err)
out["numpy_calls"] = progutil.calls()
out["epoch"] = [b.value for b in torch.utils.data.DataLoader([torch.tensor(1.0), torch.tensor(2.0)])]
out["sync_depth"] = ts_state.TLS.sync
call = torch.nn.Module.__call__
out["wrapped"] = [call.__name__, call.__wrapped__.__name__, hasattr(torch.autograd.backward, "__wrapped__"),
                  torch.Tensor.item.__name__, torch.cuda.synchronize.__wrapped__.__module__]
progutil.result(**out)
