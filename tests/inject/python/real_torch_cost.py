"""A manual measurement on real PyTorch: the cost of the lean forward wrapper per module call
(against torch's own Module.__call__, in the same process) with the stack sampler running. Run as real_torch_check.py says (TRAINSCOPE_PYTHON=lean,
the package first on PYTHONPATH); TRAINSCOPE_PYTHON_HZ picks the sampler's rate. Exit 77 without
torch."""
import sys
import time

try:
    import torch
except ImportError:
    sys.exit(77)
from torch import nn  # noqa: E402

import trainscope_py  # noqa: E402
import trainscope_py.sink  # noqa: E402
import trainscope_py.state as st  # noqa: E402


class Sink:
    def frame(self, *args):
        return 0

    def stack(self, *args):
        return 0

    def sample(self, *args):
        return 0


trainscope_py.sink.set_sink(Sink())
st.S.real = (lambda name: None, lambda: None, lambda name: None)
st.S.pop, st.S.mark = st.S.real[1], st.S.real[2]
deep = nn.Sequential(*[nn.Identity() for _ in range(200)])
x = torch.zeros(1)


def per_call():
    start = time.perf_counter()
    for _ in range(100):
        deep(x)
    return (time.perf_counter() - start) / (100 * 201) * 1e9


WRAPPED = nn.Module.__call__


def best(on, wrapped=True):
    st.S.on = on
    nn.Module.__call__ = WRAPPED if wrapped else WRAPPED.__wrapped__
    value = min(per_call() for _ in range(5))
    st.S.on = True
    nn.Module.__call__ = WRAPPED
    return value


deep(x)  # the first range: the sampler starts (unless TRAINSCOPE_PYTHON_HZ=0)
time.sleep(0.05)
for _ in range(3):
    bare, off, on = best(True, wrapped=False), best(False), best(True)
    print("ns per module call: torch's own %.0f, wrapper switched off %.0f, on %.0f (+%.0f); samples %d"
          % (bare, off, on, on - bare, trainscope_py.current_sampler().samples))
