"""Manhattan distance, the one home: cell to cell, tile at cell, and board by board.

Three views of one definition, ``|row - goal_row| + |col - goal_col|`` summed over the tiles
(blank excluded): :func:`cell_distances` (cell to cell, the environments' rewards),
:func:`manhattan_table` (tile at cell, the search tables of small boards) and
:func:`tile_distances` (board by board in O(cells), for bounds, pictures and boards of any
size).  Compiled kernels read these tables, or keep the sum up to date one move at a time
(:mod:`fastpuzzle.search.heuristics`, :mod:`fastpuzzle.search.beam`); the public batch
function is :func:`fastpuzzle.heuristics.manhattan`.
"""

from __future__ import annotations

import numpy as np

from .boards import goal_cells

__all__ = ["cell_distances", "manhattan_table", "tile_distances"]


def cell_distances(m: int, n: int) -> np.ndarray:
    """``table[a, b]``: Manhattan distance between cells ``a`` and ``b`` of an ``m x n`` board.

    Examples
    --------
    >>> cell_distances(2, 2).tolist()
    [[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]]
    """
    r, c = np.divmod(np.arange(m * n), n)
    return np.abs(r[:, None] - r[None, :]) + np.abs(c[:, None] - c[None, :])


def manhattan_table(goal) -> np.ndarray:
    """``table[tile, cell]``: Manhattan distance of ``tile`` at ``cell`` from its goal cell (0 for the blank).

    Examples
    --------
    >>> manhattan_table(np.array([[1, 2], [3, 0]]))[1].tolist()
    [0, 1, 1, 2]
    """
    goal = np.asarray(goal)
    table = cell_distances(*goal.shape)[goal_cells(goal)]
    table[0] = 0
    return table


def tile_distances(boards, goal) -> np.ndarray:
    """How far the tile at each cell is from its goal cell (0 for the blank), in O(cells) a board.

    ``boards`` is flat (``(..., m*n)``) or shaped (``(..., m, n)``) like ``goal``; the result
    is flat, ``(..., m*n)``; its sum over the last axis is the Manhattan distance.

    Examples
    --------
    >>> goal = np.array([[1, 2], [3, 0]])
    >>> tile_distances(np.array([[0, 1], [3, 2]]), goal).tolist()
    [0, 1, 0, 1]
    """
    goal = np.asarray(goal)
    m, n = goal.shape
    cells = np.asarray(boards).astype(np.int64)
    if cells.shape[-2:] == (m, n):
        cells = cells.reshape(cells.shape[:-2] + (m * n,))
    home = goal_cells(goal)[cells]
    r, c = np.divmod(np.arange(m * n), n)
    return np.where(cells == 0, 0, np.abs(r - home // n) + np.abs(c - home % n))
