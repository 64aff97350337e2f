"""Fake torch.cuda: synchronize() and nvtx; torch.cuda.amp is imported lazily (as a program would
import it), so the hooks' post-import path is exercised."""
from . import nvtx

SYNCS = []


def synchronize(device=None):
    SYNCS.append(device)


def _internal_sync():
    return synchronize()
