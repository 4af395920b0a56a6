"""Constructive solver for boards of any size (valid, not shortest, moves).

Optimal search stops being possible past the 24-puzzle.  This solver places
the board block by block, the classic way, with fixed move patterns and no
search over the state space:

1. While the unsolved region is larger than 2 x 2, solve its top row or its
   left column, whichever is longer (the region stays near-square, so blank
   trips stay short).  A line fills from both ends inward, the cheaper end
   first, tile by tile, except its last two tiles, which go in as a pair:
   the far tile first into the near tile's cell, the near tile just below
   (beside) it, then two moves turn both home.  The one configuration where
   that gets stuck (the near tile trapped in the corner) is fixed by a
   precomputed 3 x 2 pattern.  In strips two wide the pair may go in
   mirrored, whichever tile is nearer leading.
2. The final 2 x 2 is turned once at most.

Tiles travel along staircase paths where they can (3 moves per step) and
straight lines otherwise (the standard 5-move cycle).  Where it looks
cheaper, the next tile of the line first joins the current one and trails
it, stepping into each cell it leaves: 7 moves a straight step for both
tiles instead of 10, and one trip of the blank for both.  The blank travels
by Manhattan-shortest L-shaped paths (with fixed patterns round the moving
tiles); a breadth-first search of *cells* (the blank's route, never board
states) inside a small box is kept as a fallback for the rare spots where
no L-shaped path exists.

Inside the kernel tiles are relabelled in the order their cells are placed,
so each line's labels are consecutive and a move updates the position table
only for tiles of the line being placed: on large boards a write at a random
place of a large table on every move would cost more than the move.

Any goal board is handled by relabelling: the goal with its blank slid to the
bottom-right corner (right along its row, then down) becomes the standard
layout; the solver reaches it, then the blank slides back (up, then left).
One-row and one-column boards just slide the blank.

Moves are written into a ``uint8`` code buffer sized from the Manhattan
distance; if it overflows, the kernel keeps counting and the run is repeated
once with the exact size.  ``count_only=True`` keeps no codes at all (a
1000 x 1000 solution has billions of moves) and reports the count in
:attr:`Solution.move_count`.
"""

from __future__ import annotations

import time

import numpy as np

from .._jit import jit
from ..boards import as_boards, as_goal
from ..moves import _BYTE_OF_CODE
from ..solvability import is_solvable
from .solution import Solution

__all__ = ["solve_constructive", "write_solution"]

# --------------------------------------------------------------------------
# Kernel state.  ``st`` (int64) holds the scalars every helper needs, so the
# helpers stay plain functions of arrays:
_BLANK = 0  # physical cell of the blank
_COUNT = 1  # moves made so far
_CAP = 2  # length of the code buffer (moves beyond it are only counted)
_NCOL = 3  # physical columns n
_T = 4  # 1 when the logical frame is the transpose of the board
_M = 5  # logical rows
_N = 6  # logical columns
_ERR = 7  # error code (0 = none)
_STAMP = 8  # BFS visit stamp
_STEPS = 9  # tile steps (statistics)
_ROUTED = 10  # moves made by routes of the blank (statistics)
_DEPTH = 11  # how many of the last moves the ring below still knows
_LLO = 12  # labels of the line being placed: only their positions are kept
_LHI = 13
_RING = 16  # ring of the last _RING_SIZE moves, indexed by move number
_RING_SIZE = 64
_NSTATE = _RING + _RING_SIZE

#: Errors reported by the kernel (any of them would be a bug: the wrapper
#: only passes solvable boards).
ERR_ROUTE = 1  # no route for the blank
ERR_PARITY = 2  # final 2 x 2 cannot be turned into place
ERR_BUDGET = 3  # the move budget ran out (not a bug: the caller asked for it)

# The pair fix-ups, 3 rows x 2 columns window whose top row holds the pair's
# targets (a near, b far).  Found once by breadth-first search over the
# (a, b, blank) positions of that window (120 states); shortest sequences.
#   b at (0,0), a at (0,1), blank at (1,0)  ->  a at (0,0), b at (0,1)
_FIX_CORNER = np.array(["ULRD".index(ch) for ch in "URDLDRUULDRDLUURD"], np.int64)
#   b at (0,0), blank at (0,1), a at (1,1)  ->  a at (0,0), b at (0,1)
_FIX_TRAPPED = np.array(["ULRD".index(ch) for ch in "LDRDLUURDLDRUULD"], np.int64)

_DR = np.array([-1, 0, 0, 1], np.int64)
_DC = np.array([0, -1, 1, 0], np.int64)


@jit
def _phys(st, r, c):
    if st[_T]:
        return c * st[_NCOL] + r
    return r * st[_NCOL] + c


@jit
def _logical(st, p):
    n = st[_NCOL]
    pr = p // n
    pc = p - pr * n
    if st[_T]:
        return pc, pr
    return pr, pc


@jit
def _move(cells, pos, codes, st, code):
    """Move the blank one cell in logical direction ``code`` (no checks: the
    callers only ask for legal moves)."""
    if st[_T]:
        code = code ^ 1  # transpose swaps U<->L and R<->D
    b = st[_BLANK]
    if code == 0:
        t = b - st[_NCOL]
    elif code == 1:
        t = b - 1
    elif code == 2:
        t = b + 1
    else:
        t = b + st[_NCOL]
    v = cells[t]
    cells[b] = v
    if v >= st[_LLO] and v <= st[_LHI]:
        pos[v] = b
    cells[t] = 0
    st[_BLANK] = t
    st[_COUNT], st[_DEPTH] = _record(codes, st, st[_COUNT], st[_DEPTH], st[_CAP], code)


@jit
def _record(codes, st, cnt, depth, cap, code):
    """Append a (physical) move code, or cancel it against the previous move
    when that was its inverse (routes and patterns meet that way now and
    then).  The ring in ``st`` remembers the last moves in every mode, so
    counting and recording take identical decisions.  Returns the new
    (count, depth)."""
    if depth > 0 and st[_RING + ((cnt - 1) & (_RING_SIZE - 1))] == 3 - code:
        return cnt - 1, depth - 1
    if cnt < cap:
        codes[cnt] = code
    st[_RING + (cnt & (_RING_SIZE - 1))] = code
    return cnt + 1, min(depth + 1, _RING_SIZE)


@jit
def _dir_code(dr, dc):
    if dr == -1:
        return 0
    if dr == 1:
        return 3
    if dc == -1:
        return 1
    return 2


@jit
def _free(locked, st, r, c, xr, xc):
    """Whether the blank may enter logical cell (r, c): on the board, not
    locked, not the tile being moved (xr, xc)."""
    if r < 0 or c < 0 or r >= st[_M] or c >= st[_N]:
        return False
    if r == xr and c == xc:
        return False
    return locked[_phys(st, r, c)] == 0


@jit
def _lpath_ok(locked, st, r0, c0, r1, c1, hfirst, xr, xc):
    """Whether the L-shaped path (r0,c0) -> (r1,c1) is free (start excluded)."""
    sr = 1 if r1 > r0 else -1
    sc = 1 if c1 > c0 else -1
    r, c = r0, c0
    if hfirst:
        while c != c1:
            c += sc
            if not _free(locked, st, r, c, xr, xc):
                return False
        while r != r1:
            r += sr
            if not _free(locked, st, r, c, xr, xc):
                return False
    else:
        while r != r1:
            r += sr
            if not _free(locked, st, r, c, xr, xc):
                return False
        while c != c1:
            c += sc
            if not _free(locked, st, r, c, xr, xc):
                return False
    return True


@jit
def _run(cells, pos, codes, st, code, k):
    """``k`` moves of the blank in logical direction ``code`` (one call per
    straight run: calls that pass arrays are not free)."""
    if st[_T]:
        code = code ^ 1
    n = st[_NCOL]
    if code == 0:
        step = -n
    elif code == 1:
        step = -1
    elif code == 2:
        step = 1
    else:
        step = n
    b = st[_BLANK]
    cnt = st[_COUNT]
    depth = st[_DEPTH]
    cap = st[_CAP]
    llo = st[_LLO]
    lhi = st[_LHI]
    for _ in range(k):
        t = b + step
        v = cells[t]
        cells[b] = v
        if v >= llo and v <= lhi:
            pos[v] = b
        cells[t] = 0
        b = t
        # _record, written out: a call that passes arrays costs more than a move
        if depth > 0 and st[_RING + ((cnt - 1) & (_RING_SIZE - 1))] == 3 - code:
            cnt -= 1
            depth -= 1
        else:
            if cnt < cap:
                codes[cnt] = code
            st[_RING + (cnt & (_RING_SIZE - 1))] = code
            cnt += 1
            if depth < _RING_SIZE:
                depth += 1
    st[_BLANK] = b
    st[_COUNT] = cnt
    st[_DEPTH] = depth


@jit
def _lpath_go(cells, pos, codes, st, r0, c0, r1, c1, hfirst):
    hcode = 2 if c1 > c0 else 1
    vcode = 3 if r1 > r0 else 0
    nh = abs(c1 - c0)
    nv = abs(r1 - r0)
    if hfirst:
        _run(cells, pos, codes, st, hcode, nh)
        _run(cells, pos, codes, st, vcode, nv)
    else:
        _run(cells, pos, codes, st, vcode, nv)
        _run(cells, pos, codes, st, hcode, nh)


@jit
def _bfs_route(cells, pos, locked, codes, st, vis, par, queue, tr, tc, xr, xc, rlo, rhi, clo, chi):
    """Shortest route of the blank to (tr, tc) inside the logical box
    [rlo, rhi] x [clo, chi], avoiding locked cells and (xr, xc).  Cells of the
    board are searched, not board states.  Returns False if there is none."""
    st[_STAMP] += 1
    stamp = st[_STAMP]
    br, bc = _logical(st, st[_BLANK])
    start = _phys(st, br, bc)
    vis[start] = stamp
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    goal = _phys(st, tr, tc)
    found = start == goal
    while head < tail and not found:
        p = queue[head]
        head += 1
        r, c = _logical(st, p)
        for d in range(4):
            nr = r + _DR[d]
            nc = c + _DC[d]
            if nr < rlo or nr > rhi or nc < clo or nc > chi:
                continue
            if not _free(locked, st, nr, nc, xr, xc):
                continue
            q = _phys(st, nr, nc)
            if vis[q] == stamp:
                continue
            vis[q] = stamp
            par[q] = d
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
        d = par[p]
        queue[k] = d  # the queue is free again: reuse it for the path
        k += 1
        r, c = _logical(st, p)
        p = _phys(st, r - _DR[d], c - _DC[d])
    for i in range(k - 1, -1, -1):
        _move(cells, pos, codes, st, queue[i])
    return True


@jit
def _route(cells, pos, locked, codes, st, vis, par, queue, tr, tc, xr, xc):
    """Take the blank to logical (tr, tc) without touching (xr, xc) or locked
    cells, by a shortest L-shaped path where one exists."""
    br, bc = _logical(st, st[_BLANK])
    if br == tr and bc == tc:
        return True
    for hfirst in (True, False):
        if _lpath_ok(locked, st, br, bc, tr, tc, hfirst, xr, xc):
            _lpath_go(cells, pos, codes, st, br, bc, tr, tc, hfirst)
            return True
    # One step aside, then an L-shaped path (goes round the tile).
    for d in range(4):
        wr = br + _DR[d]
        wc = bc + _DC[d]
        if not _free(locked, st, wr, wc, xr, xc):
            continue
        for hfirst in (True, False):
            if _lpath_ok(locked, st, wr, wc, tr, tc, hfirst, xr, xc):
                _move(cells, pos, codes, st, d)
                _lpath_go(cells, pos, codes, st, wr, wc, tr, tc, hfirst)
                return True
    m = st[_M]
    n = st[_N]
    rlo = max(min(br, tr, xr) - 2, 0)
    rhi = min(max(br, tr, xr) + 2, m - 1)
    clo = max(min(bc, tc, xc) - 2, 0)
    chi = min(max(bc, tc, xc) + 2, n - 1)
    if _bfs_route(cells, pos, locked, codes, st, vis, par, queue, tr, tc, xr, xc, rlo, rhi, clo, chi):
        return True
    if _bfs_route(cells, pos, locked, codes, st, vis, par, queue, tr, tc, xr, xc, 0, m - 1, 0, n - 1):
        return True
    st[_ERR] = ERR_ROUTE
    return False


@jit
def _free_s(locked, m, n, rs, cs, r, c, xr, xc):
    """:func:`_free` with the frame unpacked (hot loop)."""
    if r < 0 or c < 0 or r >= m or c >= n:
        return False
    if r == xr and c == xc:
        return False
    return locked[r * rs + c * cs] == 0


@jit
def _lpath_free(locked, m, n, rs, cs, r0, c0, r1, c1, hfirst, xr, xc):
    """:func:`_lpath_ok` with the frame unpacked (hot loop)."""
    sr = 1 if r1 > r0 else -1
    sc = 1 if c1 > c0 else -1
    r, c = r0, c0
    for leg in range(2):
        if (leg == 0) == hfirst:
            while c != c1:
                c += sc
                if not _free_s(locked, m, n, rs, cs, r, c, xr, xc):
                    return False
        else:
            while r != r1:
                r += sr
                if not _free_s(locked, m, n, rs, cs, r, c, xr, xc):
                    return False
    return True


@jit
def _lpath_pack(r0, c0, r1, c1, hfirst, packed, k):
    """Append the codes of an L-shaped path to ``packed`` (2 bits a move)."""
    hcode = 2 if c1 > c0 else 1
    vcode = 3 if r1 > r0 else 0
    for leg in range(2):
        if (leg == 0) == hfirst:
            for _ in range(abs(c1 - c0)):
                packed |= hcode << (2 * k)
                k += 1
        else:
            for _ in range(abs(r1 - r0)):
                packed |= vcode << (2 * k)
                k += 1
    return packed, k


@jit
def _short_path(locked, m, n, rs, cs, br, bc, fr, fc, xr, xc):
    """A shortest-looking path of at most 7 moves for the blank from (br, bc)
    to (fr, fc) avoiding (xr, xc) and locked cells: an L-shaped path, or one
    step aside and then an L-shaped path.  Returns (codes packed 2 bits a
    move, count), count -1 when there is none this short.  Takes one array,
    so the compiler inlines it into the hot loop."""
    d0 = abs(br - fr) + abs(bc - fc)
    if d0 <= 7:
        for hfirst in (True, False):
            if _lpath_free(locked, m, n, rs, cs, br, bc, fr, fc, hfirst, xr, xc):
                return _lpath_pack(br, bc, fr, fc, hfirst, 0, 0)
    if d0 <= 5:
        for d in range(4):
            wr = br + (-1 if d == 0 else (1 if d == 3 else 0))
            wc = bc + (-1 if d == 1 else (1 if d == 2 else 0))
            if abs(wr - fr) + abs(wc - fc) > 6:
                continue
            if not _free_s(locked, m, n, rs, cs, wr, wc, xr, xc):
                continue
            for hfirst in (True, False):
                if _lpath_free(locked, m, n, rs, cs, wr, wc, fr, fc, hfirst, xr, xc):
                    return _lpath_pack(wr, wc, fr, fc, hfirst, d, 1)
    return 0, -1


@jit
def _move_tile(cells, pos, locked, codes, st, vis, par, queue, label, tr, tc, follow, gate):
    """Bring tile ``label`` to logical (tr, tc), one step at a time.

    Of the (at most two) steps that shorten the tile's distance, take the one
    the blank reaches cheapest: after a step the blank sits behind the tile,
    so turning costs 2 blank moves and going straight 4; that makes staircase
    paths (3 moves per step) wherever the tile has to go both ways.  With the
    blank next to the tile the moves are fixed patterns, run in this loop
    (the hot path); otherwise the blank takes a route first.

    ``follow``: -1, or a tile next to this one that trails it, stepping into each
    cell the leader leaves (one blank move more per step).  Two tiles then
    travel for 7 moves per straight step instead of 10 and share one trip
    of the blank.  Where the blank finds no way round the pair, the follower
    is dropped and the leader goes on alone.  ``gate``: a logical row the
    leader may enter only in the target column (so that a follower ends
    right below the target, not beside it), -1 for none.  (Callers pass
    every argument, as int64: each distinct signature would compile anew.)
    """
    n = st[_NCOL]
    m_ = st[_M]
    n_ = st[_N]
    tp = st[_T]
    if tp:
        rs = 1
        cs = n
    else:
        rs = n
        cs = 1
    cap = st[_CAP]
    llo = st[_LLO]
    lhi = st[_LHI]
    seq = np.empty(16, np.int64)
    b = st[_BLANK]
    cnt = st[_COUNT]
    depth = st[_DEPTH]
    br, bc = _logical(st, b)
    xr, xc = _logical(st, pos[label])
    pf = -1  # cell of the follower, locked while the blank moves round the pair
    ok = True
    while xr != tr or xc != tc:
        if follow >= 0:
            pf = pos[follow]
            yr, yc = _logical(st, pf)
            locked[pf] = 1
        gated = 0
        # Pick the step.
        best = 1 << 60
        dr = 0
        dc = 0
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
            if not _free_s(locked, m_, n_, rs, cs, xr + sr, xc + sc, -1, -1):
                continue
            if xr + sr == gate and xr != gate and xc != tc and axis == 0:
                if gated < 1:
                    gated = 1  # a step refused only for the gate
                continue
            fr = xr + sr
            fc = xc + sc
            if br == fr and bc == fc:
                cost = 0
            elif br == xr - sr and bc == xc - sc:
                cost = 4
            elif abs(br - xr) + abs(bc - xc) == 1:
                cost = 2 if _free_s(locked, m_, n_, rs, cs, br + sr, bc + sc, xr, xc) else 6
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
        if best == 1 << 60 and (gated or follow >= 0):
            # Only the gate or the follower is in the way: go on alone, ungated.
            if follow >= 0:
                locked[pf] = 0
                follow = -1
            gate = -1
            continue
        if best == 1 << 60:
            st[_ERR] = ERR_ROUTE
            ok = False
            break
        fr = xr + dr
        fc = xc + dc
        dcode = _dir_code(dr, dc)
        # Blank to the front cell: a fixed pattern when it is next to the tile.
        k = 0
        if br == fr and bc == fc:
            pass
        elif br == xr - dr and bc == xc - dc:
            for s in (1, -1):
                er = dc * s
                ec = dr * s
                if (
                    _free_s(locked, m_, n_, rs, cs, br + er, bc + ec, xr, xc)
                    and _free_s(locked, m_, n_, rs, cs, xr + er, xc + ec, xr, xc)
                    and _free_s(locked, m_, n_, rs, cs, fr + er, fc + ec, xr, xc)
                ):
                    ecode = _dir_code(er, ec)
                    seq[0] = ecode
                    seq[1] = dcode
                    seq[2] = dcode
                    seq[3] = 3 - ecode
                    k = 4
                    break
        elif abs(br - xr) + abs(bc - xc) == 1:
            if _free_s(locked, m_, n_, rs, cs, br + dr, bc + dc, xr, xc):
                seq[0] = dcode
                seq[1] = _dir_code(xr - br, xc - bc)
                k = 2
        elif follow >= 0 and br == xr - 2 * dr and bc == xc - 2 * dc:
            # A pair going straight: round both (5 moves).
            for s in (1, -1):
                er = dc * s
                ec = dr * s
                if (
                    _free_s(locked, m_, n_, rs, cs, br + er, bc + ec, xr, xc)
                    and _free_s(locked, m_, n_, rs, cs, br + dr + er, bc + dc + ec, xr, xc)
                    and _free_s(locked, m_, n_, rs, cs, xr + er, xc + ec, xr, xc)
                    and _free_s(locked, m_, n_, rs, cs, fr + er, fc + ec, xr, xc)
                ):
                    ecode = _dir_code(er, ec)
                    seq[0] = ecode
                    seq[1] = dcode
                    seq[2] = dcode
                    seq[3] = dcode
                    seq[4] = 3 - ecode
                    k = 5
                    break
        if k == 0 and not (br == fr and bc == fc):
            packed, k = _short_path(locked, m_, n_, rs, cs, br, bc, fr, fc, xr, xc)
            if k > 0:
                for i in range(k):
                    seq[i] = (packed >> (2 * i)) & 3
            else:
                k = 0
        if k == 0 and not (br == fr and bc == fc):
            st[_BLANK] = b
            st[_COUNT] = cnt
            st[_DEPTH] = depth
            if not _route(cells, pos, locked, codes, st, vis, par, queue, fr, fc, xr, xc):
                if follow < 0:
                    ok = False
                    break
                # No way round the pair: drop the follower, go on alone.
                st[_ERR] = 0
                locked[pf] = 0
                follow = -1
                continue
            b = st[_BLANK]
            st[_ROUTED] += st[_COUNT] - cnt
            cnt = st[_COUNT]
            depth = st[_DEPTH]
        st[_STEPS] += 1
        # The blank steps back into the tile's cell: the tile moves forward.
        seq[k] = 3 - dcode
        k += 1
        if follow >= 0:
            # ... and on into the follower's cell: it takes the leader's.
            locked[pf] = 0
            seq[k] = _dir_code(yr - xr, yc - xc)
            k += 1
        for i in range(k):
            code = seq[i]
            if tp:
                code = code ^ 1
            if code == 0:
                t = b - n
            elif code == 1:
                t = b - 1
            elif code == 2:
                t = b + 1
            else:
                t = b + n
            v = cells[t]
            cells[b] = v
            if v >= llo and v <= lhi:
                pos[v] = b
            cells[t] = 0
            b = t
            # _record, written out (hot loop)
            if depth > 0 and st[_RING + ((cnt - 1) & (_RING_SIZE - 1))] == 3 - code:
                cnt -= 1
                depth -= 1
            else:
                if cnt < cap:
                    codes[cnt] = code
                st[_RING + (cnt & (_RING_SIZE - 1))] = code
                cnt += 1
                if depth < _RING_SIZE:
                    depth += 1
        if follow >= 0:
            br = yr
            bc = yc
        else:
            br = xr
            bc = xc
        xr = fr
        xc = fc
    if follow >= 0 and pf >= 0:
        locked[pf] = 0
    # Every exit writes the state back: a caller may carry on after a failure.
    st[_BLANK] = b
    st[_COUNT] = cnt
    st[_DEPTH] = depth
    return ok


@jit
def _l1(ar, ac, br, bc):
    return abs(ar - br) + abs(ac - bc)


@jit
def _join(cells, pos, locked, codes, st, vis, par, queue, mover, anchor, tr, tc, front):
    """Bring tile ``mover`` next to tile ``anchor`` (held still), on the side
    nearest the mover; ``front`` > 0 prefers the side toward (tr, tc), < 0
    the side away from it."""
    ar, ac = _logical(st, pos[anchor])
    xr, xc = _logical(st, pos[mover])
    m_ = st[_M]
    n_ = st[_N]
    here = _l1(ar, ac, tr, tc)
    best = 1 << 60
    cr = -1
    cc = -1
    for d in range(4):
        r = ar + _DR[d]
        c = ac + _DC[d]
        if r < 0 or c < 0 or r >= m_ or c >= n_ or locked[_phys(st, r, c)]:
            continue
        cost = 2 * _l1(xr, xc, r, c)
        if (_l1(r, c, tr, tc) < here) != (front > 0):
            cost += 8
        if c != tc:
            cost += 1  # in line with the target column: no turn later
        if cost < best:
            best = cost
            cr = r
            cc = c
    if cr < 0:
        return False
    pa = pos[anchor]
    locked[pa] = 1
    ok = _move_tile(cells, pos, locked, codes, st, vis, par, queue, mover, cr, cc, -1, -1)
    locked[pa] = 0
    return ok


@jit
def _place_two(cells, pos, locked, codes, st, vis, par, queue, lead, tr, tc, follow, fr, fc, gate, narrow):
    """Bring ``lead`` to (tr, tc) with ``follow`` (whose own target is
    (fr, fc), next to it) either trailing it as a pair or left for later,
    whichever looks cheaper.  Straight steps cost 5 moves for one tile
    and 7 for a pair, and a pair shares one trip of the blank.

    ``narrow``: the region is two columns wide, so a pair side by side would
    wall the blank off; there the leader first steps into the target column
    and the follower lines up right behind it (the leader must then be the
    nearer of the two: it cannot pass the follower)."""
    br, bc = _logical(st, st[_BLANK])
    xr, xc = _logical(st, pos[lead])
    yr, yc = _logical(st, pos[follow])
    dx = _l1(xr, xc, tr, tc)
    dy = _l1(yr, yc, fr, fc)
    apart = _l1(xr, xc, yr, yc)
    # Estimates: 4 moves a step for one tile (5 straight, 3 on a staircase),
    # 7 for a pair, 10 to line up; constants tuned on random boards.
    alone = _l1(br, bc, xr, xc) + 4 * dx + _l1(tr, tc, yr, yc) + 4 * dy
    join_lead = _l1(br, bc, yr, yc) + 4 * apart + 7 * dx + 10  # follower comes to the leader
    join_follow = _l1(br, bc, xr, xc) + 4 * apart + 7 * dy + 10  # leader comes to the follower
    if narrow:
        join_follow = 1 << 60
        join_lead = (_l1(br, bc, xr, xc) + 4 * abs(xc - tc) + _l1(xr, tc, yr, yc)
                     + 4 * _l1(yr, yc, xr + 1, tc) + 7 * dx + 10)
        if xr + 1 >= st[_M] or yr <= xr:
            join_lead = 1 << 60  # no room behind, or the follower is ahead
    if alone <= join_lead and alone <= join_follow:
        return _move_tile(cells, pos, locked, codes, st, vis, par, queue, lead, tr, tc, -1, gate)
    if narrow:
        ok = _move_tile(cells, pos, locked, codes, st, vis, par, queue, lead, xr, tc, -1, -1)
        if ok:
            pl = pos[lead]
            locked[pl] = 1
            ok = _move_tile(cells, pos, locked, codes, st, vis, par, queue, follow, xr + 1, tc, -1, -1)
            locked[pl] = 0
    elif join_lead <= join_follow:
        ok = _join(cells, pos, locked, codes, st, vis, par, queue, follow, lead, tr, tc, -1)
    else:
        ok = _join(cells, pos, locked, codes, st, vis, par, queue, lead, follow, tr, tc, 1)
    if not ok:
        # The anchored tile walled the mover off: no harm done (every move
        # made was legal), bring the leader alone.
        st[_ERR] = 0
        return _move_tile(cells, pos, locked, codes, st, vis, par, queue, lead, tr, tc, -1, gate)
    return _move_tile(cells, pos, locked, codes, st, vis, par, queue, lead, tr, tc, follow, gate)


@jit
def _play(cells, pos, codes, st, pattern):
    for i in range(pattern.shape[0]):
        _move(cells, pos, codes, st, pattern[i])


@jit
def _solve_line(cells, pos, locked, codes, st, vis, par, queue, r0, c0, fix_corner, fix_trapped, weight, glab):
    """Place logical row ``r0`` from column ``c0`` to the right edge.  The
    region below has at least two more rows.

    The row fills from both ends inward: each time, the end whose tile is
    cheaper to bring (blank's trip + ``weight`` x the tile's distance) goes
    next; the last two cells, wherever the ends meet, go in as a pair.
    ``glab[p]`` is the label that belongs in physical cell p.
    """
    lo = c0
    hi = st[_N] - 1
    # The line's labels are consecutive (see _solve_kernel): find its tiles
    # in the region once; from here on the moves keep their positions.
    st[_LLO] = glab[_phys(st, r0, c0)]
    st[_LHI] = st[_LLO] + hi - lo
    for r in range(r0, st[_M]):
        for c in range(c0, st[_N]):
            p = _phys(st, r, c)
            v = cells[p]
            if v >= st[_LLO] and v <= st[_LHI]:
                pos[v] = p
    while hi - lo >= 2:
        br, bc = _logical(st, st[_BLANK])
        best = 1 << 60
        k = lo
        for side in range(2):
            kk = lo if side == 0 else hi
            xr, xc = _logical(st, pos[glab[_phys(st, r0, kk)]])
            cost = abs(br - xr) + abs(bc - xc) + weight * (abs(xr - r0) + abs(xc - kk))
            if cost < best:
                best = cost
                k = kk
        p = _phys(st, r0, k)
        if hi - lo >= 3:
            k2 = k + 1 if k == lo else k - 1  # placed next, if this end stays cheaper
            ok = _place_two(cells, pos, locked, codes, st, vis, par, queue, glab[p], r0, k,
                            glab[_phys(st, r0, k2)], r0, k2, r0, False)
        else:
            ok = _move_tile(cells, pos, locked, codes, st, vis, par, queue, glab[p], r0, k, -1, -1)
        if not ok:
            return False
        locked[p] = 1
        if k == lo:
            lo += 1
        else:
            hi -= 1
    n = lo + 2  # the pair takes columns lo, lo + 1 (named n - 2, n - 1 below)
    pa = _phys(st, r0, n - 2)
    pb = _phys(st, r0, n - 1)
    a = glab[pa]
    b = glab[pb]
    if cells[pa] == a and cells[pb] == b:
        locked[pa] = 1
        locked[pb] = 1
        return True
    # Far tile b into the near cell.
    narrow = st[_N] - c0 == 2
    if narrow:
        # Mirrored pair: a leads into b's cell with b behind it, then the
        # blank comes to a's cell and two moves turn both home.  In a strip
        # two wide a leader cannot pass its follower, so this serves when a
        # is the nearer tile (the plain order when b is).
        ar, ac = _logical(st, pos[a])
        xr, xc = _logical(st, pos[b])
        if xr > ar + 1 and ar > r0:
            br, bc = _logical(st, st[_BLANK])
            if _move_tile(cells, pos, locked, codes, st, vis, par, queue, a, ar, n - 1, -1, -1):
                pl = pos[a]
                locked[pl] = 1
                ok = _move_tile(cells, pos, locked, codes, st, vis, par, queue, b, ar + 1, n - 1, -1, -1)
                locked[pl] = 0
                if ok:
                    _move_tile(cells, pos, locked, codes, st, vis, par, queue, a, r0, n - 1, b, r0)
            st[_ERR] = 0
            pbelow = _phys(st, r0 + 1, n - 1)
            if cells[pb] == a and cells[pbelow] == b:
                locked[pb] = 1
                locked[pbelow] = 1
                ok = _route(cells, pos, locked, codes, st, vis, par, queue, r0, n - 2, -1, -1)
                locked[pbelow] = 0
                if ok:
                    _move(cells, pos, codes, st, 2)  # a slides to its cell
                    _move(cells, pos, codes, st, 3)  # b comes up into its cell
                    locked[pa] = 1
                    locked[pb] = 1
                    return True
                locked[pb] = 0
                st[_ERR] = 0
            # Otherwise the plain order below copes with wherever they are.
    if not _place_two(cells, pos, locked, codes, st, vis, par, queue, b, r0, n - 2, a, r0 + 1, n - 2, r0, narrow):
        return False
    locked[pa] = 1
    ar, ac = _logical(st, pos[a])
    br, bc = _logical(st, st[_BLANK])
    if ar == r0 + 1 and ac == n - 1 and br == r0 and bc == n - 1:
        # Blank shut in the corner above a.
        _play(cells, pos, codes, st, fix_trapped)
    elif ar == r0 and ac == n - 1:
        # a in the far corner: the pair cannot be rotated in; fixed pattern.
        if not _route(cells, pos, locked, codes, st, vis, par, queue, r0 + 1, n - 2, ar, ac):
            return False
        _play(cells, pos, codes, st, fix_corner)
    else:
        pbelow = _phys(st, r0 + 1, n - 2)
        if not _move_tile(cells, pos, locked, codes, st, vis, par, queue, a, r0 + 1, n - 2, -1, -1):
            return False
        locked[pbelow] = 1
        if not _route(cells, pos, locked, codes, st, vis, par, queue, r0, n - 1, -1, -1):
            return False
        locked[pbelow] = 0
        _move(cells, pos, codes, st, 1)  # b slides to its cell
        _move(cells, pos, codes, st, 3)  # a comes up into its cell
    locked[pa] = 1
    locked[pb] = 1
    return True


@jit
def _solve_kernel(cells, m, n, codes, back, fix_corner, fix_trapped, stats, limit, weight=1):
    """Solve the relabelled board ``cells`` (flat, int32; goal: cell i holds
    i + 1, blank last) in place (it is left in the kernel's own labels), then
    play ``back``.  Returns (moves, error
    code); codes beyond
    ``codes.shape[0]`` are counted, not stored.  ``stats`` receives the tile
    steps and the moves of the blank's routes.  With ``limit`` >= 0 the
    kernel stops (ERR_BUDGET) after the first line that ends past ``limit``
    moves."""
    size = m * n
    # Relabel tiles in the order their cells are placed, so that each line's
    # labels are consecutive: a move then updates a tile's position only when
    # it belongs to the line being placed (two comparisons), instead of a
    # write at a random place in a large array on every move.
    glab = np.empty(size, np.int64)
    rank = 0
    r0 = 0
    c0 = 0
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:
            for c in range(c0, n):
                rank += 1
                glab[r0 * n + c] = rank
            r0 += 1
        else:
            for r in range(r0, m):
                rank += 1
                glab[r * n + c0] = rank
            c0 += 1
    for r in range(r0, m):
        for c in range(c0, n):
            if r != m - 1 or c != n - 1:
                rank += 1
                glab[r * n + c] = rank
    glab[size - 1] = 0
    newlab = np.empty(size, np.int32)
    newlab[0] = 0
    for p in range(size - 1):
        newlab[p + 1] = glab[p]
    pos = np.zeros(size, np.int32)
    st = np.zeros(_NSTATE, np.int64)
    for i in range(size):
        cells[i] = newlab[cells[i]]
        if cells[i] == 0:
            st[_BLANK] = i
    st[_LLO] = 1
    st[_LHI] = 0
    st[_CAP] = codes.shape[0]
    st[_NCOL] = n
    locked = np.zeros(size, np.uint8)
    vis = np.zeros(size, np.int64)
    par = np.zeros(size, np.uint8)
    queue = np.empty(size, np.int64)
    r0 = 0
    c0 = 0
    while m - r0 > 2 or n - c0 > 2:
        if m - r0 >= n - c0:
            st[_T] = 0
            st[_M] = m
            st[_N] = n
            ok = _solve_line(cells, pos, locked, codes, st, vis, par, queue, r0, c0, fix_corner, fix_trapped, weight, glab)
            r0 += 1
        else:
            st[_T] = 1
            st[_M] = n
            st[_N] = m
            ok = _solve_line(cells, pos, locked, codes, st, vis, par, queue, c0, r0, fix_corner, fix_trapped, weight, glab)
            c0 += 1
        if not ok:
            return st[_COUNT], st[_ERR]
        if limit >= 0 and st[_COUNT] > limit:
            st[_ERR] = ERR_BUDGET
            return st[_COUNT], st[_ERR]
    # Final 2 x 2: blank to its corner, then one turn of the cycle at most.
    st[_T] = 0
    st[_M] = m
    st[_N] = n
    if not _route(cells, pos, locked, codes, st, vis, par, queue, m - 1, n - 1, -1, -1):
        return st[_COUNT], st[_ERR]
    stats[0] = st[_STEPS]
    stats[1] = st[_ROUTED]
    tl = (m - 2) * n + n - 2
    tr = tl + 1
    bl = tl + n
    if cells[tl] != glab[tl]:
        if cells[bl] == glab[tl]:
            for d in (0, 1, 3, 2):  # U L D R: BL -> TL
                _move(cells, pos, codes, st, d)
        else:
            for d in (1, 0, 2, 3):  # L U R D: TR -> TL
                _move(cells, pos, codes, st, d)
    if cells[tl] != glab[tl] or cells[tr] != glab[tr] or cells[bl] != glab[bl]:
        st[_ERR] = ERR_PARITY
        return st[_COUNT], st[_ERR]
    for i in range(back.shape[0]):  # from the corner to the goal's blank cell
        _move(cells, pos, codes, st, back[i])
    return st[_COUNT], st[_ERR]


@jit
def _manhattan(cells, m, n):
    """Sum of Manhattan distances of the relabelled board (blank skipped)."""
    total = 0
    for i in range(m * n):
        v = cells[i]
        if v != 0:
            g = v - 1
            total += abs(i // n - g // n) + abs(i % n - g % n)
    return total


# --------------------------------------------------------------------------
# Python side


#: First guess of the code buffer, in units of the start's Manhattan distance.
_CAPACITY_FACTOR = 4.0


def _slide_codes(frm: int, to: int, minus: int, plus: int) -> np.ndarray:
    """Codes that slide the blank along one line from index frm to to."""
    if to >= frm:
        return np.full(to - frm, plus, np.uint8)
    return np.full(frm - to, minus, np.uint8)


def _relabel(start: np.ndarray, goal: np.ndarray):
    """Start relabelled so that the goal, with its blank slid right then down
    to the corner, is the standard layout; plus the codes that slide the blank
    back (up then left)."""
    m, n = goal.shape
    gr, gc = (int(v) for v in np.argwhere(goal == 0)[0])
    shifted = goal.copy()
    # Sliding the blank right along row gr, then down column n-1.
    row = shifted[gr]
    row[gc:-1] = row[gc + 1 :].copy()
    row[-1] = 0
    col = shifted[:, n - 1]
    col[gr:-1] = col[gr + 1 :].copy()
    col[-1] = 0
    label = np.empty(m * n, np.int32)
    label[shifted.ravel().astype(np.int64)] = np.arange(1, m * n + 1, dtype=np.int32)
    label[0] = 0
    cells = label[start.ravel().astype(np.int64)]
    back = np.concatenate([np.full(m - 1 - gr, 0, np.uint8), np.full(n - 1 - gc, 1, np.uint8)])
    return cells, back


def solve_constructive(board, goal=None, count_only: bool = False, *, max_moves: int | None = None) -> Solution:
    """A valid (not shortest) solution of any solvable board, any size.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (0 = blank); any m, n >= 1 with m*n >= 2.
    goal : array_like, shape (m, n), optional
        Target board, blank anywhere; default :func:`fastpuzzle.goal_board`.
    count_only : bool
        Do not keep the moves, only count them: for boards whose solution
        would not fit in memory (1000 x 1000 takes billions of moves).  The
        result then has empty ``codes`` and the count in ``move_count``.
    max_moves : int, optional
        Budget: stop once more moves than this have been made (checked after
        each row or column placed, so a few more may be made).  The result
        then has ``status="budget"``, empty ``codes``, and the moves made so
        far in ``nodes``.  Work grows as (m n)^1.5: a 1000 x 1000 board
        takes about 2.4e9 moves and 20-40 s.

    Returns
    -------
    Solution
        ``status="found"``, ``method="constructive"``, ``nodes=0``.
        With ``count_only``, ``codes`` is empty and ``move_count`` (and
        ``length``) hold the number of moves (:meth:`Solution.verify` needs
        the codes: solve again without ``count_only`` to check them).

    Raises
    ------
    ValueError
        If the board is malformed or cannot reach the goal.

    Examples
    --------
    >>> board = [[4, 1, 3], [7, 2, 6], [0, 5, 8]]
    >>> sol = solve_constructive(board)
    >>> sol.status, sol.method, sol.verify(board)
    ('found', 'constructive', True)
    >>> solve_constructive(board, count_only=True).length == sol.length
    True
    """
    t0 = time.perf_counter()
    if max_moves is not None and (not isinstance(max_moves, (int, np.integer)) or max_moves < 0):
        raise ValueError(f"max_moves must be a non-negative integer or None, got {max_moves!r}")
    limit = -1 if max_moves is None else int(max_moves)
    batch, single = as_boards(board, label="board")
    if not single:
        raise ValueError(f"solve_constructive takes one board (m, n), got a batch of shape {batch.shape}")
    start = batch[0]
    m, n = start.shape
    target = as_goal(goal, m, n)
    if not is_solvable(start, target, check=False):
        raise ValueError(f"the {m}x{n} board cannot reach the goal (it lies in the other half of the state space)")
    if np.array_equal(start, target):
        return Solution(np.empty(0, np.uint8), status="found", method="constructive",
                        seconds=time.perf_counter() - t0, move_count=0 if count_only else None)
    if m == 1 or n == 1:
        # No tile can pass another: the blank just slides to its goal cell.
        frm = int(np.flatnonzero(start.ravel() == 0)[0])
        to = int(np.flatnonzero(target.ravel() == 0)[0])
        codes = _slide_codes(frm, to, 1, 2) if m == 1 else _slide_codes(frm, to, 0, 3)
        count = len(codes)
        return Solution(
            codes[:0] if count_only else codes,
            status="found",
            method="constructive",
            seconds=time.perf_counter() - t0,
            move_count=count if count_only else None,
        )
    cells, back = _relabel(start, target)
    if count_only:
        cap = 0
    else:
        # Solutions run at about 3-4x the Manhattan bound (see
        # _CAPACITY_FACTOR); the kernel counts past the end of the buffer, so
        # a miss costs one rerun of exactly the right size.
        cap = int(_CAPACITY_FACTOR * _manhattan(cells, m, n)) + 16 * (m + n) * min(m, n) + 64
    work = cells.copy()
    buf = np.empty(cap, np.uint8)
    stats = np.zeros(2, np.int64)
    count, err = _solve_kernel(work, m, n, buf, back, _FIX_CORNER, _FIX_TRAPPED, stats, limit)
    if not err and not count_only and count > cap:
        work = cells.copy()
        buf = np.empty(count, np.uint8)
        count, err = _solve_kernel(work, m, n, buf, back, _FIX_CORNER, _FIX_TRAPPED, stats, limit)
    if err == ERR_BUDGET:
        return Solution(np.empty(0, np.uint8), status="budget", nodes=int(count), method="constructive",
                        seconds=time.perf_counter() - t0)
    if err:  # pragma: no cover - would be a bug
        raise RuntimeError(f"constructive solver failed on a {m}x{n} board (error {err}); please report it")
    total = int(count)
    if count_only:
        codes = buf[:0]
    else:  # trim, unless that would copy a large buffer to save little
        codes = buf[:total] if total * 4 >= buf.size * 3 else buf[:total].copy()
    return Solution(
        codes,
        status="found",
        method="constructive",
        seconds=time.perf_counter() - t0,
        move_count=total if count_only else None,
    )


def write_solution(sol: Solution, path, *, newline: bool = True, chunk: int = 1 << 24) -> int:
    """Write a solution's moves (``U D L R`` letters) to a file, in chunks.

    Parameters
    ----------
    sol : Solution
        A solution that kept its codes (not ``count_only``).
    path : str or path-like or binary file object
        Destination; a file object is written to and left open; ``"-"``
        is standard output.
    newline : bool
        End the text with a newline.
    chunk : int
        Moves converted per write (bounds the extra memory).

    Returns
    -------
    int
        Number of moves written.

    Examples
    --------
    >>> import io
    >>> f = io.BytesIO()
    >>> write_solution(Solution(np.array([0, 1, 2, 3], np.uint8)), f)
    4
    >>> f.getvalue()
    b'ULRD\\n'
    """
    codes = np.asarray(sol.codes, np.uint8)
    if codes.size == 0 and sol.length > 0:
        raise ValueError("this solution kept only its move count (count_only=True); solve again without it to write moves")

    def _write(f):
        for i in range(0, codes.size, chunk):
            f.write(_BYTE_OF_CODE[codes[i : i + chunk]].tobytes())
        if newline:
            f.write(b"\n")

    if isinstance(path, str) and path == "-":
        import sys

        _write(sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif hasattr(path, "write"):
        _write(path)
    else:
        with open(path, "wb") as f:
            _write(f)
    return int(codes.size)
