"""Hostile inputs, sixth pass: one error class for a board that cannot reach the goal whatever
the board's size, negative board indices in ``draw``, move strings with foreign digits, and seeds
and mirror axes refused by the package's own error classes."""

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.cli import main
from .hostile import one_line_error, tried

ODD_3X3 = np.array([[2, 1, 3], [4, 5, 6], [7, 8, 0]])  # one swap from the goal: the other half


@pytest.mark.parametrize("call", [
    lambda b: fp.distance(b), lambda b: fp.distance(b, metric="mtm"), lambda b: fp.hints(b),
    lambda b: fp.hints(b, metric="mtm"), lambda b: fp.count_optimal(b), lambda b: fp.optimal_solutions(b),
    lambda b: fp.distance_table(3, 3).lookup(b),
])  # fmt: skip
def test_a_small_board_that_cannot_reach_the_goal_is_an_unreachable_error(call):
    tried("wave6")
    with pytest.raises(fp.UnreachableError, match="^the board cannot reach the goal") as info:
        call(ODD_3X3)
    assert info.value.index is None  # one board given: no index, as for the solvers of larger boards


def test_a_batch_names_the_board_that_cannot_reach_the_goal():
    tried("wave6", 2)
    batch = np.stack([fp.goal_board(3, 3), ODD_3X3])
    for call in (fp.distance, fp.hints):
        with pytest.raises(fp.UnreachableError) as info:
            call(batch)
        assert info.value.index == 1


@pytest.mark.parametrize("index, want", [(-1, 2), (-3, 0), (1, 1)])
def test_draw_index_counts_from_the_end_when_negative(tmp_path, capsys, index, want):
    tried("wave6")
    boards = fp.random_solvable(2, 3, count=3, seed=4)
    path = tmp_path / "b.npy"
    np.save(path, boards)
    assert main(["draw", str(path), "--index", str(index), "--out", str(tmp_path / "one.svg")]) == 0
    assert main(["draw", fp.format_scramble(boards[want]), "--out", str(tmp_path / "want.svg")]) == 0
    assert (tmp_path / "one.svg").read_text() == (tmp_path / "want.svg").read_text()
    capsys.readouterr()


def test_draw_index_past_either_end_is_one_line(tmp_path, capsys):
    tried("wave6")
    path = tmp_path / "b.npy"
    np.save(path, fp.random_solvable(2, 3, count=3, seed=4))
    for index in ("3", "-4"):
        assert main(["draw", str(path), "--index", index]) == 2
        err = capsys.readouterr().err
        assert one_line_error(err) and "holds 3 boards" in err


@pytest.mark.parametrize("text", ["R\u0663", "R\uff11", "U\u0662L", "R" + "9" * 5000])
def test_repeat_counts_are_ascii_digits_of_a_sane_length(text):
    tried("wave6")
    with pytest.raises(fp.OptionError, match=r"move string character \d+ "):
        fp.encode_moves(text)


def test_ascii_repeat_counts_still_fold():
    tried("wave6")
    assert fp.encode_moves("R3 U2").tolist() == [2, 2, 2, 0, 0]


@pytest.mark.parametrize("axis", [["lr"], ("ud",), None, b"lr"])
def test_mirror_axis_of_another_type_is_an_option_type_error(axis):
    tried("wave6")
    with pytest.raises(fp.OptionTypeError, match="axis"):
        fp.mirror("ULD", axis=axis)


@pytest.mark.parametrize("seed, error", [(-1, fp.OptionError), (True, fp.OptionTypeError), (1.5, fp.OptionTypeError),
                                         ("a", fp.OptionTypeError), (np.bool_(False), fp.OptionTypeError)])  # fmt: skip
def test_random_legal_moves_refuses_bad_seeds(seed, error):
    tried("wave6")
    with pytest.raises(error, match="seed"):
        fp.random_legal_moves(fp.goal_board(2, 3), seed=seed)


@pytest.mark.parametrize("seed", [None, 3, np.int64(3), np.random.SeedSequence(3), np.random.default_rng(3)])
def test_random_legal_moves_takes_every_kind_of_seed(seed):
    tried("wave6")
    boards = fp.random_solvable(2, 3, count=50, seed=1)
    moves = fp.random_legal_moves(boards, seed=seed)
    assert fp.legal_moves(boards)[np.arange(50), moves].all()
