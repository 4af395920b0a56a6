"""Beam search on the Manhattan distance: a quick, good first answer for boards above 25 cells.

Layer by layer from the start, every board of the beam is expanded (the move
that undoes the one before left out), duplicates within the layer dropped
(Zobrist hashes), and the ``width`` children of smallest Manhattan distance
kept, none seen in an earlier layer (a table of hashes, or the beam cycles); the first child at distance 0 is the goal.  Nothing is proved: the
answer is an incumbent for :mod:`fastpuzzle.search.anytime`, which shortens it
with windows on the one IDA* engine.  Widths double while the budget lasts.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..boards import goal_cells
from ..memory import check_allocation
from ..manhattan import tile_distances
from ..moves import step_offset, undo_code
from .clock import clock

__all__ = ["beam_search"]


@jit
def _seen_before(table, key):
    """Whether ``key`` (non-zero) is in the open-addressing ``table``; inserts it if not (a full table forgets)."""
    mask = table.shape[0] - 1
    slot = (key ^ (key >> 29)) & mask
    for _ in range(32):
        v = table[slot]
        if v == key:
            return True
        if v == 0:
            table[slot] = key
            return False
        slot = (slot + 1) & mask
    return False


@jit
def _layer(boards, h, blank, prev, hashes, m, n, goal_cell, zobrist, width, table, out_boards, out_h, out_blank,
           out_prev, out_hashes, parent, move):  # fmt: skip
    """Expand one layer; returns ``(count, goal_index)`` (-1: no goal child)."""
    k = boards.shape[0]
    cand_key = np.empty(4 * k, np.int64)
    cand_from = np.empty(4 * k, np.int64)
    c = 0
    for i in range(k):
        b = blank[i]
        r, col = b // n, b % n
        for op in range(4):
            if prev[i] >= 0 and op == undo_code(prev[i]):
                continue
            if (op == 0 and r == 0) or (op == 1 and col == 0) or (op == 2 and col == n - 1) or (op == 3 and r == m - 1):
                continue
            src = b + step_offset(op, n)
            t = np.int64(boards[i, src])
            g = goal_cell[t]
            gr, gc = g // n, g % n
            delta = abs(r - gr) + abs(col - gc) - abs(src // n - gr) - abs(src % n - gc)
            hh = hashes[i] ^ zobrist[t, src] ^ zobrist[t, b]
            child_h = h[i] + delta
            if child_h == 0:
                parent[0], move[0] = i, op
                out_boards[0] = boards[i]
                out_boards[0, b] = t
                out_boards[0, src] = 0
                return 1, 0
            # sort key: h first, then the hash (equal keys: the same board)
            cand_key[c] = (child_h << 40) | (hh & ((1 << 40) - 1))
            cand_from[c] = i * 4 + op
            c += 1
    order = np.argsort(cand_key[:c])
    kept = 0
    last = -1
    for j in range(c):
        key = cand_key[order[j]]
        if key == last:
            continue
        last = key
        i, op = cand_from[order[j]] // 4, cand_from[order[j]] % 4
        b = blank[i]
        src = b + step_offset(op, n)
        t = boards[i, src]
        child_hash = hashes[i] ^ zobrist[np.int64(t), src] ^ zobrist[np.int64(t), b]
        if _seen_before(table, child_hash | 1):  # a board of an earlier layer: the beam would cycle
            continue
        out_boards[kept] = boards[i]
        out_boards[kept, b] = t
        out_boards[kept, src] = 0
        out_h[kept] = key >> 40
        out_blank[kept] = src
        out_prev[kept] = op
        out_hashes[kept] = child_hash
        parent[kept], move[kept] = i, op
        kept += 1
        if kept == width:
            break
    return kept, -1


def beam_search(cells: np.ndarray, m: int, n: int, goal: np.ndarray, width: int, *, deadline: float = 0.0,
                max_depth: int | None = None, seed: int = 0):  # fmt: skip
    """Moves from the flat board ``cells`` to the flat ``goal`` by a beam of ``width`` boards, or None.

    None when the :func:`fastpuzzle.search.clock.clock` ``deadline`` (0 = none)
    passes or ``max_depth`` layers (default ``20 * m * n``, at least 200) find no goal.

    Examples
    --------
    >>> goal = np.array([1, 2, 3, 4, 5, 6, 7, 8, 0], np.uint8)
    >>> beam_search(np.array([1, 2, 3, 4, 5, 6, 0, 7, 8], np.uint8), 3, 3, goal, 10).tolist()
    [2, 2]
    """
    cells = np.ascontiguousarray(cells)
    goal_cell = goal_cells(goal)
    depth_cap = max_depth or max(200, 20 * m * n)
    table_size = 1 << min(23, max(10, int(2 * width * depth_cap).bit_length()))
    check_allocation(3 * width * m * n * cells.itemsize + depth_cap * width * 5 + 8 * table_size, "beam search")
    table = np.zeros(table_size, np.int64)  # hashes of every board kept so far
    zobrist = np.random.default_rng(seed).integers(0, 2**62, size=(m * n, m * n), dtype=np.int64)
    boards = cells[None, :].copy()
    blank = np.array([int(np.flatnonzero(cells == 0)[0])], np.int64)
    h = np.array([int(tile_distances(cells, np.asarray(goal).reshape(m, n)).sum())])
    if h[0] == 0:
        return np.zeros(0, np.uint8)
    prev = np.full(1, -1, np.int64)
    hashes = np.zeros(1, np.int64)
    parents, moves = [], []
    out = [np.empty((width, m * n), cells.dtype), np.empty(width, np.int64), np.empty(width, np.int64),
           np.empty(width, np.int64), np.empty(width, np.int64)]  # fmt: skip
    for _ in range(depth_cap):
        if deadline > 0.0 and clock() > deadline:
            return None
        parent, move = np.empty(width, np.int32), np.empty(width, np.uint8)
        count, found = _layer(boards, h, blank, prev, hashes, m, n, goal_cell, zobrist, width, table, *out,
                              parent, move)  # fmt: skip
        parents.append(parent[:count])
        moves.append(move[:count])
        if found >= 0:
            return _path(parents, moves, found)
        boards, h, blank, prev, hashes = (a[:count].copy() for a in out)
    return None


def _path(parents, moves, index):
    codes = np.empty(len(parents), np.uint8)
    for d in range(len(parents) - 1, -1, -1):
        codes[d] = moves[d][index]
        index = parents[d][index]
    return codes
