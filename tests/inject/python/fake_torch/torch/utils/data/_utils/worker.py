"""Fake worker info: a DataLoader worker process sets _worker_info before running the dataset."""
_worker_info = None


def get_worker_info():
    return _worker_info
