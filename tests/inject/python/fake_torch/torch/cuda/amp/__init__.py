"""Fake torch.cuda.amp: re-exports (see torch/__init__.py)."""
from .grad_scaler import GradScaler
