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
range.  A pilot batch measures the time per solve; the acceptance rate is
the measured share of random boards in the range (:data:`SAMPLE_4X4`, 10,000
boards, pooled with the request's own solves), and the request is refused
when the expected time exceeds the budget.  The shares per distance are in
``docs/distances.md``.

Random numbers: a Philox stream keyed by the 128-bit key of the user's seed
(:func:`fastpuzzle.generate.seed_key`), so a seed gives the same boards on
any machine and thread count.
"""

from __future__ import annotations

import time

import numpy as np

from ..boards import board_dtype
from ..memory import check_allocation
from .exact import DistanceBudgetError, distance
from ..errors import OptionError, OptionTypeError, ShapeError
from .index import pick_ranks
from .near import MAX_NEAR_CELLS, random_near_goal
from .ranking import StateSpace
from ..notation import check_metric
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
#: Boards solved to measure the time per solve when the rate comes from :data:`SAMPLE_4X4`: two,
#: so that a request over the budget is refused after two optimal solves, not eight, where each
#: is slow (no 7-8 database cached).
PILOT_WITH_SAMPLE = 2
#: Optimal distances of 10,000 uniform random 4x4 boards
#: (``random_solvable(4, 4, count=10000, seed=123)``, default goal): boards at
#: each distance (none at the others), printed by
#: ``python bench/bench_distances.py --acceptance``.  Pooled with a request's
#: own solves to estimate its acceptance rate (goals with a corner blank).
SAMPLE_4X4 = {
    28: 1, 32: 2, 33: 1, 34: 6, 35: 5, 36: 11, 37: 17, 38: 25, 39: 41, 40: 44, 41: 84, 42: 116, 43: 170,
    44: 173, 45: 250, 46: 308, 47: 385, 48: 471, 49: 555, 50: 614, 51: 697, 52: 802, 53: 745, 54: 717,
    55: 678, 56: 686, 57: 586, 58: 494, 59: 401, 60: 285, 61: 208, 62: 166, 63: 104, 64: 71, 65: 39, 66: 24,
    67: 14, 68: 2, 69: 1, 70: 1,
}
#: Largest optimal distance of a 4x4 board from a goal whose blank is in a corner (Korf 2008;
#: a symmetry of the board and a renaming of tiles take any such goal to the default one).
RADIUS_4X4 = 80


def check_distance(distance_arg, m, n):
    """``(lo, hi)`` of a ``distance`` argument: an int or a ``(lo, hi)`` pair."""
    if isinstance(distance_arg, (bool, np.bool_)):
        raise OptionTypeError("distance", distance_arg, "must be an int or a (lo, hi) pair of ints")
    if isinstance(distance_arg, (int, np.integer)):
        lo = hi = int(distance_arg)
    elif isinstance(distance_arg, (tuple, list)) and len(distance_arg) == 2:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in distance_arg):
            raise OptionTypeError("distance range", distance_arg, "must hold two ints")
        lo, hi = int(distance_arg[0]), int(distance_arg[1])
    else:
        raise OptionTypeError("distance", distance_arg, "must be an int or a (lo, hi) pair of ints")
    if lo < 0 or hi < lo:
        raise OptionError("distance range", (lo, hi), "must satisfy 0 <= lo <= hi")
    if m * n > MAX_NEAR_CELLS:
        raise ShapeError(
            (m, n),
            f"distance= needs boards of at most {MAX_NEAR_CELLS} cells (a distance table up to "
            f"{MAX_TABLE_CELLS} cells, the layers near the goal and optimal solves up to 16); got {m}x{n}",
            expected=MAX_NEAR_CELLS,
        )
    return lo, hi


def _stream(key):
    return np.random.Generator(np.random.Philox(key=np.array(key, np.uint64)))


def random_at_distance(m, n, count, key, goal, lo, hi, *, budget=DEFAULT_BUDGET, metric="stm"):
    """``count`` boards uniform over the boards at optimal distance ``lo .. hi``.

    Validated arguments (``goal`` an ``(m, n)`` board, ``key`` a 128-bit seed
    key); the public door is ``random_solvable(..., distance=)``.  Returns a
    batch ``(count, m, n)``.
    """
    if check_metric(metric) == "mtm" and m * n > MAX_TABLE_CELLS:
        raise ShapeError((m, n), f"distance= in the multi-tile metric needs a distance table: boards of at most "
                         f"{MAX_TABLE_CELLS} cells, got {m}x{n}", expected=MAX_TABLE_CELLS)  # fmt: skip
    if count == 0:  # nothing to draw: no sample, no search; a distance no board has is still refused
        if m * n <= 9:  # its table: milliseconds
            _refuse_past_radius(m, n, lo, hi, distance_table(m, n, goal=goal, metric=metric).radius)
        elif _prior(m, n, goal, lo, hi)[1] and metric == "stm":
            _refuse_past_radius(m, n, lo, hi, RADIUS_4X4)
        return np.zeros((0, m, n), board_dtype(m * n))
    # the real peak, not the output alone: three int64 per board (draws, layers, ranks or codes)
    # beside the boards and one decoded copy of them
    check_allocation(count * (3 * 8 + 2 * m * n * board_dtype(m * n).itemsize),
                     f"{count:,} {m}x{n} boards at distance {lo}..{hi}")  # fmt: skip
    if m * n <= MAX_TABLE_CELLS:
        table = distance_table(m, n, goal=goal, metric=metric)
        _refuse_past_radius(m, n, lo, hi, table.radius)
        total = int(table.counts[lo : hi + 1].sum())
        js = _stream(key).integers(0, total, size=count, dtype=np.int64)
        ranks = pick_ranks(table.depths, table.size, lo, min(hi, table.radius), js, table.range_index)
        return table.space.boards(ranks)
    if hi <= NEAR_MAX_DEPTH or (m, n) not in REJECTION_SHAPES:
        hint = "" if (m, n) not in REJECTION_SHAPES else (
            f"; ranges reaching past {NEAR_MAX_DEPTH} moves are drawn by solving random boards instead"
        )
        return random_near_goal(goal, lo, hi, count, _stream(key), hint=hint)
    return _rejection(m, n, count, key, goal, lo, hi, budget)


def _refuse_past_radius(m, n, lo, hi, radius):
    """Refuse a distance range that starts past the farthest board (``radius`` moves away)."""
    if lo > radius:
        raise OptionError("distance", lo if lo == hi else (lo, hi),
                          f"names no {m}x{n} board: distances run from 0 to {radius}")  # fmt: skip


def _prior(m, n, goal, lo, hi):
    """``(boards in lo..hi, boards)`` of the measured sample, for a 4x4 goal
    whose blank is in a corner (where the sample was taken); else ``(0, 0)``."""
    r, c = divmod(int(np.flatnonzero(np.asarray(goal).ravel() == 0)[0]), n)
    if (m, n) != (4, 4) or r not in (0, m - 1) or c not in (0, n - 1):
        return 0, 0
    return sum(v for k, v in SAMPLE_4X4.items() if lo <= k <= hi), sum(SAMPLE_4X4.values())


def _refusal(m, n, count, lo, hi, budget, hits, seen, prior, per_board):
    """The message of a request over budget (``hits`` of ``seen`` boards in range)."""
    span = f"{lo}" if lo == hi else f"{lo}..{hi}"
    if hits:
        share, expected = f"about {hits / seen:.3%}", count / (hits / seen) * per_board
    else:  # none seen: the rate is below 1 / seen, the time above count * seen solves
        share, expected = f"fewer than 1 in {seen:,}", count * seen * per_board
    where = f"{prior[0]} of {prior[1]:,} measured (bench_distances.py --acceptance), " if prior[1] else ""
    return (
        f"{count} boards of {m}x{n} at distance {span} would take {'about' if hits else 'over'} "
        f"{expected:,.0f} s: {share} of uniform random boards lie there ({where}{hits - prior[0]} of "
        f"{seen - prior[1]} in this draw), at {per_board * 1e3:.0f} ms per optimal solve; "
        + (f"over the budget of {budget:g} s" if expected > budget else "a rate too small to bound the time")
        + "; ask for fewer boards or a wider range"
        + ("" if hits else f", or a range ending at most {NEAR_MAX_DEPTH} moves from the goal (drawn exactly)")
    )


def _rejection(m, n, count, key, goal, lo, hi, budget):
    """Draw uniform boards, solve them, keep those in range (4x4)."""
    prior = _prior(m, n, goal, lo, hi)
    if prior[1]:
        _refuse_past_radius(m, n, lo, hi, RADIUS_4X4)
    space = StateSpace(m, n, goal)
    rng = _stream(key)
    start = time.perf_counter()
    kept, solved, accepted, solving = [], 0, 0, 0.0
    # the first boards measure the time per solve (and the rate, without a measured sample)
    batch = min(PILOT_WITH_SAMPLE if prior[1] else PILOT, 4 * count)
    checked = False
    while accepted < count:
        boards = space.boards(rng.integers(0, space.size, size=batch, dtype=np.int64))
        try:  # no board is dropped for being hard: that would bias the draw
            if solved == 0:
                distance(boards[:1], goal=goal, time_limit=budget)  # loads the database: not a solve's time
            t0 = time.perf_counter()
            d = distance(boards, goal=goal, time_limit=budget)
            solving += time.perf_counter() - t0
        except DistanceBudgetError:
            raise OptionError(
                "distance", lo if lo == hi else (lo, hi),
                f"is out of reach: solving a random {m}x{n} board took longer than the budget of {budget:g} s; "
                "boards at a chosen distance need optimal solves",
            ) from None  # fmt: skip
        solved += batch
        hit = (d >= lo) & (d <= hi)
        kept.append(boards[hit])
        accepted += int(hit.sum())
        elapsed = time.perf_counter() - start
        hits, seen = prior[0] + accepted, prior[1] + solved  # the sample and this draw, pooled
        if elapsed > budget or (not checked and (accepted > 0 or solved >= PILOT or prior[1])):
            checked = True
            per_board = solving / solved
            expected = count * seen * per_board if hits == 0 else count / (hits / seen) * per_board
            if expected > budget or hits == 0 < prior[1]:  # none in the sample: rarer than 1 in 10,000
                reason = _refusal(m, n, count, lo, hi, budget, hits, seen, prior, per_board)
                raise OptionError("distance", lo if lo == hi else (lo, hi), f"is out of reach: {reason}")
        wanted = (count - accepted) / max(hits / seen, 1.0 / (seen + 1)) * 1.2
        batch = int(min(4096 if checked else PILOT - solved, max(4, wanted)))
    return np.concatenate(kept)[:count]
