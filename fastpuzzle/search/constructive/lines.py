"""Placing a whole row (or, in the transposed frame, a column), and the kernel.

A line fills from both ends inward, the cheaper end first, tile by tile,
except its last two tiles, which go in as a pair: the far tile first into the
near tile's cell, the near tile just below (beside) it, then two moves turn
both home.  The one configuration where that gets stuck (the near tile
trapped in the corner) is fixed by a precomputed 3 x 2 pattern.  In strips two
wide the pair may go in mirrored, whichever tile is nearer leading.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from .routes import route_blank
from .state import (
    BLANK_CELL, CODE_CAPACITY, DOWN, ERR_BUDGET, ERR_PARITY, ERROR, FRAME_COLS, FRAME_ROWS, INFINITE, LEFT,
    LINE_FIRST, LINE_LAST, MOVE_COUNT, NO_TILE, RIGHT, ROUTED_MOVES, ROW_STRIDE, STATE_SIZE, TILE_STEPS, TRANSPOSED, UP,
    logical_cell, move_blank, physical_cell, play_pattern,
)  # fmt: skip
from .tiles import move_tile, move_tile_led, place_two

# The pair fix-ups, 3 rows x 2 columns window whose top row holds the pair's
# targets (a near, b far).  Found once by breadth-first search over the
# (a, b, blank) positions of that window (120 states); shortest sequences.
#   b at (0,0), a at (0,1), blank at (1,0)  ->  a at (0,0), b at (0,1)
FIX_CORNER = np.array(["ULRD".index(ch) for ch in "URDLDRUULDRDLUURD"], np.int64)
#   b at (0,0), blank at (0,1), a at (1,1)  ->  a at (0,0), b at (0,1)
FIX_TRAPPED = np.array(["ULRD".index(ch) for ch in "LDRDLUURDLDRUULD"], np.int64)


@jit
def fill_line_ends(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label):
    """Place row ``r0`` of the frame from both ends inward until two cells are
    left: each time, the end whose tile is cheaper to bring (blank's trip +
    ``weight`` x the tile's distance) goes next.  Returns (ok, first column
    of the two cells left)."""
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
            ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, home_label[p], r0, k, none)
        if not ok:
            return False, lo
        locked[p] = 1
        if k == lo:
            lo += 1
        else:
            hi -= 1
    return True, lo


@jit
def place_pair_mirrored(cells, pos, locked, codes, state, visited, parent, queue, r0, near, a, b):
    """Narrow strip: the pair (a at column ``near``, b right of it) with a
    leading into b's cell and b behind it, then the blank comes to a's cell
    and two moves turn both home.  A leader cannot pass its follower in a
    strip two wide, so this serves when a is the nearer tile.  Returns
    whether the pair is home (False leaves a legal board for the plain
    order)."""
    none = np.int64(NO_TILE)
    far = near + 1
    ar, ac = logical_cell(state, pos[a])
    xr, xc = logical_cell(state, pos[b])
    if not (xr > ar + 1 and ar > r0):
        return False
    if move_tile(cells, pos, locked, codes, state, visited, parent, queue, a, ar, far, none):
        lead_cell = pos[a]
        locked[lead_cell] = 1
        ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, b, ar + 1, far, none)
        locked[lead_cell] = 0
        if ok:
            move_tile_led(cells, pos, locked, codes, state, visited, parent, queue, a, r0, far, b, r0)
    state[ERROR] = 0
    home_a = physical_cell(state, r0, near)
    home_b = physical_cell(state, r0, far)
    below = physical_cell(state, r0 + 1, far)
    if cells[home_b] == a and cells[below] == b:
        locked[home_b] = 1
        locked[below] = 1
        ok = route_blank(cells, pos, locked, codes, state, visited, parent, queue, r0, near, none, none)
        locked[below] = 0
        if ok:
            move_blank(cells, pos, codes, state, np.int64(RIGHT))  # a slides to its cell
            move_blank(cells, pos, codes, state, np.int64(DOWN))  # b comes up into its cell
            locked[home_a] = 1
            locked[home_b] = 1
            return True
        locked[home_b] = 0
        state[ERROR] = 0
    return False


@jit
def place_pair(cells, pos, locked, codes, state, visited, parent, queue, r0, near, a, b, narrow):
    """The last two tiles of row ``r0``: a (column ``near``) and b (right of
    it).  b goes into a's cell, a just below it, then two moves turn both
    home; the corner cases play the fixed patterns."""
    none = np.int64(NO_TILE)
    far = near + 1
    home_a = physical_cell(state, r0, near)
    home_b = physical_cell(state, r0, far)
    if not place_two(cells, pos, locked, codes, state, visited, parent, queue, b, r0, near, a, r0 + 1, near, r0, narrow):
        return False
    locked[home_a] = 1
    ar, ac = logical_cell(state, pos[a])
    br, bc = logical_cell(state, state[BLANK_CELL])
    if ar == r0 + 1 and ac == far and br == r0 and bc == far:
        # Blank shut in the corner above a.
        play_pattern(cells, pos, codes, state, FIX_TRAPPED)
    elif ar == r0 and ac == far:
        # a in the far corner: the pair cannot be rotated in; fixed pattern.
        if not route_blank(cells, pos, locked, codes, state, visited, parent, queue, r0 + 1, near, ar, ac):
            return False
        play_pattern(cells, pos, codes, state, FIX_CORNER)
    else:
        below = physical_cell(state, r0 + 1, near)
        if not move_tile(cells, pos, locked, codes, state, visited, parent, queue, a, r0 + 1, near, none):
            return False
        locked[below] = 1
        if not route_blank(cells, pos, locked, codes, state, visited, parent, queue, r0, far, none, none):
            return False
        locked[below] = 0
        move_blank(cells, pos, codes, state, np.int64(LEFT))  # b slides to its cell
        move_blank(cells, pos, codes, state, np.int64(DOWN))  # a comes up into its cell
    locked[home_a] = 1
    locked[home_b] = 1
    return True


@jit
def solve_line(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label):
    """Place row ``r0`` of the frame from column ``c0`` to the right edge.
    The region below has at least two more rows.  ``home_label[p]`` is the
    label that belongs in physical cell p."""
    # The line's labels are consecutive (see placement_labels): find its
    # tiles in the region once; from here on the moves keep their positions.
    state[LINE_FIRST] = home_label[physical_cell(state, r0, c0)]
    state[LINE_LAST] = state[LINE_FIRST] + state[FRAME_COLS] - 1 - c0
    for r in range(r0, state[FRAME_ROWS]):
        for c in range(c0, state[FRAME_COLS]):
            p = physical_cell(state, r, c)
            v = cells[p]
            if v >= state[LINE_FIRST] and v <= state[LINE_LAST]:
                pos[v] = p
    ok, near = fill_line_ends(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label)
    if not ok:
        return False
    home_a = physical_cell(state, r0, near)
    home_b = physical_cell(state, r0, near + 1)
    a = home_label[home_a]
    b = home_label[home_b]
    if cells[home_a] == a and cells[home_b] == b:
        locked[home_a] = 1
        locked[home_b] = 1
        return True
    narrow = state[FRAME_COLS] - c0 == 2
    if narrow and place_pair_mirrored(cells, pos, locked, codes, state, visited, parent, queue, r0, near, a, b):
        return True
    # Otherwise the plain order copes with wherever they are.
    return place_pair(cells, pos, locked, codes, state, visited, parent, queue, r0, near, a, b, narrow)


@jit
def placement_labels(m, n):
    """``home_label[p]``: the kernel's own label of the tile that belongs in
    flat cell p, numbered in the order the cells are placed (blank: 0).

    Each line's labels are then consecutive: a move updates a tile's
    position only when it belongs to the line being placed (two
    comparisons), instead of a write at a random place in a large array on
    every move."""
    home_label = np.empty(m * n, np.int64)
    rank = 0
    r0 = 0
    c0 = 0
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:
            for c in range(c0, n):
                rank += 1
                home_label[r0 * n + c] = rank
            r0 += 1
        else:
            for r in range(r0, m):
                rank += 1
                home_label[r * n + c0] = rank
            c0 += 1
    for r in range(r0, m):
        for c in range(c0, n):
            if r != m - 1 or c != n - 1:
                rank += 1
                home_label[r * n + c] = rank
    home_label[m * n - 1] = 0
    return home_label


@jit
def turn_last_square(cells, pos, codes, state, m, n, home_label):
    """The final 2 x 2, blank in its corner: one turn of its cycle at most.
    Returns False when it cannot be turned into place (a parity bug)."""
    top_left = (m - 2) * n + n - 2
    top_right = top_left + 1
    bottom_left = top_left + n
    if cells[top_left] != home_label[top_left]:
        if cells[bottom_left] == home_label[top_left]:
            play_pattern(cells, pos, codes, state, np.array([UP, LEFT, DOWN, RIGHT], np.int64))  # BL -> TL
        else:
            play_pattern(cells, pos, codes, state, np.array([LEFT, UP, RIGHT, DOWN], np.int64))  # TR -> TL
    return (cells[top_left] == home_label[top_left] and cells[top_right] == home_label[top_right]
            and cells[bottom_left] == home_label[bottom_left])


@jit
def solve_kernel(cells, m, n, codes, back, stats, limit, weight):
    """Solve the relabelled board ``cells`` (flat, int32; goal: cell i holds
    i + 1, blank last) in place (it is left in the kernel's own labels), then
    play ``back``.  Returns (moves, error code); codes beyond
    ``codes.shape[0]`` are counted, not stored.  ``stats`` receives the tile
    steps and the moves of the blank's routes.  With ``limit`` >= 0 the
    kernel stops (ERR_BUDGET) after the first line that ends past ``limit``
    moves."""
    size = m * n
    home_label = placement_labels(m, n)
    kernel_label = np.empty(size, np.int32)  # default-goal label -> kernel label
    kernel_label[0] = 0
    for p in range(size - 1):
        kernel_label[p + 1] = home_label[p]
    pos = np.zeros(size, np.int32)
    state = np.zeros(STATE_SIZE, np.int64)
    for i in range(size):
        cells[i] = kernel_label[cells[i]]
        if cells[i] == 0:
            state[BLANK_CELL] = i
    state[LINE_FIRST] = 1
    state[LINE_LAST] = 0
    state[CODE_CAPACITY] = codes.shape[0]
    state[ROW_STRIDE] = n
    locked = np.zeros(size, np.uint8)
    visited = np.zeros(size, np.int64)
    parent = np.zeros(size, np.uint8)
    queue = np.empty(size, np.int64)
    r0 = np.int64(0)  # int64 from the start: see state.py
    c0 = np.int64(0)
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:  # a row of the board
            state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 0, m, n
            ok = solve_line(cells, pos, locked, codes, state, visited, parent, queue, r0, c0, weight, home_label)
            r0 += 1
        else:  # a column: a row of the transposed frame
            state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 1, n, m
            ok = solve_line(cells, pos, locked, codes, state, visited, parent, queue, c0, r0, weight, home_label)
            c0 += 1
        if not ok:
            return state[MOVE_COUNT], state[ERROR]
        if limit >= 0 and state[MOVE_COUNT] > limit:
            state[ERROR] = ERR_BUDGET
            return state[MOVE_COUNT], state[ERROR]
    # Final 2 x 2: blank to its corner, then one turn of the cycle at most.
    state[TRANSPOSED], state[FRAME_ROWS], state[FRAME_COLS] = 0, m, n
    none = np.int64(NO_TILE)
    if not route_blank(cells, pos, locked, codes, state, visited, parent, queue, m - 1, n - 1, none, none):
        return state[MOVE_COUNT], state[ERROR]
    stats[0] = state[TILE_STEPS]
    stats[1] = state[ROUTED_MOVES]
    if not turn_last_square(cells, pos, codes, state, m, n, home_label):
        state[ERROR] = ERR_PARITY
        return state[MOVE_COUNT], state[ERROR]
    play_pattern(cells, pos, codes, state, back)  # from the corner to the goal's blank cell
    return state[MOVE_COUNT], state[ERROR]
