"""Run a callback when a module has finished importing, without importing it ourselves.

Owns a sys.meta_path finder (first in the list) that answers only for the watched names: it asks
the finders after it for the real spec, then makes that spec's loader call back after its
exec_module returned. The callback runs once the module is complete (a failed import calls
nothing, and the name stays watched for a retry). The loader keeps its type: the wrapped
exec_module is an attribute of that loader object alone, removed after use; a loader that takes no
attributes is wrapped in a small proxy instead. For every other import the finder costs one set
look-up and returns None.
"""
import sys
import threading

from .state import debug


class _LoaderProxy:
    """Stands in for a loader that takes no instance attributes; delegates everything else."""

    def __init__(self, loader, exec_module):
        self._loader = loader
        self.exec_module = exec_module

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class PostImportFinder:
    """Watches module names; on_loaded(name, module) runs after each one's first full import."""

    def __init__(self, on_loaded):
        self._on_loaded = on_loaded
        self._watched = set()
        self._busy = set()
        self._lock = threading.Lock()

    def watch(self, name):
        with self._lock:
            self._watched.add(name)

    def unwatch(self, name):
        with self._lock:
            self._watched.discard(name)

    def install(self):
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(self, name, path=None, target=None):
        if name not in self._watched or name in self._busy:
            return None
        self._busy.add(name)
        try:
            spec = self._real_spec(name, path, target)
        finally:
            self._busy.discard(name)
        if spec is not None and spec.loader is not None:
            self._hook_loader(spec, name)
        return spec

    def _real_spec(self, name, path, target):
        for finder in list(sys.meta_path):
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                return spec
        return None

    def _hook_loader(self, spec, name):
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            try:
                original(module)
            finally:
                _unhook(loader)
            if getattr(module, "__name__", None) == name:
                self._loaded(name, module)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            spec.loader = _LoaderProxy(loader, exec_module)

    def _loaded(self, name, module):
        self.unwatch(name)
        try:
            self._on_loaded(name, module)
        except Exception as err:  # ours must never break the program's import
            debug("hooks after import %s failed: %r" % (name, err))


def _unhook(loader):
    try:
        if "exec_module" in vars(loader):
            del loader.exec_module
    except TypeError:
        pass  # the proxy case: nothing was set on the loader itself
