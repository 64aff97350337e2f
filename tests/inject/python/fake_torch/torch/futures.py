"""Fake torch.futures.Future: then() chains a callback that runs when the future completes."""


class Future:
    def __init__(self):
        self._done, self._value, self._callbacks = False, None, []

    def set_result(self, value):
        self._done, self._value = True, value
        for cb in self._callbacks:
            cb(self)

    def value(self):
        return self._value

    def wait(self):
        return self._value

    def add_done_callback(self, callback):
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback):
        nxt = Future()

        def run(f):
            nxt.set_result(callback(f))
        if self._done:
            run(self)
        else:
            self._callbacks.append(run)
        return nxt
