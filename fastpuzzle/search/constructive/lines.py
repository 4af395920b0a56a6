"""Placing a whole row (or, in the transposed frame, a column), and the kernel.

A line fills from both ends inward, the cheaper end first, tile by tile,
except its last two tiles, which go in as a pair: the far tile first into the
near tile's cell, the near tile just below (beside) it, then two moves turn
both home.  The one configuration where that gets stuck (the near tile
trapped in the corner) is fixed by a precomputed 3 x 2 pattern.  In strips two
wide the pair may go in mirrored, whichever tile is nearer leading.
"""

from __future__ import annotations

import time

import numpy as np

from ..._jit import jit
from ...errors import OptionError
from .routes import route_blank
from .state import (
    BLANK_CELL, CODE_CAPACITY, DOWN, ERR_BUDGET, ERR_PARITY, ERROR, FRAME_COLS, FRAME_ROWS, INFINITE, LEFT,
    LINE_FIRST, LINE_LAST, MOVE_COUNT, NO_TILE, RIGHT, ROUTED_MOVES, ROW_STRIDE, STATE_SIZE, STEER, STEER_MODES, TILE_STEPS,
    TRANSPOSED, UP,
    logical_cell, physical_cell, run_blank,
)  # fmt: skip
from .tiles import move_tile, place_two

# The pair fix-ups, 3 rows x 2 columns window whose top row holds the pair's
# targets (a near, b far).  Found once by breadth-first search over the
# (a, b, blank) positions of that window (120 states); shortest sequences.
#   b at (0,0), a at (0,1), blank at (1,0)  ->  a at (0,0), b at (0,1)
FIX_CORNER = np.array(["ULRD".index(ch) for ch in "URDLDRUULDRDLUURD"], np.int64)
#   b at (0,0), blank at (0,1), a at (1,1)  ->  a at (0,0), b at (0,1)
FIX_TRAPPED = np.array(["ULRD".index(ch) for ch in "LDRDLUURDLDRUULD"], np.int64)
# One turn of the final 2 x 2 (blank in its corner) bringing the top-left
# tile home from below, or from the right.
TURN_FROM_BELOW = np.array([UP, LEFT, DOWN, RIGHT], np.int64)
TURN_FROM_RIGHT = np.array([LEFT, UP, RIGHT, DOWN], np.int64)
# The blank's last two moves of a pair: a tile slides sideways into its cell, the other comes up into its own.
BLANK_RIGHT_DOWN = np.array([RIGHT, DOWN], np.int64)
BLANK_LEFT_DOWN = np.array([LEFT, DOWN], np.int64)


@jit(inline="always")  # written into line_step (see there)
def fill_line(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label):
    """Place row ``r0`` of the frame, from column ``c0`` to the right edge,
    from both ends inward until two cells are left: each time, the end whose
    tile is cheaper to bring (blank's trip + ``weight`` x the tile's
    distance) goes next.  The region below has at least two more rows;
    ``home_label[p]`` is the label that belongs in physical cell p.

    Returns (ok, first column of the two cells left, whether both of their
    tiles are home already: then they are locked)."""
    # The line's labels are consecutive (see placement_labels): find its
    # tiles in the region once; from here on the moves keep their positions.
    first = home_label[physical_cell(state, r0, c0)]
    state[LINE_FIRST] = first
    state[LINE_LAST] = first + state[FRAME_COLS] - 1 - c0
    for r in range(r0, state[FRAME_ROWS]):
        for c in range(c0, state[FRAME_COLS]):
            p = physical_cell(state, r, c)
            v = cells[p]
            if v >= state[LINE_FIRST] and v <= state[LINE_LAST]:
                pos[v] = p
    lo = c0
    hi = state[FRAME_COLS] - 1
    none = np.int64(NO_TILE)
    no = r0 < 0  # False, as a run-time value (see state.py)
    while hi - lo >= 2:
        br, bc = logical_cell(state, state[BLANK_CELL])
        best = INFINITE
        k = lo
        for side in range(2):
            end = lo if side == 0 else hi
            xr, xc = logical_cell(state, pos[home_label[physical_cell(state, r0, end)]])
            cost = abs(br - xr) + abs(bc - xc) + weight * (abs(xr - r0) + abs(xc - end))
            if cost < best:
                best = cost
                k = end
        p = physical_cell(state, r0, k)
        if hi - lo >= 3:
            k2 = k + 1 if k == lo else k - 1  # placed next, if this end stays cheaper
            ok = place_two(cells, pos, locked, codes, state, visited, parent, queue, home_label[p], r0, k,
                           home_label[physical_cell(state, r0, k2)], r0, k2, r0, no)
        else:
            ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, home_label[p], r0, k, none, none)
        if not ok:
            return False, lo, False
        locked[p] = 1
        if k == lo:
            lo += 1
        else:
            hi -= 1
    home_a = physical_cell(state, r0, lo)
    home_b = physical_cell(state, r0, lo + 1)
    done = cells[home_a] == home_label[home_a] and cells[home_b] == home_label[home_b]
    if done:
        locked[home_a] = 1
        locked[home_b] = 1
    return True, lo, done


#: What :func:`line_step` runs (its ``op``): :func:`fill_line`, one
#: :func:`~fastpuzzle.search.constructive.tiles.place_two`, one
#: :func:`~fastpuzzle.search.constructive.tiles.move_tile`, one
#: :func:`~fastpuzzle.search.constructive.routes.route_blank`, or a fixed pattern of moves.
OP_FILL, OP_PAIR, OP_TILE, OP_ROUTE, OP_PATTERN = range(5)


@jit
def line_step(cells, pos, locked, codes, state, visited, parent, queue, op, r0, c0, weight, home_label, pattern,
              lead, tr, tc, follow, fr, fc, gate, narrow):  # fmt: skip
    """The one compiled entry of the tile walk, as ``(ok, c0, done)``: by
    ``op``, :func:`fill_line` of row ``r0`` from column ``c0``;
    :func:`~fastpuzzle.search.constructive.tiles.place_two` of ``lead`` (to
    (tr, tc)) and ``follow`` (to (fr, fc)); ``move_tile`` of ``lead`` to
    (tr, tc) (``follow`` and ``gate`` as there); ``route_blank`` to
    (tr, tc) round the cell (fr, fc); or the moves of ``pattern``.  Python
    asks for the pieces of the walk it runs itself here too (:func:`walk`).

    Numba links a callee's code into every compiled caller: the walk's
    pieces are link-only helpers (:mod:`fastpuzzle._linkonly`), optimised
    and compiled here alone, where as entries of their own each was
    optimised and compiled again with all it calls."""
    if op == OP_FILL:
        return fill_line(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label)
    if op == OP_PAIR:
        ok = place_two(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, follow, fr, fc, gate,
                       narrow)
    elif op == OP_TILE:
        ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, follow, gate)
    elif op == OP_ROUTE:
        ok = route_blank(cells, pos, locked, codes, state, visited, parent, queue, tr, tc, fr, fc)
    else:
        one = np.int64(1)
        for i in range(pattern.shape[0]):
            run_blank(cells, pos, codes, state, pattern[i], one)
        ok = True
    return ok, c0, False


_NO_ARRAY = np.empty(0, np.int64)  # home_label or pattern where line_step's op reads none


def walk(work, op, lead=NO_TILE, tr=NO_TILE, tc=NO_TILE, follow=NO_TILE, fr=NO_TILE, fc=NO_TILE, gate=NO_TILE,
         pattern=_NO_ARRAY):
    """One piece of the walk run from Python (``op``, see :func:`line_step`); returns whether it
    went through.  Every call passes the same types, so line_step is compiled once."""
    return line_step(*work, op, -1, -1, 1, _NO_ARRAY, pattern, lead, tr, tc, follow, fr, fc, gate, False)[0]


def play_pattern(work, pattern):
    """Play a fixed sequence of logical move codes (an int64 array)."""
    walk(work, OP_PATTERN, pattern=pattern)


def place_pair_mirrored(work, r0, near, a, b):
    """Narrow strip: the pair (a at column ``near``, b right of it) with a
    leading into b's cell and b behind it, then the blank comes to a's cell
    and two moves turn both home.  A leader cannot pass its follower in a
    strip two wide, so this serves when a is the nearer tile.  Returns
    whether the pair is home (False leaves a legal board for the plain
    order).  Run from Python: a few compiled calls per line."""
    cells, pos, locked, codes, state = work[:5]
    far = near + 1
    ar, ac = logical_cell(state, pos[a])
    xr, xc = logical_cell(state, pos[b])
    if not (xr > ar + 1 and ar > r0):
        return False
    if walk(work, OP_TILE, a, ar, far):
        lead_cell = pos[a]
        locked[lead_cell] = 1
        ok = walk(work, OP_TILE, b, ar + 1, far)
        locked[lead_cell] = 0
        if ok:
            walk(work, OP_TILE, a, r0, far, b, gate=r0)
    state[ERROR] = 0
    home_a = physical_cell(state, r0, near)
    home_b = physical_cell(state, r0, far)
    below = physical_cell(state, r0 + 1, far)
    if cells[home_b] == a and cells[below] == b:
        locked[home_b] = 1
        locked[below] = 1
        ok = walk(work, OP_ROUTE, tr=r0, tc=near)
        locked[below] = 0
        if ok:
            play_pattern(work, BLANK_RIGHT_DOWN)  # a slides to its cell, b comes up into its cell
            locked[home_a] = 1
            locked[home_b] = 1
            return True
        locked[home_b] = 0
        state[ERROR] = 0
    return False


def place_pair(work, r0, near, a, b, narrow, weight, home_label):
    """The last two tiles of row ``r0``: a (column ``near``) and b (right of
    it).  b goes into a's cell, a just below it, then two moves turn both
    home; the corner cases play the fixed patterns.  Run from Python
    (``weight`` and ``home_label`` only pass through :func:`line_step`)."""
    cells, pos, locked, codes, state = work[:5]
    far = near + 1
    home_a = physical_cell(state, r0, near)
    home_b = physical_cell(state, r0, far)
    if not line_step(*work, OP_PAIR, r0, near, weight, home_label, _NO_ARRAY, b, r0, near, a, r0 + 1, near, r0,
                     narrow)[0]:
        return False
    locked[home_a] = 1
    ar, ac = logical_cell(state, pos[a])
    br, bc = logical_cell(state, state[BLANK_CELL])
    if ar == r0 + 1 and ac == far and br == r0 and bc == far:
        # Blank shut in the corner above a.
        play_pattern(work, FIX_TRAPPED)
    elif ar == r0 and ac == far:
        # a in the far corner: the pair cannot be rotated in; fixed pattern.
        if not walk(work, OP_ROUTE, tr=r0 + 1, tc=near, fr=ar, fc=ac):
            return False
        play_pattern(work, FIX_CORNER)
    else:
        below = physical_cell(state, r0 + 1, near)
        if not walk(work, OP_TILE, a, r0 + 1, near):
            return False
        locked[below] = 1
        if not walk(work, OP_ROUTE, tr=r0, tc=far):
            return False
        locked[below] = 0
        play_pattern(work, BLANK_LEFT_DOWN)  # b slides to its cell, a comes up into its cell
    locked[home_a] = 1
    locked[home_b] = 1
    return True


def placement_labels(m, n):
    """``home_label[p]``: the kernel's own label of the tile that belongs in
    flat cell p, numbered in the order the cells are placed (blank: 0).

    Each line's labels are then consecutive: a move updates a tile's
    position only when it belongs to the line being placed (two
    comparisons), instead of a write at a random place in a large array on
    every move."""
    home_label = np.empty(m * n, np.int64)
    grid = home_label.reshape(m, n)
    rank = 0
    r0 = c0 = 0
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:
            grid[r0, c0:] = np.arange(rank + 1, rank + 1 + n - c0)
            rank += n - c0
            r0 += 1
        else:
            grid[r0:, c0] = np.arange(rank + 1, rank + 1 + m - r0)
            rank += m - r0
            c0 += 1
    for r in range(r0, m):
        for c in range(c0, n):
            if r != m - 1 or c != n - 1:
                rank += 1
                grid[r, c] = rank
    grid[m - 1, n - 1] = 0
    return home_label


def turn_last_square(work, m, n, home_label):
    """The final 2 x 2, blank in its corner: one turn of its cycle at most.
    Returns False when it cannot be turned into place (a parity bug)."""
    cells = work[0]
    top_left = (m - 2) * n + n - 2
    top_right = top_left + 1
    bottom_left = top_left + n
    if cells[top_left] != home_label[top_left]:
        if cells[bottom_left] == home_label[top_left]:
            play_pattern(work, TURN_FROM_BELOW)
        else:
            play_pattern(work, TURN_FROM_RIGHT)
    return (cells[top_left] == home_label[top_left] and cells[top_right] == home_label[top_right]
            and cells[bottom_left] == home_label[bottom_left])


def solve_kernel(cells, m, n, codes, back, stats, limit, weight, steer=1, deadline=None):
    """Solve the relabelled board ``cells`` (flat, int32; goal: cell i holds
    i + 1, blank last) in place (it is left in the kernel's own labels), then
    play ``back``.  Returns (moves, error code); codes beyond
    ``codes.shape[0]`` are counted, not stored.  ``stats`` receives the tile
    steps and the moves of the blank's routes.  With ``limit`` >= 0 the
    solver stops (ERR_BUDGET) after the first line that ends past ``limit``
    moves, and likewise after the first line that ends past ``deadline`` (a
    :func:`time.perf_counter` reading).  ``steer`` is a steering mode
    (``state.STEER_*``): 1, the solver, gains weighted by the tiles' walks
    (:func:`.routes.walk_gain`); 0 plays the plain routes (no steering, see
    :mod:`.routes`), 2 best routes with unweighted gains (the solver
    before: kept for the benchmark's side by side).

    The lines are driven from here, a few calls of the one compiled entry
    :func:`line_step` per line (small next to a line's work), so the first
    call compiles the tile walk once, in it."""
    if steer not in STEER_MODES:
        raise OptionError("steer", steer, f"must be one of {STEER_MODES}")
    size = m * n
    home_label = placement_labels(m, n)
    kernel_label = np.empty(size, np.int32)  # default-goal label -> kernel label
    kernel_label[0] = 0
    kernel_label[1:] = home_label[: size - 1]
    cells[:] = kernel_label[cells]
    state = np.zeros(STATE_SIZE, np.int64)
    state[BLANK_CELL] = int(np.flatnonzero(cells == 0)[0])
    state[LINE_FIRST] = 1
    state[LINE_LAST] = 0
    state[CODE_CAPACITY] = codes.shape[0]
    state[ROW_STRIDE] = n
    state[STEER] = steer
    pos = np.zeros(4 * size, np.int64)
    pos[size + home_label] = np.arange(size)  # home cells, for steered routes (see state.py)
    pos[2 * size + home_label] = np.arange(size) // n  # their rows and columns, for routes.best_plan
    pos[3 * size + home_label] = np.arange(size) % n
    work = (cells, pos, np.zeros(size, np.uint8), codes, state,
            np.zeros(size, np.int64), np.zeros(size, np.uint8), np.empty(size, np.int64))
    r0 = c0 = 0
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:  # a row of the board
            state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 0, m, n
            ok = place_line(work, r0, c0, weight, home_label)
            r0 += 1
        else:  # a column: a row of the transposed frame
            state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 1, n, m
            ok = place_line(work, c0, r0, weight, home_label)
            c0 += 1
        if not ok:
            return state[MOVE_COUNT], state[ERROR]
        if (limit >= 0 and state[MOVE_COUNT] > limit) or (deadline is not None and time.perf_counter() > deadline):
            state[ERROR] = ERR_BUDGET
            return state[MOVE_COUNT], state[ERROR]
    # Final 2 x 2: blank to its corner, then one turn of the cycle at most.
    state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 0, m, n
    if not walk(work, OP_ROUTE, tr=m - 1, tc=n - 1):
        return state[MOVE_COUNT], state[ERROR]
    stats[0] = state[TILE_STEPS]
    stats[1] = state[ROUTED_MOVES]
    if not turn_last_square(work, m, n, home_label):
        state[ERROR] = ERR_PARITY
        return state[MOVE_COUNT], state[ERROR]
    play_pattern(work, np.array(back, np.int64))  # from the corner to the goal's blank cell
    return state[MOVE_COUNT], state[ERROR]


def place_line(work, r0, c0, weight, home_label):
    """Place row ``r0`` of the frame from column ``c0`` on: its ends
    (:func:`fill_line`), then its last two tiles as a pair."""
    ok, near, done = line_step(*work, OP_FILL, r0, c0, weight, home_label, _NO_ARRAY, -1, -1, -1, -1, -1, -1, -1,
                               False)
    if not ok or done:
        return ok
    a = home_label[physical_cell(work[4], r0, near)]
    b = home_label[physical_cell(work[4], r0, near + 1)]
    narrow = work[4][FRAME_COLS] - c0 == 2
    if narrow and place_pair_mirrored(work, r0, near, a, b):
        return True
    # Otherwise the plain order copes with wherever they are.
    return place_pair(work, r0, near, a, b, narrow, weight, home_label)
