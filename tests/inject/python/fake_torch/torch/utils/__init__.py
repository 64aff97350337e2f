"""Fake torch.utils: re-exports (see torch/__init__.py)."""
from . import data
