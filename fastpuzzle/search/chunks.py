"""Work over a range in chunks on threads: the batch solvers' one hand-out loop."""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor

from ..interrupt import pending

__all__ = ["run_chunks"]


def run_chunks(n_items, chunk, threads, work, bar=None, active=None):
    """Run ``work(lo, hi)`` over ``range(n_items)`` in chunks on ``threads`` threads.

    The first exception stops the hand-out and is re-raised in the caller.  ``active()``, when
    given, is how many of the threads may go on taking chunks (read before each): a thread past
    that count stops after its chunk, so another search can have its core.
    """
    starts = itertools.count(0, chunk)
    lock = threading.Lock()
    errors = []
    indexes = itertools.count()

    def worker():
        me = next(indexes)
        while True:
            if active is not None and me > 0 and me >= active():  # the first thread always goes on
                return
            with lock:
                lo = next(starts)
            if lo >= n_items or errors or pending():  # pending: a signal asked the batch to stop
                return
            hi = min(n_items, lo + chunk)
            try:
                work(lo, hi)
            except BaseException as exc:  # re-raised in the caller's thread
                errors.append(exc)
                return
            if bar is not None:
                with lock:
                    bar.update(hi - lo)

    if threads == 1:
        worker()
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for f in [pool.submit(worker) for _ in range(threads)]:
                f.result()
    if errors:
        raise errors[0]
