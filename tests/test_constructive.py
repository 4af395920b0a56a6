"""Constructive solver: the moves reach the goal on every shape, any goal."""

import os
from pathlib import Path

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.boards import goal_board
from fastpuzzle.moves import apply_codes, apply_moves, move_codes
from fastpuzzle.search.constructive import solve_constructive, write_solution
from fastpuzzle.search.solution import Solution
from fastpuzzle.solvability import is_solvable

from . import naive


def random_reachable(rng, goal):
    """A uniformly random board reachable from ``goal`` (m, n >= 2): random
    permutation, two tiles swapped when it lies in the other half.  Small
    boards use the plain-Python parity rule, large ones the core kernel."""
    m, n = goal.shape
    board = rng.permutation(m * n).reshape(m, n)
    if m * n <= 400:
        ok = naive.invariant(board.tolist()) == naive.invariant(goal.tolist())
    else:
        ok = is_solvable(board, goal=goal)
    if not ok:
        flat = board.ravel()
        i, j = np.flatnonzero(flat != 0)[:2]
        flat[i], flat[j] = flat[j], flat[i]
    return board


def reaches(board, goal, sol):
    m, n = board.shape
    cells = np.asarray(board).ravel().astype(np.int64)
    bad = apply_codes(cells, m, n, sol.codes)
    return bad == -1 and np.array_equal(cells, np.asarray(goal).ravel())


@pytest.mark.parametrize("m", range(2, 7))
@pytest.mark.parametrize("n", range(2, 7))
def test_every_small_shape(m, n, rng):
    goal = goal_board(m, n)
    for _ in range(40):
        board = random_reachable(rng, goal)
        sol = solve_constructive(board)
        assert sol.status == "found" and sol.method == "constructive"
        assert reaches(board, goal, sol)
    # the jitted applier agrees with the plain-Python one on these solutions
    assert naive.apply_moves(board.tolist(), sol.moves) == goal.tolist()


@pytest.mark.parametrize("m, n", [(2, 2), (2, 3), (3, 2)])
def test_every_state_of_tiny_boards(m, n):
    """Exhaustive: every board reachable from the goal is solved, never in
    fewer moves than its breadth-first distance."""
    goal = tuple(naive.cells_of(naive.goal(m, n)))
    dist = naive.bfs_distances(goal, m, n)
    for state, d in dist.items():
        board = np.array(state).reshape(m, n)
        sol = solve_constructive(board)
        assert reaches(board, goal_board(m, n), sol)
        assert sol.length >= d


def test_random_3x3_and_4x4_against_plain_apply(rng):
    for m, n in [(3, 3), (4, 4), (3, 5)]:
        goal = goal_board(m, n)
        for _ in range(30):
            board = random_reachable(rng, goal)
            sol = solve_constructive(board)
            assert naive.apply_moves(board.tolist(), sol.moves) == goal.tolist()


@pytest.mark.parametrize(
    "m, n",
    [(8, 13), (13, 8), (2, 50), (50, 2), (3, 41), (41, 3), (7, 7), (9, 16), (17, 10), (31, 30), (64, 65)],
)
@pytest.mark.slow
def test_wide_and_medium_boards(m, n, rng):
    goal = goal_board(m, n)
    for _ in range(3):
        board = random_reachable(rng, goal)
        sol = solve_constructive(board)
        assert reaches(board, goal, sol)


@pytest.mark.parametrize("m, n", [(100, 100), (120, 77), (77, 120), (300, 300), (301, 299), (150, 300)])
@pytest.mark.slow
def test_large_boards(m, n, rng):
    goal = goal_board(m, n)
    board = random_reachable(rng, goal)
    sol = solve_constructive(board)
    assert sol.verify(board)
    # quality: a few times the Manhattan lower bound, never below it
    md = naive.manhattan_grid(board.tolist(), goal.tolist())
    assert md <= sol.length < 5 * md


def test_custom_goals_blank_anywhere(rng):
    for m, n in [(2, 2), (2, 3), (3, 3), (3, 4), (4, 3), (5, 5), (2, 7), (6, 4), (12, 9)]:
        for _ in range(15):
            goal = rng.permutation(m * n).reshape(m, n)  # blank anywhere
            board = random_reachable(rng, goal)
            sol = solve_constructive(board, goal=goal)
            assert reaches(board, goal, sol)
            assert sol.verify(board, goal=goal)


def test_custom_goal_large(rng):
    goal = rng.permutation(150 * 110).reshape(150, 110)
    board = random_reachable(rng, goal)
    assert solve_constructive(board, goal=goal).verify(board, goal=goal)


def test_start_equal_goal_needs_no_move(rng):
    for m, n in [(2, 2), (4, 5), (1, 6)]:
        goal = rng.permutation(m * n).reshape(m, n)
        assert solve_constructive(goal, goal=goal).length == 0


@pytest.mark.parametrize("length", [2, 3, 9])
def test_one_row_and_one_column(length, rng):
    for _ in range(10):
        tiles = list(rng.permutation(np.arange(1, length)))
        g = tiles.copy()
        g.insert(int(rng.integers(length)), 0)
        s = tiles.copy()
        s.insert(int(rng.integers(length)), 0)
        for shape in [(1, length), (length, 1)]:
            goal = np.array(g).reshape(shape)
            board = np.array(s).reshape(shape)
            sol = solve_constructive(board, goal=goal)
            assert reaches(board, goal, sol)
            assert sol.length == abs(s.index(0) - g.index(0))
            assert naive.apply_moves(board.tolist(), sol.moves) == goal.tolist()
            assert solve_constructive(board, goal=goal, count_only=True).length == sol.length


def test_one_row_wrong_order_refused():
    with pytest.raises(ValueError, match="cannot reach"):
        solve_constructive([[2, 1, 0]])
    with pytest.raises(ValueError, match="cannot reach"):
        solve_constructive([[0], [2], [1]])


def test_unsolvable_refused(rng):
    for m, n in [(2, 2), (3, 3), (4, 4), (3, 6), (40, 30)]:
        goal = goal_board(m, n)
        board = random_reachable(rng, goal)
        flat = board.ravel()
        i, j = np.flatnonzero(flat != 0)[:2]
        flat[i], flat[j] = flat[j], flat[i]  # the other half of the state space
        with pytest.raises(ValueError, match="cannot reach"):
            solve_constructive(board)
        with pytest.raises(ValueError, match="cannot reach"):
            solve_constructive(board, count_only=True)


def test_bad_input_refused():
    with pytest.raises(ValueError, match="permutation"):
        solve_constructive([[1, 1], [2, 0]])
    with pytest.raises(ValueError, match="one board"):
        solve_constructive(np.stack([goal_board(2, 2)] * 2))
    with pytest.raises(ValueError, match="shape"):
        solve_constructive(goal_board(3, 3), goal=goal_board(3, 4))


def test_count_only_matches_codes(rng):
    for m, n in [(2, 2), (3, 3), (4, 7), (7, 4), (20, 20), (2, 30), (90, 60)]:
        goal = rng.permutation(m * n).reshape(m, n)
        board = random_reachable(rng, goal)
        full = solve_constructive(board, goal=goal)
        counted = solve_constructive(board, goal=goal, count_only=True)
        assert counted.codes.size == 0
        assert counted.move_count == counted.length == full.length == len(full.codes)
        assert full.move_count is None


def test_buffer_overflow_rerun_gives_same_moves(rng, monkeypatch):
    """A too-small first buffer (forced here) is detected and the run repeated
    with the exact size."""
    import fastpuzzle.search.constructive.solver as mod

    board = random_reachable(rng, goal_board(9, 11))
    full = solve_constructive(board)
    monkeypatch.setattr(mod, "CAPACITY_FACTOR", 0.0)
    again = solve_constructive(board)
    assert np.array_equal(full.codes, again.codes)
    assert again.verify(board)


def test_apply_codes_matches_plain_python(rng):
    for m, n in [(2, 2), (3, 4), (5, 2)]:
        for _ in range(50):
            board = rng.permutation(m * n).reshape(m, n)
            codes = rng.integers(0, 4, size=int(rng.integers(0, 40))).astype(np.uint8)
            try:
                expected = naive.apply_moves(board.tolist(), codes.tolist())
            except ValueError:
                expected = None
            cells = board.ravel().copy()
            bad = apply_codes(cells, m, n, codes)
            if expected is None:
                assert bad >= 0
                with pytest.raises(ValueError):
                    naive.apply_moves(board.tolist(), codes[: bad + 1].tolist())
                naive.apply_moves(board.tolist(), codes[:bad].tolist())
            else:
                assert bad == -1 and cells.reshape(m, n).tolist() == expected
                assert apply_moves(board, codes).tolist() == expected


def test_write_solution(tmp_path, rng):
    board = random_reachable(rng, goal_board(6, 9))
    sol = solve_constructive(board)
    path = tmp_path / "moves.txt"
    assert write_solution(sol, path, chunk=7) == sol.length
    text = path.read_text()
    assert text == sol.moves + "\n"
    assert np.array_equal(move_codes(text.strip()), sol.codes)
    with pytest.raises(ValueError, match="count"):
        write_solution(solve_constructive(board, count_only=True), tmp_path / "x.txt")


def test_solution_length_uses_move_count():
    s = Solution(np.empty(0, np.uint8), status="found", method="constructive", move_count=12)
    assert s.length == 12
    assert Solution(np.array([0, 3], np.uint8)).length == 2


def test_write_solution_to_stdout(capfdbinary):
    sol = Solution(np.array([3, 3, 2], np.uint8))
    assert write_solution(sol, "-") == 3
    assert capfdbinary.readouterr().out == b"DDR\n"


def test_move_budget(rng):
    board = random_reachable(rng, goal_board(40, 30))
    full = solve_constructive(board, count_only=True)
    stopped = solve_constructive(board, max_moves=full.length // 3)
    assert stopped.status == "budget" and not stopped.solved
    assert stopped.codes.size == 0 and stopped.nodes > full.length // 3
    assert solve_constructive(board, max_moves=full.length).status == "found"
    with pytest.raises(ValueError, match="max_moves"):
        solve_constructive(board, max_moves=-1)


@pytest.mark.slow
def test_cli_constructive_out_file_and_count_only(tmp_path):
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    boards = fp.random_solvable(12, 9, count=3, seed=4)
    np.save(tmp_path / "b.npy", boards)
    env = dict(os.environ, PYTHONPATH=str(root))
    run = lambda *a: subprocess.run([sys.executable, "-m", "fastpuzzle", "solve", *a, "--quiet"],  # noqa: E731
                                    cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    full = run("b.npy", "--method", "constructive", "--out", "sol.txt")
    assert full.returncode == 0, full.stderr
    lines = (tmp_path / "sol.txt").read_text().split("\n")
    for board, line in zip(boards, lines):
        length, moves = line.split()[:2]
        assert len(moves) == int(length)
        assert (fp.apply_moves(board, moves) == fp.goal_board(12, 9)).all()
    counted = run("b.npy", "--method", "constructive", "--count-only")
    assert counted.returncode == 0, counted.stderr
    assert [int(x.split()[0]) for x in counted.stdout.splitlines()] == [int(x.split()[0]) for x in lines[:3]]
    refused = run("b.npy", "--count-only")
    assert refused.returncode == 2 and "--count-only needs --method constructive" in refused.stderr
