"""A manual check of the Python insight against real PyTorch (and a GPU where there is one); not
part of run_tests.sh, which needs no torch. Run from the repository root:

    TRAINSCOPE_PYTHON=lean PYTHONPATH=profiling/inject/python/trainscope_site \
        python3 tests/inject/python/real_torch_check.py

It replaces the NVTX emitters with a recorder after import, then checks: which hooks went in, the
sequence of one AMP training step with a DataLoader (fork and spawn workers), the sync call site,
torch.compile (backend "eager": dynamo traces the wrappers) without graph breaks, a CUDA graph
capture, and the cost of the forward wrapper per module call. Exit 77 without torch, 1 on a failure.
"""
import sys
import time

try:
    import torch
except ImportError:
    print("no torch")
    sys.exit(77)
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import trainscope_py.sink  # noqa: E402
import trainscope_py.state as st  # noqa: E402

LOG, FAILED = [], []


class Sink:
    def __init__(self):
        self.frames, self.stacks, self.samples = {}, {}, []

    def frame(self, frame_id, function, file, line):
        self.frames[frame_id] = function
        return 0

    def stack(self, stack_id, frame_ids):
        self.stacks[stack_id] = [self.frames[f] for f in frame_ids]
        return 0

    def sample(self, tid, steady_ns, stack_id):
        self.samples.append((tid, stack_id))
        return 0


SINK = Sink()
trainscope_py.sink.set_sink(SINK)
# The recorder stands in for torch.cuda.nvtx; the first push still starts the sampler.
st.S.real = (lambda name: LOG.append(("push", name)), lambda: LOG.append(("pop",)),
             lambda name: LOG.append(("mark", name)))
st.S.pop, st.S.mark = st.S.real[1], st.S.real[2]
DEV = "cuda" if torch.cuda.is_available() else "cpu"


def check(what, ok, detail=""):
    print("%s %s %s" % ("ok  " if ok else "FAIL", what, detail))
    if not ok:
        FAILED.append(what)


def pushes():
    return [e[1] for e in LOG if e[0] != "pop"]


def hooks_installed():
    import torch.optim.optimizer as optimizer
    import torch.utils.data.dataloader as dl
    wrapped = {"Module.__call__": nn.Module.__call__, "autograd.backward": torch.autograd.backward,
               "Tensor.item": torch.Tensor.item, "Tensor.to": torch.Tensor.to,
               "DataLoader.__iter__": dl.DataLoader.__iter__,
               "_BaseDataLoaderIter.__next__": dl._BaseDataLoaderIter.__next__,
               "amp.GradScaler.step": torch.amp.GradScaler.step, "cuda.synchronize": torch.cuda.synchronize}
    for name, fn in wrapped.items():
        check("hook " + name, getattr(fn, "__trainscope__", False))
    pre = [h.__name__ for h in optimizer._global_optimizer_pre_hooks.values()]
    check("hook optimizer global pre/post", "optimizer_pre_hook" in pre, str(pre))


def _site_line():
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if line.rstrip().endswith("loss.item()  # SITE"))


def training(context):
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(DEV)
    data = TensorDataset(torch.randn(256, 32), torch.randint(0, 10, (256,)))
    loader = DataLoader(data, batch_size=64, num_workers=2, multiprocessing_context=context)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(DEV)
    del LOG[:]
    for x, y in loader:
        x, y = x.to(DEV), y.to(DEV)
        with torch.autocast(DEV, dtype=torch.float16 if DEV == "cuda" else torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        loss.item()  # SITE
    names = pushes()
    check("training with %s workers: 4 steps" % context, names.count("trainscope:step") == 4, str(names[:12]))
    # The first iteration: the DataLoader's __iter__ (it starts the workers) and __next__ are both
    # `data`; the mode mark comes first only in the run that installed the hooks.
    step = [n for n in names[:names.index("trainscope:step") + 1]
            if not n.startswith("sync: ") and not n.startswith("trainscope:python")]
    check("one iteration's phases",
          step == ["data", "data", "forward", "backward", "optimizer", "trainscope:step"], str(step))
    want = "sync: .item() real_torch_check.py:%d" % _site_line()
    check("sync call site", DEV != "cuda" or want in names, "(want %s)" % want)
    return model, x


def sampled():
    import threading
    main = threading.main_thread().native_id
    in_training = [sid for sid, names in SINK.stacks.items() if "training" in names]
    hits = [s for s in SINK.samples if s[1] in in_training]
    check("stack samples of the main thread inside training()", hits and {t for t, _ in hits} == {main},
          "%d samples, %d in training()" % (len(SINK.samples), len(hits)))


def compiled(model, x):
    import torch._dynamo
    model[0].register_forward_hook(lambda m, i, o: None)  # not short-circuited: dynamo inlines ours
    for label, fn in (("module", model), ("function", lambda t: model(t) * 2)):
        torch._dynamo.reset()
        explain = torch._dynamo.explain(fn)(x)
        check("compile %s: no graph break" % label, explain.graph_break_count == 0,
              str(explain.break_reasons[:2]))
        torch._dynamo.reset()
        del LOG[:]
        torch.compile(fn, backend="eager", fullgraph=True)(x)
        check("compile %s fullgraph" % label, True, str(pushes()))


def graph_capture(model, x):
    if DEV != "cuda":
        return
    static_x = x.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
    g.replay()
    torch.cuda.synchronize()
    check("CUDA graph capture and replay", out.shape[0] == x.shape[0])


def wrapper_cost():
    deep = nn.Sequential(*[nn.Identity() for _ in range(200)])
    x = torch.zeros(1)

    def timed():
        start = time.perf_counter()
        for _ in range(200):
            deep(x)
        return (time.perf_counter() - start) / (200 * 201)
    timed()
    st.S.on = False
    off = min(timed() for _ in range(3))
    st.S.on = True
    on = min(timed() for _ in range(3))
    print("cost: module call %.0f ns without, %.0f ns with the lean wrapper (+%.0f ns)"
          % (off * 1e9, on * 1e9, (on - off) * 1e9))


if __name__ == "__main__":
    print("torch", torch.__version__, "device", DEV, "python", sys.version.split()[0])
    hooks_installed()
    model, x = training("fork")
    training("spawn")
    sampled()
    compiled(model, x)
    graph_capture(model, x)
    wrapper_cost()
    print("FAILED: %s" % FAILED if FAILED else "all ok")
    sys.exit(1 if FAILED else 0)
