"""Optimal IDA* with probes (fastpuzzle.search.probes): the same optimal lengths as plain IDA*
and breadth-first search, every node counted, budgets kept."""

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.search import ida, probes
from fastpuzzle.search import solve as solve_mod

from . import naive


@pytest.fixture(autouse=True)
def probe_early(monkeypatch):
    """Probes after passes of any size: the boards here are searched in thousands of nodes."""
    monkeypatch.setattr(probes, "PROBE_MIN_NODES", 1)


def walk(rng, m, n, steps):
    """A random walk of ``steps`` blank moves from the default goal (flat uint8 cells)."""
    state = tuple(naive.cells_of(naive.goal(m, n)))
    for _ in range(steps):
        nbrs = naive.neighbours(state, m, n)
        state = nbrs[rng.integers(len(nbrs))]
    return np.array(state, np.uint8)


def engine(m, n, name="linear_conflict"):
    return ida.Heuristic(m, n, np.array(naive.goal(m, n)).reshape(m, n), name)


def reaches_goal(cells, m, n, codes):
    end = naive.apply_moves(cells.reshape(m, n).tolist(), [int(c) for c in codes])
    return end == np.array(naive.goal(m, n)).reshape(m, n).tolist()


@pytest.mark.parametrize("m,n", [(3, 6), (6, 3), (4, 5)])
def test_lengths_equal_plain_ida_and_bfs(rng, m, n):
    heur = engine(m, n)
    assert probes.uses_probes(heur)
    goal_state = tuple(naive.cells_of(naive.goal(m, n)))
    for steps in (14, 40, 80):
        cells = walk(rng, m, n, steps)
        plain = ida.ida_search(cells, heur)
        for share in (probes.PROBE_SHARE, 4.0):  # 4.0: the probes all but always find the solution first
            status, codes, nodes, _ = probes.optimal_search(cells, heur, share=share)
            assert status == ida.STATUS_FOUND and len(codes) == len(plain[1])
            assert reaches_goal(cells, m, n, codes)
        if steps == 14:
            assert len(plain[1]) == naive.distance(tuple(cells.tolist()), goal_state, m, n)


def test_every_node_is_counted(rng, monkeypatch):
    """Probes of two nodes each (the root and a child) fail at once: the passes' nodes are plain IDA*'s, plus two a probe."""
    heur = engine(4, 5)
    calls, events = [], []
    real, real_pass = probes._probe, ida.ida_search

    def spy(*args):
        out = real(*args)
        calls.append(out)
        events.append(("probe", out[0]))
        return out

    def spy_pass(*args, **kwargs):
        out = real_pass(*args, **kwargs)
        events.append(("pass", out[0]))
        return out

    monkeypatch.setattr(probes, "_probe", spy)
    monkeypatch.setattr(ida, "ida_search", spy_pass)
    cells = walk(rng, 4, 5, 60)
    plain = ida.ida_search(cells, heur)
    status, codes, nodes, _ = probes.optimal_search(cells, heur, share=1e-12)
    assert status == ida.STATUS_FOUND and np.array_equal(codes, plain[1])
    assert calls and all(c[0] == ida.STATUS_NODES and c[2] == 2 for c in calls)
    assert nodes == plain[2] + 2 * len(calls)
    calls.clear()
    events.clear()
    status, codes, nodes, _ = probes.optimal_search(cells, heur, share=4.0)
    assert status == ida.STATUS_FOUND and events[-1] == ("probe", ida.STATUS_FOUND)  # found by a probe: no pass after
    assert nodes >= sum(c[2] for c in calls)


def test_budgets_and_the_bound(rng):
    heur = engine(4, 5)
    cells = walk(rng, 4, 5, 200)
    plain = ida.ida_search(cells, heur)
    assert plain[2] > 5000
    _, _, total, _ = probes.optimal_search(cells, heur)
    for budget in range(2, min(total, 3000) + 1):  # every budget: inside probes, inside passes, at their ends
        status, codes, nodes, _ = probes.optimal_search(cells, heur, max_nodes=budget)
        assert nodes == budget or (status == ida.STATUS_FOUND and nodes <= budget), (budget, status, nodes)
    for budget in (2, 777, 4321):
        info = np.zeros(4, np.int64)
        status, codes, nodes, _ = probes.optimal_search(cells, heur, max_nodes=budget, info=info)
        assert status == ida.STATUS_NODES and nodes == budget and len(codes) == 0
        assert info[3] <= info[2] <= len(plain[1])  # every bound below info[2] searched in full
    # the kernel reads the clock every CLOCK_INTERVAL nodes of a pass: this board's last passes are longer
    status, codes, nodes, _ = probes.optimal_search(cells, heur, time_limit=1e-9)
    assert status == ida.STATUS_TIME and len(codes) == 0 and nodes >= ida.CLOCK_INTERVAL


def test_small_boards_search_as_plain_ida(rng):
    heur = engine(4, 4)
    assert not probes.uses_probes(heur)
    cells = walk(rng, 4, 4, 60)
    assert probes.optimal_search(cells, heur)[2] == ida.ida_search(cells, heur)[2]


def test_solve_and_solve_many_use_probes(rng, monkeypatch):
    seen = []
    real = solve_mod.optimal_search

    def spy(*args, **kwargs):
        seen.append(args[1].m * args[1].n)
        return real(*args, **kwargs)

    monkeypatch.setattr(solve_mod, "optimal_search", spy)
    boards = np.stack([walk(rng, 5, 5, 40).reshape(5, 5) for _ in range(3)])
    sol = fp.solve(boards[0], method="ida")
    many = fp.solve_many(boards, method="ida", threads=2)
    assert seen == [25]  # solve_many: these boards end within PROBE_MIN_NODES, in the batch kernel
    assert sol.status == "optimal" and sol.verify(boards[0]) and many.lengths[0] == sol.length
    for i, b in enumerate(boards):
        d = naive.distance(tuple(b.ravel().tolist()), tuple(naive.cells_of(naive.goal(5, 5))), 5, 5)
        assert many.lengths[i] == d and many.status[i] == "optimal"


def test_tables_that_leave_tiles_out_keep_the_budget():
    """h0 is 0 off the goal (a database of four tiles): the first pass, at bound 0, keeps the budget too."""
    db = fp.pdb.build_partition((3, 6), [(1, 2, 3, 4)])
    board = np.array([[1, 2, 3, 4, 5, 6], [7, 8, 15, 9, 10, 11], [13, 0, 14, 16, 17, 12]])
    assert db.lookup(board) == 0
    for budget in (2, 3, 50):
        sol = fp.solve(board, method="ida", heuristic="pdb", database=db, max_nodes=budget)
        assert sol.status == "budget" and sol.nodes == budget
    sol = fp.solve(board, method="ida", heuristic="pdb", database=db)
    assert sol.status == "optimal" and sol.verify(board)
    assert sol.length == fp.solve(board, method="ida").length


def test_solve_many_tries_the_batch_kernel_first(rng, monkeypatch):
    """Boards that end within PROBE_MIN_NODES nodes come from the batch kernel, the others are solved
    again with probes: every column as solve gives it, whatever the threads and budgets."""
    monkeypatch.setattr(solve_mod, "PROBE_MIN_NODES", 300)
    monkeypatch.setattr(probes, "PROBE_MIN_NODES", 300)
    again = []
    real = solve_mod._solve_many_each

    def spy(flat, *args, **kwargs):
        again.append(len(flat))
        return real(flat, *args, **kwargs)

    monkeypatch.setattr(solve_mod, "_solve_many_each", spy)
    boards = np.stack([walk(rng, 4, 5, k).reshape(4, 5) for k in (0, 3, 20, 60, 90, 120)])
    for budget in (None, 250, 1000):
        many = fp.solve_many(boards, method="ida", max_nodes=budget, threads=2)
        for i, b in enumerate(boards):
            sol = fp.solve(b, method="ida", max_nodes=budget)
            assert (many.lengths[i], many.nodes[i], many.status[i], many.moves[i]) == (
                sol.length if sol.solved else -1, sol.nodes, sol.status, sol.moves)
    assert again and max(again) < len(boards)


def test_a_budget_stop_reports_the_bound_its_passes_proved(rng):
    """Status "budget": no moves, and as lower bound the passes finished (rounded up to the parity
    every solution shares), never above the optimum; solve_many and the command line say the same."""
    from fastpuzzle.cli.solve import solution_line

    boards = np.stack([walk(rng, 4, 5, 200).reshape(4, 5) for _ in range(3)])
    optima = [fp.solve(b, method="ida").length for b in boards]
    many = fp.solve_many(boards, method="ida", max_nodes=3000)
    for i, b in enumerate(boards):
        sol = fp.solve(b, method="ida", max_nodes=3000)
        if sol.solved:
            continue
        h0 = fp.heuristics.linear_conflict(b)
        assert h0 <= sol.lower_bound <= optima[i] and (optima[i] - sol.lower_bound) % 2 == 0
        assert many.lower_bounds[i] == sol.lower_bound and many.lengths[i] == -1
        line = solution_line(-1, "", sol.nodes, 0.0, sol.status, sol.lower_bound)
        assert line.split()[-2:] == [str(sol.lower_bound), "-"]


def test_the_last_pass_takes_its_own_budget(rng):
    """``last_pass``: once the pass at ``max_length`` is reached it runs under that budget, so a
    caller whose next step would be that very pass (the anytime search's descent) never starts it
    twice; the passes before it keep the first budget."""
    heur = engine(4, 5)
    cells = walk(rng, 4, 5, 200)
    plain = ida.ida_search(cells, heur)
    optimum, info = len(plain[1]), np.zeros(4, np.int64)
    status, _, _, _ = probes.optimal_search(cells, heur, max_nodes=2, info=info, max_length=0)
    h0 = int(info[3])
    assert h0 < optimum  # so the passes below the optimum need more than a few nodes
    for last in (h0, optimum - 2, optimum):
        short = probes.optimal_search(cells, heur, max_nodes=2, max_length=last)
        assert short[0] == ida.STATUS_NODES  # the first budget stops the passes before the last one
        info = np.zeros(4, np.int64)
        status, codes, nodes, _ = probes.optimal_search(cells, heur, max_nodes=None, info=info, max_length=last,
                                                        last_pass=(None, 0.0))  # fmt: skip
        if last < optimum:
            assert status == ida.STATUS_BOUND and info[2] > last  # no solution that short: proved
        else:
            assert status == ida.STATUS_FOUND and len(codes) == optimum and reaches_goal(cells, 4, 5, codes)
    # the passes before the last keep the first budget
    assert optimum - 2 > h0
    status, _, nodes, _ = probes.optimal_search(cells, heur, max_nodes=2, max_length=optimum - 2, last_pass=(None, 0.0))
    assert status == ida.STATUS_NODES and nodes == 2
    # a time budget of the last pass (a clock() time; None for no node limit), and no probes: 4x4
    from fastpuzzle.search.clock import clock

    status, _, _, _ = probes.optimal_search(cells, heur, max_nodes=2, max_length=h0, last_pass=(None, clock() + 600))
    assert status == ida.STATUS_BOUND
    small = engine(4, 4)
    board = walk(rng, 4, 4, 80)
    info = np.zeros(4, np.int64)
    probes.optimal_search(board, small, max_nodes=2, info=info, max_length=0)
    status, codes, nodes, _ = probes.optimal_search(board, small, max_nodes=2, max_length=int(info[3]),
                                                    last_pass=(None, None))  # fmt: skip
    assert not probes.uses_probes(small) and status in (ida.STATUS_BOUND, ida.STATUS_FOUND) and nodes > 2
    # without max_length there is no last pass: the first budget holds throughout
    status, _, nodes, _ = probes.optimal_search(cells, heur, max_nodes=2, last_pass=(None, 0.0))
    assert status == ida.STATUS_NODES and nodes == 2
    # with the first budget only enough for the pass at h0, the last pass (at h0) still finishes
    status, codes, nodes, _ = probes.optimal_search(cells, heur, max_nodes=2, max_length=h0, last_pass=(None, 0.0))
    assert status == ida.STATUS_BOUND
    # a node budget of the last pass counts from the call, as max_nodes does
    status, codes, nodes, _ = probes.optimal_search(cells, heur, max_nodes=2, max_length=h0, last_pass=(3, 0.0))
    assert status == ida.STATUS_NODES and nodes == 3
