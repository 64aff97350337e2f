"""Spawned children run sitecustomize anew: they do not break and stay quiet; a DataLoader worker
that calls a module (a transform) emits nothing and starts no sampler."""
import multiprocessing
import threading

import progutil


def child(queue, as_worker):
    import torch
    if as_worker:
        torch.utils.data._utils.worker._worker_info = object()
        torch.nn.ReLU()(torch.tensor(1.0))
    queue.put({"calls": progutil.calls(), "threads": [t.name for t in threading.enumerate()],
               "hooked": hasattr(torch.nn.Module.__call__, "__wrapped__")})


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    results = []
    for as_worker in (False, True):
        queue = ctx.Queue()
        p = ctx.Process(target=child, args=(queue, as_worker))
        p.start()
        results.append(queue.get(timeout=60))
        p.join(60)
        results[-1]["exitcode"] = p.exitcode
    progutil.result(children=results)
