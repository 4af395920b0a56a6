"""Labelled boards: random boards with their exact optimal distances, for training.

:func:`labelled_boards` draws boards and labels each with its distance to
the goal, taking the cheapest exact source the shape has:

* at most 12 cells: the whole-space distance table
  (:func:`fastpuzzle.distance_table`).  A uniform board is a uniform rank:
  one compiled pass (:func:`_uniform_range`, on the threads) draws one
  32-bit word per board from a counter-based stream keyed by the chunk and
  the board's index, turns it into a rank exactly uniform by Lemire's
  multiply-shift with rejection, and reads the rank's digits (the blank's
  cell and the Lehmer digits of the tile order) off the same products
  (:func:`_draw_constants`), so the board is written with no division, and the
  label is one byte read from the table; ``distance=`` draws through the
  table's block index (exact, no rejection);
* 13 to 16 cells near the goal (4x4 up to distance 23): the layers of the
  breadth-first search from the goal (:mod:`fastpuzzle.distances.near`);
  the label is the layer a board was drawn from;
* anything else up to 16 cells (uniform 4x4): optimal solves
  (:func:`fastpuzzle.distance`, pattern databases on 4x4) on the threads,
  under ``time_limit`` per board;
* larger boards: no exact label is in reach; with ``exact=False`` the label
  is an admissible bound (linear conflict) and a flag says which labels are
  exact.

Boards are made in chunks of :data:`CHUNK_BOARDS`; chunk ``j`` draws from
its own Philox stream, the ``j``-th jump of the stream keyed by the seed
(:func:`fastpuzzle.generate.seed_key`), so a seed gives the same boards
whatever the count asked for (a longer request extends a shorter one) and
:func:`labelled_chunks` streams a request in bounded memory.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from . import options
from ._jit import jit, pjit, split_threads
from .boards import as_goal, board_dtype, check_shape
from .errors import OptionError, OptionTypeError, ShapeError
from .generate import seed_key
from .generate.random_kernels import mix64
from .search.pdb.ranking import prefetch

__all__ = ["labelled_boards", "labelled_chunks", "CHUNK_BOARDS", "MAX_EXACT_CELLS"]

#: Boards per chunk (and per random stream) of a request.
CHUNK_BOARDS = 1 << 20
#: Largest board labelled exactly without ``distance=`` (optimal solves of 4x4).
MAX_EXACT_CELLS = 16


#: Boards the gather asks the memory for ahead of the one it unpacks (their misses overlap).
_AHEAD = 16


@pjit
def _gather_near(pool, ends, lo, js, n_cells, boards, depths):
    """Board ``i`` is ``pool[js[i]]`` unpacked (4 bits a cell); its depth the layer holding it."""
    count = js.shape[0]
    for i in prange(count):
        if i + _AHEAD < count:  # the pool is far larger than the caches: ask for a later board's line now
            prefetch(pool, js[i + _AHEAD])
        j = js[i]
        d = 0
        while ends[d] <= j:
            d += 1
        depths[i] = lo + d
        v = pool[j]
        for c in range(n_cells):
            boards[i, c] = (v >> np.uint64(4 * c)) & np.uint64(15)


_GOLD = np.uint64(0x9E3779B97F4A7C15)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit
def _uniform_range(key, lo, hi, N, k, space_size, reject_below, radix_prefix, tiles_packed, row_parity, depths,
                   boards, labels):
    """Boards ``lo .. hi``: uniform over the ranks, each written out and labelled by ``depths[rank]``.

    The labels are read in a second, tight loop over each block of boards
    (the ranks held in ``labels`` meanwhile): a read of the table misses
    the caches, and only a short loop keeps many misses in flight."""
    for start in range(lo, hi, 512):
        end = min(hi, start + 512)
        _ranks_block(key, start, end, N, k, space_size, reject_below, radix_prefix, tiles_packed, row_parity,
                     boards, labels)
        for i in range(start, end):
            labels[i] = depths[labels[i]]


@jit(inline="always")
def _ranks_block(key, lo, hi, N, k, space_size, reject_below, radix_prefix, tiles_packed, row_parity, boards, ranks):
    """Board ``i`` from one 32-bit draw ``x`` of its counter-based stream (:func:`_uniform_table`)."""
    for i in range(lo, hi):
        state = mix64(np.uint64(key) + np.uint64(i) * _GOLD)
        while True:  # Lemire's rejection: exact, and taken once in 20 boards at most
            state = state + _GOLD
            word = mix64(state)
            x = word >> np.uint64(32)
            if ((x * space_size) & _LOW32) >= reject_below:
                break
            x = word & _LOW32
            if ((x * space_size) & _LOW32) >= reject_below:
                break
        ranks[i] = np.int64((x * space_size) >> np.uint64(32))
        # every digit from its own products of x: no chain of draws
        b = np.int64((((x * radix_prefix[k - 2]) & _LOW32) * np.uint64(N)) >> np.uint64(32))
        rest = tiles_packed  # the tiles not yet placed, in order, 4 bits each: no table read in the chain
        total = 0
        for j in range(k):
            if j < k - 2:
                d = np.uint64((((x * radix_prefix[j]) & _LOW32) * np.uint64(k - j)) >> np.uint64(32))
                total += d
            elif j == k - 2:  # the parity digit
                d = np.uint64((row_parity[b] - total) & 1)
            else:
                d = np.uint64(0)
            s = d << np.uint64(2)
            tile = (rest >> s) & np.uint64(15)
            rest = (rest & ((np.uint64(1) << s) - np.uint64(1))) | ((rest >> (s + np.uint64(4))) << s)
            # digit j fills cell j, or j + 1 past the blank's cell: no test of the blank per cell
            boards[i, j + (1 if j >= b else 0)] = tile
        boards[i, b] = 0


def _draw_constants(space):
    """``(space_size, reject_below, radix_prefix, tiles_packed)`` of :func:`_ranks_block` for a table's space.

    A rank is ``E * N + b`` with ``E`` the Lehmer digits ``d_0 .. d_{k-3}``
    in mixed radix ``k, k-1, .., 3`` and ``b`` the blank's cell, so ranks
    are the mixed-radix numbers of the digits ``(d_0, .., d_{k-3}, b)``.
    One 32-bit ``x`` accepted unless ``x * P mod 2**32 < 2**32 mod P``
    (``P`` the space's size) gives the rank ``x * P >> 32`` exactly
    uniform, and its digits are those of Brackett-Rozinsky and Lemire's
    batched draws: digit ``j`` is ``(x * Q_j mod 2**32) * r_j >> 32``, with
    ``Q_j`` the product of the radices before it (``radix_prefix``).
    """
    N, k = space.cells, space.k
    size = N * int(np.prod(np.arange(3, k + 1, dtype=np.int64)))
    if not 0 < size < 1 << 32 or k > 16:
        raise OptionError("table", f"{N} cells", "is too large for 32-bit draws of its ranks")
    prefix = [1]
    for j in range(k - 2):
        prefix.append(prefix[-1] * (k - j) % (1 << 32))
    packed = sum(int(space.tile_of[t + 1]) << (4 * t) for t in range(k))
    return np.uint64(size), np.uint64((1 << 32) % size), np.array(prefix, np.uint64), np.uint64(packed)


def _uniform_table(table, size, rng, boards, labels):
    """``size`` boards uniform over the table's space into ``boards`` (size, m, n) and their labels
    into ``labels`` (:func:`_uniform_range`)."""
    space = table.space
    N, k = space.cells, space.k
    key = int(rng.integers(0, 1 << 63, dtype=np.int64))
    space_size, reject_below, prefix, packed = _draw_constants(space)
    boards = boards.reshape(size, N)  # a view: the caller's rows are contiguous
    depths = np.asarray(table.depths)
    split_threads(lambda lo, hi: _uniform_range(key, lo, hi, N, k, space_size, reject_below, prefix, packed,
                                                space.row_parity, depths, boards, labels), size, align=1024)


_POOL: dict = {}


def _near(goal, lo, hi, size, rng, boards, depths):
    """``boards`` (``(size, m * n)``) uniform over the layers ``lo .. hi`` near ``goal``, their depths in ``depths``.

    The layers are joined once into one pool (kept for the last goal and
    range asked for), so a draw is one parallel gather and unpacking,
    written straight into the caller's rows."""
    from .distances.near import layers_near_goal

    m, n = goal.shape
    key = (goal.tobytes(), m, n, lo, hi)
    if key not in _POOL:
        layers = layers_near_goal(goal, hi)[lo:]
        _POOL.clear()
        sizes = np.array([layer.shape[0] for layer in layers], np.int64)
        _POOL[key] = (np.concatenate(layers), np.cumsum(sizes))
    pool, ends = _POOL[key]
    if pool.shape[0] == 0:
        raise OptionError("distance", lo if lo == hi else (lo, hi), f"names no {m}x{n} board")
    js = rng.integers(0, pool.shape[0], size=size, dtype=np.int64)
    _gather_near(pool, ends, lo, js, m * n, boards, depths)


def _stream(key, j):
    """Chunk ``j``'s generator: the ``j``-th jump of the Philox stream of ``key``."""
    bits = np.random.Philox(key=np.array(key, np.uint64))
    return np.random.Generator(bits.jumped(j) if j else bits)


def _check_options(m, n, count, distance, goal, exact, time_limit):
    check_shape(m, n)
    count = options.count(count)
    if not isinstance(exact, (bool, np.bool_)):
        raise OptionTypeError("exact", exact, "must be True or False")
    options.seconds(time_limit)  # checked on every shape, used where boards are solved
    target = as_goal(goal, m, n)
    span = None
    if distance is not None:
        from .distances.sample import check_distance

        span = check_distance(distance, m, n)
    elif m * n > MAX_EXACT_CELLS and min(m, n) > 1 and exact:
        raise ShapeError(
            (m, n),
            f"exact distances of uniform random {m}x{n} boards are out of reach (optimal solves of boards of "
            f"more than {MAX_EXACT_CELLS} cells take minutes to hours each); pass exact=False for admissible "
            "bounds with a flag, or distance= for boards near the goal"
        )
    return count, target, span


def labelled_chunks(m, n, count, *, distance=None, seed=None, goal=None, exact=True, time_limit=None):
    """Yield ``(start, boards, labels, is_exact)`` chunks of :func:`labelled_boards`.

    Every argument is checked on the call, before the first chunk is made;
    each chunk holds at most :data:`CHUNK_BOARDS` boards.

    Examples
    --------
    >>> [(start, len(b)) for start, b, d, ok in labelled_chunks(3, 3, 5, seed=1)]
    [(0, 5)]
    """
    count, target, span = _check_options(m, n, count, distance, goal, exact, time_limit)
    key = seed_key(seed)
    return _chunks(m, n, count, target, span, key, exact, time_limit)


def _outputs(m, n, count):
    """Empty ``(boards, labels, is_exact)`` for ``count`` boards."""
    return np.empty((count, m, n), board_dtype(m * n)), np.empty(count, np.int64), np.empty(count, np.bool_)


def _chunks(m, n, count, goal, span, key, exact, time_limit, out=None):
    """The chunks, each written into its rows of ``out`` (:func:`_outputs` of ``count``) when given:
    one allocation for the whole answer, not one per chunk and a concatenation."""
    for j, start in enumerate(range(0, count, CHUNK_BOARDS)):
        size = min(CHUNK_BOARDS, count - start)
        rows = _outputs(m, n, size) if out is None else tuple(a[start : start + size] for a in out)
        _draw(m, n, size, goal, span, _stream(key, j), exact, time_limit, rows)
        yield (start, *rows)


def _draw(m, n, size, goal, span, rng, exact, time_limit, out):
    """One chunk into ``out``: ``size`` boards, their labels and which labels are exact."""
    from .distances.table import MAX_TABLE_CELLS, distance_table

    from .distances.near import LayerLimitError

    boards, labels, ok = out
    if span is None and m * n <= MAX_TABLE_CELLS and min(m, n) > 1:
        _uniform_table(distance_table(m, n, goal=goal), size, rng, boards, labels)
        ok[:] = True
        return
    if span is not None and m * n > MAX_TABLE_CELLS:
        try:  # near the goal: the layers, drawn straight into the rows (no chunk allocated, nor copied)
            _near(goal, *span, size, rng, boards.reshape(size, m * n), labels)
            ok[:] = True
            return
        except LayerLimitError:
            if (m, n) != (4, 4):
                raise
    boards[:], labels[:], ok[:] = _drawn(m, n, size, goal, span, rng, exact, time_limit)


def _drawn(m, n, size, goal, span, rng, exact, time_limit):
    """One chunk as new arrays: boards of a table's space at a distance, 4x4 boards beyond its layers, and
    uniform boards beyond a table (the other cases write into their rows: :func:`_draw`)."""
    from .distances.table import MAX_TABLE_CELLS, distance_table

    every = np.ones(size, np.bool_)
    if m * n <= MAX_TABLE_CELLS:
        table = distance_table(m, n, goal=goal)
        if span is None:
            ranks = rng.integers(0, table.size, size=size, dtype=np.int64)
        else:
            ranks = _ranks_in_span(table, span, size, rng, m, n)
        labels = np.asarray(table.depths[ranks], np.int64)
        return table.space.boards(ranks).reshape(size, m, n), labels, every
    if span is not None:  # beyond the layers (4x4 only, _draw): boards at the distance, then solved
        lo, hi = span
        from .generate import random_solvable

        boards = random_solvable(m, n, count=size, seed=rng, goal=goal, distance=span)
        if lo == hi:
            return boards, np.full(size, lo, np.int64), every
        return (boards, *_solve(boards, goal, exact, time_limit))
    from .generate import random_solvable

    boards = random_solvable(m, n, count=size, seed=rng, goal=goal)
    if m * n > MAX_EXACT_CELLS and min(m, n) > 1:
        return boards, _bounds(boards, goal), np.zeros(size, np.bool_)
    return (boards, *_solve(boards, goal, exact, time_limit))


def _ranks_in_span(table, span, size, rng, m, n):
    from .distances.index import pick_ranks

    lo, hi = span
    total = int(table.counts[lo : hi + 1].sum()) if lo <= table.radius else 0
    if total == 0:
        raise OptionError("distance", lo if lo == hi else (lo, hi),
                          f"names no {m}x{n} board: distances run from 0 to {table.radius}")  # fmt: skip
    js = rng.integers(0, total, size=size, dtype=np.int64)
    return pick_ranks(table.depths, table.size, lo, min(hi, table.radius), js, table.range_index)


def _bounds(boards, goal):
    from .search.heuristics import linear_conflict

    return np.asarray(linear_conflict(boards, goal=goal), np.int64).reshape(-1)


def _solve(boards, goal, exact, time_limit):
    """Exact distances by optimal solves; boards over the budget get a bound
    (``exact=False``) or raise :class:`~fastpuzzle.distances.DistanceBudgetError`."""
    from .distances import distance

    labels = distance(boards, goal=goal, time_limit=time_limit, stopped="raise" if exact else "mark")
    labels = np.asarray(labels, np.int64).reshape(-1)
    ok = labels >= 0
    if not ok.all():
        labels[~ok] = _bounds(boards[~ok], goal)
    return labels, ok


def labelled_boards(m, n, count, *, distance=None, seed=None, goal=None, exact=True, time_limit=None):
    """Random boards with their exact optimal distances to the goal.

    Parameters
    ----------
    m, n : int
        Board shape.
    count : int
        Number of boards.
    distance : int or (int, int), optional
        Only boards at this optimal distance (or in ``lo .. hi``), uniform
        among them, as :func:`fastpuzzle.random_solvable` draws them.
        Default: uniform over all boards that reach the goal.
    seed : None, int, SeedSequence or Generator
        Source of randomness; a seed gives the same boards for any thread
        count, and the first ``k`` boards do not depend on ``count``.
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.
    exact : bool
        True (default): every label is exact, or a ``ValueError`` says why
        it cannot be (uniform boards of more than 16 cells), or
        :class:`~fastpuzzle.distances.DistanceBudgetError` names the boards
        whose solve passed ``time_limit``.  False: where exact is out of
        reach the label is an admissible lower bound (linear conflict), and
        a third array says which labels are exact.
    time_limit : float, optional
        Seconds per board of an optimal solve (uniform boards of 13 to 16
        cells).

    Returns
    -------
    boards : ndarray, shape (count, m, n)
    distances : ndarray of int64, shape (count,)
    is_exact : ndarray of bool, shape (count,)
        Only with ``exact=False``.

    Examples
    --------
    >>> from fastpuzzle import distance
    >>> boards, d = labelled_boards(3, 3, 4, seed=2)
    >>> boards.shape, bool((d == distance(boards)).all())
    ((4, 3, 3), True)
    >>> boards, d = labelled_boards(4, 4, 3, distance=(5, 6), seed=2)
    >>> set(d.tolist()) <= {5, 6}
    True
    """
    count, target, span = _check_options(m, n, count, distance, goal, exact, time_limit)
    key = seed_key(seed)
    from .memory import check_allocation

    check_allocation(count * (m * n * board_dtype(m * n).itemsize + 9), f"{count:,} labelled {m}x{n} boards")
    boards, labels, ok = out = _outputs(m, n, count)
    for _ in _chunks(m, n, count, target, span, key, exact, time_limit, out):
        pass
    return (boards, labels) if exact else (boards, labels, ok)
