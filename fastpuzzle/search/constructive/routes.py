"""Routes of the blank: steered paths, L-shaped paths, and a breadth-first
search of cells.

Every move of the blank moves one tile one step.  A Manhattan-shortest route
from one cell to another has a choice at most steps (along the row or along
the column), so the blank is *steered*: at each step it takes the move whose
displaced tile gets closer to its home, or at least not farther
(:func:`steered_route`).  Tiles not yet placed then drift home as a side
effect of the blank's trips, and the placement later has less to do: on
random boards this saves about a quarter of the moves.  A tile's gain is
weighted by what it spares the tile's own walk home later (a step along its
longer leg spares a straight step of 5 moves, one along the shorter leg a
part of a turn: :func:`walk_gain`).  The moves of a monotone route displace
tiles at distinct cells, so their gains add up, and the route taken is the
best one in a band round the straight line (:func:`best_plan`, dynamic
programming over the band's cells), not the step-by-step greedy choice.  Where the steered
walk is blocked, the blank takes a Manhattan-shortest L-shaped path (one step
aside first where the straight L is blocked); a breadth-first search of
*cells* (the blank's route, never board states) inside a small box, then the
whole region, is the fallback for the rare spots where no L-shaped path
exists.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit, jit_inner
from ...moves import COL_STEP, ROW_STEP, step_cell
from .state import (
    BFS_STAMP, BLANK_CELL, DOWN, ERR_ROUTE, ERROR, FRAME_COLS, FRAME_ROWS, LEFT, LINE_FIRST, LINE_LAST, RIGHT, STEER,
    STEER_WEIGHTED, TRANSPOSED, UP,
    cell_free_unpacked, frame_steps, logical_cell, physical_cell, run_blank,
)  # fmt: skip


#: Weights of a step of a tile along the longer and the shorter leg of its way
#: home (:func:`walk_gain`).  A tile walked home later pays about 5 moves a step
#: going straight and 3 turning, so its walk costs about 5 x its longer leg + its
#: shorter leg: a step along the longer leg is worth several along the shorter
#: (4 : 1 measured best on random boards, near the 5 : 1 of that count).  The
#: tiles of the line being placed are walked next, sure to pay their straight
#: steps (other tiles may yet drift home): theirs weigh 8 (measured best).
LONG_LEG_WEIGHT = 4
LINE_LONG_LEG_WEIGHT = 8
SHORT_LEG_WEIGHT = 1


@jit(inline="always")
def long_leg_weight(state, weighted, v):
    """The weight of the longer leg of tile ``v``'s way home: 1 unweighted
    (the gains are then Manhattan distances), else :data:`LONG_LEG_WEIGHT`,
    or :data:`LINE_LONG_LEG_WEIGHT` for a tile of the line being placed."""
    if not weighted:
        return 1
    if v >= state[LINE_FIRST] and v <= state[LINE_LAST]:
        return LINE_LONG_LEG_WEIGHT
    return LONG_LEG_WEIGHT


@jit(inline="always")
def walk_gain(long_weight, a0, b0, a1, b1):
    """What a tile's move is worth that takes its distances from home (rows,
    columns) from (a0, b0) to (a1, b1): the drop of ``long_weight`` x its
    longer leg + :data:`SHORT_LEG_WEIGHT` x its shorter leg (a step along the
    longer leg is worth more: it spares the tile a straight step later; one
    along the shorter leg spares a turn).  With ``long_weight`` 1 (and the
    short weight 1) that is the drop of the Manhattan distance, +1 or -1.

    Examples
    --------
    >>> walk_gain(4, 5, 1, 4, 1), walk_gain(4, 5, 1, 5, 0), walk_gain(1, 5, 1, 4, 1)
    (4, 1, 1)
    """
    return long_weight * (max(a0, b0) - max(a1, b1)) + SHORT_LEG_WEIGHT * (min(a0, b0) - min(a1, b1))


@jit_inner(always_inline=True)  # five call sites: typed once, inlined by LLVM (written into each, it was typed five times)
def steer_gain(cells, pos, state, row_step, col_step, r, c, nr, nc):
    """How much closer to its home the tile at logical (nr, nc) gets when the
    blank at (r, c) moves there (it then sits at (r, c)): :func:`walk_gain`,
    weighted in mode ``STEER_WEIGHTED``, else +1 or -1."""
    v = cells[nr * row_step + nc * col_step]
    hr, hc = logical_cell(state, pos[state[FRAME_ROWS] * state[FRAME_COLS] + v])
    weight = long_leg_weight(state, state[STEER] == STEER_WEIGHTED, v)
    return walk_gain(weight, abs(nr - hr), abs(nc - hc), abs(r - hr), abs(c - hc))


@jit(inline="always")
def steered_plan(cells, pos, locked, state, rows, cols, row_step, col_step, br, bc, tr, tc, xr, xc, out):
    """Plan a Manhattan-shortest path from (br, bc) to (tr, tc) into
    ``out``, each step the one whose displaced tile gains most (the short
    trips of :func:`~fastpuzzle.search.constructive.tiles.blank_to_front_pattern`);
    returns its length, -1 when it gets blocked."""
    sr = np.int64(1) if tr > br else np.int64(-1)
    sc = np.int64(1) if tc > bc else np.int64(-1)
    down = DOWN if sr > 0 else UP
    across = RIGHT if sc > 0 else LEFT
    r = br
    c = bc
    k = 0
    while r != tr or c != tc:
        vertical = r != tr and cell_free_unpacked(locked, rows, cols, row_step, col_step, r + sr, c, xr, xc)
        horizontal = c != tc and cell_free_unpacked(locked, rows, cols, row_step, col_step, r, c + sc, xr, xc)
        if vertical and horizontal:
            gv = steer_gain(cells, pos, state, row_step, col_step, r, c, r + sr, c)
            gh = steer_gain(cells, pos, state, row_step, col_step, r, c, r, c + sc)
            if gv == gh:
                vertical = abs(tr - r) >= abs(tc - c)
            else:
                vertical = gv > gh
        elif not horizontal and not vertical:
            return -1
        if vertical:
            out[k] = down
            r += sr
        else:
            out[k] = across
            c += sc
        k += 1
    return k


#: Half-width of the band round the straight line from the blank to its
#: target that :func:`best_plan` searches, in cells of the longer leg (the
#: work per route is about 2 x this x its length): 8 with weighted gains (a
#: wider band gains little more and costs time), 4 with unweighted gains (the
#: solver before, ``STEER_BEST``).
BEST_PLAN_BAND = 8
UNWEIGHTED_PLAN_BAND = 4


@jit_inner
def best_plan(cells, pos, locked, state, parent, queue, tr, tc, xr, xc):
    """The Manhattan-shortest path of the blank to (tr, tc) whose displaced
    tiles gain most in all (a monotone path visits each cell once, so the
    gains of its moves add up): dynamic programming over the cells of the
    box between the blank and (tr, tc) near its diagonal (within
    :data:`BEST_PLAN_BAND` cells, in units of the longer leg), best gain so
    far in ``queue`` (indexed within the box), the step that reached each
    cell in ``parent``.  The path goes into
    ``queue`` backwards (last move first).  Returns its length, -1 when no
    monotone path is free."""
    br, bc = logical_cell(state, state[BLANK_CELL])
    rows, cols, row_step, col_step = frame_steps(state)
    sr = np.int64(1) if tr > br else np.int64(-1)
    sc = np.int64(1) if tc > bc else np.int64(-1)
    down = DOWN if sr > 0 else UP
    across = RIGHT if sc > 0 else LEFT
    a = abs(tr - br)
    b = abs(tc - bc)
    width = b + 1
    # The band: cells (i, j) of the box with |i b - j a| <= band * max(a, b),
    # row i from column lo to hi (rows of the band overlap, so it is connected).
    weighted = state[STEER] == STEER_WEIGHTED
    reach = (BEST_PLAN_BAND if weighted else UNWEIGHTED_PLAN_BAND) * max(a, b)
    low = -(np.int64(1) << 40)  # unreachable (any real total is above it)
    size = state[FRAME_ROWS] * state[FRAME_COLS]
    home_rows = 2 * size if state[TRANSPOSED] == 0 else 3 * size  # logical rows of the homes
    home_cols = 5 * size - home_rows
    plo = np.int64(0)
    phi = np.int64(-1)
    for i in range(a + 1):
        r = br + sr * i
        if a == 0:
            lo = np.int64(0)
            hi = b
        else:
            lo = max(-((reach - i * b) // a), 0)  # ceil((i b - reach) / a)
            hi = min((i * b + reach) // a, b)
        for j in range(lo, hi + 1):
            c = bc + sc * j
            at = i * width + j
            if at == 0:
                queue[0] = 0
                continue
            best = low
            p = r * row_step + c * col_step
            if (r != xr or c != xc) and locked[p] == 0:  # inside the box: on the board
                # The tile here moves against the step: what that is worth (walk_gain).
                v = cells[p]
                w = long_leg_weight(state, weighted, v)
                dr = abs(r - pos[home_rows + v])
                dc = abs(c - pos[home_cols + v])
                if i > 0 and j >= plo and j <= phi and queue[at - width] > low:
                    best = queue[at - width] + walk_gain(w, dr, dc, abs(r - sr - pos[home_rows + v]), dc)
                    parent[p] = down
                if j > lo and queue[at - 1] > low:
                    g = queue[at - 1] + walk_gain(w, dr, dc, dr, abs(c - sc - pos[home_cols + v]))
                    # ties: along the longer leg left, as the step-by-step steering does
                    if g > best or (g == best and a - i < b - j + 1):
                        best = g
                        parent[p] = across
            queue[at] = best
        plo = lo
        phi = hi
    if queue[a * width + b] <= low:
        return -1
    k = 0
    r = tr
    c = tc
    while r != br or c != bc:
        d = parent[r * row_step + c * col_step]
        queue[k] = d  # the scores behind k are no longer read
        k += 1
        if d == down:
            r -= sr
        else:
            c -= sc
    return k


@jit_inner
def steered_route(cells, pos, locked, codes, state, parent, queue, tr, tc, xr, xc):
    """Take the blank to (tr, tc) by a Manhattan-shortest path, choosing the
    moves that help the displaced tiles most: the best such path in a band
    round the straight line (:func:`best_plan`).  A monotone path visits every cell once,
    so the tiles it meets are still where they were: the path is planned
    first, then played.  Returns False (nothing played) when the walk gets
    blocked."""
    one = np.int64(1)
    k = best_plan(cells, pos, locked, state, parent, queue, tr, tc, xr, xc)
    if k < 0:
        return False
    for i in range(k - 1, -1, -1):
        run_blank(cells, pos, codes, state, queue[i], one)
    return True


@jit_inner
def lpath_walk(cells, pos, codes, state, r0, c0, r1, c1, across_first):
    """Take the blank along the L-shaped path (r0,c0) -> (r1,c1)."""
    across = RIGHT if c1 > c0 else LEFT
    down = DOWN if r1 > r0 else UP
    if across_first:
        run_blank(cells, pos, codes, state, across, abs(c1 - c0))
        run_blank(cells, pos, codes, state, down, abs(r1 - r0))
    else:
        run_blank(cells, pos, codes, state, down, abs(r1 - r0))
        run_blank(cells, pos, codes, state, across, abs(c1 - c0))


@jit_inner
def bfs_route(cells, pos, locked, codes, state, visited, parent, queue, tr, tc, xr, xc, rlo, rhi, clo, chi):
    """Shortest route of the blank to (tr, tc) inside the logical box
    [rlo, rhi] x [clo, chi], avoiding locked cells and (xr, xc).  Cells of the
    board are searched, not board states.  Returns False if there is none."""
    state[BFS_STAMP] += 1
    stamp = state[BFS_STAMP]
    br, bc = logical_cell(state, state[BLANK_CELL])
    start = physical_cell(state, br, bc)
    visited[start] = stamp
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    goal = physical_cell(state, tr, tc)
    rows, cols, row_step, col_step = frame_steps(state)
    found = start == goal
    while head < tail and not found:
        p = queue[head]
        head += 1
        r, c = logical_cell(state, p)
        for d in range(4):
            nr = r + ROW_STEP[d]
            nc = c + COL_STEP[d]
            if nr < rlo or nr > rhi or nc < clo or nc > chi:
                continue
            if not cell_free_unpacked(locked, rows, cols, row_step, col_step, nr, nc, xr, xc):
                continue
            q = physical_cell(state, nr, nc)
            if visited[q] == stamp:
                continue
            visited[q] = stamp
            parent[q] = d
            queue[tail] = q
            tail += 1
            if q == goal:
                found = True
                break
    if not found:
        return False
    # Walk back from the goal, collecting directions, then replay forwards.
    k = 0
    p = goal
    while p != start:
        d = parent[p]
        queue[k] = d  # the queue is free again: reuse it for the path
        k += 1
        r, c = logical_cell(state, p)
        p = physical_cell(state, r - ROW_STEP[d], c - COL_STEP[d])
    one = np.int64(1)
    for i in range(k - 1, -1, -1):
        run_blank(cells, pos, codes, state, queue[i], one)
    return True


@jit_inner
def route_blank(cells, pos, locked, codes, state, visited, parent, queue, tr, tc, xr, xc):
    """Take the blank to logical (tr, tc) without touching (xr, xc) or locked
    cells, by a shortest L-shaped path where one exists."""
    br, bc = logical_cell(state, state[BLANK_CELL])
    if br == tr and bc == tc:
        return True
    if state[STEER] and steered_route(cells, pos, locked, codes, state, parent, queue, tr, tc, xr, xc):
        return True
    rows, cols, row_step, col_step = frame_steps(state)
    for across_first in (True, False):
        if lpath_clear_unpacked(locked, rows, cols, row_step, col_step, br, bc, tr, tc, across_first, xr, xc):
            lpath_walk(cells, pos, codes, state, br, bc, tr, tc, across_first)
            return True
    # One step aside, then an L-shaped path (goes round the tile).
    for d in range(4):
        wr = br + ROW_STEP[d]
        wc = bc + COL_STEP[d]
        if not cell_free_unpacked(locked, rows, cols, row_step, col_step, wr, wc, xr, xc):
            continue
        for across_first in (True, False):
            if lpath_clear_unpacked(locked, rows, cols, row_step, col_step, wr, wc, tr, tc, across_first, xr, xc):
                run_blank(cells, pos, codes, state, d, np.int64(1))
                lpath_walk(cells, pos, codes, state, wr, wc, tr, tc, across_first)
                return True
    m = state[FRAME_ROWS]
    n = state[FRAME_COLS]
    rlo = max(min(br, tr, xr) - 2, 0)
    rhi = min(max(br, tr, xr) + 2, m - 1)
    clo = max(min(bc, tc, xc) - 2, 0)
    chi = min(max(bc, tc, xc) + 2, n - 1)
    if bfs_route(cells, pos, locked, codes, state, visited, parent, queue, tr, tc, xr, xc, rlo, rhi, clo, chi):
        return True
    zero = np.int64(0)
    if bfs_route(cells, pos, locked, codes, state, visited, parent, queue, tr, tc, xr, xc, zero, m - 1, zero, n - 1):
        return True
    state[ERROR] = ERR_ROUTE
    return False


# ---------------------------------------------------------------- short paths, frame unpacked (hot loop)


@jit_inner
def lpath_clear_unpacked(locked, rows, cols, row_step, col_step, r0, c0, r1, c1, across_first, xr, xc):
    """Whether the L-shaped path (r0,c0) -> (r1,c1) is free (start
    excluded); ``across_first``: along the row first, then along the column.
    The frame comes unpacked (:func:`.state.frame_steps`)."""
    sr = 1 if r1 > r0 else -1
    sc = 1 if c1 > c0 else -1
    r, c = r0, c0
    for leg in range(2):
        if (leg == 0) == across_first:
            while c != c1:
                c += sc
                if not cell_free_unpacked(locked, rows, cols, row_step, col_step, r, c, xr, xc):
                    return False
        else:
            while r != r1:
                r += sr
                if not cell_free_unpacked(locked, rows, cols, row_step, col_step, r, c, xr, xc):
                    return False
    return True


@jit_inner
def lpath_pack(r0, c0, r1, c1, across_first, packed, k):
    """Append the codes of an L-shaped path to ``packed`` (2 bits a move)."""
    across = RIGHT if c1 > c0 else LEFT
    down = DOWN if r1 > r0 else UP
    for leg in range(2):
        if (leg == 0) == across_first:
            for _ in range(abs(c1 - c0)):
                packed |= across << (2 * k)
                k += 1
        else:
            for _ in range(abs(r1 - r0)):
                packed |= down << (2 * k)
                k += 1
    return packed, k


@jit_inner
def short_path(locked, rows, cols, row_step, col_step, br, bc, fr, fc, xr, xc):
    """A shortest-looking path of at most 7 moves for the blank from (br, bc)
    to (fr, fc) avoiding (xr, xc) and locked cells: an L-shaped path, or one
    step aside and then an L-shaped path.  Returns (codes packed 2 bits a
    move, count), count -1 when there is none this short.  Takes one array,
    so the compiler inlines it into the hot loop."""
    d0 = abs(br - fr) + abs(bc - fc)
    if d0 <= 7:
        for across_first in (True, False):
            if lpath_clear_unpacked(locked, rows, cols, row_step, col_step, br, bc, fr, fc, across_first, xr, xc):
                return lpath_pack(br, bc, fr, fc, across_first, np.int64(0), np.int64(0))
    if d0 <= 5:
        for d in range(4):
            wr, wc = step_cell(br, bc, d)
            if abs(wr - fr) + abs(wc - fc) > 6:
                continue
            if not cell_free_unpacked(locked, rows, cols, row_step, col_step, wr, wc, xr, xc):
                continue
            for across_first in (True, False):
                if lpath_clear_unpacked(locked, rows, cols, row_step, col_step, wr, wc, fr, fc, across_first, xr, xc):
                    return lpath_pack(wr, wc, fr, fc, across_first, np.int64(d), np.int64(1))
    return 0, -1
