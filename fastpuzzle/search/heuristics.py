"""Admissible heuristics for sliding-tile boards: Manhattan distance, linear
conflict, and (from :mod:`fastpuzzle.search.pdb`) additive pattern databases.

Both are lower bounds on the number of moves to the goal:

* **Manhattan distance** (MD): the sum over tiles (blank excluded) of
  ``|row - goal_row| + |col - goal_col|``.
* **Linear conflict** (LC): MD plus, for every row and every column (a
  *line*), ``2 * (k - LIS)`` where ``k`` counts the tiles that sit in their goal
  line and ``LIS`` is the longest run of those tiles that is already in goal
  order (longest increasing subsequence of their goal positions).  The tiles
  outside that run must leave the line and come back, two moves more than MD
  counts.  ``k - LIS`` is the minimum vertex cover of the line's conflict
  graph, the exact value; the greedy "remove the tile with most conflicts"
  rule found in many solvers can count more and overestimate.

A move changes MD by exactly 1 and changes the conflict penalty of at most one
line (the goal line the moving tile enters or leaves), by 0 or 2 in the
direction that cancels MD's change, so ``|Δh| = 1`` for every move: the
heuristic is consistent.

The public functions take one board or a batch and a custom goal.  The
private helpers build the tables the IDA* kernel uses to update ``h``
incrementally (see :mod:`fastpuzzle.search.ida`).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from .._jit import as_unsigned, jit, pjit, use_threads
from ..boards import as_boards, as_goal, goal_cells
from ..errors import ShapeError
from ..manhattan import manhattan_table
from ..moves import neighbour_cells

__all__ = [
    "manhattan", "linear_conflict", "conflict_penalty", "pattern_database", "goal_coordinates",
    "SearchTables", "search_tables",
]  # fmt: skip

#: Lines up to this long use a lookup table of all line contents for the
#: incremental linear conflict ((L+1)**L bytes); longer lines are rescanned.
LC_TABLE_MAX_LINE = 6


def goal_coordinates(goal):
    """Goal row and goal column of every tile (index = tile, 0 = blank).

    Parameters
    ----------
    goal : array_like, shape (m, n)
        The goal board.

    Returns
    -------
    rows, cols : ndarray of int64, shape (m*n,)

    Examples
    --------
    >>> r, c = goal_coordinates([[1, 2], [3, 0]])
    >>> r.tolist(), c.tolist()
    ([1, 0, 0, 1], [1, 0, 1, 0])
    """
    g = np.asarray(goal)
    if g.ndim != 2:
        raise ShapeError(g.shape, f"goal must be one board (m, n), got an array of shape {g.shape}")
    return _goal_coords(as_goal(g, *g.shape))


def _goal_coords(target):
    return np.divmod(goal_cells(target), target.shape[1])


# ---------------------------------------------------------------- per-board kernels


@jit
def _manhattan_one(cells, n, grow, gcol):
    h = 0
    for i in range(cells.shape[0]):
        t = cells[i]
        if t != 0:
            r = i // n
            c = i - r * n
            h += abs(r - grow[t]) + abs(c - gcol[t])
    return h


@jit
def _lis_removals(seq, k):
    """``k - LIS(seq[:k])`` (strictly increasing), by patience sorting; ``seq[:k]`` is overwritten.

    The pile tops live in the prefix of ``seq`` already read (there are never more piles than
    values read), so the hot loops that call this allocate nothing.
    """
    tails = seq
    size = 0
    for i in range(k):
        x = seq[i]
        lo = 0
        hi = size
        while lo < hi:
            mid = (lo + hi) >> 1
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        tails[lo] = x
        if lo == size:
            size += 1
    return k - size


@jit
def _row_removals(cells, m, n, r, grow, gcol, seq):
    k = 0
    for c in range(n):
        t = cells[r * n + c]
        if t != 0 and grow[t] == r:
            seq[k] = gcol[t]
            k += 1
    return _lis_removals(seq, k)


@jit
def _col_removals(cells, m, n, c, grow, gcol, seq):
    k = 0
    for r in range(m):
        t = cells[r * n + c]
        if t != 0 and gcol[t] == c:
            seq[k] = grow[t]
            k += 1
    return _lis_removals(seq, k)


@jit
def _conflict_one(cells, m, n, grow, gcol):
    """Linear conflict penalty (``2 * removals`` over all rows and columns)."""
    seq = np.empty(max(m, n), np.int64)
    extra = 0
    for r in range(m):
        extra += _row_removals(cells, m, n, r, grow, gcol, seq)
    for c in range(n):
        extra += _col_removals(cells, m, n, c, grow, gcol, seq)
    return 2 * extra


@jit
def _heuristic_batch(flat, m, n, grow, gcol, kind, out):
    for b in range(flat.shape[0]):
        _heuristic_row(flat, b, m, n, grow, gcol, kind, out)


@pjit
def _heuristic_batch_par(flat, m, n, grow, gcol, kind, out):
    for b in numba.prange(flat.shape[0]):
        _heuristic_row(flat, b, m, n, grow, gcol, kind, out)


@jit
def _heuristic_row(flat, b, m, n, grow, gcol, kind, out):
    cells = flat[b]
    h = 0
    if kind != 1:
        h += _manhattan_one(cells, n, grow, gcol)
    if kind != 0:
        h += _conflict_one(cells, m, n, grow, gcol)
    out[b] = h


def _evaluate(boards, goal, kind: int):
    batch, single = as_boards(boards, label="boards")
    m, n = batch.shape[1:]
    target = as_goal(goal, m, n)
    grow, gcol = _goal_coords(target)
    flat = batch.reshape(batch.shape[0], m * n)
    out = np.empty(batch.shape[0], np.int64)
    kernel = _heuristic_batch_par if use_threads(flat.size) else _heuristic_batch
    kernel(flat, m, n, grow, gcol, kind, out)
    return int(out[0]) if single else out


def manhattan(boards, *, goal=None):
    """Manhattan distance of each board to the goal (blank not counted).

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards, ``0`` = blank.
    goal : array_like, shape (m, n), optional
        Target board; default tiles ``1..mn-1`` row-major, blank last.

    Returns
    -------
    int for one board, ndarray of int64 shape (B,) for a batch.

    Examples
    --------
    >>> manhattan([[1, 2, 3], [4, 5, 6], [0, 7, 8]])
    2
    >>> manhattan([[[2, 1], [3, 0]], [[1, 2], [3, 0]]]).tolist()
    [2, 0]
    """
    return _evaluate(boards, goal, 0)


def linear_conflict(boards, *, goal=None):
    """Manhattan distance plus the linear conflict penalty (the solver's default ``h``).

    For each row and column, the tiles that belong to that line but are out
    of goal order: ``2 * (k - LIS)`` extra moves (see the module docstring).
    Use :func:`conflict_penalty` for the penalty alone.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards, ``0`` = blank.
    goal : array_like, shape (m, n), optional
        Target board; default tiles ``1..mn-1`` row-major, blank last.

    Returns
    -------
    int for one board, ndarray of int64 shape (B,) for a batch.

    Examples
    --------
    >>> linear_conflict([[2, 1, 3], [4, 5, 6], [7, 8, 0]])  # MD 2 + one conflict
    4
    >>> manhattan([[2, 1, 3], [4, 5, 6], [7, 8, 0]])
    2
    """
    return _evaluate(boards, goal, 2)


def conflict_penalty(boards, *, goal=None):
    """The linear conflict penalty alone: ``linear_conflict - manhattan``.

    Examples
    --------
    >>> conflict_penalty([[3, 2, 1], [4, 5, 6], [7, 8, 0]])  # 3 and 1 both out of order
    4
    """
    return _evaluate(boards, goal, 1)


def pattern_database(boards, *, goal=None, database=None):
    """Additive pattern-database bound of each board (see :mod:`fastpuzzle.pdb`).

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards, ``0`` = blank.
    goal : array_like, shape (m, n), optional
        Target board; default tiles ``1..mn-1`` row-major, blank last.  Any
        goal a board symmetry maps onto the database's goal blank works.
    database : str or PatternDatabase, optional
        As in :func:`fastpuzzle.solve` (default: the strongest
        cached database for the shape; quick ones are built).

    Returns
    -------
    int for one board, ndarray of int64 shape (B,) for a batch.

    Examples
    --------
    >>> pattern_database([[1, 2, 3], [4, 5, 6], [0, 7, 8]], database="4-4")
    2
    """
    from .pdb import GoalPlan, choose_database  # the tables load with the first use, never with Manhattan

    batch, single = as_boards(boards, label="boards")
    m, n = batch.shape[1:]
    target = as_goal(goal, m, n)
    db = choose_database((m, n), database)
    values = db.lookup(GoalPlan(db, target).map_board(batch))
    return int(values[0]) if single else values


# ------------------------------------------------------- tables for the search kernel


@jit
def _fill_line_table(length, table):
    """``table[code] = 2 * (k - LIS)`` for every line content ``code``.

    ``code`` holds one base-``(length+1)`` digit per position along the line:
    0 for a cell whose tile does not belong to this line (or the blank),
    ``goal position along the line + 1`` otherwise.
    """
    base = length + 1
    seq = np.empty(length, np.int64)
    for code in range(table.shape[0]):
        x = code
        k = 0
        for p in range(length):
            d = x % base
            x //= base
            if d != 0:
                seq[k] = d
                k += 1
        table[code] = 2 * _lis_removals(seq, k)


@functools.lru_cache(maxsize=64)
def _line_table(length: int) -> np.ndarray:
    table = np.empty((length + 1) ** length, np.int8)
    _fill_line_table(length, table)
    table.setflags(write=False)
    return table


def _lc_uses_table(m: int, n: int) -> bool:
    return max(m, n) <= LC_TABLE_MAX_LINE


class SearchTables:
    """Per-(shape, goal) tables for the incremental Manhattan and linear-conflict
    heuristics inside the IDA* engine (built once, cached).

    Cells are row-major indices, moves are codes 0..3 (U L R D, the blank's
    direction).  A move of the blank from cell ``blank`` in direction ``op``
    slides ``tile`` from the neighbouring cell into ``blank``; its entry in
    the per-move tables is at ``tile * tile_stride + blank * 4 + op``, where
    ``tile_stride`` is ``4*N`` rounded up to a power of two (the engine finds
    a tile's row with a shift).

    Attributes
    ----------
    move_word : int64 (N*tile_stride,)
        Packed ``(Manhattan change + 1) | line << 2 | line code change << 16``:
        the goal line whose conflict penalty the move can change (``m+n`` = a
        dummy line that never changes) and the change of that line's code.
        One load instead of three in the hot loop.
    along_line, along_delta : int32 (N*tile_stride,)
        The line the tile moves along when it is in its goal line (its
        position digit shifts; the penalty is unchanged) and the change of
        its code.
    line_table : int8
        Penalty of each line code; row codes first, column codes offset by
        ``col_offset``.  A single 0 when lines are too long (rescanned
        instead: ``use_table`` is False).
    goal_row, goal_col : int64 (N,)
        Goal row and column of every tile.
    """

    def __init__(self, m: int, n: int, goal_flat: np.ndarray):
        N = m * n
        self.m, self.n, self.N = m, n, N
        goal_row, goal_col = _goal_coords(goal_flat.reshape(m, n))
        self.goal_row, self.goal_col = goal_row, goal_col
        nbr = neighbour_cells(m, n)
        cell = np.arange(N)
        md = manhattan_table(goal_flat.reshape(m, n))  # (tile, cell)
        dummy = m + n
        use_table = _lc_uses_table(m, n)
        # Positional digit weights of the line codes; only the table mode uses
        # them (long lines would overflow and are rescanned instead).
        row_base, col_base = (n + 1, m + 1) if use_table else (1, 1)
        wgt = 1 if use_table else 0
        row_size = row_base**n if use_table else 0
        # Every (tile t, blank cell b, move op) at once; the tile slides from
        # src = nbr[b, op] into b.  Arrays broadcast to (N, N, 4).
        t = np.arange(N)[:, None, None]
        src = nbr[None, :, :]
        valid = (src >= 0) & (t > 0)
        src = np.where(src >= 0, src, 0)
        b = cell[None, :, None]
        rb, cb, rs, cs = b // n, b % n, src // n, src % n
        gr, gc = goal_row[t], goal_col[t]
        dmd = np.where(valid, md[t, b] - md[t, src], 0)
        vertical = np.isin(np.arange(4), (0, 3))[None, None, :]
        prow = row_base ** np.arange(n, dtype=np.int64)  # digit weight of each column in a row code
        pcol = col_base ** np.arange(m, dtype=np.int64)  # digit weight of each row in a column code
        # vertical move: the tile leaves row rs or enters row rb (its goal row);
        # its column code shifts if it is in its goal column
        v_leave = valid & vertical & (gr == rs)
        v_enter = valid & vertical & ~v_leave & (gr == rb)
        v_along = valid & vertical & (gc == cb)
        # horizontal move: the same with rows and columns exchanged
        h_leave = valid & ~vertical & (gc == cs)
        h_enter = valid & ~vertical & ~h_leave & (gc == cb)
        h_along = valid & ~vertical & (gr == rb)
        shape = (N, N, 4)
        line = np.full(shape, dummy, np.int64)
        code_change = np.zeros(shape, np.int64)
        along = np.full(shape, dummy, np.int64)
        along_change = np.zeros(shape, np.int64)
        for mask, changed, delta in (
            (v_leave, rs, -wgt * (gc + 1) * prow[cs]),
            (v_enter, rb, wgt * (gc + 1) * prow[cb]),
            (h_leave, m + cs, -wgt * (gr + 1) * pcol[rs]),
            (h_enter, m + cb, wgt * (gr + 1) * pcol[rb]),
        ):
            line = np.where(mask, np.broadcast_to(changed, shape), line)
            code_change = np.where(mask, np.broadcast_to(delta, shape), code_change)
        for mask, changed, delta in (
            (v_along, m + cb, wgt * (gr + 1) * (pcol[rb] - pcol[rs])),
            (h_along, rb, wgt * (gc + 1) * (prow[cb] - prow[cs])),
        ):
            along = np.where(mask, np.broadcast_to(changed, shape), along)
            along_change = np.where(mask, np.broadcast_to(delta, shape), along_change)
        if m + n >= 1 << 14:
            raise ShapeError((m, n), f"boards with {m}+{n} lines are too large for the search tables")
        stride = 1 << int(4 * N - 1).bit_length()
        self.tile_stride = stride
        self.tile_shift = stride.bit_length() - 1

        def padded(a, fill, dtype):
            out = np.full((N, stride), fill, dtype)
            out[:, : 4 * N] = a.reshape(N, 4 * N)
            return out.ravel()

        self.move_word = padded((dmd + 1) | (line << 2) | (code_change << 16), 1 | (dummy << 2), np.int64)
        self.along_line, self.along_delta = padded(along, dummy, np.int32), padded(along_change, 0, np.int32)
        self.use_table = use_table
        if use_table:
            self.line_table = np.concatenate([_line_table(n), _line_table(m)])
            self.col_offset = row_size
        else:
            self.line_table = np.zeros(1, np.int8)
            self.col_offset = 0
        for name in ("move_word", "along_line", "along_delta", "line_table", "goal_row", "goal_col"):
            getattr(self, name).setflags(write=False)

    def kernel_tables(self) -> tuple:
        """The tables in the order the engine's ``lc_*`` kernels read them."""
        return (self.move_word, self.along_line, self.along_delta, self.line_table, self.goal_row, self.goal_col,
                self.col_offset, self.tile_shift)  # fmt: skip


# ------------------------------------------- the heuristic inside the IDA* engine

#: Kind codes of the incremental heuristics below (the engine adds its own).
KIND_MANHATTAN = 0  # Manhattan distance alone
KIND_LC_TABLE = 1  # linear conflict, line codes and a penalty table
KIND_LC_SCAN = 2  # linear conflict, rescanning the one changed line



@jit
def lc_new_state(m, n):
    """Per-search state: line codes, line penalties, a scratch line."""
    return np.zeros(m + n + 1, np.int64), np.zeros(m + n + 1, np.int64), np.empty(max(m, n), np.int64)


@jit
def line_conflict_penalty(cells, m, n, line, goal_row, goal_col, seq):
    if line < m:
        return 2 * _row_removals(cells, m, n, line, goal_row, goal_col, seq)
    return 2 * _col_removals(cells, m, n, line - m, goal_row, goal_col, seq)


@jit
def lc_start(cells, m, n, kind, line_table, goal_row, goal_col, col_offset, line_codes, line_penalty, seq):
    """Fill the state (``line_codes``, ``line_penalty``) for the flat board ``cells``; returns ``h``."""
    h = _manhattan_one(cells, n, goal_row, goal_col)
    if kind == KIND_LC_TABLE:
        for r in range(m):
            code = 0
            weight = 1
            for c in range(n):
                t = cells[r * n + c]
                if t != 0 and goal_row[t] == r:
                    code += (goal_col[t] + 1) * weight
                weight *= n + 1
            line_codes[r] = code
        for c in range(n):
            code = col_offset
            weight = 1
            for r in range(m):
                t = cells[r * n + c]
                if t != 0 and goal_col[t] == c:
                    code += (goal_row[t] + 1) * weight
                weight *= m + 1
            line_codes[m + c] = code
        for line in range(m + n):
            h += line_table[line_codes[line]]
    elif kind == KIND_LC_SCAN:
        for line in range(m + n):
            line_penalty[line] = line_conflict_penalty(cells, m, n, line, goal_row, goal_col, seq)
            h += line_penalty[line]
    return h


@functools.lru_cache(maxsize=32)
def _cached_tables(m: int, n: int, goal_bytes: bytes) -> SearchTables:
    goal_flat = np.frombuffer(goal_bytes, np.int64)
    return SearchTables(m, n, goal_flat)


def search_tables(m: int, n: int, goal: np.ndarray) -> SearchTables:
    """Cached :class:`SearchTables` for ``m x n`` boards and this goal (checked, as a board is;
    the tables hold a few words per tile, blank cell and move: sized before they are made).

    Examples
    --------
    >>> search_tables(2, 2, [[1, 2], [3, 0]]).goal_row.tolist()
    [1, 0, 0, 1]
    """
    from .. import options
    from ..memory import check_allocation

    m, n = options.whole(m, "m", least=1), options.whole(n, "n", least=1)
    if m * n < 2:
        raise ShapeError((m, n), f"a board needs at least 2 cells, got {m}x{n}")
    target = as_goal(goal, m, n)
    size = 64 * 4 * (m * n) ** 2  # a few int64 arrays of (tile, blank cell, move), and their temporaries
    if size > 1 << 24:  # a big buffer (30x30 boards and up): named before it is made
        check_allocation(size, f"search tables for {m}x{n} boards")
    return _cached_tables(m, n, np.ascontiguousarray(target, np.int64).ravel().tobytes())


# ------------------------------------------------------------------ per-node steps inside the IDA* engine
# Written into the engine's loop (inline): each mirrors lc_new_state / line_conflict_penalty above.


@jit(inline="always")
def lc_push(tile, blank, op, depth, line, change, kind, no_line, tile_shift, along_line, along_delta,
             line_codes, line_penalty, undo):  # fmt: skip
    """Make the move in the line-conflict state (``line``, ``change``: what the child step found)."""
    if kind == KIND_LC_TABLE:
        idx = as_unsigned((tile << tile_shift) + 4 * blank + op)
        line_codes[as_unsigned(line)] += change
        line_codes[as_unsigned(along_line[idx])] += along_delta[idx]
    elif kind == KIND_LC_SCAN and line != no_line:
        undo[as_unsigned(depth), 0] = line_penalty[as_unsigned(line)]
        line_penalty[as_unsigned(line)] = change


@jit(inline="always")
def lc_pop(tile, blank, op, depth, kind, no_line, tile_shift, move_word, along_line, along_delta,
            line_codes, line_penalty, undo):  # fmt: skip
    """Undo :func:`lc_push` (``blank``: the parent's blank cell, where ``tile`` came back from)."""
    idx = as_unsigned((tile << tile_shift) + 4 * blank + op)
    word = move_word[idx]
    line = (word >> 2) & 0x3FFF
    if kind == KIND_LC_TABLE:
        line_codes[as_unsigned(line)] -= word >> 16
        line_codes[as_unsigned(along_line[idx])] -= along_delta[idx]
    elif line != no_line:
        line_penalty[as_unsigned(line)] = undo[as_unsigned(depth), 0]
