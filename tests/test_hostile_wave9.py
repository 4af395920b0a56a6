"""Hostile inputs, ninth pass: budgets of the multi-tile search, of the beams and of the 5x5
distance, and walks longer than any run could take."""

import subprocess
import sys

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.generate.api import MAX_WALK
from fastpuzzle.search import beam
from .hostile import one_line_error, tried


def test_a_multi_tile_search_out_of_budget_still_answers():
    tried("wave9", 3)
    board = fp.random_solvable(5, 5, seed=1)
    for budget in ({"time_limit": 0.2}, {"max_nodes": 5}):
        sol = fp.solve(board, metric="mtm", **budget)
        assert sol.solved and sol.verify(board)
        assert sol.status == "bounded" and 0 < sol.lower_bound <= sol.length
        assert sol.length == fp.count_moves(sol.moves, metric="mtm")  # moves folded: R2 is one move
        assert sol.length < len(fp.encode_moves(sol.moves))  # some slides were folded
    # method="ida" asked for IDA* alone: a stopped search returns no moves, as documented
    assert fp.solve(board, metric="mtm", max_nodes=5, method="ida").status == "budget"


def test_a_multi_tile_batch_out_of_budget_still_answers():
    tried("wave9", 1)
    boards = fp.random_solvable(5, 5, count=3, seed=2)
    boards[1] = fp.goal_board(5, 5)
    result = fp.solve_many(boards, metric="mtm", max_nodes=5)
    assert result.status.tolist() == ["bounded", "optimal", "bounded"]  # as solve answers: with the search's bound
    for i in (0, 2):
        sol = result[i]
        assert sol.verify(boards[i]) and result.lengths[i] == sol.length > 0
        assert 0 < sol.lower_bound <= sol.length
    assert result.lengths[1] == 0


def test_distance_of_a_5x5_board_without_its_database_marks_or_raises_the_budget(monkeypatch, tmp_path):
    tried("wave9", 2)
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))  # no 6-6-6-6 database here
    board = fp.random_solvable(5, 5, seed=1)
    assert fp.distance(board, max_nodes=10, stopped="mark") == -1
    with pytest.raises(fp.DistanceBudgetError):
        fp.distance(board, max_nodes=10)


def test_beam_search_stops_at_its_node_budget():
    tried("wave9", 1)
    board = fp.scramble(8, 8, 30, seed=3).ravel()
    goal = fp.goal_board(8, 8).ravel()
    stats = np.zeros(1, np.int64)
    assert beam.beam_search(board, 8, 8, goal, 50, max_nodes=500, stats=stats) is None
    assert 500 - 4 * 50 < stats[0] <= 500  # it stops before the layer that would pass the budget
    codes = beam.beam_search(board, 8, 8, goal, 50, stats=stats)
    assert codes is not None and stats[0] >= 2 * len(codes)  # counted when no budget stops it


def test_a_node_budget_bounds_the_beams_of_a_large_board(monkeypatch):
    tried("wave9", 1)
    children = []
    real = beam.beam_search

    def counted(*args, **kwargs):
        codes = real(*args, **kwargs)
        children.append((kwargs["max_nodes"], int(kwargs["stats"][0])))
        return codes

    monkeypatch.setattr(beam, "beam_search", counted)
    board = fp.random_solvable(10, 10, seed=4)
    sol = fp.solve(board, max_nodes=20_000)
    assert sol.verify(board) and sol.lower_bound <= sol.length
    assert children and all(0 < cap and used <= cap for cap, used in children)
    assert sum(used for _, used in children) <= 20_000
    assert sol.nodes >= sum(used for _, used in children)  # the beams' children are in the count


def test_a_walk_longer_than_any_run_is_refused():
    tried("wave9", 2)
    with pytest.raises(fp.OptionError, match="moves"):
        fp.scramble(3, 3, MAX_WALK + 1, count=3)
    assert fp.scramble(3, 3, 0, count=2, seed=1).shape == (2, 3, 3)
    run = subprocess.run([sys.executable, "-m", "fastpuzzle", "generate", "--shape", "3x3", "--count", "3",
                          "--scramble", str(10**17), "--out", "-"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and one_line_error(run.stderr) and "moves" in run.stderr


def test_a_broadcast_view_too_big_to_copy_is_refused_before_any_pass():
    tried("wave9", 3)
    huge = np.broadcast_to(fp.goal_board(4, 4), (10**11, 4, 4))  # holds one board's memory
    for call in (fp.is_solvable, lambda b: fp.inversions(b, check=False), fp.neighbours):
        with pytest.raises(fp.AllocationError):
            call(huge)
    assert fp.is_solvable(np.broadcast_to(fp.goal_board(4, 4), (1000, 4, 4))).all()


def test_an_integer_past_64_bits_and_a_method_of_the_wrong_type_are_named():
    tried("wave9", 3)
    board = fp.goal_board(4, 4).astype(object)
    board[0, 0] = 2**70
    with pytest.raises(fp.BoardError, match="past 64 bits"):
        fp.is_solvable(board)
    for call in (fp.invariant, fp.inversions):
        with pytest.raises(fp.OptionTypeError, match="^method must be one of"):
            call(fp.goal_board(3, 3), method=["lanes"])
