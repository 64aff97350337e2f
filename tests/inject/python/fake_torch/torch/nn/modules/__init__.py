"""Fake torch.nn.modules: re-exports (see torch/__init__.py)."""
from .module import Module
