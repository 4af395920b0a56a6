"""The multi-tile metric: slides of whole row or column segments, and its tables.

In the multi-tile metric (MTM) of speedsolvers one move slides up to a whole
row or column segment toward the blank: the blank travels ``k >= 1`` cells
in a straight line, and that counts once.  :func:`slide_neighbours` gives
every board one move away in either metric (the one neighbour generator of
hints and of this search); :func:`mtm_bfs` fills a depth array of
:class:`~fastpuzzle.distances.ranking.StateSpace` ranks in the multi-tile
metric, a frontier at a time: the ranks at depth ``d`` are turned back into
boards (the compiled unranking), every slide is made in NumPy, and the
compiled ranking marks the unseen ones ``d + 1``.  About ten times the work
of the single-tile search per board (there are up to ``m + n - 2``
neighbours and no byte-level tricks), which is fine up to 12 cells.
"""

from __future__ import annotations

import time

import numpy as np

from ..moves import neighbour_cells
from .search import UNSEEN, new_depths

__all__ = ["slide_neighbours", "mtm_bfs", "FRONTIER_CHUNK"]

#: Boards expanded at once (memory: about ``(m + n) * 16`` bytes each).
FRONTIER_CHUNK = 1 << 18


def slide_neighbours(flat: np.ndarray, m: int, n: int, metric: str = "stm"):
    """Every board one move away from each board of ``flat``.

    Parameters
    ----------
    flat : ndarray, shape (B, m*n)
        Boards, row-major.
    metric : {"stm", "mtm"}
        ``"stm"``: the blank moves one cell (up to 4 neighbours);
        ``"mtm"``: it slides ``k >= 1`` cells in a straight line.

    Returns
    -------
    boards : ndarray, shape (K, m*n)
        The neighbours.
    source : ndarray of int64, shape (K,)
        Index in ``flat`` of the board each comes from.
    code, steps : ndarray of uint8 / int64, shape (K,)
        The blank's direction (0=U 1=L 2=R 3=D) and how many cells it moved.

    Examples
    --------
    >>> boards, source, code, steps = slide_neighbours(np.array([[1, 2, 3, 4, 5, 0]]), 2, 3, "mtm")
    >>> code.tolist(), steps.tolist()
    ([0, 1, 1], [1, 1, 2])
    >>> boards[2].tolist()
    [1, 2, 3, 0, 4, 5]
    """
    B, N = flat.shape
    blank = np.argmax(flat == 0, axis=1)
    step_cell = neighbour_cells(m, n)
    reach = max(m, n) - 1 if metric == "mtm" else 1
    out, srcs, codes, steps = [], [], [], []
    rows = np.arange(B)
    for code in range(4):
        at = blank.copy()
        moved = flat.copy()
        alive = rows
        for k in range(1, reach + 1):
            nxt = step_cell[at[alive], code]
            keep = nxt >= 0
            alive, nxt = alive[keep], nxt[keep]
            if alive.size == 0:
                break
            moved[alive, at[alive]] = moved[alive, nxt]  # the tile next to the blank slides in
            moved[alive, nxt] = 0
            at[alive] = nxt
            out.append(moved[alive])
            srcs.append(alive)
            codes.append(np.full(alive.size, code, np.uint8))
            steps.append(np.full(alive.size, k, np.int64))
    if not out:
        return np.zeros((0, N), flat.dtype), np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(0, np.int64)
    return np.concatenate(out), np.concatenate(srcs), np.concatenate(codes), np.concatenate(steps)


def mtm_bfs(space, *, time_limit=None):
    """Depths of every board of ``space`` in the multi-tile metric.

    Returns ``(depths, counts)`` like :func:`~fastpuzzle.distances.search.bfs`;
    raises ``TimeoutError`` naming the depth reached after ``time_limit`` seconds.

    Examples
    --------
    >>> from fastpuzzle.distances.ranking import StateSpace
    >>> depths, counts = mtm_bfs(StateSpace(2, 3))
    >>> counts.tolist()
    [1, 3, 4, 6, 8, 12, 15, 18, 22, 30, 36, 45, 42, 30, 28, 24, 18, 9, 5, 3, 1]
    """
    m, n = space.m, space.n
    depths = new_depths(space.size, space.goal_rank)
    counts = [1]
    frontier = np.array([space.goal_rank], np.int64)
    start = time.perf_counter()
    d = 0
    while frontier.size:
        for lo in range(0, frontier.size, FRONTIER_CHUNK):
            boards = space.boards(frontier[lo : lo + FRONTIER_CHUNK]).reshape(-1, m * n)
            ranks = space.ranks(slide_neighbours(boards, m, n, "mtm")[0])
            depths[ranks[depths[ranks] == UNSEEN]] = d + 1  # repeats write the same byte
        frontier = np.flatnonzero(depths[: space.size] == d + 1)
        if frontier.size:
            counts.append(int(frontier.size))
            d += 1
        elapsed = time.perf_counter() - start
        if time_limit is not None and elapsed > time_limit and frontier.size:
            raise TimeoutError(f"multi-tile breadth-first search stopped by time_limit={time_limit:g} s after "
                               f"depth {d} ({sum(counts):,} of {space.size:,} boards, {elapsed:.1f} s)")  # fmt: skip
    return depths, np.asarray(counts, np.int64)
