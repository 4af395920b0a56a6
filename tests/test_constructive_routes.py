"""Constructive solver: steered routes (both route modes reach the goal on every
shape, any goal; steering shortens solutions) and its time budget."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastpuzzle as fp
from fastpuzzle.boards import as_goal, goal_board, relabel_for_goal
from fastpuzzle.errors import OptionError, UnreachableError
from fastpuzzle.search.constructive import relabelled_manhattan, solve_constructive
from fastpuzzle.search.constructive.lines import solve_kernel
from fastpuzzle.search.constructive.solver import blank_to_corner

from . import naive
from .test_constructive import random_reachable, reaches


def kernel_moves(board, goal, steer):
    """The kernel run directly (``steer``, a ``state.STEER_*`` mode: 0 plain
    routes, 1 steered, 2 steered with unweighted gains, as before); the moves decoded, and the
    move count."""
    m, n = board.shape
    shifted, back = blank_to_corner(as_goal(goal, m, n))
    cells = relabel_for_goal(board, shifted).ravel().astype(np.int32)
    capacity = 8 * relabelled_manhattan(cells, m, n) + 64 * (m + n) * min(m, n)
    buf = np.empty(capacity, np.uint8)
    count, err = solve_kernel(cells, m, n, buf, back, np.zeros(2, np.int64), -1, 1, steer)
    assert err == 0 and count <= capacity
    return buf[:count], int(count)


def test_a_steering_mode_that_is_not_one_is_refused():
    with pytest.raises(OptionError, match="steer must be one of"):
        kernel_moves(np.array([[1, 2], [0, 3]]), goal_board(2, 2), 3)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(2, 9), n=st.integers(2, 9), seed=st.integers(0, 2**32 - 1), steer=st.sampled_from([0, 1, 2]),
       custom=st.booleans())
def test_both_route_modes_reach_any_goal(m, n, seed, steer, custom):
    """Property: on any shape and goal (blank anywhere), plain and steered
    routes give moves that the plain-Python applier takes to the goal."""
    rng = np.random.default_rng(seed)
    goal = rng.permutation(m * n).reshape(m, n) if custom else goal_board(m, n)
    board = random_reachable(rng, goal)
    codes, _ = kernel_moves(board, goal, steer)
    moves = "".join("ULRD"[c] for c in codes)
    assert naive.apply_moves(board.tolist(), moves) == goal.tolist()


@pytest.mark.parametrize("m, n", [(2, 40), (40, 2), (3, 3), (3, 25), (25, 3), (7, 31), (31, 7), (50, 20)])
def test_steered_solutions_on_thin_and_odd_shapes(m, n, rng):
    for custom in (False, True):
        goal = rng.permutation(m * n).reshape(m, n) if custom else goal_board(m, n)
        for _ in range(3):
            board = random_reachable(rng, goal)
            sol = solve_constructive(board, goal=goal)
            assert sol.status == "found" and reaches(board, goal, sol)


def test_steering_shortens_solutions(rng):
    """Steered routes move the tiles they displace toward home: on random
    30 x 30 boards the solutions are shorter than with plain routes (by
    about a sixth), never longer on the sum."""
    goal = goal_board(30, 30)
    plain = steered = 0
    for _ in range(4):
        board = random_reachable(rng, goal)
        plain += kernel_moves(board, goal, 0)[1]
        steered += kernel_moves(board, goal, 1)[1]
    assert steered < 0.92 * plain


def test_weighted_gains_shorten_solutions(rng):
    """Gains weighted by the tiles' walks home (the solver's mode) against
    unweighted gains (the mode before): shorter on random 30 x 30 boards (by
    about 5 %) and on a 2 x 40 strip never longer on the sum."""
    for m, n, boards, factor in ((30, 30, 4, 0.98), (2, 40, 6, 1.0)):
        goal = goal_board(m, n)
        weighted = unweighted = 0
        for _ in range(boards):
            board = random_reachable(rng, goal)
            weighted += kernel_moves(board, goal, 1)[1]
            unweighted += kernel_moves(board, goal, 2)[1]
        assert weighted <= factor * unweighted, (m, n)


def test_solve_constructive_is_the_steered_kernel(rng):
    board = random_reachable(rng, goal_board(12, 17))
    codes, count = kernel_moves(board, None, 1)
    sol = solve_constructive(board)
    assert sol.length == count and np.array_equal(sol.codes, codes)


# ------------------------------------------------------------------ budgets


@pytest.mark.slow
def test_time_limit_stops_between_lines(rng):
    """A limit far below the solve's work stops it after a line: status
    "budget", no moves (a constructive answer is all or nothing), the moves
    made so far in ``nodes``."""
    board = random_reachable(rng, goal_board(200, 200))
    solve_constructive(random_reachable(rng, goal_board(6, 6)))  # compiled before the clock starts
    sol = solve_constructive(board, time_limit=1e-4)
    assert sol.status == "budget" and not sol.solved
    assert sol.codes.size == 0
    full = solve_constructive(board, count_only=True)
    assert 0 <= sol.nodes < full.length


@pytest.mark.slow
def test_generous_time_limit_changes_nothing(rng):
    board = random_reachable(rng, goal_board(20, 20))
    a = solve_constructive(board)
    b = solve_constructive(board, time_limit=1e6)
    assert b.status == "found" and np.array_equal(a.codes, b.codes)
    c = fp.solve(board, method="constructive", time_limit=1e6)
    assert c.status == "found" and c.verify(board)


def test_solve_honours_time_limit_for_constructive(rng):
    """Issue 20 #14: both budgets were ignored by method="constructive"."""
    board = random_reachable(rng, goal_board(200, 200))
    solve_constructive(random_reachable(rng, goal_board(6, 6)))  # warm
    sol = fp.solve(board, method="constructive", time_limit=1e-4)
    assert sol.status == "budget" and sol.codes.size == 0
    result = fp.solve_many(board[None], method="constructive", time_limit=1e-4)
    assert result.status.tolist() == ["budget"] and result.lengths.tolist() == [-1]


def test_solve_refuses_node_budget_for_constructive(rng):
    board = random_reachable(rng, goal_board(30, 30))
    with pytest.raises(OptionError, match="max_nodes does not apply to method='constructive'") as caught:
        fp.solve(board, method="constructive", time_limit=0.01, max_nodes=1)
    assert caught.value.option == "max_nodes" and caught.value.value == 1
    with pytest.raises(ValueError, match="max_nodes does not apply"):
        fp.solve_many(board[None], method="constructive", max_nodes=5)


@pytest.mark.parametrize("bad, kind", [(0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                       (float("inf"), ValueError), ("1", TypeError), (True, TypeError)])
def test_bad_time_limit_refused(bad, kind, rng):
    board = random_reachable(rng, goal_board(4, 4))
    with pytest.raises(kind, match="time_limit") as caught:
        solve_constructive(board, time_limit=bad)
    assert caught.value.option == "time_limit"


def test_unreachable_board_refused_with_its_error(rng):
    board = goal_board(30, 40)
    board[0, 0], board[0, 1] = board[0, 1], board[0, 0]
    with pytest.raises(UnreachableError, match="cannot reach the goal") as caught:
        solve_constructive(board)
    assert caught.value.index is None


# ------------------------------------------------------------------ best routes


#: Labels of "the line being placed" in the best-route check below.
LINE = (5, 12)


def _tile_gain(weighted, label, hr, hc, r, c, nr, nc):
    """Worth of tile ``label``'s move from (r, c) to (nr, nc), home (hr, hc):
    the drop of its Manhattan distance, or weighted, of 4 x its longer leg
    (8 for a tile of the line) + its shorter leg (routes.walk_gain, written
    out)."""
    from fastpuzzle.search.constructive import routes

    a0, b0, a1, b1 = abs(r - hr), abs(c - hc), abs(nr - hr), abs(nc - hc)
    if not weighted:
        return a0 + b0 - a1 - b1
    long = routes.LINE_LONG_LEG_WEIGHT if LINE[0] <= label <= LINE[1] else routes.LONG_LEG_WEIGHT
    return long * (max(a0, b0) - max(a1, b1)) + routes.SHORT_LEG_WEIGHT * (min(a0, b0) - min(a1, b1))


def _brute_best_gain(cells, homes, locked, rows, cols, transposed, n, br, bc, tr, tc, xr, xc, weighted=False):
    """Best total gain over every monotone path of the blank (a plain loop
    over the choices of which steps go along the column), or None."""
    from itertools import combinations

    a, b = abs(tr - br), abs(tc - bc)
    sr, sc = (1 if tr > br else -1), (1 if tc > bc else -1)

    def flat(r, c):
        return c * n + r if transposed else r * n + c

    def logical(p):
        return (p % n, p // n) if transposed else (p // n, p % n)

    best = None
    for downs in combinations(range(a + b), a):
        r, c, gain, ok = br, bc, 0, True
        for k in range(a + b):
            nr, nc = (r + sr, c) if k in downs else (r, c + sc)
            if (nr, nc) == (xr, xc) or locked[flat(nr, nc)]:
                ok = False
                break
            label = cells[flat(nr, nc)]
            hr, hc = logical(homes[label])
            gain += _tile_gain(weighted, label, hr, hc, nr, nc, r, c)  # the tile moves where the blank was
            r, c = nr, nc
        if ok and (best is None or gain > best):
            best = gain
    return best


@pytest.mark.parametrize("transposed", [0, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_best_plan_finds_the_best_monotone_route(transposed, weighted, rng):
    """The blank's planned route is monotone, free and ends on its target,
    and its tiles' gain (weighted by their walks home in the solver's mode,
    unweighted in the mode before) is the best over every monotone path
    (brute force on small boxes, where the band covers the whole box)."""
    from fastpuzzle.search.constructive import routes, state as st_

    m, n = 6, 7  # physical board
    rows, cols = (n, m) if transposed else (m, n)
    size = m * n
    for _ in range(150):
        cells = rng.permutation(size).astype(np.int32)
        homes = rng.permutation(size).astype(np.int64)  # home cell of each label
        locked = (rng.random(size) < 0.15).astype(np.uint8)
        pos = np.zeros(4 * size, np.int64)
        pos[size:2 * size] = homes
        pos[2 * size:3 * size] = homes // n
        pos[3 * size:] = homes % n
        state = np.zeros(st_.STATE_SIZE, np.int64)
        state[st_.ROW_STRIDE], state[st_.TRANSPOSED] = n, transposed
        state[st_.FRAME_ROWS], state[st_.FRAME_COLS] = rows, cols
        state[st_.STEER] = st_.STEER_WEIGHTED if weighted else st_.STEER_BEST
        state[st_.LINE_FIRST], state[st_.LINE_LAST] = LINE
        br, bc, tr, tc, xr, xc = (int(rng.integers(0, k)) for k in (rows, cols, rows, cols, rows, cols))
        flat = (lambda r, c: c * n + r) if transposed else (lambda r, c: r * n + c)
        if (br, bc) == (tr, tc) or (xr, xc) in ((br, bc), (tr, tc)):
            continue
        state[st_.BLANK_CELL] = flat(br, bc)
        locked[flat(br, bc)] = 0
        parent = np.zeros(size, np.uint8)
        queue = np.zeros(size, np.int64)
        k = routes.best_plan(cells, pos, locked, state, parent, queue, np.int64(tr), np.int64(tc),
                             np.int64(xr), np.int64(xc))
        want = _brute_best_gain(cells, homes, locked, rows, cols, transposed, n, br, bc, tr, tc, xr, xc, weighted)
        if want is None:
            assert k == -1
            continue
        assert k == abs(tr - br) + abs(tc - bc)
        r, c, gain = br, bc, 0
        for code in queue[:k][::-1]:  # written last move first
            nr, nc = r + int(fp.moves.ROW_STEP[code]), c + int(fp.moves.COL_STEP[code])
            assert (nr, nc) != (xr, xc) and not locked[flat(nr, nc)]
            label = cells[flat(nr, nc)]
            p = homes[label]
            hr, hc = (p % n, p // n) if transposed else (p // n, p % n)
            gain += _tile_gain(weighted, label, hr, hc, nr, nc, r, c)
            r, c = nr, nc
        assert (r, c) == (tr, tc) and gain == want


def test_best_routes_keep_solutions_short(rng):
    """Loose check on a fixed seed: a random 60 x 60 board is solved within
    3.0x its Manhattan bound (2.6x measured), and the solution is valid."""
    board = fp.random_solvable(60, 60, seed=18)
    sol = solve_constructive(board)
    assert sol.verify(board)
    assert sol.length < 3.0 * relabelled_manhattan(board.ravel(), 60, 60)
