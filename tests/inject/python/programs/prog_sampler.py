"""Stack samples of the stepping thread through a recording sink (TRAINSCOPE_PYTHON_HZ set)."""
import os
import threading
import time

import progutil
import trainscope_py
import trainscope_py.sink

sink = progutil.RecordingSink()
trainscope_py.sink.set_sink(sink)

import torch  # noqa: E402

model, crit, opt = progutil.make_model()
x = torch.tensor(1.0, "cuda")


def wait_for_samples(n, limit_s=10.0):
    """Sleep until the sink has n more samples (the sampler runs meanwhile), at most limit_s."""
    def count():
        return sum(1 for e in list(sink.events) if e[0] == "sample")
    if os.environ.get("TRAINSCOPE_PYTHON_HZ") == "0":
        return
    goal, end = count() + n, time.monotonic() + limit_s
    while count() < goal and time.monotonic() < end:
        time.sleep(0.01)


def main_marker_leaf():
    wait_for_samples(15)


def main_marker():
    main_marker_leaf()


def deep(n):
    if n:
        return deep(n - 1)
    wait_for_samples(5)


def trainer_marker():
    wait_for_samples(5)


def trainer():
    opt.step()  # this thread becomes the stepping thread
    trainer_marker()


t0 = time.monotonic_ns()
model(x)  # the first range: the sampler starts
main_marker()
deep(70)
worker = threading.Thread(target=trainer, name="trainer")
worker.start()
worker.join()
t1 = time.monotonic_ns()
trainscope_py.current_sampler().stop()
time.sleep(0.05)
progutil.result(events=list(sink.events), t0=t0, t1=t1, main_tid=threading.main_thread().native_id,
                trainer_tid=worker.native_id)
