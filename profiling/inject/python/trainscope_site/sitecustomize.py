"""TrainScope's sitecustomize: trainscope-run puts this folder first on PYTHONPATH, so Python's site
module imports this file at start-up (profiling/inject/python/PROTOCOL.md).

Owns start-up only: with TRAINSCOPE_PYTHON=lean|full it activates the trainscope_py package, which
waits for the program's own `import torch`. Whatever the mode, it then takes this folder back out
of sys.path (when TRAINSCOPE_PY_PREV_PATH says the runner put it there) and runs the sitecustomize
that this one hides, the next one on sys.path, under the name `sitecustomize`, reporting its errors
as Python's site module does. Unset or `off`: nothing else happens.
"""
import os as _os
import sys as _sys

_HERE = _os.path.dirname(_os.path.abspath(__file__))


def _is_here(entry):
    try:
        return bool(entry) and _os.path.realpath(entry) == _os.path.realpath(_HERE)
    except (TypeError, ValueError):
        return False


def _restore_sys_path():
    """The program's sys.path without this folder (the runner's PYTHONPATH keeps it, for children)."""
    if "TRAINSCOPE_PY_PREV_PATH" in _os.environ:
        _sys.path[:] = [p for p in _sys.path if not _is_here(p)]


def _activate():
    mode = _os.environ.get("TRAINSCOPE_PYTHON", "")
    if mode.strip().lower() in ("", "off"):
        return
    try:
        import trainscope_py
        trainscope_py.activate(trainscope_py.parse_mode(mode))
    except Exception as err:  # the program runs unprofiled rather than not at all
        if _os.environ.get("TRAINSCOPE_DEBUG"):
            _sys.stderr.write("trainscope-py: not active: %r\n" % (err,))


def _report(err):
    """As site.execsitecustomize reports an error of sitecustomize."""
    if _sys.flags.verbose:
        _sys.excepthook(*_sys.exc_info())
    else:
        _sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                          "%s: %s\n" % (err.__class__.__name__, err))


def _chain():
    """Run the sitecustomize later on sys.path (the user's or the distribution's), if any."""
    from importlib.machinery import PathFinder
    import importlib.util
    ours = _sys.modules.get("sitecustomize")
    try:
        spec = PathFinder.find_spec("sitecustomize", [p for p in _sys.path if not _is_here(p)])
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        _sys.modules["sitecustomize"] = module  # `import sitecustomize` then gives the user's
        spec.loader.exec_module(module)
    except Exception as err:
        if ours is not None:
            _sys.modules["sitecustomize"] = ours
        if not (isinstance(err, ImportError) and err.name == "sitecustomize"):
            _report(err)


_activate()
_restore_sys_path()
_chain()
