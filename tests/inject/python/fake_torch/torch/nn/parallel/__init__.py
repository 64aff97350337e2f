"""Fake torch.nn.parallel."""
from .distributed import DistributedDataParallel  # noqa: F401
