"""One proof on every thread (``search/parallel.py``) and the budgeted ladder (``search/portfolio.py``).

A pass split below the root must be the one-thread pass node for node (the engine's own pass is
checked against the recursive reference in ``tests/naive.py``); every answer is replayed, and every
length and bound is checked against breadth-first distances.
"""

import threading

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.errors import OptionError, OptionTypeError
from fastpuzzle.search import ida, parallel, portfolio, probes
from fastpuzzle.search.solve import search_setup
from tests import naive


def _passes(cells, engine, m, n):
    """Every pass of the one-thread engine: ``[(bound, status, nodes, next bound, length)]``."""
    info = np.zeros(4, np.int64)
    t = int(ida.board_h(cells, m, n, engine.kind, engine.lc_tables, engine.pdb_tables))
    out = []
    while True:
        status, codes, nodes, _ = ida.ida_search(cells, engine, info=info, max_length=t, threshold=t)
        out.append((t, status, nodes, int(info[2]), codes))
        if status != ida.STATUS_BOUND:
            return out
        t = int(info[2])


@pytest.mark.parametrize("shape,heuristic", [((3, 4), "manhattan"), ((3, 4), "linear_conflict"),
                                             ((2, 6), "linear_conflict"), ((3, 3), "pdb")])  # fmt: skip
@pytest.mark.parametrize("per_thread", [1, 5, 128])
def test_split_pass_is_the_one_thread_pass_node_for_node(shape, heuristic, per_thread, monkeypatch):
    """Every pass the same nodes and the same next bound, the last one the same solution (the first
    in depth-first order), however deep the split (the frontier size per thread changes the depth)."""
    monkeypatch.setattr(parallel, "FRONTIER_PER_THREAD", per_thread)
    m, n = shape
    setup = search_setup(m, n, fp.goal_board(m, n), heuristic)
    for board in fp.random_solvable(m, n, count=4, seed=7):
        cells = setup.map_boards(board.reshape(1, -1))[0]
        if np.array_equal(cells, setup.engine.goal):
            continue
        for bound, status, nodes, next_bound, codes in _passes(cells, setup.engine, m, n):
            r = parallel.split_pass(cells, setup.engine, bound, threads=2)
            assert (r.status, r.nodes) == (status, nodes), (board, bound)
            if status == ida.STATUS_FOUND:
                assert np.array_equal(r.codes, codes)
                end = fp.apply_moves(cells.reshape(m, n), r.codes)
                assert np.array_equal(end.ravel(), setup.engine.goal)
            else:
                assert r.next_bound == next_bound


def test_split_pass_counts_what_the_reference_counts():
    """The passes below the optimum against the recursive reference, Korf's count (Manhattan,
    the undo rule only): the whole search's nodes less its last pass."""
    m, n = 3, 3
    setup_engine = ida.Heuristic(m, n, fp.goal_board(m, n), "manhattan", prune_length=2)
    goal = fp.goal_board(m, n).ravel()
    for board in fp.random_solvable(m, n, count=5, seed=3):
        cells = board.ravel().astype(np.uint8)
        if np.array_equal(cells, goal):
            continue
        length, _ = naive.ida_nodes(list(cells), m, n, list(goal), naive.manhattan)
        t = int(naive.manhattan(list(cells), m, n, list(goal)))
        while t < length:
            r = parallel.split_pass(cells, setup_engine, t, threads=2)
            info = np.zeros(4, np.int64)
            assert ida.ida_search(cells, setup_engine, info=info, max_length=t, threshold=t)[2] == r.nodes
            t = r.next_bound
        assert t == length


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_optimal_search_on_threads_is_optimal_against_bfs(threads, monkeypatch):
    """Every pass split (no minimum): the lengths are the breadth-first distances."""
    monkeypatch.setattr(probes, "SPLIT_MIN_NODES", 0)
    boards = fp.random_solvable(3, 3, count=25, seed=12)
    exact = fp.distance(boards)
    setup = search_setup(3, 3, fp.goal_board(3, 3), "linear_conflict")
    for board, d in zip(boards, exact):
        if d == 0:
            continue
        status, codes, nodes, _ = probes.optimal_search(board.ravel().astype(np.uint8), setup.engine, threads=threads)
        assert status == ida.STATUS_FOUND and len(codes) == d
        assert np.array_equal(fp.apply_moves(board, codes), fp.goal_board(3, 3))


def test_a_side_task_that_finds_stops_the_pass_and_a_pass_that_ends_stops_the_side():
    m, n = 4, 4
    setup = search_setup(m, n, fp.goal_board(m, n), "manhattan")
    board = fp.random_solvable(m, n, seed=4).ravel().astype(np.uint8)
    passes = _passes(board, setup.engine, m, n)
    found = parallel.split_pass(board, setup.engine, passes[-1][0], threads=2, side=lambda: (True, "mine"))
    assert found.status == ida.STATUS_FOUND and found.side == "mine"
    control = np.zeros(1, np.int64)
    seen = threading.Event()

    def side():  # waits for the pass to end: the flag must come
        for _ in range(20_000):
            if control[0]:
                seen.set()
                break
            threading.Event().wait(0.001)
        return False, None

    bound, status, nodes, next_bound, _ = passes[-2]
    r = parallel.split_pass(board, setup.engine, bound, threads=2, side=side, side_control=control)
    assert seen.is_set() and (r.status, r.nodes, r.next_bound) == (status, nodes, next_bound)


def test_the_control_flag_stops_a_kernel_as_the_clock_does():
    """A set flag stops a search with no time limit at its first look at the clock (the first pass
    past one clock interval of nodes), where the same search without it goes on."""
    board = fp.random_solvable(5, 5, seed=2).ravel().astype(np.uint8)
    engine = ida.Heuristic(5, 5, fp.goal_board(5, 5), "manhattan")
    runs = []
    for flag, budget in ((1, 0), (0, 10 * ida.CLOCK_INTERVAL)):
        info = np.zeros(4, np.int64)
        status = ida.ida_kernel(board, 5, 5, *engine.kernel_args(), 0, 0, budget, 0.0, np.zeros(200, np.uint8),
                                info, ida.WEIGHT_ONE, control=np.full(1, flag, np.int64))  # fmt: skip
        runs.append((status, int(info[0])))
    assert runs[0][0] == ida.STATUS_TIME and runs[1] == (ida.STATUS_NODES, 10 * ida.CLOCK_INTERVAL)
    assert runs[0][1] < 2 * ida.CLOCK_INTERVAL


def test_a_deadline_stops_a_split_pass():
    board = fp.random_solvable(5, 5, seed=2).ravel().astype(np.uint8)
    engine = ida.Heuristic(5, 5, fp.goal_board(5, 5), "manhattan")
    from fastpuzzle.search.clock import clock

    r = parallel.split_pass(board, engine, 140, deadline=clock() + 0.05, threads=2)
    assert r.status == ida.STATUS_TIME and len(r.codes) == 0


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", np.float64(2.0)])
def test_solve_refuses_bad_thread_counts_by_name(bad):
    with pytest.raises((OptionError, OptionTypeError), match="threads"):
        fp.solve(fp.goal_board(3, 3), threads=bad)


def test_solve_on_one_thread_or_many_finds_the_same_length():
    board = fp.random_solvable(4, 4, seed=31)
    lengths = {fp.solve(board, threads=t).length for t in (1, 2, 10**9)}  # a huge count is capped, not spawned
    assert len(lengths) == 1


def _check(sol, board, optimum):
    assert sol.solved and sol.verify(board)
    assert 0 <= sol.lower_bound <= optimum <= sol.length and (sol.length - sol.lower_bound) % 2 == 0
    assert (sol.status == "optimal") == (sol.length == sol.lower_bound)
    if sol.status == "optimal":
        assert sol.length == optimum


@pytest.mark.parametrize("budget", [dict(time_limit=1e-6), dict(time_limit=5.0), dict(max_nodes=40),
                                    dict(max_nodes=10**6), dict(time_limit=5.0, max_nodes=2_000)])  # fmt: skip
def test_the_ladder_against_bfs(budget):
    boards = fp.random_solvable(3, 3, count=20, seed=19)
    exact = fp.distance(boards)
    for board, d in zip(boards, exact):
        sol = fp.solve(board, **budget)
        _check(sol, board, int(d))
        if d and sol.method == "anytime":
            assert set(sol.stats) == {"answer", "proof", "improve"}
            assert sum(p["nodes"] for p in sol.stats.values()) <= sol.nodes
        if "max_nodes" in budget:
            assert sol.nodes <= budget["max_nodes"]
    if budget == dict(time_limit=5.0):
        assert all(fp.solve(b, **budget).status == "optimal" for b in boards)


def test_the_ladder_proves_what_ida_proves_and_says_how_it_spent_a_short_budget():
    board = fp.random_solvable(4, 4, seed=5)
    plain = fp.solve(board, method="ida")
    ladder = fp.solve(board, time_limit=60.0)
    assert ladder.status == "optimal" and ladder.length == plain.length and ladder.verify(board)
    short = fp.solve(fp.random_solvable(5, 5, seed=8), time_limit=0.3)
    assert short.status == "bounded" and "not proved optimal" in short.note
    assert short.stats["proof"]["seconds"] > 0 and "bound" in short.stats["proof"]


def test_no_step_of_the_ladder_ignores_the_budget():
    """A 24-puzzle the proof needs minutes for, with budgets of a fraction of a second: every step
    stops at the budget, so the calls end (a step that ignored it would run for minutes; how
    closely the budget is kept is a figure of the bench, ``bench/ladder_rows.py``, not asserted)."""
    import time

    board = fp.random_solvable(5, 5, seed=8)
    fp.solve(board, time_limit=0.2)  # compiled first: the rest is search
    t0 = time.perf_counter()
    for limit in (0.25, 0.6):
        sol = fp.solve(board, time_limit=limit)
        assert sol.status == "bounded" and sol.stats["proof"]["seconds"] > 0
    assert time.perf_counter() - t0 < 60  # a hang detector (the signal tests' STOP_WAIT), not a speed claim


def test_portfolio_stops_at_the_root_bound():
    """An answer as long as the root's bound is optimal at once: no proof runs."""
    goal = fp.goal_board(3, 3).ravel()
    h = ida.Heuristic(3, 3, goal.reshape(3, 3), "linear_conflict")
    r = portfolio.portfolio_search(np.array([1, 2, 3, 4, 5, 6, 7, 0, 8], np.uint8), h, goal=goal, time_limit=1.0)
    assert r.optimal and len(r.codes) == 1 and r.stats["proof"]["nodes"] == 0


def test_an_error_in_the_improving_searches_reaches_the_caller(monkeypatch):
    """The improving searches run on a thread of their own: what they raise is raised by ``solve``
    once the proof has stopped (it does not vanish into the thread, nor keep the proof a thread short)."""

    def broken(*args, **kwargs):
        raise MemoryError("improving searches")

    monkeypatch.setattr(portfolio, "HANDOFF_SHARE", 0.01)
    monkeypatch.setattr(portfolio, "_improve", broken)
    with pytest.raises(MemoryError, match="improving searches"):
        fp.solve(fp.random_solvable(5, 5, seed=8), time_limit=3.0, threads=2)


@pytest.mark.parametrize("shape", [(4, 1), (1, 4), (2, 2), (2, 3)])
def test_compile_ladder_takes_every_shape_and_goal(shape):
    m, n = shape
    for goal in (np.r_[np.arange(1, m * n), 0], np.r_[0, np.arange(1, m * n)]):
        engine = ida.Heuristic(m, n, goal.reshape(m, n), "linear_conflict")
        assert portfolio.compile_ladder(engine) >= 0.0 and portfolio.compile_ladder(engine) == 0.0  # once


def test_the_ladder_with_no_fallback_answers_within_its_budget():
    """Direct callers may give no fallback: the first answers still come, every one verified."""
    goal = fp.goal_board(4, 4)
    h = ida.Heuristic(4, 4, goal, "linear_conflict")
    for board in fp.random_solvable(4, 4, count=3, seed=9):
        r = portfolio.portfolio_search(board.ravel().astype(np.uint8), h, goal=goal.ravel(), max_nodes=50)
        assert np.array_equal(fp.apply_moves(board, r.codes), goal) and r.lower_bound <= len(r.codes)
