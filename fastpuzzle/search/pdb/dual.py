"""Dual lookups: the pattern databases looked up on the inverse permutation.

A board is a permutation ``pi`` of the cells: ``pi(c)`` is the goal cell of
the tile on cell ``c``.  A solution is a path of the blank; read backwards
it solves the *dual* board ``pi^-1`` (Felner, Zahavi, Holte, Schaeffer 2005;
Zahavi et al. 2008), so any lower bound on the dual is one on the board.
In tile terms the dual board puts tile ``u`` on the goal cell of the tile that
lies on ``u``'s goal cell now::

    dual_pos[u] = goal_cell[cells[goal_cell[u]]]

The dual is solved towards a goal that differs from the database's in one
tile only when the blank is off its goal cell ``beta``: the tile ``T`` whose
goal is the blank's cell ``b`` plays the blank there (it sits on ``beta``
and must end on ``b``), and the blank of the database's goal is a plain tile
that must end on ``beta``.  So every pattern without ``T`` is measured
against its own goal placement, exactly as the table measures it, and the
values of those patterns add up; the pattern that holds ``T`` contributes
the Manhattan distance of its other tiles instead.  With the blank home the
dual bound is the tables' full sum.  A square board's reflection (see
:mod:`fastpuzzle.search.pdb.heuristic`) gives a second dual, of the
reflected board.

Inside the engine the dual is evaluated lazily: only on a child that the
regular lookups did not prune, from its parent's dual values (a move changes
the dual places of the two tiles whose goal cells are the move's two cells:
at most two table lookups per reflection).  The values of every depth are
kept on their own rows (``values[depth]``), so undoing a move costs nothing
but swapping two dual places back.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ...errors import ShapeError
from .ranking import rank_placement

__all__ = ["dual_kernel_tables", "dual_new_state", "dual_start", "dual_child", "dual_move", "dual_lookup"]


def dual_kernel_tables(db) -> tuple:
    """``(goal_cell, goal_tile, distance, home_region)`` of ``db`` for the kernels.

    ``distance[u * N + x]``: the Manhattan distance from cell ``x`` to tile
    ``u``'s goal cell.  ``home_region[p * N + b]``: whether, with pattern
    ``p``'s tiles home, cell ``b`` lies in the blank region of the goal's
    blank cell (the tables measure distance to that region; a dual whose
    blank is on ``b`` must reach the region of ``b``, so where the two differ
    the pattern falls back to its Manhattan distance).
    """
    m, n = db.shape
    n_cells = m * n
    goal_tile = np.ascontiguousarray(db.goal.ravel().astype(np.int64))
    goal_cell = np.zeros(n_cells, np.int64)
    goal_cell[goal_tile] = np.arange(n_cells)
    rows, cols = goal_cell // n, goal_cell % n
    cell = np.arange(n_cells)
    distance = np.abs(rows[:, None] - cell[None, :] // n) + np.abs(cols[:, None] - cell[None, :] % n)
    home_region = np.zeros((len(db.partition), n_cells), np.int64)
    for p, pattern in enumerate(db.partition):
        free = np.ones(n_cells, bool)
        free[goal_cell[list(pattern)]] = False
        seen, todo = {int(goal_cell[0])}, [int(goal_cell[0])]
        while todo:  # flood the free cells from the goal's blank cell
            c = todo.pop()
            r, k = divmod(c, n)
            for rr, kk in ((r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1)):
                x = rr * n + kk
                if 0 <= rr < m and 0 <= kk < n and free[x] and x not in seen:
                    seen.add(x)
                    todo.append(x)
        home_region[p, sorted(seen)] = 1
    return goal_cell, goal_tile, np.ascontiguousarray(distance.ravel().astype(np.int64)), home_region.ravel()


@jit
def dual_new_state(n_patterns, n_cells, capacity):
    """Dual places (row 0: the board, row 1: its reflection) and, per depth
    and reflection, the value and Manhattan sum of each pattern."""
    return (np.zeros((2, n_cells), np.int64), np.zeros((capacity + 2, 2, n_patterns), np.int64),
            np.zeros((capacity + 2, 2, n_patterns), np.int64))  # fmt: skip


@jit(inline="always")
def _value(data, tiles, sizes, weights, offsets, where, p, buf):
    k = sizes[p]
    for i in range(k):
        buf[i] = where[tiles[p, i]]
    return np.int64(data[offsets[p] + rank_placement(buf, k, weights[p])])


@jit(inline="always")
def _row_h(values, mds, d, r, blank, goal_cell, goal_tile, distance, pattern_of, home_region, n_cells):
    """The dual bound of reflection ``r`` at depth ``d``, the blank on ``blank``."""
    t = goal_tile[blank]  # plays the blank on the dual board, from the blank's goal cell
    q = pattern_of[t]
    h = 0
    for p in range(values.shape[2]):
        if p == q:
            h += mds[d, r, p] - distance[t * n_cells + goal_cell[0]]
        elif home_region[p * n_cells + blank]:
            h += values[d, r, p]
        else:
            h += mds[d, r, p]
    return h


@jit
def dual_start(cells, data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, reflect,
               goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf):  # fmt: skip
    """Fill depth 0 of the dual state for the flat board ``cells``; returns its dual bound."""
    n_cells = cells.shape[0]
    n_rows = 2 if reflect else 1
    h = 0
    blank = 0
    for c in range(n_cells):
        if cells[c] == 0:
            blank = c
    for r in range(n_rows):
        for u in range(n_cells):
            c = goal_cell[u]
            t = cells[c] if r == 0 else tile_map[cells[cell_map[c]]]
            dpos[r, u] = goal_cell[t]
        for p in range(sizes.shape[0]):
            values[0, r, p] = _value(data, tiles, sizes, weights, offsets, dpos[r], p, buf)
            md = 0
            for i in range(sizes[p]):
                u = tiles[p, i]
                md += distance[u * n_cells + dpos[r, u]]
            mds[0, r, p] = md
        hr = _row_h(values, mds, 0, r, blank if r == 0 else cell_map[blank],
                    goal_cell, goal_tile, distance, pattern_of, home_region, n_cells)  # fmt: skip
        if hr > h:
            h = hr
    return h


@jit(inline="always")
def _child_row(r, a, b, t, d, data, tiles, sizes, weights, offsets, pattern_of,
               goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf):  # fmt: skip
    """Row ``r`` of depth ``d + 1`` after tile ``t`` slides from ``b`` into the
    blank ``a``; returns the child's dual bound for that row."""
    n_cells = dpos.shape[1]
    for p in range(values.shape[2]):
        values[d + 1, r, p] = values[d, r, p]
        mds[d + 1, r, p] = mds[d, r, p]
    beta = goal_cell[0]
    u1 = goal_tile[a]  # dual place beta -> goal_cell[t]
    u2 = goal_tile[b]  # dual place goal_cell[t] -> beta
    x1 = goal_cell[t]
    p1 = pattern_of[u1]
    p2 = pattern_of[u2]
    dpos[r, u1] = x1  # looked up in place, put back below
    dpos[r, u2] = beta
    if p1 >= 0:
        v = _value(data, tiles, sizes, weights, offsets, dpos[r], p1, buf)
        values[d + 1, r, p1] = v
        mds[d + 1, r, p1] += distance[u1 * n_cells + x1] - distance[u1 * n_cells + beta]
    if p2 >= 0:
        if p2 != p1:
            v = _value(data, tiles, sizes, weights, offsets, dpos[r], p2, buf)
            values[d + 1, r, p2] = v
        mds[d + 1, r, p2] += distance[u2 * n_cells + beta] - distance[u2 * n_cells + x1]
    dpos[r, u1] = beta
    dpos[r, u2] = x1
    return _row_h(values, mds, d + 1, r, b, goal_cell, goal_tile, distance, pattern_of, home_region, n_cells)


@jit(inline="always")
def dual_child(a, b, t, d, data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, reflect,
               goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf):  # fmt: skip
    """Depth ``d + 1``'s dual values after tile ``t`` slides from ``b`` into the
    blank ``a`` (depth ``d`` holds the parent's); returns the child's dual bound."""
    h = _child_row(0, a, b, t, d, data, tiles, sizes, weights, offsets, pattern_of,
                   goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf)  # fmt: skip
    if reflect:
        hr = _child_row(1, cell_map[a], cell_map[b], tile_map[t], d, data, tiles, sizes, weights, offsets,
                        pattern_of, goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf)  # fmt: skip
        if hr > h:
            h = hr
    return h


@jit(inline="always")
def dual_move(a, b, t, forward, cell_map, tile_map, reflect, goal_cell, goal_tile, dpos):
    """Make (``forward``) or undo the dual places of tile ``t`` sliding from ``b`` into the blank ``a``."""
    for r in range(2 if reflect else 1):
        ar = a if r == 0 else cell_map[a]
        br = b if r == 0 else cell_map[b]
        tr = t if r == 0 else tile_map[t]
        x1 = goal_cell[tr]
        beta = goal_cell[0]
        if forward:
            dpos[r, goal_tile[ar]] = x1
            dpos[r, goal_tile[br]] = beta
        else:
            dpos[r, goal_tile[ar]] = beta
            dpos[r, goal_tile[br]] = x1


@jit
def _dual_batch(flat, data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, reflect,
                goal_cell, goal_tile, distance, home_region):  # fmt: skip
    n_cells = flat.shape[1]
    out = np.zeros(flat.shape[0], np.int64)
    dpos, values, mds = dual_new_state(sizes.shape[0], n_cells, 0)
    buf = np.zeros(tiles.shape[1], np.int64)
    for i in range(flat.shape[0]):
        out[i] = dual_start(flat[i], data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, reflect,
                            goal_cell, goal_tile, distance, home_region, dpos, values, mds, buf)  # fmt: skip
    return out


def dual_lookup(db, boards) -> np.ndarray:
    """The dual bound of each board of a ``(B, m, n)`` batch (boards measured against ``db.goal``).

    A database of several partitions is looked up on its first (:meth:`PatternDatabase.group`).

    Examples
    --------
    >>> from fastpuzzle.pdb import build_partition
    >>> db = build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    >>> boards = np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 0]], [[1, 2, 3], [4, 5, 6], [7, 0, 8]]])
    >>> bounds = dual_lookup(db, boards)  # admissible: never above the boards' distances 0 and 1
    >>> bool(bounds[0] == 0 and bounds[1] <= 1)
    True
    """
    batch = np.asarray(boards)
    if batch.ndim != 3 or batch.shape[1:] != tuple(db.shape):
        raise ShapeError(batch.shape, f"boards must be a (B, {db.shape[0]}, {db.shape[1]}) batch, got shape {batch.shape}",
                         expected=tuple(db.shape))  # fmt: skip
    db = db.group(0)  # the first partition (of a database that holds several)
    tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, views, _ = db._kernel_arrays()
    data, reflect = np.asarray(db.data).view(np.ndarray), int(db.reflect)
    pattern_of, cell_map, tile_map = pattern_of[0], cell_map[-1], tile_map[-1]  # the last view: the reflection, if any
    flat = np.ascontiguousarray(batch.reshape(batch.shape[0], -1).astype(np.int64))
    return _dual_batch(flat, data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, reflect,
                       *dual_kernel_tables(db))  # fmt: skip
