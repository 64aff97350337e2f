"""Fake torch.optim: re-exports (see torch/__init__.py)."""
from .optimizer import Optimizer, SGD
from . import optimizer
