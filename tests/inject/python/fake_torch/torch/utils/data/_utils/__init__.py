"""Fake torch.utils.data._utils: re-exports (see torch/__init__.py)."""
from . import worker
