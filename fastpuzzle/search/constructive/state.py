"""Kernel state of the constructive solver and its one-move primitives.

``state`` (int64) holds the scalars every helper needs, so the helpers stay
plain functions of arrays.  The solver works in a *logical frame*: either the
board itself or its transpose (to place a column as if it were a row); a
logical cell (r, c) maps to a physical flat index through the frame.

``pos`` has two halves: ``pos[v]`` is the cell of tile ``v`` while ``v``
belongs to the line being placed; ``pos[size + v]`` is the home cell of
tile ``v`` (fixed), which steered routes read (:mod:`.routes`), and
``pos[2 * size + v]``, ``pos[3 * size + v]`` its row and column on the board
(no division in the routes' inner loop).

Numba compiles a new specialisation of a kernel for every distinct type of
its arguments, and a literal constant (``-1``, ``False``, ``2``) passed as an
argument has a type of its own.  So callers pass ``int64``/``bool`` values
(:data:`NO_TILE` through ``np.int64``, flags computed at run time): one
signature per kernel keeps the first compile short.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit, jit_inner
from ...moves import DOWN_CODE, LEFT_CODE, RIGHT_CODE, UP_CODE, step_offset, transposed_code, undo_code

# ---------------------------------------------------------------- state slots
BLANK_CELL = 0  # physical cell of the blank
MOVE_COUNT = 1  # moves made so far
CODE_CAPACITY = 2  # length of the code buffer (moves beyond it are only counted)
ROW_STRIDE = 3  # physical columns n (cells between two rows)
TRANSPOSED = 4  # 1 when the logical frame is the transpose of the board
FRAME_ROWS = 5  # logical rows
FRAME_COLS = 6  # logical columns
ERROR = 7  # error code (0 = none)
BFS_STAMP = 8  # visit stamp of the breadth-first route search
TILE_STEPS = 9  # tile steps (statistics)
ROUTED_MOVES = 10  # moves made by routes of the blank (statistics)
RING_DEPTH = 11  # how many of the last moves the ring below still knows
LINE_FIRST = 12  # labels of the line being placed: only their positions are kept
LINE_LAST = 13
STEER = 14  # how the blank's free choices are made: one of the STEER_* modes below
RING = 16  # ring of the last RING_SIZE moves, indexed by move number
RING_SIZE = 64
STATE_SIZE = RING + RING_SIZE

#: Steering modes (``state[STEER]``, the ``steer`` argument of ``lines.solve_kernel``): plain
#: routes; the default, gains weighted by the tiles' walks (``routes.walk_gain``); best routes
#: with unweighted gains (the solver before: kept for the benchmark's side by side).
STEER_PLAIN = 0
STEER_WEIGHTED = 1
STEER_BEST = 2
STEER_MODES = (STEER_PLAIN, STEER_WEIGHTED, STEER_BEST)

#: Errors reported by the kernel (the first two would be bugs: the wrapper
#: only passes solvable boards).
ERR_ROUTE = 1  # no route for the blank
ERR_PARITY = 2  # final 2 x 2 cannot be turned into place
ERR_BUDGET = 3  # the move budget ran out (not a bug: the caller asked for it)

#: "No tile" / "no gate row" / "no cell to avoid" (pass as ``np.int64(NO_TILE)``).
NO_TILE = -1

# Move codes, short names for the patterns below (logical directions of the blank).
UP, LEFT, RIGHT, DOWN = UP_CODE, LEFT_CODE, RIGHT_CODE, DOWN_CODE

#: A cost larger than any real one.
INFINITE = 1 << 60


@jit
def physical_cell(state, r, c):
    """Flat index of logical cell (r, c)."""
    if state[TRANSPOSED]:
        return c * state[ROW_STRIDE] + r
    return r * state[ROW_STRIDE] + c


@jit
def logical_cell(state, p):
    """Logical (r, c) of flat index ``p``."""
    n = state[ROW_STRIDE]
    pr = p // n
    pc = p - pr * n
    if state[TRANSPOSED]:
        return pc, pr
    return pr, pc


@jit_inner
def l1(ar, ac, br, bc):
    """Manhattan distance of two cells."""
    return abs(ar - br) + abs(ac - bc)


@jit_inner
def direction_code(dr, dc):
    """Move code of a unit step (dr, dc)."""
    if dr == -1:
        return UP
    if dr == 1:
        return DOWN
    if dc == -1:
        return LEFT
    return RIGHT


@jit_inner
def run_blank(cells, pos, codes, state, code, k):
    """``k`` moves of the blank in logical direction ``code`` (no checks:
    the callers only ask for legal moves).  Move codes are recorded into
    ``codes`` while it has room, counted beyond."""
    if state[TRANSPOSED]:
        code = transposed_code(code)
    step = step_offset(code, state[ROW_STRIDE])
    undo = undo_code(code)
    b = state[BLANK_CELL]
    count = state[MOVE_COUNT]
    depth = state[RING_DEPTH]
    capacity = state[CODE_CAPACITY]
    first = state[LINE_FIRST]
    last = state[LINE_LAST]
    for _ in range(k):  # one move of the blank, and record_move written out
        t = b + step
        v = cells[t]
        cells[b] = v
        if v >= first and v <= last:
            pos[v] = b
        cells[t] = 0
        b = t
        # Cancel against the previous move when that was its inverse (routes
        # and patterns meet that way now and then).  The ring in ``state``
        # remembers the last moves in every mode, so counting and recording
        # take identical decisions.
        if depth > 0 and state[RING + ((count - 1) & (RING_SIZE - 1))] == undo:
            count -= 1
            depth -= 1
        else:
            if count < capacity:
                codes[count] = code
            state[RING + (count & (RING_SIZE - 1))] = code
            count += 1
            if depth < RING_SIZE:
                depth += 1
    state[BLANK_CELL] = b
    state[MOVE_COUNT] = count
    state[RING_DEPTH] = depth


@jit_inner
def frame_steps(state):
    """The frame unpacked into scalars: (rows, cols, row step, column step);
    logical (r, c) is flat cell ``r * row_step + c * col_step``."""
    if state[TRANSPOSED]:
        return state[FRAME_ROWS], state[FRAME_COLS], np.int64(1), state[ROW_STRIDE]
    return state[FRAME_ROWS], state[FRAME_COLS], state[ROW_STRIDE], np.int64(1)


@jit_inner
def cell_free_unpacked(locked, rows, cols, row_step, col_step, r, c, xr, xc):
    """Whether the blank may enter logical cell (r, c): on the board, not
    locked, not the tile being moved (xr, xc).  The frame comes unpacked
    (:func:`frame_steps`)."""
    if r < 0 or c < 0 or r >= rows or c >= cols:
        return False
    if r == xr and c == xc:
        return False
    return locked[r * row_step + c * col_step] == 0
