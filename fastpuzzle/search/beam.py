"""Beam search on linear conflict: a quick, good first answer for boards above 25 cells.

Layer by layer from the start, every board of the beam is expanded (the move
that undoes the one before left out) and the ``width`` children of smallest
``h`` kept, each board once and none seen in an earlier layer (a table of
Zobrist hashes, or the beam cycles); the first child at ``h = 0`` is the goal.
``h`` is Manhattan plus linear conflicts, rescanned on the one line a move can change
(on a 35-puzzle of DeepCubeA's set, width 10^5: 142 moves against 156 with
Manhattan alone).  A layer costs time linear in its children: they are
bucketed by ``h`` (ties broken by the hash), not sorted.  Nothing is proved:
the answer is an incumbent for :mod:`fastpuzzle.search.anytime`, which
shortens it with windows on the one IDA* engine.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..interrupt import pending
from ..memory import check_allocation
from ..errors import OptionError
from ..moves import step_offset, undo_code
from .clock import clock
from .heuristics import goal_coordinates, line_conflict_penalty, linear_conflict, manhattan

__all__ = ["compile_beam", "beam_search"]


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


#: Buckets of the hash bits that break ties in ``h``.
TIE_BUCKETS = 1024


@jit
def _counting_order(keys, items, n_keys):
    """``items`` stably reordered by ``keys[items]`` (each in ``0 .. n_keys - 1``)."""
    start = np.zeros(n_keys + 1, np.int64)
    for j in items:
        start[keys[j] + 1] += 1
    for v in range(n_keys):
        start[v + 1] += start[v]
    out = np.empty(items.shape[0], np.int64)
    for j in items:
        out[start[keys[j]]] = j
        start[keys[j]] += 1
    return out


@jit
def _child_h(boards, i, b, src, t, h, r, col, goal_row, goal_col, use_lc, seq, m, n):
    """``h`` of the child of ``boards[i]`` where tile ``t`` slides from ``src`` into the blank at ``b``
    (the board is restored)."""
    gr, gc = goal_row[t], goal_col[t]
    child = h + abs(r - gr) + abs(col - gc) - abs(src // n - gr) - abs(src % n - gc)
    if use_lc:
        # only the line of the tile's goal changes its sequence: a vertical move keeps the column's order
        # and changes the tile's row, which counts in the row sequence only if it is the tile's goal row
        if src % n == col:
            line = gr if gr == r or gr == src // n else -1
        else:
            line = m + gc if gc == col or gc == src % n else -1
        if line >= 0:
            board = boards[i]  # a view only here: each one costs a reference count
            child -= line_conflict_penalty(board, m, n, line, goal_row, goal_col, seq)
            board[b], board[src] = t, 0
            child += line_conflict_penalty(board, m, n, line, goal_row, goal_col, seq)
            board[b], board[src] = 0, t
    return child


@jit
def _layer(boards, h, blank, prev, hashes, m, n, goal_row, goal_col, use_lc, zobrist, width, table, out_boards,
           out_h, out_blank, out_prev, out_hashes, parent, move):  # fmt: skip
    """Expand one layer; returns ``(count, goal_index)`` (-1: no goal child).

    The children are bucketed by ``h`` (a counting sort, not a comparison
    sort: a layer costs time linear in its children) and kept in that order,
    each board once (the hash table also holds the boards of earlier layers).
    """
    k = boards.shape[0]
    cand_h = np.empty(4 * k, np.int64)
    cand_from = np.empty(4 * k, np.int64)
    cand_hash = np.empty(4 * k, np.int64)
    seq = np.empty(max(m, n), np.int64)
    top = 0
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
            child_h = _child_h(boards, i, b, src, t, h[i], r, col, goal_row, goal_col, use_lc, seq, m, n)
            if child_h == 0:
                parent[0], move[0] = i, op
                out_boards[0] = boards[i]
                out_boards[0, b] = t
                out_boards[0, src] = 0
                return 1, 0
            cand_h[c] = child_h
            cand_hash[c] = hashes[i] ^ zobrist[t, src] ^ zobrist[t, b]
            cand_from[c] = i * 4 + op
            top = max(top, child_h)
            c += 1
    # ties in h broken by the hash (a generation order would keep one family of boards, and the
    # beam stalls near the goal): a counting sort by the hash's low bits, then a stable one by h
    shuffled = _counting_order(cand_hash & (TIE_BUCKETS - 1), np.arange(c), TIE_BUCKETS)
    order = _counting_order(cand_h, shuffled, top + 1)
    kept = 0
    for jj in range(c):
        j = order[jj]
        i, op = cand_from[j] // 4, cand_from[j] % 4
        b = blank[i]
        src = b + step_offset(op, n)
        t = boards[i, src]
        child_hash = cand_hash[j]
        if _seen_before(table, child_hash | 1):  # kept before, in this layer or an earlier one
            continue
        out_boards[kept] = boards[i]
        out_boards[kept, b] = t
        out_boards[kept, src] = 0
        out_h[kept] = cand_h[j]
        out_blank[kept] = src
        out_prev[kept] = op
        out_hashes[kept] = child_hash
        parent[kept], move[kept] = i, op
        kept += 1
        if kept == width:
            break
    return kept, -1


def beam_search(cells: np.ndarray, m: int, n: int, goal: np.ndarray, width: int, *, deadline: float = 0.0,
                max_depth: int | None = None, seed: int = 0, heuristic: str = "linear_conflict",
                finish=None, patience: int | None = None, max_nodes: int = 0, stats=None):  # fmt: skip
    """Moves from the flat board ``cells`` to the flat ``goal`` by a beam of ``width`` boards, or None.

    None when the :func:`fastpuzzle.search.clock.clock` ``deadline`` (0 = none)
    passes or ``max_depth`` layers (default ``20 * m * n``, at least 200) find no goal.
    ``heuristic`` ranks the children: ``"linear_conflict"`` (Manhattan plus
    the conflicts of the two lines a move changes) or ``"manhattan"``.

    Near the goal a beam ranked by ``h`` alone can circle a local minimum for
    ever (a few tiles that need a detour): when ``patience`` layers (default
    ``2 * m * n``) pass without a board of smaller ``h`` than the best so
    far, and ``finish(board) -> codes or None`` is given, the answer is the
    beam's path to that best board followed by ``finish``'s moves from it
    (the caller's search, e.g. weighted IDA*; None from it: None here).
    ``max_nodes`` (0 = none): None before a layer would take the children
    generated past it; ``stats[0]``, when given, gets the children generated.

    Examples
    --------
    >>> goal = np.array([1, 2, 3, 4, 5, 6, 7, 8, 0], np.uint8)
    >>> beam_search(np.array([1, 2, 3, 4, 5, 6, 0, 7, 8], np.uint8), 3, 3, goal, 10).tolist()
    [2, 2]
    """
    if heuristic not in ("linear_conflict", "manhattan"):
        raise OptionError("heuristic", heuristic, "must be 'linear_conflict' or 'manhattan'")
    cells = np.ascontiguousarray(cells)
    goal_board = np.asarray(goal, np.int64).reshape(m, n)
    goal_row, goal_col = goal_coordinates(goal_board)
    use_lc = heuristic == "linear_conflict"
    depth_cap = max_depth or max(200, 20 * m * n)
    table_size = 1 << min(24, max(10, int(2 * width * depth_cap).bit_length()))
    check_allocation(3 * width * m * n * cells.itemsize + depth_cap * width * 5 + 8 * table_size, "beam search")
    table = np.zeros(table_size, np.int64)  # hashes of every board kept so far
    zobrist = np.random.default_rng(seed).integers(0, 2**62, size=(m * n, m * n), dtype=np.int64)
    boards = cells[None, :].copy()
    blank = np.array([int(np.flatnonzero(cells == 0)[0])], np.int64)
    start = cells.astype(np.int64).reshape(m, n)
    score = linear_conflict if use_lc else manhattan
    h = np.array([int(score(start, goal=goal_board))], np.int64)
    if h[0] == 0:
        return np.zeros(0, np.uint8)
    prev = np.full(1, -1, np.int64)
    hashes = np.zeros(1, np.int64)
    parents, moves = [], []
    out = [np.empty((width, m * n), cells.dtype), np.empty(width, np.int64), np.empty(width, np.int64),
           np.empty(width, np.int64), np.empty(width, np.int64)]  # fmt: skip
    patience = patience or 2 * m * n
    best_h, best_at, best_board = int(h[0]), (0, 0), cells.copy()
    rows, cols = np.divmod(np.arange(m * n), n)
    legal = (rows > 0).astype(np.int64) + (rows < m - 1) + (cols > 0) + (cols < n - 1)  # moves from each cell
    generated = 0
    for layer in range(depth_cap):
        if (deadline > 0.0 and clock() > deadline) or pending():  # out of time, or a signal asked to stop
            return None
        children = int(legal[blank].sum()) - int((prev >= 0).sum())  # every move but each undo
        if max_nodes and generated + children > max_nodes:
            return None
        generated += children
        if stats is not None:
            stats[0] = generated
        parent, move = np.empty(width, np.int32), np.empty(width, np.uint8)
        count, found = _layer(boards, h, blank, prev, hashes, m, n, goal_row, goal_col, use_lc, zobrist, width,
                              table, *out, parent, move)  # fmt: skip
        parents.append(parent[:count])
        moves.append(move[:count])
        if found >= 0:
            return _path(parents, moves, found)
        if count == 0:
            break
        boards, h, blank, prev, hashes = (a[:count].copy() for a in out)
        low = int(np.argmin(h))
        if h[low] < best_h:
            best_h, best_at, best_board = int(h[low]), (layer + 1, low), boards[low].copy()
        elif finish is not None and layer + 1 - best_at[0] >= patience:
            break
    if finish is None:
        return None
    rest = finish(best_board)
    if rest is None:
        return None
    return np.concatenate([_path(parents[: best_at[0]], moves, best_at[1]), np.asarray(rest, np.uint8)])


def compile_beam(cells, m, n, goal) -> None:
    """Compile (or load from Numba's cache) the beam's kernels: one beam of width 8 from ``cells``,
    a board near ``goal`` (a budgeted search compiles before its clock starts).

    Examples
    --------
    >>> compile_beam(np.array([1, 2, 3, 4, 5, 6, 7, 0, 8], np.uint8), 3, 3, np.array([1, 2, 3, 4, 5, 6, 7, 8, 0]))
    """
    _BEAM(cells, m, n, goal, 8)


def _path(parents, moves, index):
    codes = np.empty(len(parents), np.uint8)
    for d in range(len(parents) - 1, -1, -1):
        codes[d] = moves[d][index]
        index = parents[d][index]
    return codes


_BEAM = beam_search  # the function itself: compile_beam is no call of the public name
