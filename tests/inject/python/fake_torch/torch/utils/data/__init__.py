"""Fake torch.utils.data: re-exports (see torch/__init__.py)."""
from .dataloader import DataLoader
from ._utils.worker import get_worker_info
from . import dataloader
