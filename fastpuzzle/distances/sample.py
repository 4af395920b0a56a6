"""Boards of a chosen optimal distance, uniformly at random.

Shapes with a table (at most 12 cells): a uniform ``j`` in ``0 .. total-1``
(``total`` boards at distance ``lo .. hi``) becomes the ``j``-th such board
through the block index of :mod:`~fastpuzzle.distances.index`: a board
uniform over the range — exact, with no rejection, however rare the depth.

13 to 16 cells (4x4, 3x5, 2x7, 2x8): the layers near the goal are
enumerated exactly (:mod:`~fastpuzzle.distances.near`) and a draw is a
uniform index into them, up to the depth where a layer would pass
:data:`~fastpuzzle.distances.near.MAX_LAYER` boards (4x4: distance 25).

4x4 beyond that: a board is uniform over the reachable boards when its rank
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
from .exact import DistanceBudgetError, distance
from .index import pick_ranks
from .near import MAX_NEAR_CELLS, random_near_goal
from .ranking import StateSpace
from .table import MAX_TABLE_CELLS, distance_table

__all__ = ["random_at_distance", "check_distance", "REJECTION_SHAPES"]
#: Shapes beyond the tables served by drawing and solving.
REJECTION_SHAPES = ((4, 4),)
#: Default budget of a rejection request, in seconds.
DEFAULT_BUDGET = 60.0
#: Ranges ending at most this far from the goal are drawn from the layers near
#: the goal first (4x4 random boards lie 35 to 80 moves away: rejection never
#: meets these).
NEAR_MAX_DEPTH = 30
#: Boards solved to measure the acceptance rate before a rejection request.
PILOT = 64


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
    if m * n > MAX_NEAR_CELLS:
        raise ValueError(
            f"distance= needs boards of at most {MAX_NEAR_CELLS} cells (a distance table up to "
            f"{MAX_TABLE_CELLS} cells, the layers near the goal and optimal solves up to 16); got {m}x{n}"
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
        ranks = pick_ranks(table.depths, table.size, lo, min(hi, table.radius), js, table.range_index)
        return table.space.boards(ranks)
    if hi <= NEAR_MAX_DEPTH or (m, n) not in REJECTION_SHAPES:
        hint = "" if (m, n) not in REJECTION_SHAPES else (
            f"; ranges reaching past {NEAR_MAX_DEPTH} moves are drawn by solving random boards instead"
        )
        return random_near_goal(goal, lo, hi, count, _stream(key), hint=hint)
    return _rejection(m, n, count, key, goal, lo, hi, budget)


def _rejection(m, n, count, key, goal, lo, hi, budget):
    """Draw uniform boards, solve them, keep those in range (4x4)."""
    space = StateSpace(m, n, goal)
    rng = _stream(key)
    start = time.perf_counter()
    kept, solved, accepted = [], 0, 0
    batch = min(PILOT, 4 * count)  # the first boards also measure the acceptance rate
    checked = False
    while accepted < count:
        boards = space.boards(rng.integers(0, space.size, size=batch, dtype=np.int64))
        try:  # no board is dropped for being hard: that would bias the draw
            d = distance(boards, goal, time_limit=budget)
        except DistanceBudgetError:
            raise ValueError(
                f"solving a random {m}x{n} board took longer than the budget of {budget:g} s; "
                "boards at a chosen distance need optimal solves"
            ) from None
        solved += batch
        hit = (d >= lo) & (d <= hi)
        kept.append(boards[hit])
        accepted += int(hit.sum())
        elapsed = time.perf_counter() - start
        rate = accepted / solved
        if elapsed > budget or (not checked and (accepted > 0 or solved >= PILOT)):
            checked = True
            per_board = elapsed / solved
            if rate == 0:
                raise ValueError(
                    f"none of {solved} random {m}x{n} boards lies at distance {lo}..{hi} "
                    f"({per_board * 1e3:.0f} ms per solve): drawing and solving cannot serve this range "
                    f"within the budget of {budget:g} s; see docs/distances.md for the distances random "
                    f"boards have, or ask for a range ending at most {NEAR_MAX_DEPTH} moves from the goal"
                )
            expected = count / rate * per_board
            if expected > budget:
                raise ValueError(
                    f"{count} boards of {m}x{n} at distance {lo}..{hi} would take about "
                    f"{expected:,.0f} s (acceptance {rate:.3%} over {solved} random boards, "
                    f"{per_board * 1e3:.0f} ms per solve), over the budget of {budget:g} s; "
                    "ask for fewer boards or a wider range"
                )
        wanted = (count - accepted) / max(rate, 1.0 / (solved + 1)) * 1.2
        batch = int(min(4096 if checked else PILOT - solved, max(4, wanted)))
    return np.concatenate(kept)[:count]
