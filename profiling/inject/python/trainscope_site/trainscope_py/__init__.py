"""TrainScope's Python insight: NVTX phase ranges, sync call sites and stack samples of an
unmodified PyTorch program (profiling/inject/python/PROTOCOL.md). sitecustomize calls activate().

Owns the order of things: a post-import finder waits for `torch` (never imported by us); when
torch has finished importing, NVTX is resolved, the wrappers go in and the switch goes on; the
sampler starts at the first range the program emits. A forked child (DataLoader workers with
fork) turns everything off; a spawned child runs sitecustomize anew and stays quiet unless it
reaches a hooked call itself.
"""
import os
import sys

from . import importhook, install, nvtx, state
from .sampler import Sampler
from .state import debug

OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # trainscope_site/
DEFAULT_HZ = {"lean": 100.0, "full": 250.0}
MAX_HZ = 1000.0

_finder = None
_sampler = None
_torch = None
_forked = False


def parse_mode(value):
    """TRAINSCOPE_PYTHON -> 'off' (unset, empty, `off`), 'full', else 'lean'."""
    word = (value or "").strip().lower()
    if word in ("", "off"):
        return "off"
    return "full" if word == "full" else "lean"


def sample_hz(mode, value):
    """TRAINSCOPE_PYTHON_HZ (0 = no samples) or the mode's default, at most MAX_HZ."""
    try:
        hz = float(value) if value not in (None, "") else DEFAULT_HZ[mode]
    except ValueError:
        debug("TRAINSCOPE_PYTHON_HZ=%r is not a number: %g Hz" % (value, DEFAULT_HZ[mode]))
        hz = DEFAULT_HZ[mode]
    return max(0.0, min(hz, MAX_HZ))


def activate(mode):
    """Watch for torch (or hook it now when it is already imported). Idempotent."""
    global _finder, _sampler
    if _finder is not None or mode not in DEFAULT_HZ:
        return
    state.S.mode = mode
    _sampler = Sampler(sample_hz(mode, os.environ.get("TRAINSCOPE_PYTHON_HZ")), OWN_DIR)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
    _finder = importhook.PostImportFinder(_on_import)
    torch = sys.modules.get("torch")
    if torch is not None and not getattr(getattr(torch, "__spec__", None), "_initializing", False):
        _on_torch(torch)
    else:
        _finder.watch("torch")
    _finder.install()


def current_sampler():
    """The process's sampler (tests read its counters)."""
    return _sampler


def _after_fork_in_child():
    global _forked
    _forked = True
    state.switch_off()
    if _sampler is not None:
        _sampler.stop()


def _on_import(name, module):
    if _forked:
        return
    if name == "torch":
        _on_torch(module)
    elif _torch is not None:
        install.install_module(_torch, name)


def _on_torch(torch):
    global _torch
    if _torch is not None:
        return
    _torch = torch
    emitters = nvtx.resolve(torch)
    if emitters is None:
        return  # no NVTX in this torch: leave it untouched
    install.configure(torch, OWN_DIR)
    state.switch_on(state.S.mode, *emitters, on_first_event=_sampler.start)
    install.install_ready(torch, _finder.watch)
