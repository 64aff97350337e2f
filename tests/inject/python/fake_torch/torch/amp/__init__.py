"""Fake torch.amp: re-exports (see torch/__init__.py)."""
from .grad_scaler import GradScaler
from . import grad_scaler
