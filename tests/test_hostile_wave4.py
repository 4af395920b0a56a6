"""Hostile inputs, fourth pass: reward functions that return NaN, still pictures under a .gif name,
and sampling and animation options refused by the package's own error classes."""

import math

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.cli import main
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv
from .hostile import one_line_error, tried

G23 = fp.goal_board(2, 3)


def _nan(previous, actions, boards, solved):
    return np.full(len(actions), np.nan)


def _none(previous, actions, boards, solved):
    return None  # a function that forgot to return: NumPy reads it as NaN


def _too_many(previous, actions, boards, solved):
    return np.zeros(len(actions) + 1)


@pytest.mark.parametrize("reward", [_nan, _none, _too_many])
def test_a_reward_function_returning_nan_or_the_wrong_length_is_refused(reward):
    tried("wave4", 2)
    single = SlidingPuzzleEnv(2, 3, reward=reward)
    _, info = single.reset(seed=1)
    with pytest.raises(fp.OptionError, match="reward function must return"):
        single.step(int(np.flatnonzero(info["action_mask"])[0]))
    vector = SlidingPuzzleVectorEnv(3, 2, 3, reward=reward)
    vector.reset(seed=1)
    with pytest.raises(fp.OptionError, match="reward function must return"):
        vector.step(vector.sample_actions())


def test_a_finite_reward_function_still_gives_its_values():
    tried("wave4")
    vector = SlidingPuzzleVectorEnv(3, 2, 3, reward=lambda p, a, b, s: np.arange(len(a)) - 0.5)
    vector.reset(seed=1)
    _, rewards, *_ = vector.step(vector.sample_actions())
    assert rewards.tolist() == [-0.5, 0.5, 1.5]
    single = SlidingPuzzleEnv(2, 3, reward=lambda p, a, b, s: 2.5)
    _, info = single.reset(seed=1)
    assert single.step(int(np.flatnonzero(info["action_mask"])[0]))[1] == 2.5


def test_a_still_picture_is_not_written_under_a_gif_name(tmp_path, capsys):
    tried("wave4", 2)
    out = tmp_path / "picture.gif"
    assert main(["draw", "1 2 3/4 0 5", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and "--moves" in err and not out.exists()
    out.write_bytes(b"GIF89a keep")  # an existing file stays as it was
    assert main(["draw", "1 2 3/4 0 5", "--out", str(out)]) == 2
    assert out.read_bytes() == b"GIF89a keep"
    capsys.readouterr()


@pytest.mark.parametrize(
    "distance, error, fragment",
    [
        (-1, fp.OptionError, "0 <= lo <= hi"),
        ((3, 1), fp.OptionError, "0 <= lo <= hi"),
        (22, fp.OptionError, "distances run from 0 to 21"),
        ((25, 30), fp.OptionError, "distances run from 0 to 21"),
        (True, fp.OptionTypeError, "distance must be"),
        (1.5, fp.OptionTypeError, "distance must be"),
        ((1, 2.0), fp.OptionTypeError, "two ints"),
    ],
)
def test_labelled_and_random_boards_refuse_bad_distances_as_option_errors(distance, error, fragment):
    tried("wave4", 2)
    with pytest.raises(error, match=fragment.replace("(", r"\(")):
        fp.labelled_boards(2, 3, 4, distance=distance, seed=1)
    with pytest.raises(error):
        fp.random_solvable(2, 3, count=4, distance=distance, seed=1)


@pytest.mark.parametrize("seed", [1.5, "a", True, b"1"])
def test_bad_seed_types_are_option_type_errors(seed):
    tried("wave4")
    with pytest.raises(fp.OptionTypeError, match="seed"):
        fp.labelled_boards(2, 3, 2, seed=seed)


@pytest.mark.parametrize("value, error", [(0, fp.OptionError), (-1, fp.OptionError), (math.nan, fp.OptionError),
                                          (math.inf, fp.OptionError), (True, fp.OptionTypeError),
                                          ("1", fp.OptionTypeError)])  # fmt: skip
def test_animation_speed_is_an_option_error(value, error):
    tried("wave4")
    with pytest.raises(error, match="seconds_per_move"):
        fp.animate(G23, "U", seconds_per_move=value)
