"""Fake DataLoader: iter() makes an iterator whose __next__ lives on the base class."""
import torch


class DataLoader:
    def __init__(self, dataset, batch_size=1):
        self.dataset = dataset

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return len(self.dataset)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._items = iter(loader.dataset)
        self._base_seed = torch.tensor(7).item()  # a CPU .item(): no sync range

    def __iter__(self):
        return self

    def __next__(self):
        return self._next_data()


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def _next_data(self):
        return next(self._items)
