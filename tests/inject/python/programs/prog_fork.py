"""A forked child (a DataLoader worker with fork) emits nothing and runs no sampler."""
import json
import os
import threading

import progutil
import torch

import trainscope_py

model, crit, opt = progutil.make_model()
x = torch.tensor(1.0, "cuda")
model(x)  # the parent's first range starts its sampler
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    progutil.reset()
    loss = crit(model(x), x)
    loss.backward()
    opt.step()
    loss.item()
    child = {"calls": progutil.calls(), "threads": [t.name for t in threading.enumerate()],
             "on": trainscope_py.state.S.on}
    os.write(w, json.dumps(child).encode())
    os._exit(0)
os.close(w)
with os.fdopen(r) as f:
    child = json.loads(f.read())
_, status = os.waitpid(pid, 0)
progutil.reset()
model(x)
progutil.result(child=child, child_status=status, parent_calls=progutil.calls(),
                parent_threads=[t.name for t in threading.enumerate()])
