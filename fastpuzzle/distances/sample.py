"""Boards of a chosen optimal distance, uniformly at random.

Shapes with a table (at most 12 cells): the depth array is cut into blocks
of :data:`BLOCK` boards and the boards whose depth lies in ``lo .. hi`` are
counted per block, once per range (cached on the table).  The ``j``-th such
board is found by a binary search over the running block counts and a scan
of one block, so a uniform ``j`` in ``0 .. total-1`` gives a board uniform
over the range — exact, with no rejection, however rare the depth.

4x4: a board is uniform over the reachable boards when its rank
(:mod:`~fastpuzzle.distances.ranking`) is uniform in ``0 .. 16!/2-1``; it is
kept when its optimal length (:func:`fastpuzzle.distances.exact.distance`,
pattern databases) falls in the range.  Kept boards are uniform over the
range.  A pilot batch measures the acceptance rate first and the request is
refused when the expected time exceeds the budget.  Acceptance measured on
random 4x4 boards (``python -m bench --only distances``) is in
``docs/distances.md``.

Random numbers: a Philox stream keyed by the 128-bit key of the user's seed
(:func:`fastpuzzle.generate.seed_key`), so a seed gives the same boards on
any machine and thread count.
"""

from __future__ import annotations

import time

import numpy as np
from numba import prange

from .._jit import jit, pjit, use_threads
from .exact import distance
from .ranking import StateSpace
from .table import MAX_TABLE_CELLS, distance_table

__all__ = ["BLOCK", "ranks_in_range", "random_at_distance", "check_distance", "REJECTION_SHAPES"]

#: Boards per block of the sampling index (a multiple of 8).
BLOCK = 256
#: Shapes beyond the tables served by drawing and solving.
REJECTION_SHAPES = ((4, 4),)
#: Default budget of a rejection request, in seconds.
DEFAULT_BUDGET = 60.0
#: Boards solved to measure the acceptance rate before a rejection request.
PILOT = 64


@jit
def _block_counts_range(depths, size, lo, hi, out, b_lo, b_hi):
    for blk in range(b_lo, b_hi):
        c = 0
        for r in range(blk * 256, min(size, (blk + 1) * 256)):
            v = depths[r]
            if v >= lo and v <= hi:
                c += 1
        out[blk] = c


@pjit
def _block_counts(depths, size, lo, hi, parts):
    n_blocks = (size + 255) // 256
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
        for r in range(blk * 256, min(size, (blk + 1) * 256)):
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


def _index(table, lo, hi):
    """Running count of the boards at depth ``lo .. hi`` per block (cached)."""
    key = (lo, hi)
    cum = table._samplers.get(key)
    if cum is None:
        cum = np.cumsum(_block_counts(table.depths, table.size, lo, hi, 64))
        if len(table._samplers) >= 8:
            table._samplers.pop(next(iter(table._samplers)))
        table._samplers[key] = cum
    return cum


def _ranks_of(table, lo, hi, js):
    cum = _index(table, lo, hi)
    out = np.empty(js.shape[0], np.int64)
    args = (table.depths, table.size, cum, lo, hi, js, out)
    if use_threads(js.shape[0] * 64):
        _pick_parallel(*args, 64)
    else:
        _pick_range(*args, 0, js.shape[0])
    return out


def ranks_in_range(table, lo: int, hi: int) -> np.ndarray:
    """Ranks of every board of ``table`` at distance ``lo .. hi``, ascending."""
    lo, hi = max(int(lo), 0), min(int(hi), table.radius)
    if lo > hi:
        return np.zeros(0, np.int64)
    total = int(table.counts[lo : hi + 1].sum())
    return _ranks_of(table, lo, hi, np.arange(total, dtype=np.int64))


def check_distance(distance_arg, m, n):
    """``(lo, hi)`` of a ``distance`` argument: an int or a ``(lo, hi)`` pair."""
    if isinstance(distance_arg, (bool, np.bool_)):
        raise TypeError(f"distance must be an int or a (lo, hi) pair of ints, got {distance_arg!r}")
    if isinstance(distance_arg, (int, np.integer)):
        lo = hi = int(distance_arg)
    elif isinstance(distance_arg, (tuple, list)) and len(distance_arg) == 2:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in distance_arg):
            raise TypeError(f"distance range must hold two ints, got {distance_arg!r}")
        lo, hi = int(distance_arg[0]), int(distance_arg[1])
    else:
        raise TypeError(f"distance must be an int or a (lo, hi) pair of ints, got {distance_arg!r}")
    if lo < 0 or hi < lo:
        raise ValueError(f"distance range must satisfy 0 <= lo <= hi, got lo={lo}, hi={hi}")
    if m * n > MAX_TABLE_CELLS and (m, n) not in REJECTION_SHAPES:
        raise ValueError(
            f"distance= needs a distance table (boards of at most {MAX_TABLE_CELLS} cells) or a 4x4 board; "
            f"got {m}x{n}"
        )
    return lo, hi


def _stream(key):
    return np.random.Generator(np.random.Philox(key=np.array(key, np.uint64)))


def random_at_distance(m, n, count, key, goal, lo, hi, *, budget=DEFAULT_BUDGET):
    """``count`` boards uniform over the boards at optimal distance ``lo .. hi``.

    Validated arguments (``goal`` an ``(m, n)`` board, ``key`` a 128-bit seed
    key); the public door is ``random_solvable(..., distance=)``.  Returns a
    batch ``(count, m, n)``.
    """
    if m * n <= MAX_TABLE_CELLS:
        table = distance_table(m, n, goal)
        total = int(table.counts[lo : hi + 1].sum()) if lo <= table.radius else 0
        if total == 0:
            raise ValueError(
                f"no {m}x{n} board is at distance {lo if lo == hi else f'{lo}..{hi}'} from the goal: "
                f"distances run from 0 to {table.radius}"
            )
        js = _stream(key).integers(0, total, size=count, dtype=np.int64)
        return table.space.boards(_ranks_of(table, lo, min(hi, table.radius), js))
    return _rejection(m, n, count, key, goal, lo, hi, budget)


def _rejection(m, n, count, key, goal, lo, hi, budget):
    """Draw uniform boards, solve them, keep those in range (4x4)."""
    space = StateSpace(m, n, goal)
    rng = _stream(key)
    start = time.perf_counter()
    kept, solved, accepted = [], 0, 0
    batch = PILOT
    while accepted < count:
        boards = space.boards(rng.integers(0, space.size, size=batch, dtype=np.int64))
        d = distance(boards, goal, time_limit=max(1.0, budget))
        solved += batch
        hit = (d >= lo) & (d <= hi)
        kept.append(boards[hit])
        accepted += int(hit.sum())
        elapsed = time.perf_counter() - start
        rate = accepted / solved
        if solved == PILOT or elapsed > budget:
            per_board = elapsed / solved
            expected = float("inf") if rate == 0 else count / rate * per_board
            if expected > budget:
                raise ValueError(
                    f"{count} boards of {m}x{n} at distance {lo}..{hi} would take about "
                    f"{expected:,.0f} s (acceptance {rate:.3%} over {solved} random boards, "
                    f"{per_board * 1e3:.0f} ms per solve), over the budget of {budget:g} s; "
                    "ask for fewer boards or a wider range"
                )
        batch = int(min(4096, max(PILOT, (count - accepted) / max(rate, 1e-3) * 1.2)))
    return np.concatenate(kept)[:count]
