"""The optimal solver: lengths against breadth-first search, node counts against Korf's
published figures and a plain IDA*, budgets, errors, batch and CLI."""

import io
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastpuzzle as fp
from fastpuzzle.cli import solve as cli_solve
from fastpuzzle.moves import move_automaton
from fastpuzzle.search import heuristics as H
from fastpuzzle.search import ida
from fastpuzzle.search import solve as solve_mod

from . import naive

DATA = pathlib.Path(__file__).resolve().parent.parent / "bench" / "data"
KORF_GOAL = np.arange(16).reshape(4, 4)  # Korf's convention: blank top-left


def read_korf(name):
    rows = [line.split() for line in (DATA / name).read_text().splitlines() if line and not line.startswith("#")]
    return np.array([[int(v) for v in r[:16]] for r in rows]).reshape(-1, 4, 4), np.array([int(r[16]) for r in rows])


def korf_nodes():
    rows = [line.split() for line in (DATA / "korf100_manhattan_nodes.txt").read_text().splitlines()]
    return {int(r[0]) - 1: int(r[3]) for r in rows if r and not r[0].startswith("#")}


def solvable_board(rng, m, n, goal=None):
    """Uniform random board that can reach ``goal``: a permutation, two tiles swapped if needed."""
    b = rng.permutation(m * n).reshape(m, n)
    if not fp.is_solvable(b, goal=goal):
        flat = b.ravel()
        i, j = np.flatnonzero(flat != 0)[:2]
        flat[i], flat[j] = flat[j], flat[i]
    return b


def scramble(rng, m, n, steps, goal=None):
    """A random walk of ``steps`` blank moves from ``goal`` (default goal if None)."""
    state = tuple(naive.cells_of(naive.goal(m, n) if goal is None else goal))
    for _ in range(steps):
        nbrs = naive.neighbours(state, m, n)
        state = nbrs[rng.integers(len(nbrs))]
    return np.array(state).reshape(m, n)


@pytest.fixture(scope="module")
def dist_3x3():
    return naive.bfs_distances(tuple(naive.cells_of(naive.goal(3, 3))), 3, 3)


@pytest.fixture(scope="module")
def dist_2x4():
    return naive.bfs_distances(tuple(naive.cells_of(naive.goal(2, 4))), 2, 4)


# ------------------------------------------------------------------ optimality vs BFS


@pytest.mark.parametrize("heuristic", ["linear_conflict", "manhattan"])
def test_3x3_sample_lengths_equal_bfs(dist_3x3, heuristic):
    states = list(dist_3x3)
    pick = np.random.default_rng(7).choice(len(states), 400, replace=False)
    for i in pick:
        board = np.array(states[i]).reshape(3, 3)
        sol = fp.solve(board, heuristic=heuristic)
        assert sol.status == "optimal"
        assert sol.length == dist_3x3[states[i]]
        assert sol.verify(board)


@pytest.mark.slow
def test_2x4_all_lengths_equal_bfs(dist_2x4):
    states = list(dist_2x4)
    boards = np.array(states).reshape(-1, 2, 4)
    res = fp.solve_many(boards)
    assert (res.lengths == np.array([dist_2x4[s] for s in states])).all()
    assert (res.status == "optimal").all()


@pytest.mark.parametrize("m,n", [(2, 5), (5, 2), (3, 4), (2, 6)])
@pytest.mark.slow
def test_other_shapes_sample_lengths_equal_bfs(rng, m, n):
    goal_state = tuple(naive.cells_of(naive.goal(m, n)))
    for _ in range(12 if m * n <= 10 else 6):
        board = solvable_board(rng, m, n) if m * n <= 10 else scramble(rng, m, n, 24)
        sol = fp.solve(board)
        assert sol.verify(board)
        assert sol.length == naive.distance(tuple(naive.cells_of(board)), goal_state, m, n)


def test_bidirectional_reference_agrees_with_bfs(dist_3x3, rng):
    goal_state = tuple(naive.cells_of(naive.goal(3, 3)))
    states = list(dist_3x3)
    for i in rng.choice(len(states), 30, replace=False):
        assert naive.distance(states[i], goal_state, 3, 3) == dist_3x3[states[i]]


@pytest.mark.slow
def test_all_3x3_boards(dist_3x3):
    """Every solvable 8-puzzle: optimal length, and the moves reach the goal."""
    states = list(dist_3x3)
    boards = np.array(states, np.uint8).reshape(-1, 3, 3)
    res = fp.solve_many(boards)
    assert (res.lengths == np.array([dist_3x3[s] for s in states])).all()
    goal = fp.goal_board(3, 3)
    for b, mv in zip(boards[::1], res.moves):
        assert np.array_equal(fp.apply_moves(b, mv, check=False), goal)


def test_2x2_all_boards():
    goal_state = tuple(naive.cells_of(naive.goal(2, 2)))
    dist = naive.bfs_distances(goal_state, 2, 2)
    assert len(dist) == 12
    for s, d in dist.items():
        board = np.array(s).reshape(2, 2)
        sol = fp.solve(board)
        assert sol.length == d and sol.verify(board)


@pytest.mark.parametrize("m,n", [(1, 2), (1, 7), (5, 1), (2, 1)])
def test_line_boards(rng, m, n):
    goal_state = tuple(naive.cells_of(naive.goal(m, n)))
    for _ in range(10):
        board = scramble(rng, m, n, int(rng.integers(0, 12)))
        sol = fp.solve(board)
        assert sol.status == "optimal" and sol.verify(board)
        assert sol.length == naive.distance(tuple(naive.cells_of(board)), goal_state, m, n)
    res = fp.solve_many(np.stack([scramble(rng, m, n, 5) for _ in range(4)]))
    assert (res.status == "optimal").all()


# ------------------------------------------------------------------ node counts


@pytest.mark.parametrize("m,n,steps", [(3, 3, 40), (2, 4, 40), (3, 4, 18), (4, 3, 18), (2, 7, 20), (7, 2, 20), (5, 5, 16)])
@pytest.mark.parametrize("heuristic", ["linear_conflict", "manhattan"])
@pytest.mark.parametrize("prune", ["undo", "automaton"])
@pytest.mark.slow
def test_node_counts_equal_plain_ida(rng, m, n, steps, heuristic, prune):
    """The kernel's incremental h and move automaton reproduce a plain IDA* node for node."""
    ref_h = naive.linear_conflict if heuristic == "linear_conflict" else naive.manhattan
    automaton = move_automaton(solve_mod.PRUNE[prune])
    for custom in (False, True):
        goal = solvable_board(rng, m, n) if custom else fp.goal_board(m, n)
        gcells = naive.cells_of(goal)
        for _ in range(4):
            board = solvable_board(rng, m, n, goal) if m * n <= 9 else scramble(rng, m, n, steps, goal)
            sol = fp.solve(board, goal=goal, heuristic=heuristic, method="ida", prune=prune)
            length, nodes = naive.ida_nodes(naive.cells_of(board), m, n, gcells, ref_h, automaton)
            if length == 0:
                nodes = 0  # solve() does not search from the goal itself
            assert (sol.length, sol.nodes) == (length, nodes)


def test_scan_mode_equals_table_mode(monkeypatch):
    """Linear conflict by rescanning lines gives the same search as the table of line codes."""
    boards, lengths = read_korf("korf100.txt")
    before = [fp.solve(boards[i], goal=KORF_GOAL) for i in (8, 11)]
    monkeypatch.setattr(H, "LC_TABLE_MAX_LINE", 3)
    H._cached_tables.cache_clear()
    try:
        assert not H.search_tables(4, 4, KORF_GOAL).use_table
        after = [fp.solve(boards[i], goal=KORF_GOAL) for i in (8, 11)]
    finally:
        H._cached_tables.cache_clear()
    assert [(s.length, s.nodes) for s in before] == [(s.length, s.nodes) for s in after]


# ------------------------------------------------------------------ Korf's 100


CHEAP = [8, 11, 1, 4]  # instances 9, 12, 2, 5: under 20 M nodes with Manhattan


@pytest.mark.parametrize("i", CHEAP)
def test_korf_manhattan_nodes_equal_published(i):
    boards, lengths = read_korf("korf100.txt")
    sol = fp.solve(boards[i], goal=KORF_GOAL, heuristic="manhattan", prune="undo")
    assert sol.status == "optimal" and sol.length == lengths[i]
    assert sol.nodes == korf_nodes()[i]
    assert sol.verify(boards[i], goal=KORF_GOAL)


@pytest.mark.parametrize("name,goal", [("korf100.txt", KORF_GOAL), ("korf100_blank_last.txt", None)])
@pytest.mark.slow
def test_korf_first_instances_lengths(name, goal):
    boards, lengths = read_korf(name)
    pick = [0, 1, 3, 4, 5, 7, 8, 11]
    res = fp.solve_many(boards[pick], goal=goal, threads=2)
    assert (res.lengths == lengths[pick]).all()
    for b, s in zip(boards[pick], res.solutions()):
        assert s.status == "optimal" and s.verify(b, goal=goal)


def test_solve_many_equals_solve_and_thread_count_does_not_matter(rng):
    boards = np.stack([solvable_board(rng, 3, 3) for _ in range(60)] + [fp.goal_board(3, 3)])
    one = fp.solve_many(boards, threads=1)
    two = fp.solve_many(boards, threads=2)
    single = [fp.solve(b) for b in boards]
    assert one.moves == two.moves == [s.moves for s in single]
    assert one.nodes.tolist() == two.nodes.tolist() == [s.nodes for s in single]
    assert one.lengths[-1] == 0 and one.moves[-1] == "" and one.status[-1] == "optimal"
    sols = one.solutions()
    assert all(s.verify(b) for s, b in zip(sols, boards))
    assert one.solved.all() and len(one) == 61


def test_solve_many_grows_the_stack(monkeypatch):
    # A tiny preallocated stack forces the per-board fallback path.
    monkeypatch.setattr(ida, "initial_capacity", lambda m, n: 4)
    boards, lengths = read_korf("korf100.txt")
    res = fp.solve_many(boards[[8, 11]], goal=KORF_GOAL)
    assert res.lengths.tolist() == lengths[[8, 11]].tolist()
    sol = fp.solve(boards[8], goal=KORF_GOAL, heuristic="manhattan", prune="undo")
    assert sol.nodes == korf_nodes()[8]


# ------------------------------------------------------------------ properties


@st.composite
def boards_and_goals(draw):
    m, n = draw(st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (1, 5), (4, 1)]))
    perm = draw(st.permutations(range(m * n)))
    goal = draw(st.one_of(st.none(), st.permutations(range(m * n))))
    board = np.array(perm).reshape(m, n)
    goal = None if goal is None else np.array(goal).reshape(m, n)
    return board, goal


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards_and_goals(), st.sampled_from(["linear_conflict", "manhattan"]))
def test_moves_reach_the_goal(case, heuristic):
    board, goal = case
    if not fp.is_solvable(board, goal=goal):
        with pytest.raises(ValueError, match="cannot reach the goal"):
            fp.solve(board, goal=goal, heuristic=heuristic)
        return
    sol = fp.solve(board, goal=goal, heuristic=heuristic)
    target = fp.goal_board(*board.shape) if goal is None else goal
    assert np.array_equal(fp.apply_moves(board, sol.moves), target)
    assert sol.length >= (H.linear_conflict(board, goal=goal) if board.shape[0] > 1 < board.shape[1] else 0)


# ------------------------------------------------------------------ budgets


def test_node_budget_stops_exactly():
    boards, _ = read_korf("korf100.txt")
    sol = fp.solve(boards[0], goal=KORF_GOAL, max_nodes=12345, method="ida")
    assert sol.status == "budget" and sol.nodes == 12345
    assert sol.moves == "" and not sol.solved
    h0 = fp.heuristics.linear_conflict(boards[0], goal=KORF_GOAL)
    assert h0 <= sol.lower_bound <= 57 and sol.lower_bound % 2 == 57 % 2  # the passes it finished: a proved bound
    many = fp.solve_many(boards[:3], goal=KORF_GOAL, max_nodes=12345, method="ida")
    assert many.lower_bounds[0] == sol.lower_bound and (many.lower_bounds <= [57, 55, 59]).all()
    # auto spends the same budget on the best answer it can give, and says what it proved
    best = fp.solve(boards[0], goal=KORF_GOAL, max_nodes=12345)
    assert best.solved and best.verify(boards[0], goal=KORF_GOAL) and best.method == "anytime"
    assert best.lower_bound <= 57 <= best.length  # instance 1's optimum
    assert best.status == ("optimal" if best.length == 57 else "bounded")


def test_time_budget_stops():
    boards, _ = read_korf("korf100.txt")
    # Instance 3 needs 566 M nodes with Manhattan; a few ms stop it long before.
    sol = fp.solve(boards[2], goal=KORF_GOAL, heuristic="manhattan", time_limit=0.005, method="ida")
    assert sol.status == "budget" and 0 < sol.nodes < 565994203
    res = fp.solve_many(boards[[2, 8]], goal=KORF_GOAL, heuristic="manhattan", time_limit=0.005, max_nodes=10**7,
                        method="ida")  # fmt: skip
    assert res.status[0] == "budget" and res.lengths[0] == -1 and res.moves[0] == ""


def test_time_limit_counts_from_the_call(monkeypatch):
    """Setting the search up (reading a database from disk) spends the time limit too: the search
    gets what is left, and still answers when nothing is."""
    import time

    from fastpuzzle.search import solve as solve_module

    make, run, handed = solve_module._make_search, solve_module._solve_one, []

    def slow_setup(*args, **kwargs):
        time.sleep(0.3)
        return make(*args, **kwargs)

    def record(*args):
        handed.append(args[6])
        return run(*args)

    monkeypatch.setattr(solve_module, "_make_search", slow_setup)
    monkeypatch.setattr(solve_module, "_solve_one", record)
    board = fp.random_solvable(5, 5, count=1, seed=3)[0]
    fp.solve(board, time_limit=2.0)
    sol = fp.solve(board, time_limit=0.2)
    assert handed[0] <= 1.7 and handed[1] == solve_module.MIN_SEARCH_SECONDS
    assert sol.verify(board) and sol.lower_bound <= sol.length


def test_24_puzzle_with_budget():
    rows = [r.split() for r in (DATA / "korf24_50.txt").read_text().splitlines() if r and not r.startswith("#")]
    board = np.array([int(v) for v in rows[0][:25]]).reshape(5, 5)
    sol = fp.solve(board, goal=np.arange(25).reshape(5, 5), method="ida", max_nodes=200_000)
    assert sol.status == "budget" and sol.nodes == 200_000
    rng = np.random.default_rng(3)
    easy = scramble(rng, 5, 5, 16)
    sol = fp.solve(easy, method="ida")
    assert sol.status == "optimal" and sol.verify(easy)
    assert sol.length == naive.distance(tuple(naive.cells_of(easy)), tuple(naive.cells_of(naive.goal(5, 5))), 5, 5)


# ------------------------------------------------------------------ errors and edge cases


def test_goal_board_gives_empty_solution():
    for m, n in [(2, 2), (3, 3), (4, 4), (1, 4)]:
        sol = fp.solve(fp.goal_board(m, n))
        assert sol.length == 0 and sol.moves == "" and sol.status == "optimal" and sol.nodes == 0
    goal = np.arange(9).reshape(3, 3)
    assert fp.solve(goal, goal=goal).length == 0


def test_unsolvable_raises_at_once():
    with pytest.raises(ValueError, match="cannot reach the goal"):
        fp.solve([[1, 2, 3], [4, 5, 6], [8, 7, 0]])
    with pytest.raises(ValueError, match="cannot reach the goal"):
        fp.solve([[2, 1, 0]])
    boards = np.stack([fp.goal_board(3, 3), np.array([[1, 2, 3], [4, 5, 6], [8, 7, 0]])])
    with pytest.raises(ValueError, match="board 1 cannot reach"):
        fp.solve_many(boards)


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(heuristic="euclid"), ValueError, "heuristic must be one of .*, got 'euclid'"),
        (dict(heuristic=3), TypeError, "heuristic must be one of"),
        (dict(method="bfs"), ValueError, "method must be one of .*, got 'bfs'"),
        (dict(max_nodes=0), ValueError, "max_nodes must be a whole number >= 1, got 0"),
        (dict(max_nodes=2.5), TypeError, "max_nodes must be a whole number >= 1"),
        (dict(max_nodes=True), TypeError, "max_nodes must be a whole number >= 1"),
        (dict(time_limit=-1), ValueError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(time_limit=float("nan")), ValueError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(time_limit="1s"), TypeError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(goal=np.arange(16).reshape(4, 4)), ValueError, "goal has shape 4x4"),
        (dict(goal=[[1, 1, 2], [3, 4, 5], [6, 7, 0]]), ValueError, "goal: board is not a permutation"),
        (dict(prune="none"), ValueError, "prune must be one of .*, got 'none'"),
        (dict(prune=10), TypeError, "prune must be one of"),
    ],
)
def test_bad_options(kwargs, exc, match):
    board = [[1, 2, 3], [4, 0, 6], [7, 5, 8]]
    with pytest.raises(exc, match=match):
        fp.solve(board, **kwargs)
    with pytest.raises(exc, match=match):
        fp.solve_many([board], **kwargs)


def test_prune_keeps_solutions_optimal_on_korf_instances():
    """The automaton prunes nodes, never the optimum: Korf's published lengths with both rules."""
    boards, lengths = read_korf("korf100.txt")
    for i in (8, 11, 1):
        undo = fp.solve(boards[i], goal=KORF_GOAL, prune="undo")
        auto = fp.solve(boards[i], goal=KORF_GOAL)
        assert undo.length == auto.length == lengths[i] and auto.verify(boards[i], goal=KORF_GOAL)
        assert auto.nodes < undo.nodes


def test_bad_boards():
    with pytest.raises(ValueError, match="use solve_many"):
        fp.solve(np.stack([fp.goal_board(2, 2)] * 2))
    with pytest.raises(ValueError, match="board: board is not a permutation"):
        fp.solve([[1, 2], [2, 0]])
    with pytest.raises(TypeError, match="must hold integers"):
        fp.solve(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="board 1 is not a permutation"):
        fp.solve_many([[[1, 2], [3, 0]], [[1, 1], [3, 0]]])
    with pytest.raises(ValueError, match="threads must be None or a whole number >= 1, got 0"):
        fp.solve_many([[[1, 2], [3, 0]]], threads=0)
    with pytest.raises(TypeError, match="threads must be None or a whole number >= 1"):
        fp.solve_many([[[1, 2], [3, 0]]], threads="2")


def test_dispatch_to_constructive_and_pdb(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    calls = []

    def fake_constructive(board, goal=None, count_only=False, time_limit=None):
        calls.append(("constructive", board.shape))
        return fp.Solution(np.array([2], np.uint8), status="found", method="constructive")

    monkeypatch.setattr(solve_mod, "solve_constructive", fake_constructive)
    board5 = np.arange(1, 26).reshape(5, 5) % 25
    board5[4, 3], board5[4, 4] = 0, 24
    auto = fp.solve(board5)  # auto: the anytime search beyond 16 cells, not the constructive solver
    assert auto.method == "anytime" and auto.status == "optimal" and auto.moves == "R" and auto.lower_bound == 1
    assert fp.solve(board5, method="ida").method == "ida"
    assert fp.solve(board5, method="constructive").method == "constructive"
    assert calls == [("constructive", (5, 5))]
    res = fp.solve_many(np.stack([board5, board5]), method="constructive")
    assert res.method == "constructive" and res.moves == ["R", "R"] and res.status.tolist() == ["found"] * 2
    # pattern databases run on the same engine: same method, same node counting, in solve and solve_many
    board3 = np.array([[1, 2, 3], [4, 5, 6], [7, 0, 8]])
    one = fp.solve(board3, heuristic="pdb")
    many = fp.solve_many(board3[None], heuristic="pdb")
    assert (one.method, one.heuristic, one.moves) == ("ida", "pdb:4-4", "R")
    assert (many.method, many.heuristic, many.moves, many.nodes.tolist()) == ("ida", "pdb:4-4", ["R"], [one.nodes])
    assert one.nodes == 1 + 1  # the root, then R first (tile 8 moves toward its goal cell): the goal


def test_solve_many_progress_bar(capsys, rng):
    boards = np.stack([solvable_board(rng, 3, 3) for _ in range(5)])
    fp.solve_many(boards, progress=True)
    assert "5/5" in capsys.readouterr().err


# ------------------------------------------------------------------ CLI


def run_cli(args, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    return cli_solve.main(args)


def test_cli_solves_and_prints(tmp_path, capsys):
    f = tmp_path / "b.txt"
    f.write_text("# two boards\n1 2 3 4 0 6 7 5 8\n\n1 2 3 4 5 6 7 8 0\n")
    assert cli_solve.main([str(f), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["2", "DR", "7"] and lines[0].split()[4] == "optimal"
    assert lines[1].split()[:3] == ["0", "-", "0"]


def test_cli_korf_goal_and_budget(tmp_path, capsys):
    boards, lengths = read_korf("korf100.txt")
    f = tmp_path / "k.txt"
    f.write_text(" ".join(map(str, boards[11].ravel())) + "\n")
    goal = " ".join(map(str, range(16)))
    assert cli_solve.main([str(f), "--goal", goal, "--heuristic", "manhattan", "--prune", "undo"]) == 0
    out = capsys.readouterr().out.split()
    assert int(out[0]) == lengths[11] and int(out[2]) == korf_nodes()[11]
    assert fp.apply_moves(boards[11], out[1]).ravel().tolist() == list(range(16))
    assert cli_solve.main([str(f), "--goal", goal, "--max-nodes", "100", "--method", "ida"]) == 0
    assert capsys.readouterr().out.split()[:3] == ["-1", "-", "100"]


def test_cli_stdin_and_shape(monkeypatch, capsys):
    assert run_cli(["-", "--shape", "2x3"], "1 2 3 4 0 5\n", monkeypatch) == 0
    assert capsys.readouterr().out.split()[:2] == ["1", "R"]


@pytest.mark.parametrize(
    "text,args,match",
    [
        ("1 2 3 4 0 x 7 5 8\n", [], "<stdin>: line 1, column 11: unexpected 'x'"),
        ("1 2 3\n", [], "3 numbers is not a square board"),
        ("1 2 3 4 0 6 7 5 8\n1 2 3 4\n", [], "<stdin>: line 2: 4 numbers, expected 9"),
        ("1 2 3 4 0 6 7 5 5\n", [], "<stdin>: line 1: board 0 is not a permutation"),
        ("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 8 7 0\n", [], "<stdin>: line 2: board 1 cannot reach the goal"),
        ("1 2 3 4 0 5\n", ["--shape", "2by3"], "argument --shape: .*'2by3'"),
        ("1 2 3 4 5 6 7 8 0\n", ["--max-nodes", "0"], "argument --max-nodes: expected a whole number >= 1"),
        ("1 2 3 4 5 6 7 8 0\n", ["--goal", "1 2 3"], "--goal '1 2 3': line 1: 3 numbers, expected 9"),
        ("# nothing\n", [], "no boards found"),
    ],
)
def test_cli_errors(text, args, match, monkeypatch, capsys):
    assert run_cli(["-", *args], text, monkeypatch) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    import re

    assert re.search(match, err)


def test_cli_missing_file(tmp_path, capsys):
    assert cli_solve.main([str(tmp_path / "nope.txt")]) == 2
    assert "cannot open: no such file" in capsys.readouterr().err


def test_cli_add_parser():
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    cli_solve.add_parser(sub)
    args = parser.parse_args(["solve", "-", "--heuristic", "manhattan", "--max-nodes", "5", "--time-limit", "1.5"])
    assert args.run is cli_solve.run and args.max_nodes == 5 and args.time_limit == 1.5


def test_ida_refuses_huge_boards():
    board = fp.goal_board(21, 20)
    board.ravel()[-2:] = board.ravel()[-2:][::-1].copy()  # blank one step left of its goal cell
    with pytest.raises(ValueError, match="at most 400 cells"):
        fp.solve(board, method="ida")
    with pytest.raises(ValueError, match="at most 400 cells"):
        fp.solve_many(board[None], method="ida")
    sol = fp.solve(fp.goal_board(20, 20)[::-1, ::-1].copy(), goal=fp.goal_board(20, 20)[::-1, ::-1].copy())
    assert sol.length == 0


@pytest.mark.slow
def test_large_board_ida_near_goal():
    goal = fp.goal_board(20, 20)
    board = fp.apply_moves(goal, "ULLURD")
    sol = fp.solve(board, method="ida")
    assert sol.status == "optimal" and sol.verify(board)
    assert sol.length == naive.distance(tuple(naive.cells_of(board)), tuple(naive.cells_of(goal)), 20, 20)
    hard = solvable_board(np.random.default_rng(5), 20, 20)
    sol = fp.solve(hard, method="ida", max_nodes=5000)
    assert sol.status == "budget" and sol.nodes == 5000


def test_cli_demo_lines(rng):
    boards = np.stack([scramble(rng, 4, 4, 20), scramble(rng, 4, 4, 20)])
    lines = cli_solve.demo_lines(boards, seed=3)
    assert len(lines) == 3 and "1,000 3x3 boards" in lines[0]
    assert all(line.startswith("solve") for line in lines) and "(optimal)" in lines[1]


def test_solution_refuses_bad_move_codes():
    with pytest.raises(ValueError, match="move 1 has code 7"):
        fp.Solution(np.array([0, 7], np.uint8))
    with pytest.raises(ValueError, match="move 0 has code -1"):
        fp.Solution(np.array([-1]))
    with pytest.raises(TypeError, match="move codes"):
        fp.Solution(np.array([0.5]))
    assert fp.Solution("ul").moves == "UL"


def test_verify_count_only_solution(rng):
    from fastpuzzle.search.constructive import solve_constructive

    for m, n in [(3, 3), (4, 5), (6, 6)]:
        board = solvable_board(rng, m, n)
        full = solve_constructive(board)
        counted = solve_constructive(board, count_only=True)
        assert full.verify(board) and counted.verify(board) and counted.length == full.length
        # a count of the wrong parity, or below the Manhattan distance, cannot be right
        odd = fp.Solution(np.zeros(0, np.uint8), status="found", move_count=counted.length + 1)
        short = fp.Solution(np.zeros(0, np.uint8), status="found", move_count=max(0, fp.heuristics.manhattan(board) - 2))
        assert not odd.verify(board)
        assert not short.verify(board) or fp.heuristics.manhattan(board) < 2
