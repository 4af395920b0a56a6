"""Which boards lie at a depth in ``lo .. hi``: a block index over a depth array.

The depth array is cut into blocks of :data:`BLOCK` boards and the boards
whose depth lies in ``lo .. hi`` are counted per block, once per range.  The
``j``-th such board (in rank order) is found by a binary search over the
running block counts and a scan of one block: about a microsecond, with no
list of ranks kept (3x4: 7.5 MB of counts instead of up to 1.9 GB of ranks).
Ranges of at most :data:`LIST_MAX` boards keep the list of their ranks
instead, so that a pick is one gather (all of 3x3, the rare depths of 3x4).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import jit, pjit, use_threads

__all__ = ["BLOCK", "pick_ranks", "ranks_in_range"]

#: Boards per block of the index.
BLOCK = 256
#: Ranges of at most this many boards are kept as a list of ranks (32 MB).
LIST_MAX = 1 << 22


@jit
def _block_counts_range(depths, size, lo, hi, out, b_lo, b_hi):
    for blk in range(b_lo, b_hi):
        c = 0
        for r in range(blk * BLOCK, min(size, (blk + 1) * BLOCK)):
            v = depths[r]
            if v >= lo and v <= hi:
                c += 1
        out[blk] = c


@pjit
def _block_counts(depths, size, lo, hi, parts):
    n_blocks = (size + BLOCK - 1) // BLOCK
    out = np.zeros(n_blocks, np.int64)
    step = (n_blocks + parts - 1) // parts
    for p in prange(parts):
        _block_counts_range(depths, size, lo, hi, out, p * step, min(n_blocks, (p + 1) * step))
    return out


@jit
def _pick_range(depths, size, cum, lo, hi, js, out, a, b):
    for i in range(a, b):
        j = js[i]
        blk = np.searchsorted(cum, j, side="right")
        left = j - (cum[blk - 1] if blk > 0 else 0)
        for r in range(blk * BLOCK, min(size, (blk + 1) * BLOCK)):
            v = depths[r]
            if v >= lo and v <= hi:
                if left == 0:
                    out[i] = r
                    break
                left -= 1


@pjit
def _pick_parallel(depths, size, cum, lo, hi, js, out, parts):
    B = js.shape[0]
    step = (B + parts - 1) // parts
    for p in prange(parts):
        _pick_range(depths, size, cum, lo, hi, js, out, p * step, min(B, (p + 1) * step))


def _index(depths, size, lo, hi, cache):
    """Running count of the boards at depth ``lo .. hi`` per block (cached)."""
    key = (lo, hi)
    cum = cache.get(key)
    if cum is None:
        cum = np.cumsum(_block_counts(depths, size, lo, hi, 64))
        if len(cache) >= 8:
            cache.pop(next(iter(cache)))
        cache[key] = cum
    return cum


def pick_ranks(depths, size, lo, hi, js, cache):
    """Rank of the ``js[i]``-th board (in rank order) whose depth is in ``lo .. hi``.

    ``cache``: a dict that keeps, per range, the list of ranks when it holds
    at most :data:`LIST_MAX` boards (one gather per pick), else the block
    index.
    """
    listed = cache.get(("list", lo, hi))
    if listed is not None:
        return listed[js]
    cum = _index(depths, size, lo, hi, cache)
    if cum[-1] <= LIST_MAX:
        listed = _pick_all(depths, size, cum, lo, hi, np.arange(cum[-1], dtype=np.int64))
        cache[("list", lo, hi)] = listed
        return listed[js]
    return _pick_all(depths, size, cum, lo, hi, js)


def _pick_all(depths, size, cum, lo, hi, js):
    out = np.empty(js.shape[0], np.int64)
    args = (depths, size, cum, lo, hi, js, out)
    if use_threads(js.shape[0] * 64):
        _pick_parallel(*args, 64)
    else:
        _pick_range(*args, 0, js.shape[0])
    return out


def ranks_in_range(depths, size, counts, lo: int, hi: int, cache) -> np.ndarray:
    """Ranks of every board at depth ``lo .. hi``, ascending (``counts``: boards per depth)."""
    lo, hi = max(int(lo), 0), min(int(hi), len(counts) - 1)
    if lo > hi:
        return np.zeros(0, np.int64)
    total = int(counts[lo : hi + 1].sum())
    return pick_ranks(depths, size, lo, hi, np.arange(total, dtype=np.int64), cache)
