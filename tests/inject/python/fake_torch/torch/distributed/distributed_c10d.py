"""Fake c10d: collectives that log into CALLS and return a Work when async_op is set. Work is a
plain class here (torch's is a pybind11 class whose attributes can be set the same way)."""
CALLS = []


class Work:
    def __init__(self, name):
        self.name = name

    def wait(self, timeout=None):
        CALLS.append(("wait", self.name))
        return True

    def get_future(self):
        """Never completes on its own here: the range ends at wait()."""
        from torch.futures import Future
        return Future()


class GradBucket:
    def __init__(self, index):
        self._index = index

    def index(self):
        return self._index


def _call(name, async_op):
    CALLS.append((name, bool(async_op)))
    return Work(name) if async_op else None


def all_reduce(tensor, op=None, group=None, async_op=False):
    return _call("all_reduce", async_op)


def broadcast(tensor, src=None, group=None, async_op=False):
    return _call("broadcast", async_op)


def barrier(group=None, async_op=False, device_ids=None):
    return _call("barrier", async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    return _call("all_gather", async_op)


def all_gather_object(object_list, obj, group=None):
    """Calls all_gather inside, as torch's does (one range: the outermost)."""
    all_gather([None], obj, group)
    object_list[0] = obj


def reduce_scatter_tensor(output, input, op=None, group=None, async_op=False):
    return _call("reduce_scatter_tensor", async_op)


__all__ = ["all_reduce", "broadcast", "barrier", "all_gather", "all_gather_object", "reduce_scatter_tensor"]
