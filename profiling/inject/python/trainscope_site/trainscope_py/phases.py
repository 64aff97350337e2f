"""The phase ranges of a training iteration: `data`, `forward`, `backward`, `optimizer` and the
`trainscope:step` mark (PROTOCOL.md section 1).

Owns the wrapper factories. Every wrapper first asks torch.compiler.is_compiling() (so under
torch.compile dynamo folds it to True and traces straight through to the wrapped function), then
the on switch, then one thread-local depth: nested calls cost an attribute read and call through.
Wrappers return what the wrapped function returns and let its exceptions pass unchanged; depths
are restored in `finally`, so an exception inside a forward leaves the next one outermost again.

The optimizer is hooked through torch's global step pre/post hooks where they exist (they see
every Optimizer subclass, also those created before the hooks). A step that raised never runs its
post hook: its range is closed (no mark) at the thread's next phase or step, found by checking
whether the step's frame is still on the stack. GradScaler.step is wrapped, and is the outer call
when it runs optimizer.step, so a skipped step (inf grads) still gets its range and its mark.
"""
import functools
import sys

from .state import S, TLS, frame_on_stack, step_mark

_getframe = sys._getframe


def _never_compiling():
    return False


_is_compiling = _never_compiling  # set_is_compiling(): torch.compiler.is_compiling where it exists


def set_is_compiling(fn):
    """Bind the compile check as a module global (dynamo recognises the function object)."""
    global _is_compiling
    _is_compiling = fn or _never_compiling


def outermost(orig, name, depth):
    """Wrap `orig` in a `name` range on its outermost call per thread (TLS attribute `depth`)."""
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if _is_compiling() or not S.on:
            return orig(*args, **kwargs)
        t = TLS
        if getattr(t, depth):
            return orig(*args, **kwargs)
        if t.opt:
            close_if_stale(t, _getframe(0))
        setattr(t, depth, 1)
        S.push(name)
        try:
            return orig(*args, **kwargs)
        finally:
            setattr(t, depth, 0)
            S.pop()
    return wrapper


def data_range(orig):
    """`data` around the loader's next()/iter(); module calls inside belong to the data wait."""
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if _is_compiling() or not S.on:
            return orig(*args, **kwargs)
        t = TLS
        if t.data:
            return orig(*args, **kwargs)
        if t.opt:
            close_if_stale(t, _getframe(0))
        fwd = t.fwd
        t.data, t.fwd = 1, -1
        S.push("data")
        try:
            return orig(*args, **kwargs)
        finally:
            t.data, t.fwd = 0, fwd
            S.pop()
    return wrapper


def forward_lean(orig):
    """Module.__call__: `forward` around the outermost module call of the thread."""
    @functools.wraps(orig)
    def __call__(self, *args, **kwargs):
        if _is_compiling() or not S.on:
            return orig(self, *args, **kwargs)
        t = TLS
        if t.fwd:
            return orig(self, *args, **kwargs)
        if t.opt:
            close_if_stale(t, _getframe(0))
        t.fwd = 1
        S.push("forward")
        try:
            return orig(self, *args, **kwargs)
        finally:
            t.fwd = 0
            S.pop()
    return __call__


# --- optimizer --------------------------------------------------------------------------------

def _close_stale(t):
    """An outer optimizer call that raised before its post hook: close its range, no mark."""
    t.opt, t.opt_frame = 0, None
    S.pop()


def close_if_stale(t, frame):
    """At the thread's next phase: close an optimizer range whose step is no longer running (a
    step that raised). A phase inside a running step (LBFGS's closure) leaves it open."""
    if not frame_on_stack(t.opt_frame, frame):
        _close_stale(t)


def optimizer_pre_hook(_optimizer, _args, _kwargs):
    """Global step pre hook: opens `optimizer` when this is the thread's outermost step."""
    if _is_compiling() or not S.on:
        return None
    t = TLS
    caller = _getframe(1)
    if t.opt:
        if frame_on_stack(t.opt_frame, caller):
            t.opt += 1
            return None
        _close_stale(t)
    t.opt, t.opt_frame = 1, caller
    S.push("optimizer")
    return None


def optimizer_post_hook(_optimizer, _args, _kwargs):
    """Global step post hook: closes `optimizer` and marks the step after the outermost step."""
    if _is_compiling() or not S.on:
        return None
    t = TLS
    if not t.opt:
        return None  # hooks installed during a step, or a stale range already closed
    t.opt -= 1
    if not t.opt:
        t.opt_frame = None
        S.pop()
        step_mark()
    return None


def optimizer_step(orig):
    """Wrap a step(self, ...) (GradScaler.step, or Optimizer.step without global hooks)."""
    @functools.wraps(orig)
    def step(*args, **kwargs):
        if _is_compiling() or not S.on:
            return orig(*args, **kwargs)
        t = TLS
        me = _getframe(0)
        saved = t.opt
        if saved and frame_on_stack(t.opt_frame, me.f_back):
            t.opt = saved + 1
            try:
                return orig(*args, **kwargs)
            finally:
                t.opt = saved
        if saved:
            _close_stale(t)
        t.opt, t.opt_frame = 1, me
        S.push("optimizer")
        try:
            result = orig(*args, **kwargs)
        finally:
            t.opt, t.opt_frame = 0, None
            S.pop()
        step_mark()
        return result
    return step
