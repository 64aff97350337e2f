"""The real ctypes path against a small stand-in library (CUDA_INJECTION64_PATH names it)."""
import ctypes
import os
import time

import progutil
import torch

model, crit, opt = progutil.make_model()
lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])  # loaded, as the CUDA driver would have
model(torch.tensor(1.0, "cuda"))  # first range: the sampler starts and opens the library
end = time.monotonic() + 10
while lib.fake_count(2) < 10 and time.monotonic() < end:
    time.sleep(0.01)
counts = [lib.fake_count(i) for i in range(3)]
progutil.result(frames=counts[0], stacks=counts[1], samples=counts[2], bad=lib.fake_count(3))
