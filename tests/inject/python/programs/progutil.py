"""Helpers of the test programs (each is run as `python3 PROGRAM` with the package on PYTHONPATH):
the RESULT line the tests parse, the fake torch's NVTX log, a small model and a recording sink."""
import json
import sys


def result(**values):
    sys.stdout.write("RESULT:" + json.dumps(values) + "\n")
    sys.stdout.flush()


def calls():
    """The NVTX calls, without the once-per-process `trainscope:python MODE` mark (insight_marks())."""
    import torch
    return [list(c) for c in torch.cuda.nvtx.CALLS if not is_insight_mark(c)]


def is_insight_mark(c):
    return c[0] == "mark" and str(c[1]).startswith("trainscope:python ")


def all_calls():
    import torch
    return [list(c) for c in torch.cuda.nvtx.CALLS]


def reset():
    import torch
    del torch.cuda.nvtx.CALLS[:]


def make_model():
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(), nn.Sequential(nn.ReLU()))

        def forward(self, x):
            return self.body(x)

    return Net(), nn.MSELoss(), torch.optim.SGD([object()])


class RecordingSink:
    """Stands for the library's trainscope_py_* entry points: every call in order, in `events`."""

    def __init__(self):
        self.events = []

    def frame(self, frame_id, function, file, line):
        self.events.append(["frame", frame_id, function, file, line])
        return 0

    def stack(self, stack_id, frame_ids):
        self.events.append(["stack", stack_id, list(frame_ids)])
        return 0

    def sample(self, tid, steady_ns, stack_id):
        self.events.append(["sample", tid, steady_ns, stack_id])
        return 0
