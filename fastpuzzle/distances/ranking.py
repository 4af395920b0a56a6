"""A perfect hash of the boards that can reach a goal: ``rank = q * N + b``.

A board of ``N = m n`` cells is split into the blank's cell ``b`` and the
*tile order* ``s``: the tiles read row-major, skipping the blank, written as
``0 .. k-1`` (``k = N - 1``) after relabelling the goal's tiles so that the
goal reads ``0, 1, .., k-1`` (:func:`goal_relabelling`).

A horizontal move leaves ``s`` unchanged; a vertical move carries one tile
past ``n - 1`` others, which changes the parity of ``s`` by ``n - 1``.  So
``parity(s) + (n - 1) * row(b)`` is the same for every board that reaches the
goal, and the parity of ``s`` is fixed by the blank's row (the textbook
solvability rule).  The Lehmer code ``d_0 .. d_{k-1}`` of ``s``
(``d_i`` = later entries smaller than ``s_i``) has ``d_{k-1} = 0`` and
``parity(s) = sum(d_i) mod 2``, so ``d_{k-2}`` (weight ``1! = 1``) is fixed
by the others and the blank's row.  Hence::

    q = lehmer(s) // 2            in 0 .. k!/2 - 1
    rank = q * N + b              in 0 .. N!/2 - 1

is a bijection between the reachable boards and ``0 .. N!/2 - 1``.  The
blank is the fast-moving digit, so the two horizontal neighbours of a board
sit one byte away from it in any array indexed by rank.

On a board with one row or one column no tile passes another: the tile order
is always the goal's, ``q = 0`` and ``rank = b`` (``N`` boards).

Kernels work on at most :data:`MAX_RANK_CELLS` cells (bit masks of the tile
values, popcount and select tables of ``2**k`` rows).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from .._jit import jit, pjit, use_threads
from ..boards import as_goal, board_dtype, relabel_table
from ..errors import ShapeError

__all__ = ["MAX_RANK_CELLS", "StateSpace", "goal_relabelling"]

#: Largest board the ranking kernels handle (2x8, 4x4: 16 cells).
MAX_RANK_CELLS = 16


def goal_relabelling(goal: np.ndarray):
    """Tile maps that turn ``goal`` into the canonical goal of its blank cell.

    The canonical goal holds ``1, 2, .., N-1`` row-major around the blank.
    Returns ``(label_of, tile_of)``: ``label_of[goal[c]]`` is the canonical
    tile of cell ``c`` and ``tile_of`` is its inverse (both keep 0 = blank).
    Relabelling tiles changes no move, so distances are unchanged.

    Examples
    --------
    >>> label_of, tile_of = goal_relabelling(np.array([[0, 3], [2, 1]]))
    >>> label_of.tolist(), tile_of.tolist()
    ([0, 3, 2, 1], [0, 3, 2, 1])
    """
    goal = np.asarray(goal)
    canonical = np.zeros(goal.size, np.int64)
    canonical[goal.ravel() != 0] = np.arange(1, goal.size)
    label_of = relabel_table(goal, canonical.reshape(goal.shape))  # the one relabelling helper
    tile_of = np.zeros(goal.size, np.int64)
    tile_of[label_of] = np.arange(goal.size)
    return label_of, tile_of


@jit
def _popcounts(k):
    pop = np.zeros(1 << k, np.uint8)
    for x in range(1, 1 << k):
        pop[x] = pop[x >> 1] + (x & 1)
    return pop


@jit
def _selects(k):
    """``sel[free, d]``: the ``d``-th smallest value whose bit is set in ``free``."""
    sel = np.zeros((1 << k, max(k, 1)), np.uint8)
    for free in range(1 << k):
        d = 0
        for v in range(k):
            if (free >> v) & 1:
                sel[free, d] = v
                d += 1
    return sel


@jit(inline="always")
def seq_rank(seq, k, fact, pop):
    """``(lehmer(seq) // 2, parity(seq))`` of a tile order ``seq[0:k]``."""
    used = 0
    lehmer = 0
    parity = 0
    for i in range(k):
        t = np.int64(seq[i])
        d = t - np.int64(pop[used & ((1 << t) - 1)])
        lehmer += d * fact[i]
        parity += d
        used |= 1 << t
    return lehmer >> 1, parity & 1


@jit(inline="always")
def seq_unrank(q, parity, k, fact, sel, seq):
    """Fill ``seq[0:k]`` with the tile order of index ``q`` and ``parity``."""
    # digit i of x = 2q is (x // fact[i]) mod (k - i) = Q_i - (k - i) Q_{i-1} with Q_i = x // fact[i]:
    # every quotient is of x itself, so the divisions run side by side instead of in a chain
    x = 2 * q
    prev = 0
    free = (1 << k) - 1
    total = 0
    for i in range(k):
        if i < k - 2:
            quot = x // fact[i]
            d = quot - (k - i) * prev
            prev = quot
        elif i == k - 2:
            d = (parity - total) & 1
        else:
            d = 0
        total += d
        t = np.int64(sel[free, d])
        seq[i] = t
        free &= ~(1 << t)


@jit(inline="always")
def neighbour_ranks(q, b, seq, work, N, n, k, fact, pop, out):
    """Ranks of the boards one move from ``(q, b)`` (``seq``: its tile
    order).  Writes them to ``out`` and returns how many there are."""
    c = b % n
    count = 0
    if c > 0:
        out[count] = q * N + b - 1
        count += 1
    if c < n - 1:
        out[count] = q * N + b + 1
        count += 1
    if b >= n:  # blank up: the tile at order index b-n moves to index b-1
        for i in range(k):
            work[i] = seq[i]
        t = work[b - n]
        for i in range(b - n, b - 1):
            work[i] = work[i + 1]
        work[b - 1] = t
        nq, _ = seq_rank(work, k, fact, pop)
        out[count] = nq * N + b - n
        count += 1
    if b + n < N:  # blank down: the tile at index b+n-1 moves to index b
        for i in range(k):
            work[i] = seq[i]
        t = work[b + n - 1]
        for i in range(b + n - 1, b, -1):
            work[i] = work[i - 1]
        work[b] = t
        nq, _ = seq_rank(work, k, fact, pop)
        out[count] = nq * N + b + n
        count += 1
    return count


@jit(inline="always")
def _board_rank(cells, label_of, N, k, fact, pop, row_parity, seq):
    """Rank of one board (original tile labels), or -1 if it cannot reach
    the goal."""
    b = -1
    j = 0
    for c in range(N):
        v = label_of[cells[c]]
        if v == 0:
            b = c
        else:
            seq[j] = v - 1
            j += 1
    q, parity = seq_rank(seq, k, fact, pop)
    if parity != row_parity[b]:
        return -1
    return q * N + b


@jit
def _ranks_range(flat, label_of, N, k, fact, pop, row_parity, line, out, lo, hi):
    seq = np.zeros(max(k, 1), np.int64)
    for i in range(lo, hi):
        r = _board_rank(flat[i], label_of, N, k, fact, pop, row_parity, seq)
        if line and r >= N:  # a line board whose tiles left the goal's order
            r = -1
        out[i] = r


@pjit
def _ranks_parallel(flat, label_of, N, k, fact, pop, row_parity, line, out, parts):
    B = flat.shape[0]
    step = (B + parts - 1) // parts
    for p in prange(parts):
        _ranks_range(flat, label_of, N, k, fact, pop, row_parity, line, out, p * step, min(B, (p + 1) * step))


@jit(inline="always")
def unrank_board(r, tile_of, N, k, fact, sel, row_parity, seq, out, i):
    """Write the board of rank ``r`` (goal's tile labels) to ``out[i]``; ``seq``: ``k`` cells of scratch."""
    q = r // N
    b = r - q * N
    seq_unrank(q, row_parity[b], k, fact, sel, seq)
    j = 0
    for c in range(N):
        if c == b:
            out[i, c] = 0
        else:
            out[i, c] = tile_of[seq[j] + 1]
            j += 1


@jit
def _boards_range(ranks, tile_of, N, k, fact, sel, row_parity, out, lo, hi):
    seq = np.zeros(max(k, 1), np.int64)
    for i in range(lo, hi):
        unrank_board(ranks[i], tile_of, N, k, fact, sel, row_parity, seq, out, i)


@pjit
def _boards_parallel(ranks, tile_of, N, k, fact, sel, row_parity, out, parts):
    B = ranks.shape[0]
    step = (B + parts - 1) // parts
    for p in prange(parts):
        _boards_range(ranks, tile_of, N, k, fact, sel, row_parity, out, p * step, min(B, (p + 1) * step))


class StateSpace:
    """The boards that reach one goal, ranked ``0 .. size-1`` (module notes).

    Parameters
    ----------
    m, n : int
        Board shape, at most :data:`MAX_RANK_CELLS` cells.
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.

    Examples
    --------
    >>> space = StateSpace(2, 3)
    >>> space.size, space.rank([[1, 2, 3], [4, 5, 0]])
    (360, 5)
    >>> space.board(space.rank([[4, 1, 2], [5, 0, 3]]))
    array([[4, 1, 2],
           [5, 0, 3]], dtype=uint8)
    """

    def __init__(self, m: int, n: int, goal=None):
        self.goal = as_goal(goal, m, n)
        self.m, self.n = int(m), int(n)
        N = self.m * self.n
        if N > MAX_RANK_CELLS:
            raise ShapeError((m, n), f"ranking handles boards of at most {MAX_RANK_CELLS} cells, got {m}x{n} = {N}",
                             expected=MAX_RANK_CELLS)  # fmt: skip
        self.cells, self.k = N, N - 1
        self.line = self.m == 1 or self.n == 1
        #: boards per blank cell: k!/2 tile orders (one on a line)
        self.orders = 1 if self.line else math.factorial(self.k) // 2
        self.size = self.orders * N
        self.label_of, self.tile_of = goal_relabelling(self.goal)
        self.blank = int(np.flatnonzero(self.goal.ravel() == 0)[0])
        rows = np.arange(N) // self.n
        #: parity of the tile order of every reachable board, by blank cell
        self.row_parity = (((rows - self.blank // self.n) * (self.n - 1)) & 1).astype(np.int64)
        if self.line:
            self.row_parity[:] = 0
        self.fact = np.array([math.factorial(self.k - 1 - i) for i in range(self.k)], np.int64)
        self.pop = _popcounts(self.k)
        self.sel = _selects(self.k)

    @property
    def goal_rank(self) -> int:
        """Rank of the goal itself (``q = 0``, the blank's cell)."""
        return self.blank

    def ranks(self, flat: np.ndarray) -> np.ndarray:
        """Ranks of validated boards ``(B, N)``; -1 where a board cannot reach the goal."""
        out = np.empty(flat.shape[0], np.int64)
        args = (flat, self.label_of, self.cells, self.k, self.fact, self.pop, self.row_parity, self.line, out)
        if use_threads(flat.size):
            _ranks_parallel(*args, 64)
        else:
            _ranks_range(*args, 0, flat.shape[0])
        return out

    def boards(self, ranks) -> np.ndarray:
        """Boards ``(B, m, n)`` of ranks in ``0 .. size-1`` (goal's tile labels)."""
        ranks = np.ascontiguousarray(ranks, np.int64).ravel()
        out = np.empty((ranks.shape[0], self.cells), board_dtype(self.cells))
        args = (ranks, self.tile_of, self.cells, self.k, self.fact, self.sel, self.row_parity, out)
        if use_threads(out.size):
            _boards_parallel(*args, 64)
        else:
            _boards_range(*args, 0, ranks.shape[0])
        return out.reshape(-1, self.m, self.n)

    def rank(self, board) -> int:
        """Rank of one board (-1 if it cannot reach the goal)."""
        flat = np.asarray(board).reshape(1, self.cells).astype(board_dtype(self.cells))
        return int(self.ranks(flat)[0])

    def board(self, rank: int) -> np.ndarray:
        """Board ``(m, n)`` of one rank."""
        return self.boards([rank])[0]

    def kernel_args(self):
        """``(N, n, k, fact, pop, sel, row_parity)`` for the search kernels."""
        return self.cells, self.n, self.k, self.fact, self.pop, self.sel, self.row_parity
