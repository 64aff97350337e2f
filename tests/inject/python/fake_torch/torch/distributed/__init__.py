"""Fake torch.distributed: the c10d functions re-exported from distributed_c10d (torch does
`from .distributed_c10d import *`, so each function has two names), and Work."""
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import CALLS, GradBucket, Work  # noqa: F401
