"""`--python full`: a `module: <qualified name> (<Class>)` range around every module call below the
outermost one (PROTOCOL.md section 1); the outermost call stays the `forward` range.

Owns the qualified names: taken from the outermost module's named_modules() the first time it is
called, cached by id() and checked with a weak reference (an id can be reused after the module is
gone). A module called inside it that is not one of its submodules (kept in a plain list, or made
on the fly) makes the map be rebuilt at most once per outermost call, then is named by its class.
"""
import functools
import weakref

from . import phases
from .state import S, TLS

_by_root = {}  # id(root) -> (weakref or root, {id(submodule): label})
_class_labels = {}  # type -> 'module: Class'


def _label(name, module):
    return "module: %s (%s)" % (name or "?", type(module).__name__)


def _build(root):
    names = {}
    try:
        for name, sub in root.named_modules():
            if sub is not root:
                names[id(sub)] = _label(name, sub)
    except Exception:
        pass  # a module whose named_modules() fails gets class-only names
    return names


def names_of(root):
    """The {id(submodule): range name} map of an outermost module (built once, then cached)."""
    entry = _by_root.get(id(root))
    if entry is not None:
        ref, names = entry
        if (ref() if isinstance(ref, weakref.ref) else ref) is root:
            return names
    names = _build(root)
    try:
        ref = weakref.ref(root, lambda _r, key=id(root): _by_root.pop(key, None))
    except TypeError:
        ref = root  # not weak-referenceable: kept alive, as the program keeps its model
    _by_root[id(root)] = (ref, names)
    return names


def _missing(module):
    """A module absent from the map: rebuild it once per outermost call (the tree may have grown),
    else the class alone (modules made on the fly are not remembered: their ids get reused)."""
    t = TLS
    names = t.names
    if not t.names_rebuilt and t.names_root is not None:
        t.names_rebuilt = True
        names.update(_build(t.names_root))
        label = names.get(id(module))
        if label is not None:
            return label
    cls = type(module)
    label = _class_labels.get(cls)
    if label is None:
        label = _class_labels[cls] = "module: %s" % cls.__name__
    return label


def forward_full(orig):
    """Module.__call__ for full mode: `forward` outermost, `module: ...` for every call inside."""
    @functools.wraps(orig)
    def __call__(self, *args, **kwargs):
        if phases._is_compiling() or not S.on:
            return orig(self, *args, **kwargs)
        t = TLS
        d = t.fwd
        if d < 0:
            return orig(self, *args, **kwargs)
        if d:
            names = t.names
            label = names.get(id(self)) or _missing(self)
            S.push(label)
            try:
                return orig(self, *args, **kwargs)
            finally:
                S.pop()
        return _outermost(orig, t, self, args, kwargs)
    return __call__


def _outermost(orig, t, module, args, kwargs):
    if t.opt:
        phases.close_if_stale(t, phases._getframe(0))
    t.fwd, t.names, t.names_root, t.names_rebuilt = 1, names_of(module), module, False
    S.push("forward")
    try:
        return orig(module, *args, **kwargs)
    finally:
        t.fwd, t.names, t.names_root = 0, None, None
        S.pop()
