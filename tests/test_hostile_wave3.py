"""Hostile inputs to the public names other checks call: refusals that name the problem, answers that verify."""

import math

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv
from .hostile import tried

G23 = fp.goal_board(2, 3)
BLANK_FIRST = np.array([[0, 1, 2], [3, 4, 5]])


def test_vector_env_refuses_a_huge_batch_before_allocating():
    tried("wave3")
    with pytest.raises(fp.AllocationError, match="environments of 2x3 boards"):
        SlidingPuzzleVectorEnv(10**12, 2, 3)


@pytest.mark.parametrize("num_envs", [0, -1, True, 1.5, "2"])
def test_vector_env_refuses_bad_counts(num_envs):
    tried("wave3")
    with pytest.raises((fp.OptionError, fp.OptionTypeError), match="num_envs"):
        SlidingPuzzleVectorEnv(num_envs, 2, 3)


@pytest.mark.parametrize("goal", [None, BLANK_FIRST, np.array([[1, 2, 3], [4, 0, 5]])])
def test_hints_agree_with_the_bfs_table(goal):
    tried("wave3", 8)
    table = fp.distance_table(2, 3, goal=goal)
    boards, labels = fp.labelled_boards(2, 3, 8, seed=1, goal=goal)
    assert (table.lookup(boards) == labels).all()
    for board in boards:
        hint = fp.hints(board, goal=goal)
        assert hint.distance == table.lookup(board)
        if hint.moves:
            after = fp.apply_moves(board, hint.moves[0])
            assert table.lookup(after) == hint.distance - 1


@pytest.mark.parametrize("metric", [None, "x", 1, True])
def test_hints_and_tables_refuse_bad_metrics(metric):
    tried("wave3", 2)
    with pytest.raises((fp.OptionError, fp.OptionTypeError), match="metric"):
        fp.hints(G23, metric=metric)
    with pytest.raises((fp.OptionError, fp.OptionTypeError), match="metric"):
        fp.distance_table(2, 3, metric=metric)


@pytest.mark.parametrize("text", ["R0", "R-1", "Ü", "R//L", "R,L", "U2'", "１", "R\x00"])
def test_malformed_move_strings_are_refused(text):
    tried("wave3")
    with pytest.raises(ValueError, match="move"):
        fp.encode_moves(text)


def test_a_huge_folded_count_is_refused_before_allocating():
    tried("wave3")
    with pytest.raises(fp.AllocationError):
        fp.encode_moves("R99999999999")


@pytest.mark.parametrize("codes", [[0, 0, 0, 1, 2, 2, 3], [], [3]])
@pytest.mark.parametrize("fold", [True, False])
def test_decode_encode_round_trip(codes, fold):
    tried("wave3")
    text = fp.decode_moves(codes, fold=fold)
    assert fp.encode_moves(text).tolist() == codes


@pytest.mark.parametrize("shape", [(1, 5), (5, 1), (2, 2), (2, 5), (4, 7), (6, 9)])
def test_scramble_round_trip(shape):
    tried("wave3")
    board = fp.random_solvable(*shape, seed=3)
    assert (fp.parse_scramble(fp.format_scramble(board)) == board).all()


@pytest.mark.parametrize("text", ["1 2 3/4 5", "1 2 3//4 5 0", "1 1 3/4 5 0", "", "1 2/3 x", "1 2 3/4 5 99"])
def test_malformed_scrambles_are_refused(text):
    tried("wave3")
    with pytest.raises(fp.BoardFileError):
        fp.parse_scramble(text)


@pytest.mark.parametrize("board", [np.array([[4, 1, 2], [5, 0, 3]]), np.array([[8, 7, 6], [5, 4, 3], [2, 1, 0]])])
@pytest.mark.parametrize("goal", [None, "blank-first"])
def test_solutions_replay_to_the_goal(board, goal):
    tried("wave3")
    target = fp.goal_board(*board.shape) if goal is None else np.arange(board.size).reshape(board.shape)
    if not fp.is_solvable(board, goal=target):
        with pytest.raises(fp.UnreachableError):
            fp.solve(board, goal=target)
        return
    solution = fp.solve(board, goal=target)
    assert solution.lower_bound <= solution.length
    assert (fp.apply_moves(board, solution.moves) == target).all()


@pytest.mark.parametrize("max_nodes", [0, -1, True, 1.5, math.nan])
def test_solve_refuses_bad_budgets(max_nodes):
    tried("wave3")
    with pytest.raises((fp.OptionError, fp.OptionTypeError), match="max_nodes"):
        fp.solve(G23, max_nodes=max_nodes)


def test_single_env_with_numpy_sizes():
    tried("wave3")
    board, info = SlidingPuzzleEnv(np.int64(2), np.int32(3)).reset(seed=0)
    assert board.shape == (2, 3) and fp.is_solvable(board)


def test_envs_refuse_a_step_before_reset_and_unknown_options():
    from gymnasium.error import ResetNeeded

    from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv

    with pytest.raises(ResetNeeded):
        SlidingPuzzleEnv(2, 3).step(0)
    vec = SlidingPuzzleVectorEnv(4, 2, 3)
    with pytest.raises(ResetNeeded):
        vec.step(np.zeros(4, np.int64))
    with pytest.raises(ResetNeeded):
        vec.step_random()
    vec.reset(seed=1)
    assert vec.step_random()[0].shape == (4, 2, 3)
    for make in (lambda: SlidingPuzzleEnv(2, 3, nope=1), lambda: SlidingPuzzleVectorEnv(2, 2, 3, nope=1)):
        with pytest.raises(fp.OptionTypeError) as info:
            make()
        assert info.value.option == "nope"
