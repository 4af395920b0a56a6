"""Breadth-first search over a whole state space, one byte per board.

The array ``depths[rank]`` (:mod:`~fastpuzzle.distances.ranking`) starts at
255 (unseen) except the goal (0).  Pass ``d`` scans the array for the bytes
equal to ``d`` and writes ``d + 1`` into every unseen neighbour; the search
ends with the first pass that marks nothing.  The array is the table's
product (the exact depth of every board), so the search needs no second
structure: ``N!/2`` bytes in all (240 MB for 3x4 and 2x6).

Threads split the rank range; a thread may write a neighbour owned by
another.  Every write of pass ``d`` stores the same value ``d + 1`` into a
byte that held 255, and no byte equal to ``d`` is written, so two threads
writing one byte, or a thread reading a byte another is writing, change
nothing: byte-sized slots make the race harmless.  The boards found at depth
``d`` are counted by the thread that owns them, during pass ``d``: exact
counts whatever the thread count.

The scan reads eight bytes at a time and skips words that hold no byte equal
to ``d``; the tile order of a board is decoded once for all the blank cells
of its block of ``N`` ranks.
"""

from __future__ import annotations

import time

import numpy as np
from numba import prange

from .._jit import jit, pjit
from ..memory import check_allocation
from .ranking import neighbour_ranks, seq_unrank

__all__ = ["UNSEEN", "new_depths", "bfs", "expand_range"]

#: Byte of a board not reached yet.
UNSEEN = 255
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)


def new_depths(size: int, goal_rank: int) -> np.ndarray:
    """Depth array of ``size`` boards (padded to whole words), all unseen but the goal."""
    words = -(-size // 8)
    check_allocation(words * 8, f"a distance table of {size:,} boards")
    depths = np.full(words * 8, UNSEEN, np.uint8)
    depths[goal_rank] = 0
    return depths


@jit(inline="always")
def _has_byte(word, pattern):
    x = word ^ pattern
    return ((x - _ONES) & ~x & _HIGHS) != 0


@jit
def expand_range(depths, words, d, q_lo, q_hi, N, n, k, fact, pop, sel, row_parity, emit, out):
    """Expand the boards at depth ``d`` whose tile-order index ``q`` is in
    ``[q_lo, q_hi)``.

    ``emit`` False: mark unseen neighbours ``d + 1`` in ``depths`` (the local
    search).  ``emit`` True (the chunked search): ``depths`` holds ranks
    ``q_lo * N .. q_hi * N - 1`` only; neighbours inside that range are marked
    as above and the ranks of the others are written to ``out`` (at most two
    per board: a horizontal move keeps ``q``, so only vertical moves leave
    the chunk).  Returns ``(boards at depth d, marks made or ranks written)``.
    """
    seq = np.zeros(max(k, 1), np.int64)
    work = np.zeros(max(k, 1), np.int64)
    nb = np.zeros(4, np.int64)
    pattern = np.uint64(d) * _ONES
    nd = np.uint8(d + 1)
    base0 = q_lo * N if emit else 0
    rank_hi = q_hi * N - base0
    found = 0
    written = 0
    next_q = q_lo
    w_lo = (q_lo * N - base0) // 8
    w_hi = min(words.shape[0], ((q_hi * N - base0) + 7) // 8)
    for w in range(w_lo, w_hi):
        if not _has_byte(words[w], pattern):
            continue
        first = max(next_q, (w * 8 + base0) // N)
        last = min(q_hi - 1, (w * 8 + 7 + base0) // N)
        for q in range(first, last + 1):
            have = -1
            for b in range(N):
                if depths[q * N + b - base0] != d:
                    continue
                found += 1
                par = row_parity[b]
                if par != have:
                    seq_unrank(q, par, k, fact, sel, seq)
                    have = par
                count = neighbour_ranks(q, b, seq, work, N, n, k, fact, pop, nb)
                for j in range(count):
                    t = nb[j] - base0
                    if emit and (t < 0 or t >= rank_hi):
                        out[written] = nb[j]
                        written += 1
                    elif depths[t] == 255:
                        depths[t] = nd
                        if not emit:
                            written += 1
        next_q = last + 1
    return found, written


@pjit
def _expand_parallel(depths, words, d, q_hi, N, n, k, fact, pop, sel, row_parity, parts):
    found = np.zeros(parts, np.int64)
    marked = np.zeros(parts, np.int64)
    step = (q_hi + parts - 1) // parts
    dummy = np.zeros(1, np.int64)
    for p in prange(parts):
        lo = p * step
        hi = min(q_hi, lo + step)
        if lo < hi:
            f, w = expand_range(depths, words, d, lo, hi, N, n, k, fact, pop, sel, row_parity, False, dummy)
            found[p] = f
            marked[p] = w
    return found.sum(), marked.sum()


@pjit
def _histogram(words, size, parts):
    """Boards at each depth 0..255 in ``depths[:size]`` (byte 255 = unseen)."""
    out = np.zeros((parts, 256), np.int64)
    n_words = words.shape[0]
    step = (n_words + parts - 1) // parts
    for p in prange(parts):
        for w in range(p * step, min(n_words, (p + 1) * step)):
            x = words[w]
            for j in range(8):
                if w * 8 + j < size:
                    out[p, (x >> np.uint64(8 * j)) & np.uint64(255)] += 1
    return out.sum(axis=0)


def histogram(depths: np.ndarray, size: int) -> np.ndarray:
    """``counts[v]`` = boards with depth byte ``v`` (``v`` in 0..255)."""
    words = np.asarray(depths[: -(-size // 8) * 8]).view(np.uint64)
    return _histogram(words, size, 64)


def bfs(space, *, progress=None, time_limit=None, threads=True):
    """Fill the depth array of ``space`` (a :class:`StateSpace`).

    Returns ``(depths, counts)``; raises ``TimeoutError`` naming the depth
    reached when ``time_limit`` seconds pass first.
    """
    N, n, k, fact, pop, sel, row_parity = space.kernel_args()
    depths = new_depths(space.size, space.goal_rank)
    words = depths.view(np.uint64)
    counts = []
    start = time.perf_counter()
    d = 0
    dummy = np.zeros(1, np.int64)
    while True:
        if threads:
            found, marked = _expand_parallel(depths, words, d, space.orders, N, n, k, fact, pop, sel, row_parity, 64)
        else:
            found, marked = expand_range(
                depths, words, d, 0, space.orders, N, n, k, fact, pop, sel, row_parity, False, dummy
            )
        counts.append(int(found))
        if progress is not None:
            progress.update(int(found))
            progress.set_postfix_str(f"depth {d}", refresh=False)
        if marked == 0:
            break
        d += 1
        if d >= UNSEEN:  # pragma: no cover - no board of <= 16 cells is that deep
            raise RuntimeError("depth 255 reached: the byte encoding cannot hold it")
        elapsed = time.perf_counter() - start
        if time_limit is not None and elapsed > time_limit:
            done = sum(counts)
            raise TimeoutError(
                f"breadth-first search stopped by time_limit={time_limit:g} s after depth {d - 1} "
                f"({done:,} of {space.size:,} boards, {elapsed:.1f} s)"
            )
    return depths, np.asarray(counts, np.int64)
