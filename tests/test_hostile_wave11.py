"""Hostile inputs, eleventh pass: distances no 4x4 board has, random-goal curricula at exact
distances, unchecked flags and counts, sizes refused before a copy, values an unchecked picture
would wrap, budget shortfalls of hints, ragged move sequences."""

import warnings

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import steps
from fastpuzzle.distances import near
from fastpuzzle.env.curriculum import orbit_start
from fastpuzzle.errors import AllocationError, DistanceBudgetError, OptionError, OptionTypeError
from fastpuzzle.moves import board_symmetries
from fastpuzzle.pdb import build_partition, placement_count
from .hostile import tried


@pytest.mark.parametrize("distance", [81, (81, 90), 2**70])
def test_a_distance_past_the_4x4_radius_names_no_board(distance):
    tried("wave11", 1)
    with pytest.raises(OptionError, match="names no 4x4 board: distances run from 0 to 80"):
        fp.random_solvable(4, 4, seed=2, distance=distance)


def test_a_range_none_of_the_sample_holds_is_refused_after_the_first_solves(monkeypatch):
    tried("wave11", 1)
    from fastpuzzle.distances import sample

    solved = []

    def quick_distance(boards, **kw):  # solves in no time, never in range: time alone would not refuse
        solved.append(len(boards))
        return np.full(len(boards), 50, np.int64)

    monkeypatch.setattr(sample, "distance", quick_distance)
    with pytest.raises(OptionError, match=r"fewer than 1 in 10,00\d .* a rate too small to bound the time"):
        fp.random_solvable(4, 4, seed=2, distance=(29, 31))
    assert sum(solved) <= 1 + sample.PILOT_WITH_SAMPLE  # the database load, then the pilot: no minute of solving


@pytest.mark.parametrize("m, n", [(3, 3), (4, 4), (2, 7), (3, 5), (2, 3)])
def test_orbit_start_moves_the_blank_onto_every_cell(m, n):
    tried("wave11", 1)
    cells = np.arange(m * n).reshape(m, n)
    for cell in range(m * n):
        first, transform = orbit_start(m, n, cell)
        orbit = {int(f(cells).ravel()[cell]) for _, f, _ in board_symmetries(m, n)}
        assert first == min(orbit)
        board = np.insert(np.arange(1, m * n), first, 0).reshape(m, n)
        assert int(np.flatnonzero(transform(board).ravel() == 0)[0]) == cell


def test_random_goals_at_an_exact_distance_reuse_the_layers_of_each_orbit():
    tried("wave11", 1)
    from fastpuzzle.env import SlidingPuzzleVectorEnv

    near._CACHE.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = SlidingPuzzleVectorEnv(48, 4, 4, random_goal=True, curriculum={"distance": 9})
        obs, info = env.reset(seed=0)
        built = {id(layers) for layers in near._CACHE.values()}
        assert len(built) <= 3  # corner, edge and centre blanks of a 4x4
        obs2, info2 = env.reset(seed=1)
    assert {id(layers) for layers in near._CACHE.values()} == built  # no layer built again
    for boards, goals in ((obs, info["goal"]), (obs2, info2["goal"])):
        assert len(np.unique(np.argmax(goals.reshape(48, -1) == 0, axis=1))) > 3  # goals' blanks all over
        for board, goal in zip(boards[:12], goals[:12]):
            assert fp.solve(board, goal=goal, heuristic="linear_conflict").length == 9


def test_distance_table_ranks_take_whole_numbers_only():
    tried("wave11", 4)
    table = fp.distance_table(2, 3)
    assert len(table.boards_at(1)) == 2
    for bad in (1.5, "1", True, None):
        with pytest.raises(OptionTypeError, match="lo"):
            table.boards_at(bad)
    with pytest.raises(OptionTypeError, match="hi"):
        table.ranks_at(1, 2.0)


def test_flags_and_counts_of_the_database_builder_are_checked():
    tried("wave11", 6)
    for option, value in (("reflect", "no"), ("reflect", 1), ("parallel", "no"), ("progress", "")):
        with pytest.raises(OptionTypeError, match=option):
            build_partition((2, 3), [(1, 2)], **{option: value})
    with pytest.raises(OptionError, match="reflect"):  # refused before building
        build_partition((2, 3), [(1, 2)], reflect=True)
    for args in ((-1, 2), (3.5, 2), (10, -3), (4, 5), (True, 1)):
        with pytest.raises((OptionError, OptionTypeError)):
            placement_count(*args)
    assert placement_count(16, 7) == 57657600
    with pytest.raises(OptionTypeError, match="check"):
        fp.as_boards([[1, 2], [3, 0]], check=1)


def test_neighbours_refuse_their_output_size_before_copying_the_input(monkeypatch):
    tried("wave11", 1)

    def no_copy(*args, **kwargs):
        raise AssertionError("the input was copied before the size check")

    monkeypatch.setattr(steps, "_flat_batch", no_copy)
    with pytest.raises(AllocationError, match="successors of 1,000,000,000 boards"):
        fp.neighbours(np.broadcast_to(fp.goal_board(3, 3), (10**9, 3, 3)))


def test_messages_name_what_the_user_gave():
    tried("wave11", 4)
    with pytest.raises(OptionError) as caught:
        fp.labelled_boards(3, 3, -1)
    assert "None" not in str(caught.value)
    with pytest.raises(fp.BoardError, match="board 1 holds -1"):
        fp.draw(np.array([[[1, 2], [3, 0]], [[1, -1], [3, 0]]]), check=False)
    with pytest.raises(fp.BoardError, match="holds 300"):
        fp.draw(np.array([[1, 300], [3, 0]]), check=False)
    with pytest.raises(OptionTypeError, match="dtype"):
        fp.goal_board(3, 3, dtype="foo")


def test_a_multi_tile_hint_out_of_budget_blames_the_budget():
    tried("wave11", 1)
    board = fp.random_solvable(2, 7, seed=1)  # 14 cells: past the tables, solved by the search
    with pytest.raises(DistanceBudgetError) as caught:
        fp.hints(board, metric="mtm", max_nodes=10)
    assert list(caught.value.stopped) == [0] and "stopped='mark'" not in str(caught.value)


@pytest.mark.parametrize("name", ["encode_moves", "decode_moves", "invert", "simplify", "mirror", "transpose"])
def test_ragged_move_sequences_are_refused_by_name(name):
    tried("wave11", 1)
    with pytest.raises(OptionError, match="move codes must be an array of one shape"):
        getattr(fp, name)([[0], [1, 2]])
