"""The anytime search behind ``method="auto"``: answers always, bounds never above the optimum.

Every lower bound is checked against exact distances (breadth-first tables on
3x3 and 2x4, Korf's published optima on 4x4, the DeepCubeA file's optima on
5x5); every solution is replayed.
"""

from pathlib import Path

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.moves import solution_parity
from fastpuzzle.search import anytime, ida
from fastpuzzle.search.windows import WindowSolver, cut_loops, trajectory
from tests.test_solver import KORF_GOAL, read_korf

DATA = str(Path(__file__).resolve().parents[1] / "bench" / "data" / "deepcubea_5x5.txt")


def _check(sol, board, optimum, goal=None):
    assert sol.solved and sol.verify(board, goal=goal)
    assert sol.lower_bound is not None and 0 <= sol.lower_bound <= optimum <= sol.length
    assert (sol.lower_bound - sol.length) % 2 == 0  # rounded up to the solutions' parity, never past them
    if sol.status == "optimal":
        assert sol.length == optimum == sol.lower_bound and sol.bound_factor == 1.0
    else:
        assert sol.status == "bounded" and sol.bound_factor == sol.length / sol.lower_bound


@pytest.mark.parametrize("shape,count", [((3, 3), 60), ((2, 4), 40)])
@pytest.mark.slow
def test_bounds_admissible_against_bfs(shape, count):
    boards = fp.random_solvable(*shape, count=count, seed=5)
    exact = fp.distance(boards)
    for max_nodes in (3, 40, 10**6):
        for board, optimum in zip(boards, exact):
            sol = fp.solve(board, max_nodes=max_nodes)
            if optimum == 0:
                assert sol.length == 0 and sol.lower_bound == 0
                continue
            assert sol.method == "anytime"
            _check(sol, board, int(optimum))
    assert all(fp.solve(b, max_nodes=10**6).status == "optimal" for b in boards[:10])  # budget enough: proved


def test_solve_many_carries_bounds():
    boards = fp.random_solvable(3, 3, count=30, seed=8)
    res = fp.solve_many(boards, max_nodes=60)
    exact = fp.distance(boards)
    assert (res.lengths >= exact).all() and (res.lower_bounds <= exact).all() and (res.lower_bounds >= 0).all()
    assert set(res.status) <= {"optimal", "bounded"}
    for b, s in zip(boards, res.solutions()):
        assert s.verify(b)
    assert np.allclose(res.bound_factors[res.lower_bounds > 0], (res.lengths / res.lower_bounds)[res.lower_bounds > 0])


def test_korf_optima_bound_the_answers():
    boards, lengths = read_korf("korf100.txt")
    for board, optimum in list(zip(boards, lengths))[:8]:
        _check(fp.solve(board, goal=KORF_GOAL, max_nodes=30_000), board, int(optimum), KORF_GOAL)


def test_deepcubea_optima_bound_the_answers():
    rows = [line.split() for line in open(DATA) if not line.startswith("#")][:3]
    for row in rows:
        board = np.array(row[:25], np.int64).reshape(5, 5)
        _check(fp.solve(board, max_nodes=300_000, heuristic="manhattan"), board, int(row[25]))


def test_default_budget_is_named():
    board = fp.goal_board(5, 5)
    board[4, 3], board[4, 4] = 0, 24
    sol = fp.solve(board)
    assert sol.status == "optimal" and sol.moves == "R" and "default time limit" in sol.note
    assert fp.solve(board, time_limit=1.0).note == ""


def test_weighted_ida_within_its_weight():
    boards = fp.random_solvable(3, 3, count=40, seed=3)
    exact = fp.distance(boards)
    h = ida.Heuristic(3, 3, fp.goal_board(3, 3), "manhattan")
    for board, optimum in zip(boards, exact):
        status, codes, _, _ = ida.ida_search(board.ravel(), h, weight=2 * ida.WEIGHT_ONE)
        assert status == ida.STATUS_FOUND and optimum <= len(codes) <= 2 * optimum
        assert fp.Solution(codes).verify(board)


def test_windows_find_exactly_the_shorter_paths():
    rng = np.random.default_rng(4)
    solver = WindowSolver(3, 3)
    starts = fp.random_solvable(3, 3, count=30, seed=6)
    goals = fp.random_solvable(3, 3, count=30, seed=7)
    for start, goal in zip(starts, goals):
        goal = goal.copy()
        if not fp.is_solvable(start, goal=goal):  # swap two tiles: the goal then lies in the start's half
            i, j = np.flatnonzero(goal.ravel() != 0)[:2]
            goal.ravel()[[i, j]] = goal.ravel()[[j, i]]
        d = int(fp.distance(start, goal=goal))
        length = d + int(rng.integers(-2, 3))
        path = solver.shorter_path(start.ravel(), goal.ravel(), length, 10**7, 0.0)
        if d < length:
            assert path is not None and len(path) == d and fp.Solution(path).verify(start, goal=goal)
        else:
            assert path is None


@pytest.mark.slow
def test_cut_loops_and_windows_keep_the_end():
    walks = fp.scramble(4, 4, 60, count=5, seed=9, return_moves=True)
    boards, moves = walks
    for board, mv in zip(boards, moves):
        # moves lead from the goal to board: replay them from the goal, shorten, and land on the same board
        start = fp.goal_board(4, 4).ravel()
        codes = fp.encode_moves(mv) if isinstance(mv, str) else np.asarray(mv, np.uint8)
        end = trajectory(start, 4, 4, codes)[-1]
        short = cut_loops(start, 4, 4, codes)
        path = trajectory(start, 4, 4, short)
        assert np.array_equal(path[-1], end) and len(short) <= len(codes)
        assert len({p.tobytes() for p in path}) == len(path)  # no board twice
        better = WindowSolver(4, 4).improve(start, short, 12, 10**5, 0.0)
        assert np.array_equal(trajectory(start, 4, 4, better)[-1], end) and len(better) <= len(short)


def test_verify_refuses_a_batch():
    boards = fp.random_solvable(3, 3, count=2, seed=1)
    sol = fp.solve(boards[0])
    with pytest.raises(ValueError, match="batch"):
        sol.verify(boards)


def test_solution_parity_matches_bfs():
    boards = fp.random_solvable(2, 4, count=30, seed=2)
    exact = fp.distance(boards)
    goal = fp.goal_board(2, 4).ravel()
    assert all(solution_parity(b.ravel(), goal, 4) == d % 2 for b, d in zip(boards, exact))


def _replay(board, codes, m, n):
    return trajectory(np.asarray(board, np.uint8).ravel(), m, n, np.asarray(codes, np.uint8))[-1]


@pytest.mark.parametrize("heuristic", ["linear_conflict", "manhattan"])
@pytest.mark.parametrize("shape", [(3, 3), (3, 4)])
@pytest.mark.slow
def test_beam_reaches_the_goal_never_shorter_than_optimal(shape, heuristic):
    from fastpuzzle.search.beam import beam_search

    m, n = shape
    goal = np.arange(1, m * n + 1) % (m * n)
    boards = fp.random_solvable(m, n, count=12, seed=9)
    exact = fp.distance(boards) if m * n <= 9 else [fp.solve(b, method="ida").length for b in boards]
    for board, optimum in zip(boards, exact):
        codes = beam_search(board.ravel().astype(np.uint8), m, n, goal, 64, heuristic=heuristic)
        assert codes is not None and len(codes) >= optimum
        assert _replay(board, codes, m, n).tolist() == goal.tolist()


@pytest.mark.parametrize("shape", [(3, 5), (6, 6), (7, 4)])
def test_beam_child_h_matches_linear_conflict_from_scratch(shape):
    """The beam rescans only the line of the moved tile's goal: every child's ``h`` equals the
    heuristic of the child computed from scratch (tests/naive.py), for any goal."""
    from fastpuzzle.moves import step_offset
    from fastpuzzle.search.beam import _child_h
    from fastpuzzle.search.heuristics import goal_coordinates
    from tests.naive import linear_conflict as naive_lc

    m, n = shape
    rng = np.random.default_rng(7)
    for _ in range(15):
        goal = rng.permutation(m * n).reshape(m, n)
        goal_row, goal_col = goal_coordinates(goal)
        board = rng.permutation(m * n).astype(np.uint8)
        h = naive_lc(board.tolist(), m, n, goal.ravel().tolist())
        b = int(np.flatnonzero(board == 0)[0])
        r, col = divmod(b, n)
        for op, legal in enumerate((r > 0, col > 0, col < n - 1, r < m - 1)):
            if not legal:
                continue
            src = b + step_offset(op, n)
            t = int(board[src])
            got = _child_h(board[None, :].copy(), 0, b, src, t, h, r, col, goal_row, goal_col, True,
                           np.empty(max(m, n), np.int64), m, n)
            child = board.copy()
            child[b], child[src] = t, 0
            assert got == naive_lc(child.tolist(), m, n, goal.ravel().tolist())


def test_beam_finish_splices_the_finishers_moves():
    """A beam stopped after one stalled layer hands its best board to ``finish``; the path is joined there."""
    from fastpuzzle.search.beam import beam_search

    m, n = 3, 4
    goal = np.arange(1, m * n + 1) % (m * n)
    handed = []

    def finish(board):
        handed.append(board.copy())
        return fp.solve(board.reshape(m, n), method="ida").codes

    for board in fp.random_solvable(m, n, count=6, seed=3):
        codes = beam_search(board.ravel().astype(np.uint8), m, n, goal, 2, finish=finish, patience=1, max_depth=400)
        assert _replay(board, codes, m, n).tolist() == goal.tolist()
    assert handed  # width 2 and patience 1: some beam stalled


def test_beam_rejects_an_unknown_heuristic():
    from fastpuzzle.search.beam import beam_search

    with pytest.raises(fp.errors.OptionError):
        beam_search(np.array([1, 2, 0, 3], np.uint8), 2, 2, np.array([1, 2, 3, 0]), 4, heuristic="pdb")


@pytest.mark.parametrize("order", anytime.ORDERS)
def test_reordered_engine_prunes_the_same_and_stays_optimal(order):
    goal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    engine = ida.Heuristic(3, 3, goal, "linear_conflict")
    twin = engine.reordered(order)
    assert twin.successors[2] is engine.successors[2] and engine.successors[0] is not twin.successors[0]
    boards = fp.random_solvable(3, 3, count=30, seed=11)
    info = np.zeros(4, np.int64)
    for board, optimum in zip(boards, fp.distance(boards)):
        path = np.zeros(64, np.uint8)
        status = ida.ida_kernel(board.ravel().astype(np.uint8), 3, 3, *twin.kernel_args(), 0, 0, 0, 0.0, path, info,
                                ida.WEIGHT_ONE)  # fmt: skip
        assert status == ida.STATUS_FOUND and info[1] == optimum
        assert (fp.apply_moves(board, fp.decode_moves(path[: info[1]])) == goal).all()


def test_strong_windows_never_lengthen_and_reach_the_goal():
    goal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    solver = WindowSolver(3, 3, strong=ida.Heuristic(3, 3, goal, "linear_conflict"))
    boards = fp.random_solvable(3, 3, count=10, seed=4)
    for board, optimum in zip(boards, fp.distance(boards)):
        long = fp.solve(board, method="constructive")
        codes = fp.encode_moves(long.moves)
        better = solver.improve_strong(board.ravel().astype(np.uint8), np.asarray(codes, np.uint8), (8, 40), 0, 0.0)
        assert optimum <= len(better) <= len(codes)
        assert (fp.apply_moves(board, fp.decode_moves(better)) == goal).all()


def _count_weighted_nodes(monkeypatch) -> list:
    """The nodes of every weighted search of the anytime solver, appended as they end."""
    shorter = anytime.shorter  # every weighted search goes through it
    seen = []

    def counting(cells, engine, weight, best, max_nodes, deadline, info):
        found = shorter(cells, engine, weight, best, max_nodes, deadline, info)
        seen.append(int(info[0]))
        return found

    monkeypatch.setattr(anytime, "shorter", counting)
    return seen


@pytest.mark.parametrize("shape", [(6, 6), (5, 7)])
@pytest.mark.slow
def test_node_budget_holds_above_25_cells(shape, monkeypatch):
    """Beams, their finishing searches and the windows all draw on one node budget, and every
    weighted search's nodes are counted in the answer."""
    seen = _count_weighted_nodes(monkeypatch)
    board = fp.random_solvable(*shape, seed=3)
    for max_nodes in (1, 2_000, 60_000):
        seen.clear()
        sol = fp.solve(board, max_nodes=max_nodes)
        assert sol.verify(board) and sum(seen) <= sol.nodes <= max_nodes
        assert sol.lower_bound <= sol.length


@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (5, 5), (2, 9)])
def test_a_node_budget_is_never_passed(shape):
    """``max_nodes=N`` generates at most N nodes, whichever steps run (the engine stops before the
    child that would pass it, and no step starts once the budget is spent)."""
    for seed, board in enumerate(fp.random_solvable(*shape, count=3, seed=11)):
        for max_nodes in (1, 2, 3, 17, 1_000, 20_000 + seed):
            sol = fp.solve(board, max_nodes=max_nodes)
            assert sol.verify(board) and 1 <= sol.nodes <= max_nodes, (shape, max_nodes, sol.nodes)
            plain = fp.solve(board, max_nodes=max_nodes, method="ida")
            assert plain.nodes <= max_nodes and plain.status in ("budget", "optimal")


def test_a_node_budget_holds_through_the_probes(monkeypatch):
    """On 25 cells a pass past a million nodes is followed by a probe: the probes and the passes
    share the budget, and the search stops at it exactly."""
    from fastpuzzle.search import probes

    probed = []
    probe = probes._probe
    monkeypatch.setattr(probes, "_probe", lambda *a: probed.append(1) or probe(*a))
    board = fp.random_solvable(5, 5, seed=21)
    sol = fp.solve(board, max_nodes=2_500_000, method="ida")
    assert probed and sol.status == "budget" and sol.nodes == 2_500_000


def test_nodes_of_the_searches_finishing_a_beam_are_charged(monkeypatch):
    """A beam that stalls at once hands its start to ``finish``: those nodes count and are budgeted."""
    from fastpuzzle.search import beam

    seen = _count_weighted_nodes(monkeypatch)
    def stalled(cells, m, n, goal, width, deadline=0.0, finish=None, patience=None, max_nodes=0, stats=None):
        return finish(cells.copy())

    monkeypatch.setattr(beam, "beam_search", stalled)
    board = fp.random_solvable(6, 6, seed=3)
    for max_nodes in (50_000, 400_000):
        seen.clear()
        sol = fp.solve(board, max_nodes=max_nodes)
        assert sol.verify(board) and sum(seen) <= sol.nodes <= max_nodes


def test_strong_windows_are_searched_backwards_from_a_start_where_the_blank_is_home():
    """The blank leaves home and circles a square twice (8 moves, 4 the other way round): no later
    board has the blank home, so only the window searched back to the start can shorten it."""
    goal = fp.goal_board(4, 4)
    codes = fp.encode_moves("UL" + "ULDR" * 2)
    solver = WindowSolver(4, 4, strong=ida.Heuristic(4, 4, goal, "linear_conflict"))
    start = goal.ravel()
    better = solver.improve_strong(start, codes, (12,), 0, 0.0)
    end = trajectory(start, 4, 4, codes)[-1]
    assert np.array_equal(trajectory(start, 4, 4, better)[-1], end)
    assert len(better) == int(fp.distance(end.reshape(4, 4))) == 6


@pytest.mark.parametrize("weight", [1.0, 1.5, 3.0])
def test_cost_cap_finds_only_shorter_and_proves_none_against_bfs(weight):
    """``max_cost``: a solution found is at most that long; none that short is a proof (BFS optima on 3x3 and 2x4)."""
    for shape, seed in (((3, 3), 21), ((2, 4), 22)):
        goal = fp.goal_board(*shape)
        engine = ida.Heuristic(*shape, goal, "linear_conflict")
        boards = fp.random_solvable(*shape, count=40, seed=seed)
        info = np.zeros(4, np.int64)
        w = np.int64(round(weight * ida.WEIGHT_ONE))
        for board, optimum in zip(boards, fp.distance(boards)):
            cells = board.ravel().astype(np.uint8)
            for cap in (optimum - 2, optimum, optimum + 2):
                if cap <= 0:
                    continue
                path = np.zeros(cap + 1, np.uint8)
                status = ida.ida_kernel(cells, *shape, *engine.kernel_args(), 0, 0, 0, 0.0, path, info, w, max_cost=cap)
                if cap < optimum:
                    assert status == ida.STATUS_EXHAUSTED, (board, cap)
                else:
                    assert status == ida.STATUS_FOUND and optimum <= info[1] <= cap
                    assert (fp.apply_moves(board, fp.decode_moves(path[: info[1]])) == goal).all()


def test_shorter_search_improves_on_an_incumbent_or_proves_it():
    """``shorter``: given an incumbent, a weighted search returns a strictly shorter solution, or proves none exists."""
    goal = fp.goal_board(3, 3)
    engine = ida.Heuristic(3, 3, goal, "linear_conflict")
    boards = fp.random_solvable(3, 3, count=30, seed=23)
    info = np.zeros(4, np.int64)
    for board, optimum in zip(boards, fp.distance(boards)):
        cells = board.ravel().astype(np.uint8)
        long = np.asarray(fp.encode_moves(fp.solve(board, method="constructive").moves), np.uint8)
        codes, proved = anytime.shorter(cells, engine, 2.0, long, 0, 0.0, info)
        if len(long) == optimum:
            assert proved and codes is None
            continue
        assert not proved and codes is not None and optimum <= len(codes) < len(long)
        codes, proved = anytime.shorter(cells, engine, 1.0, np.zeros(optimum, np.uint8), 0, 0.0, info)
        assert proved and codes is None  # nothing shorter than the optimum


def test_anytime_proves_optimal_through_a_capped_search():
    """The incumbent phase's capped searches may prove the incumbent optimal: the status says so, and it is."""
    boards = fp.random_solvable(3, 3, count=20, seed=24)
    goal = fp.goal_board(3, 3).ravel()
    engine = ida.Heuristic(3, 3, goal.reshape(3, 3), "linear_conflict")
    for board, optimum in zip(boards, fp.distance(boards)):
        r = anytime.anytime_search(board.ravel().astype(np.uint8), engine, goal=goal, max_nodes=10**6)
        assert r.lower_bound <= optimum <= len(r.codes)
        if r.optimal:
            assert len(r.codes) == optimum


def test_the_pass_below_the_answer_is_never_started_twice(monkeypatch):
    """The bound step's pass at the answer's length - 2 is the descent's first pass: once the bound
    step reaches it, it runs on with the rest of the budget instead of being cut and started again
    (every budget here: each plain pass from the root starts once, and a node budget holds)."""
    from fastpuzzle.search.solve import search_setup
    from tests import naive
    from tests.test_probes import walk

    plain, root = [], [None]
    kernel = ida.ida_kernel

    def recording(start, m, n, *rest, **kw):
        threshold, weight = rest[6], rest[12]
        if weight == ida.WEIGHT_ONE and threshold > 0 and not kw.get("max_cost") and start.tobytes() == root[0]:
            plain.append(int(threshold))
        return kernel(start, m, n, *rest, **kw)

    monkeypatch.setattr(ida, "ida_kernel", recording)
    goal = np.array(naive.cells_of(naive.goal(4, 5)), np.uint8)
    engine = search_setup(4, 5, goal.reshape(4, 5), "linear_conflict").engine
    rng = np.random.default_rng(5)
    reached = 0
    for steps in (80, 120):  # walks of 120 steps hold a board whose bound step reaches the last pass at 80,000 nodes
        for _ in range(4):
            cells = walk(rng, 4, 5, steps)
            root[0] = cells.tobytes()
            optimum = fp.solve(cells.reshape(4, 5), method="ida").length
            for max_nodes in (20_000, 80_000):
                plain.clear()
                r = anytime.anytime_search(cells, engine, goal=goal, max_nodes=max_nodes)
                assert len(plain) == len(set(plain)), (max_nodes, plain)
                assert r.lower_bound <= optimum <= len(r.codes) and r.nodes <= max_nodes
                reached += bool(plain) and max(plain) >= len(r.codes) - 2
    assert reached  # some searches got as far as the pass below their answer
