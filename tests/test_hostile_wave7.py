"""Hostile inputs, seventh pass: command-line outputs that name an input (through any link), and
the environments' options, reset arguments and reward functions checked by the package's own
rules; ``board_dtype`` refuses cell counts that name no board."""

import os

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.cli import main
from .hostile import one_line_error, tried

pytest.importorskip("gymnasium")
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv  # noqa: E402

BOARDS = "1 2 3 4 5 6 7 0 8\n1 2 3 4 5 6 0 7 8\n"
GOAL = "1 2 3 4 5 6 7 8 0\n"


def _files(tmp_path):
    (tmp_path / "b.txt").write_text(BOARDS)
    (tmp_path / "g.txt").write_text(GOAL)
    os.link(tmp_path / "b.txt", tmp_path / "hard.txt")
    os.symlink(tmp_path / "b.txt", tmp_path / "soft.txt")
    os.link(tmp_path / "g.txt", tmp_path / "ghard.txt")
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["check", "b.txt", "--out", "hard.txt"],
    ["check", "b.txt", "--out", "./soft.txt"],
    ["check", "b.txt", "--goal", "g.txt", "--out", "ghard.txt"],
    ["solve", "b.txt", "--out", "soft.txt"],
    ["solve", "b.txt", "--out", "hard.txt"],
    ["solve", "b.txt", "--goal", "g.txt", "--out", "ghard.txt"],
    ["draw", "b.txt", "--out", "./b.txt"],
    ["draw", "b.txt", "--goal", "g.txt", "--out", "ghard.txt"],
    ["distances", "3x3", "--goal", "g.txt", "--out", "ghard.txt"],
    ["generate", "--shape", "3x3", "--count", "2", "--goal", "g.txt", "--out", "ghard.txt"],
    ["generate", "--shape", "3x3", "--count", "2", "--goal", "g.txt", "--out", "y.npy", "--labels", "ghard.txt"],
])  # fmt: skip
def test_an_output_never_overwrites_an_input(tmp_path, monkeypatch, capsys, argv):
    tried("wave7")
    monkeypatch.chdir(_files(tmp_path))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and "is also the input" in err, err
    assert (tmp_path / "b.txt").read_text() == BOARDS and (tmp_path / "g.txt").read_text() == GOAL


def test_labels_never_overwrite_the_boards_through_a_link(tmp_path, monkeypatch, capsys):
    tried("wave7")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.npy").write_bytes(b"")
    os.symlink(tmp_path / "x.npy", tmp_path / "link.npy")
    assert main(["generate", "--shape", "2x3", "--count", "3", "--out", "x.npy", "--labels", "link.npy"]) == 2
    assert "overwrite the boards" in capsys.readouterr().err


def test_an_output_beside_its_input_is_still_written(tmp_path, monkeypatch, capsys):
    tried("wave7")
    monkeypatch.chdir(_files(tmp_path))
    assert main(["solve", "b.txt", "--out", "solved.txt"]) == 0
    assert len((tmp_path / "solved.txt").read_text().splitlines()) == 2
    assert (tmp_path / "b.txt").read_text() == BOARDS


@pytest.mark.parametrize("seed, error", [(True, fp.OptionTypeError), (-1, fp.OptionError), ("x", fp.OptionTypeError),
                                         (1.5, fp.OptionTypeError)])  # fmt: skip
@pytest.mark.parametrize("make", [lambda: SlidingPuzzleEnv(3, 3), lambda: SlidingPuzzleVectorEnv(3, 3, 3)])
def test_reset_seeds_are_checked_by_the_package(make, seed, error):
    tried("wave7")
    with pytest.raises(error, match="seed"):
        make().reset(seed=seed)


@pytest.mark.parametrize("make", [lambda: SlidingPuzzleEnv(3, 3), lambda: SlidingPuzzleVectorEnv(3, 3, 3)])
def test_a_numpy_seed_resets_as_the_same_int(make):
    tried("wave7")
    a, _ = make().reset(seed=np.int64(11))
    b, _ = make().reset(seed=11)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("make", [lambda: SlidingPuzzleEnv(3, 3), lambda: SlidingPuzzleVectorEnv(3, 3, 3)])
def test_reset_options_must_be_a_mapping(make):
    tried("wave7")
    with pytest.raises(fp.OptionTypeError, match="options"):
        make().reset(seed=0, options=[("curriculum", "uniform")])


@pytest.mark.parametrize("options, error", [
    ({"max_steps": 2**70}, fp.OptionError), ({"max_steps": 0}, fp.OptionError), ({"max_steps": 2.0}, fp.OptionTypeError),
    ({"copy": 1}, fp.OptionTypeError), ({"random_goal": "yes"}, fp.OptionTypeError),
    ({"curriculum": {"scramble": 10**9}}, fp.OptionError), ({"curriculum": {"scramble": 2.5}}, fp.OptionTypeError),
])  # fmt: skip
def test_environment_options_are_checked_once(options, error):
    tried("wave7")
    for make in (lambda: SlidingPuzzleEnv(3, 3, **options), lambda: SlidingPuzzleVectorEnv(2, 3, 3, **options)):
        with pytest.raises(error):
            make()


def test_whole_numbers_of_any_integer_type_are_taken():
    tried("wave7")
    env = SlidingPuzzleVectorEnv(2, 2, 3, max_steps=np.int8(1), curriculum={"scramble": np.uint16(3)})
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step(env.sample_actions())
    assert (terminated | truncated).all()  # one step reached the limit of one


def test_the_first_reset_draws_every_board_whatever_the_mask():
    tried("wave7")
    env = SlidingPuzzleVectorEnv(4, 3, 3, autoreset_mode="Disabled")
    obs, info = env.reset(seed=1, options={"reset_mask": np.array([True, False, False, False])})
    for board in obs:
        assert sorted(board.ravel().tolist()) == list(range(9))  # a board, not zeros
    assert info["action_mask"].any(axis=1).all()
    with pytest.raises(fp.OptionError, match="reset_mask"):  # the mask is still checked
        SlidingPuzzleVectorEnv(4, 3, 3).reset(options={"reset_mask": np.ones(3, bool)})


@pytest.mark.parametrize("value", ["1", b"1", 1j, np.array(["1"] * 3), [1, "x", 2]])
def test_reward_functions_must_return_real_numbers(value):
    tried("wave7")
    vec = SlidingPuzzleVectorEnv(3, 3, 3, reward=lambda *args: value)
    vec.reset(seed=0)
    with pytest.raises(fp.OptionTypeError, match="real numbers"):
        vec.step(vec.sample_actions())
    single = SlidingPuzzleEnv(3, 3, reward=lambda *args: value if np.size(value) == 1 else value[1:2])
    single.reset(seed=0)
    with pytest.raises(fp.OptionTypeError, match="real numbers"):
        single.step(int(np.flatnonzero(single.action_masks())[0]))


def test_a_boolean_reward_reads_as_one_and_zero():
    tried("wave7")
    vec = SlidingPuzzleVectorEnv(3, 3, 3, reward=lambda prev, actions, boards, solved: solved)
    vec.reset(seed=0)
    _, rewards, terminated, _, _ = vec.step(vec.sample_actions())
    assert rewards.tolist() == terminated.astype(float).tolist()


@pytest.mark.parametrize("cells, error", [(0, fp.OptionError), (-5, fp.OptionError), (1.5, fp.OptionTypeError),
                                          (True, fp.OptionTypeError), ("9", fp.OptionTypeError),
                                          (2**70, fp.OptionError)])  # fmt: skip
def test_board_dtype_refuses_what_names_no_board(cells, error):
    tried("wave7")
    with pytest.raises(error, match="n_cells"):
        fp.board_dtype(cells)


def test_board_dtype_widths():
    assert [fp.board_dtype(c).itemsize for c in (1, 256, 257, 1 << 16, (1 << 16) + 1, 1 << 32, (1 << 32) + 1)] == \
        [1, 1, 2, 2, 4, 4, 8]


def test_a_device_is_written_through_even_when_it_is_also_read():
    tried("wave7")
    from fastpuzzle.cli.common import refuse_overwrite

    if os.path.exists("/dev/null"):
        refuse_overwrite("--out", "/dev/null", "/dev/null")  # one device, read and written: nothing destroyed
