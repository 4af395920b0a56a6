"""Bringing tiles home: one tile, or two tiles travelling as a pair.

A tile moves one step at a time: the blank goes to the cell in front of it
(a fixed pattern when the blank is already next to the tile, a short path or
a route otherwise), then steps back into the tile's cell.  Going straight
costs 5 moves a step, turning 3 (staircase paths); a follower trailing the
leader costs one blank move more per step, 7 for the pair instead of 10.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit, jit_inner
from ...moves import COL_STEP, ROW_STEP, step_cell, step_offset, transposed_code, undo_code
from .routes import route_blank, short_path, steer_gain, steered_plan
from .state import (
    BLANK_CELL, CODE_CAPACITY, ERR_ROUTE, ERROR, FRAME_COLS, FRAME_ROWS, INFINITE, LINE_FIRST, LINE_LAST,
    MOVE_COUNT, NO_TILE, RING, RING_DEPTH, RING_SIZE, ROUTED_MOVES, ROW_STRIDE, STEER, STEER_WEIGHTED, TILE_STEPS,
    TRANSPOSED,
    cell_free_unpacked, direction_code, frame_steps, l1, logical_cell, physical_cell,
)  # fmt: skip

#: When the tile's two shortening steps are compared (:func:`steered_step`),
#: in tenths of a move: what a unit of the displaced tiles' gain is worth
#: (unweighted gains, +1 or -1 a tile: a whole move; gains weighted by the
#: tiles' walks, :func:`.routes.walk_gain`, 4 a step along a longer leg: 0.3),
#: and, weighted, what each turning step left on the tile's own way is worth
#: (it spares 2 moves of a straight step; 0.6 measured best).
STEP_MOVE_UNITS = 10
STEP_GAIN_UNITS = 3
TURN_LEFT_UNITS = 6


@jit(inline="always")  # inlined into the hot loop of move_tile
def choose_step(locked, rows, cols, row_step, col_step, xr, xc, tr, tc, br, bc, gate):
    """The step (dr, dc) of the tile at (xr, xc) toward (tr, tc) that the
    blank at (br, bc) reaches cheapest.  After a step the blank sits behind
    the tile, so turning costs 2 blank moves and going straight 4.

    Returns (cost, dr, dc, gated): cost :data:`INFINITE` when no step is
    possible; ``gated`` when a step was refused only for the ``gate`` row (a
    row the tile may enter only in the target column)."""
    none = np.int64(NO_TILE)
    gated = False
    best = INFINITE
    dr = np.int64(0)  # int64 from the start: see state.py
    dc = np.int64(0)
    for axis in range(2):
        if axis == 0:
            if xr == tr:
                continue
            sr = 1 if tr > xr else -1
            sc = 0
        else:
            if xc == tc:
                continue
            sr = 0
            sc = 1 if tc > xc else -1
        if not cell_free_unpacked(locked, rows, cols, row_step, col_step, xr + sr, xc + sc, none, none):
            continue
        if xr + sr == gate and xr != gate and xc != tc and axis == 0:
            gated = True
            continue
        fr = xr + sr
        fc = xc + sc
        if br == fr and bc == fc:
            cost = 0
        elif br == xr - sr and bc == xc - sc:
            cost = 4
        elif abs(br - xr) + abs(bc - xc) == 1:
            cost = 2 if cell_free_unpacked(locked, rows, cols, row_step, col_step, br + sr, bc + sc, xr, xc) else 6
        else:
            cost = abs(br - fr) + abs(bc - fc)
            if (br == xr and fr == xr and (bc - xc) * (fc - xc) < 0) or (
                bc == xc and fc == xc and (br - xr) * (fr - xr) < 0
            ):
                cost += 2
        if cost < best:
            best = cost
            dr = sr
            dc = sc
    return best, dr, dc, gated


@jit_inner  # a call (not inlined): steered_step asks it twice, and each inlined copy is compiled apart
def blank_to_front_pattern(cells, pos, state, locked, rows, cols, row_step, col_step, br, bc, xr, xc, dr, dc, pair, moves):
    """Write into ``moves`` the blank's moves from (br, bc) to the cell in
    front of the tile at (xr, xc) stepping (dr, dc): a fixed pattern round
    the tile (or round both tiles of a ``pair`` going straight) when the
    blank is next to it, else a short path.  Returns the count: 0 when the
    blank is already there, -1 when it needs a route."""
    fr = xr + dr
    fc = xc + dc
    if br == fr and bc == fc:
        return 0
    step = direction_code(dr, dc)
    k = 0
    # Behind the tile: round it (aside, 2 steps, back: 4 moves); behind a pair
    # going straight: round both (3 steps, 5 moves).
    straight = 0
    if br == xr - dr and bc == xc - dc:
        straight = 2
    elif pair and br == xr - 2 * dr and bc == xc - 2 * dc:
        straight = 3
    if straight > 0:
        best = -INFINITE
        side = 0
        for s in (1, -1):
            er = dc * s
            ec = dr * s
            # the cells the blank enters, but the last (the front cell: free)
            if not (
                cell_free_unpacked(locked, rows, cols, row_step, col_step, br + er, bc + ec, xr, xc)
                and (straight == 2
                     or cell_free_unpacked(locked, rows, cols, row_step, col_step, br + dr + er, bc + dc + ec, xr, xc))
                and cell_free_unpacked(locked, rows, cols, row_step, col_step, xr + er, xc + ec, xr, xc)
                and cell_free_unpacked(locked, rows, cols, row_step, col_step, fr + er, fc + ec, xr, xc)
            ):
                continue
            gain = 0
            if state[STEER]:  # the side whose tiles it displaces gain most (see routes.py)
                gain = round_gain(cells, pos, state, row_step, col_step, br, bc, er, ec, dr, dc, straight)
            if gain > best:
                best = gain
                side = s
        if side != 0:
            aside = direction_code(dc * side, dr * side)
            moves[0] = aside
            for i in range(straight):
                moves[1 + i] = step
            moves[straight + 1] = undo_code(aside)
            k = straight + 2
    elif abs(br - xr) + abs(bc - xc) == 1:  # beside the tile: 2 moves
        if cell_free_unpacked(locked, rows, cols, row_step, col_step, br + dr, bc + dc, xr, xc):
            moves[0] = step
            moves[1] = direction_code(xr - br, xc - bc)
            k = 2
    if k == 0 and state[STEER] and abs(br - fr) + abs(bc - fc) <= 7:
        k = steered_plan(cells, pos, locked, state, rows, cols, row_step, col_step, br, bc, fr, fc, xr, xc, moves)
        k = max(k, 0)
    if k == 0:
        packed, k = short_path(locked, rows, cols, row_step, col_step, br, bc, fr, fc, xr, xc)
        for i in range(max(k, 0)):
            moves[i] = (packed >> (2 * i)) & 3
    return k


@jit(inline="always")  # one copy, in blank_to_front_pattern
def round_gain(cells, pos, state, row_step, col_step, br, bc, er, ec, dr, dc, straight):
    """:func:`pattern_gain` of the way round a tile (or pair) from (br, bc):
    a step (er, ec) aside, ``straight`` (2 or 3) steps (dr, dc), a step back
    (a loop with one gain in it: each written-out gain is compiled apart)."""
    gain = 0
    r = br
    c = bc
    for i in range(straight + 2):
        sr, sc = (er, ec) if i == 0 else ((-er, -ec) if i == straight + 1 else (dr, dc))
        gain += steer_gain(cells, pos, state, row_step, col_step, r, c, r + sr, c + sc)
        r += sr
        c += sc
    return gain


@jit(inline="always")
def pattern_gain(cells, pos, state, row_step, col_step, br, bc, moves, k):
    """How much closer to home, in all, the tiles that ``moves[:k]`` of the
    blank from (br, bc) displace get (cells met twice counted as first
    seen: the patterns are short)."""
    gain = 0
    r = br
    c = bc
    for i in range(k):
        nr = r + ROW_STEP[moves[i]]
        nc = c + COL_STEP[moves[i]]
        gain += steer_gain(cells, pos, state, row_step, col_step, r, c, nr, nc)
        r = nr
        c = nc
    return gain


@jit(inline="always")
def turns_left(xr, xc, tr, tc, vertical):
    """The most turning steps (3 moves each, against 5 going straight) a tile
    at (xr, xc) can still take on a shortest way to (tr, tc), having just
    stepped ``vertical``-ly: turns alternate, the first along the other
    axis, until that axis is used up.

    Examples
    --------
    >>> turns_left(5, 0, 0, 2, True), turns_left(5, 0, 0, 2, False)
    (4, 5)
    """
    same = abs(tr - xr) if vertical else abs(tc - xc)
    other = abs(tc - xc) if vertical else abs(tr - xr)
    return min(2 * other, 2 * same + 1)


@jit(inline="always")
def other_step(locked, rows, cols, row_step, col_step, xr, xc, tr, tc, dr, gate):
    """The tile's other shortening step, besides (dr, dc) (``dr`` nonzero:
    a step along the column): (free, er, ec), free False when there is
    none (the tile in line with its target), its cell is locked, or the
    gate row of :func:`choose_step` refuses it."""
    er = np.int64(0)
    ec = np.int64(0)
    if xr == tr or xc == tc:
        return False, er, ec
    if dr != 0:
        ec = np.int64(1) if tc > xc else np.int64(-1)
    else:
        er = np.int64(1) if tr > xr else np.int64(-1)
    none = np.int64(NO_TILE)
    if not cell_free_unpacked(locked, rows, cols, row_step, col_step, xr + er, xc + ec, none, none):
        return False, er, ec
    if er != 0 and xr + er == gate and xr != gate:  # the gate rule of choose_step (xc != tc here)
        return False, er, ec
    return True, er, ec


@jit(inline="always")  # inlined into the hot loop of move_tile
def steered_step(cells, pos, state, locked, rows, cols, row_step, col_step, br, bc, xr, xc, tr, tc, dr, dc, gate,
                 pair, moves, spare):
    """The blank's moves (into ``moves``) to the front of the tile for the
    step (dr, dc) that :func:`choose_step` chose, or for the tile's other
    shortening step when that pattern, less what the tiles it displaces
    gain toward home, is cheaper (steering, see :mod:`.routes`).  Returns
    (count, dr, dc); count -1 when the blank needs a route."""
    k = blank_to_front_pattern(cells, pos, state, locked, rows, cols, row_step, col_step, br, bc, xr, xc, dr, dc,
                               pair, moves)
    if not state[STEER] or k < 0:
        return k, dr, dc
    free, er, ec = other_step(locked, rows, cols, row_step, col_step, xr, xc, tr, tc, dr, gate)
    if not free:
        return k, dr, dc
    k2 = blank_to_front_pattern(cells, pos, state, locked, rows, cols, row_step, col_step, br, bc, xr, xc, er, ec,
                                pair, spare)
    if k2 < 0:
        return k, dr, dc
    gain_units = STEP_MOVE_UNITS
    turn_units = 0
    if state[STEER] == STEER_WEIGHTED:
        gain_units = STEP_GAIN_UNITS
        turn_units = TURN_LEFT_UNITS
    c1 = (STEP_MOVE_UNITS * k - gain_units * pattern_gain(cells, pos, state, row_step, col_step, br, bc, moves, k)
          - turn_units * turns_left(xr + dr, xc + dc, tr, tc, dr != 0))
    c2 = (STEP_MOVE_UNITS * k2 - gain_units * pattern_gain(cells, pos, state, row_step, col_step, br, bc, spare, k2)
          - turn_units * turns_left(xr + er, xc + ec, tr, tc, er != 0))
    if c2 < c1:
        for i in range(k2):
            moves[i] = spare[i]
        return k2, er, ec
    return k, dr, dc


@jit_inner
def routed_step(state, locked, br, bc, xr, xc, tr, tc, dr, dc, gate):
    """When the blank (at (br, bc)) needs a route to the tile: of the tile's
    two shortening steps, the one whose front cell is nearer the blank, less
    what the turns it leaves the tile are worth (as in :func:`steered_step`;
    planning both routes to weigh their gains too cost twice the time for
    little more).  (dr, dc) is :func:`choose_step`'s step; returns the
    step."""
    rows, cols, row_step, col_step = frame_steps(state)
    free, er, ec = other_step(locked, rows, cols, row_step, col_step, xr, xc, tr, tc, dr, gate)
    if not free:
        return dr, dc
    c1 = STEP_MOVE_UNITS * l1(br, bc, xr + dr, xc + dc) - TURN_LEFT_UNITS * turns_left(xr + dr, xc + dc, tr, tc, dr != 0)
    c2 = STEP_MOVE_UNITS * l1(br, bc, xr + er, xc + ec) - TURN_LEFT_UNITS * turns_left(xr + er, xc + ec, tr, tc, er != 0)
    if c2 < c1:
        return er, ec
    return dr, dc


@jit_inner
def play_moves(cells, pos, codes, state, moves, k, blank, count, depth, frame):
    """Play logical ``moves[:k]`` from the blank at flat ``blank`` with
    ``count`` moves made and ``depth`` of them in the ring; returns the new
    (blank, count, depth).  The state's copies are left alone: the caller
    keeps these three, and ``frame`` = (transposed, row stride, code
    capacity, first and last label of the line), in registers across the
    hot loop."""
    transposed, n, capacity, first, last = frame
    for i in range(k):
        code = moves[i]
        if transposed:
            code = transposed_code(code)
        t = blank + step_offset(code, n)
        v = cells[t]
        cells[blank] = v
        if v >= first and v <= last:
            pos[v] = blank
        cells[t] = 0
        blank = t
        # record_move, written out (hot loop)
        if depth > 0 and state[RING + ((count - 1) & (RING_SIZE - 1))] == undo_code(code):
            count -= 1
            depth -= 1
        else:
            if count < capacity:
                codes[count] = code
            state[RING + (count & (RING_SIZE - 1))] = code
            count += 1
            if depth < RING_SIZE:
                depth += 1
    return blank, count, depth


@jit_inner
def move_tile(cells, pos, locked, codes, state, visited, parent, queue, label, tr, tc, follow, gate):
    """Bring tile ``label`` to logical (tr, tc), one step at a time.

    Of the (at most two) steps that shorten the tile's distance, take the one
    the blank reaches cheapest (:func:`choose_step`).  With the blank next to
    the tile the moves are fixed patterns, run in this loop (the hot path);
    otherwise the blank takes a route first.

    ``follow``: :data:`NO_TILE`, or a tile next to this one that trails it,
    stepping into each cell the leader leaves (one blank move more per step).
    Where the blank finds no way round the pair, the follower is dropped and
    the leader goes on alone.  ``gate``: a logical row the leader may enter
    only in the target column (so that a follower ends right below the
    target, not beside it), :data:`NO_TILE` for none.  Callers pass every
    argument as int64 (see :mod:`.state`).
    """
    rows, cols, row_step, col_step = frame_steps(state)
    moves = np.empty(16, np.int64)
    spare = np.empty(16, np.int64)
    frame = (state[TRANSPOSED], state[ROW_STRIDE], state[CODE_CAPACITY], state[LINE_FIRST], state[LINE_LAST])
    blank = state[BLANK_CELL]
    count = state[MOVE_COUNT]
    depth = state[RING_DEPTH]
    br, bc = logical_cell(state, blank)
    xr, xc = logical_cell(state, pos[label])
    follower_cell = np.int64(-1)  # locked while the blank moves round the pair
    yr = yc = np.int64(-1)  # int64 from the start: see state.py
    ok = True
    while xr != tr or xc != tc:
        if follow >= 0:
            follower_cell = pos[follow]
            yr, yc = logical_cell(state, follower_cell)
            locked[follower_cell] = 1
        best, dr, dc, gated = choose_step(locked, rows, cols, row_step, col_step, xr, xc, tr, tc, br, bc, gate)
        if best == INFINITE:
            if gated or follow >= 0:
                # Only the gate or the follower is in the way: go on alone, ungated.
                if follow >= 0:
                    locked[follower_cell] = 0
                    follow = NO_TILE
                gate = NO_TILE
                continue
            state[ERROR] = ERR_ROUTE
            ok = False
            break
        k, dr, dc = steered_step(cells, pos, state, locked, rows, cols, row_step, col_step, br, bc, xr, xc, tr, tc,
                                 dr, dc, gate, follow >= 0, moves, spare)
        fr = xr + dr
        fc = xc + dc
        if k < 0:
            state[BLANK_CELL] = blank
            state[MOVE_COUNT] = count
            state[RING_DEPTH] = depth
            if state[STEER] == STEER_WEIGHTED:
                dr, dc = routed_step(state, locked, br, bc, xr, xc, tr, tc, dr, dc, gate)
                fr = xr + dr
                fc = xc + dc
            if not route_blank(cells, pos, locked, codes, state, visited, parent, queue, fr, fc, xr, xc):
                if follow < 0:
                    ok = False
                    break
                # No way round the pair: drop the follower, go on alone.
                state[ERROR] = 0
                locked[follower_cell] = 0
                follow = NO_TILE
                continue
            blank = state[BLANK_CELL]
            state[ROUTED_MOVES] += state[MOVE_COUNT] - count
            count = state[MOVE_COUNT]
            depth = state[RING_DEPTH]
            k = 0
        state[TILE_STEPS] += 1
        # The blank steps back into the tile's cell: the tile moves forward.
        moves[k] = undo_code(direction_code(dr, dc))
        k += 1
        if follow >= 0:
            # ... and on into the follower's cell: it takes the leader's.
            locked[follower_cell] = 0
            moves[k] = direction_code(yr - xr, yc - xc)
            k += 1
        blank, count, depth = play_moves(cells, pos, codes, state, moves, k, blank, count, depth, frame)
        if follow >= 0:
            br = yr
            bc = yc
        else:
            br = xr
            bc = xc
        xr = fr
        xc = fc
    if follow >= 0 and follower_cell >= 0:
        locked[follower_cell] = 0
    # Every exit writes the state back: a caller may carry on after a failure.
    state[BLANK_CELL] = blank
    state[MOVE_COUNT] = count
    state[RING_DEPTH] = depth
    return ok


@jit_inner
def join_cell(pos, locked, state, mover, anchor, tr, tc, front):
    """The cell next to tile ``anchor`` where tile ``mover`` should join it:
    on the side nearest the mover; ``front`` > 0 prefers the side toward
    (tr, tc), < 0 the side away from it.  Returns logical (r, c), r < 0 when
    every side is locked."""
    ar, ac = logical_cell(state, pos[anchor])
    xr, xc = logical_cell(state, pos[mover])
    rows = state[FRAME_ROWS]
    cols = state[FRAME_COLS]
    here = l1(ar, ac, tr, tc)
    best = INFINITE
    cr = np.int64(-1)  # int64 from the start: see state.py
    cc = np.int64(-1)
    for d in range(4):
        r, c = step_cell(ar, ac, d)
        if r < 0 or c < 0 or r >= rows or c >= cols or locked[physical_cell(state, r, c)]:
            continue
        cost = 2 * l1(xr, xc, r, c)
        if (l1(r, c, tr, tc) < here) != (front > 0):
            cost += 8
        if c != tc:
            cost += 1  # in line with the target column: no turn later
        if cost < best:
            best = cost
            cr = r
            cc = c
    return cr, cc


@jit_inner  # called twice in line_step (by fill_line and for a pair): typed once
def place_two(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, follow, fr, fc, gate, narrow):
    """Bring ``lead`` to (tr, tc) with ``follow`` (whose own target is
    (fr, fc), next to it) either trailing it as a pair or left for later,
    whichever looks cheaper.  Straight steps cost 5 moves for one tile
    and 7 for a pair, and a pair shares one trip of the blank.

    ``narrow``: the region is two columns wide, so a pair side by side would
    wall the blank off; there the leader first steps into the target column
    and the follower lines up right behind it (the leader must then be the
    nearer of the two: it cannot pass the follower)."""
    none = np.int64(NO_TILE)
    br, bc = logical_cell(state, state[BLANK_CELL])
    xr, xc = logical_cell(state, pos[lead])
    yr, yc = logical_cell(state, pos[follow])
    dx = l1(xr, xc, tr, tc)
    dy = l1(yr, yc, fr, fc)
    apart = l1(xr, xc, yr, yc)
    # Estimates: 4 moves a step for one tile (5 straight, 3 on a staircase),
    # 7 for a pair, 10 to line up; constants tuned on random boards.
    alone = l1(br, bc, xr, xc) + 4 * dx + l1(tr, tc, yr, yc) + 4 * dy
    join_lead = l1(br, bc, yr, yc) + 4 * apart + 7 * dx + 10  # follower comes to the leader
    join_follow = l1(br, bc, xr, xc) + 4 * apart + 7 * dy + 10  # leader comes to the follower
    if narrow:
        join_follow = INFINITE
        join_lead = (l1(br, bc, xr, xc) + 4 * abs(xc - tc) + l1(xr, tc, yr, yc)
                     + 4 * l1(yr, yc, xr + 1, tc) + 7 * dx + 10)
        if xr + 1 >= state[FRAME_ROWS] or yr <= xr:
            join_lead = INFINITE  # no room behind, or the follower is ahead
    if alone <= join_lead and alone <= join_follow:
        return move_tile(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, none, gate)
    # The mover comes next to the anchor, held still, then the pair travels.
    if narrow:  # the leader into the target column, the follower right behind it
        anchor, mover, cr, cc = lead, follow, xr + 1, tc
        ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, lead, xr, tc, none, none)
    else:
        if join_lead <= join_follow:
            anchor, mover, front = lead, follow, -1
        else:
            anchor, mover, front = follow, lead, 1
        cr, cc = join_cell(pos, locked, state, mover, anchor, tr, tc, np.int64(front))
        ok = cr >= 0
    if ok:
        anchor_cell = pos[anchor]
        locked[anchor_cell] = 1
        ok = move_tile(cells, pos, locked, codes, state, visited, parent, queue, mover, cr, cc, none, none)
        locked[anchor_cell] = 0
    if not ok:
        # The anchored tile walled the mover off: no harm done (every move
        # made was legal), bring the leader alone.
        state[ERROR] = 0
        return move_tile(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, none, gate)
    return move_tile(cells, pos, locked, codes, state, visited, parent, queue, lead, tr, tc, follow, gate)
