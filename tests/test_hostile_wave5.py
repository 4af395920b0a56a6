"""Hostile inputs, fifth pass: one-line boards under the multi-tile metric, actions the kernel
could not take, refused resets, budgets and metrics checked in one place, and the command line's
outputs that could hang or be blamed on the wrong thing."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import atomic
from fastpuzzle.cli import main
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv
from tests import naive
from .hostile import one_line_error, tried


# ------------------------------------------------------------------ the API


@pytest.mark.parametrize("shape", [(1, 4), (1, 5), (5, 1), (1, 14)])
def test_one_line_boards_under_the_multi_tile_metric_are_one_slide_from_every_face(shape):
    tried("wave5", 4)
    m, n = shape
    goal = fp.goal_board(m, n)
    boards = fp.random_solvable(m, n, count=12, seed=3)
    at_goal = (boards == goal).all(axis=(1, 2))
    expected = np.where(at_goal, 0, 1)  # the blank slides straight home, one slide
    many = fp.solve_many(boards, metric="mtm")
    assert many.metric == "mtm" and (many.lengths == expected).all() and (many.lower_bounds == expected).all()
    for board, moves in zip(boards, many.moves):
        assert fp.count_moves(moves, metric="mtm") == (0 if (board == goal).all() else 1)
    assert (fp.distance(boards, metric="mtm") == expected).all()
    if m * n <= 12:
        assert (fp.distance(boards, metric="mtm", table=False) == expected).all()
    single = [fp.solve(b, metric="mtm") for b in boards]
    assert [s.length for s in single] == expected.tolist()
    assert all(s.verify(b) for s, b in zip(single, boards))
    assert [s.moves for s in single] == list(many.moves)
    # the single-tile metric still counts one move a cell
    stm = fp.solve_many(boards)
    assert stm.lengths.tolist() == [len(s.codes) for s in single]


def test_one_line_boards_against_breadth_first_search_in_both_metrics():
    tried("wave5", 2)
    goal = tuple(range(1, 5)) + (0,)
    bfs = naive.bfs_distances(goal, 1, 5)
    boards = np.array([b for b in bfs], np.uint8).reshape(-1, 1, 5)
    assert fp.solve_many(boards).lengths.tolist() == [bfs[tuple(b.ravel())] for b in boards]
    assert fp.solve_many(boards, metric="mtm").lengths.tolist() == [min(1, bfs[tuple(b.ravel())]) for b in boards]


@pytest.mark.parametrize("make", ["readonly", "big-endian", "big-endian int32"])
def test_vector_steps_take_read_only_and_big_endian_actions(make):
    tried("wave5")
    envs = [SlidingPuzzleVectorEnv(5, 3, 3) for _ in range(2)]
    for env in envs:
        env.reset(seed=4)
    actions = envs[0].sample_actions().copy()
    if make == "readonly":
        odd = actions.copy()
        odd.setflags(write=False)
    else:
        odd = actions.astype(">i8" if make == "big-endian" else ">i4")
    a = envs[0].step(actions)
    b = envs[1].step(odd)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all() and (a[4]["action_mask"] == b[4]["action_mask"]).all()
    with pytest.raises(fp.MoveError):
        envs[1].step(np.array([9, 0, 0, 0, 0], ">i8"))


def test_hints_budgets_go_through_the_one_options_home():
    tried("wave5", 4)
    board = fp.scramble(4, 4, 10, seed=1)
    assert fp.hints(board, max_nodes=2**63).distance == fp.hints(board).distance  # capped, as solve caps it
    with pytest.raises(TypeError, match="max_nodes"):
        fp.hints(board, max_nodes=1000.5)
    with pytest.raises(ValueError, match="time_limit"):
        fp.hints(board, time_limit=2**1100)
    with pytest.raises(ValueError, match="time_limit"):
        fp.hints(board, time_limit=float("inf"))


@pytest.mark.parametrize("make", [lambda: SlidingPuzzleEnv(3, 3, curriculum={"scramble": 1}),
                                  lambda: SlidingPuzzleVectorEnv(3, 3, 3, curriculum={"scramble": 1})])
def test_a_refused_reset_changes_nothing(make):
    tried("wave5", 2)
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="distance"):
        env.reset(options={"curriculum": {"distance": 40}})  # no 3x3 board is 40 moves away
    env.reset()  # the old curriculum still draws
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"curriculum": {"scramble": 50}, "typo": 1})
    assert env.options.curriculum.kind == "scramble" and env.options.curriculum.value == 1


def test_random_solvable_checks_its_metric_without_a_distance():
    tried("wave5", 3)
    with pytest.raises(ValueError, match="metric"):
        fp.random_solvable(2, 3, count=2, seed=1, metric="x")
    with pytest.raises(TypeError, match="metric"):
        fp.random_solvable(2, 3, count=2, seed=1, metric=None)
    assert fp.random_solvable(2, 3, count=2, seed=1, metric="mtm").shape == (2, 2, 3)


def test_a_reward_past_any_float_is_refused_by_name():
    tried("wave5")
    env = SlidingPuzzleVectorEnv(3, 3, 3, reward=lambda p, a, b, s: 10**400)
    env.reset(seed=0)
    with pytest.raises(fp.OptionError, match="reward function"):
        env.step(env.sample_actions())


def test_small_argument_gaps():
    tried("wave5", 4)
    assert fp.step_boards(np.zeros((0, 2, 2), np.uint8), []).shape == (0, 2, 2)  # no moves for no boards
    with pytest.raises(fp.OptionError, match="illegal"):
        fp.step_boards(fp.goal_board(2, 2), 2, illegal=np.array(["stay", "raise"]))
    with pytest.raises(ValueError, match="time_limit"):
        fp.labelled_boards(2, 2, 3, time_limit=float("inf"))  # checked where it is not used, too
    with pytest.raises(ValueError, match="time_limit"):
        fp.labelled_boards(2, 2, 3, time_limit=2**2000)


# ------------------------------------------------------------------ outputs


def test_an_output_fifo_nobody_reads_is_refused_not_waited_on_for_ever(tmp_path, monkeypatch, capsys):
    tried("wave5", 2)
    monkeypatch.setattr(atomic, "FIFO_READER_WAIT", 0.3)
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    assert main(["generate", "--shape", "2x2", "--count", "3", "--seed", "1", "--out", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and "FIFO" in err and str(fifo) in err
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    assert main(["generate", "--shape", "2x2", "--count", "3", "--seed", "1", "--out", str(fifo)]) == 0
    reader.join(10)
    assert len(got[0].split("\n")) >= 3


def test_an_error_raised_inside_an_output_keeps_its_own_name(tmp_path):
    tried("wave5", 2)
    out = tmp_path / "o.txt"
    with pytest.raises(TimeoutError) as caught:
        with atomic.AtomicOutput(out):
            raise TimeoutError("the scheduler did not answer")
    assert caught.value.filename is None and not out.exists() and os.listdir(tmp_path) == []
    with pytest.raises(OSError) as caught:
        with atomic.AtomicOutput(out):
            raise OSError(28, "No space left on device")  # ENOSPC: the write's, so the output's name
    assert caught.value.filename == str(out)


def _shell(command, **kw):
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120, **kw)


def test_help_and_version_whose_text_is_lost_do_not_exit_0():
    tried("wave5", 4)
    exe = f"{sys.executable} -m fastpuzzle"
    for command in (f"{exe} --help > /dev/full", f"{exe} check --help > /dev/full", f"{exe} --version >&-"):
        done = _shell(command)
        assert done.returncode == 2 and one_line_error(done.stderr) and "<stdout>" in done.stderr, command
    done = _shell(f"{exe} --help | head -c 5 > /dev/null; exit ${{PIPESTATUS[0]}}")
    assert done.returncode == 0 and done.stderr == ""  # a reader that went away: quiet, as every command


def test_write_errors_on_standard_output_name_it(tmp_path):
    tried("wave5", 2)
    board = tmp_path / "b.txt"
    board.write_text("1 2 3 0\n")
    exe = f"{sys.executable} -m fastpuzzle"
    done = _shell(f"{exe} check --shape 2x2 {board} > /dev/full")
    assert done.returncode == 2 and one_line_error(done.stderr) and "<stdout>" in done.stderr
    done = _shell(f"{exe} generate --shape 2x2 --count 3 --out /dev/stdout >&-")
    assert done.returncode == 2 and one_line_error(done.stderr) and "not open" in done.stderr
    assert "free on its disk" not in done.stderr


def test_empty_inputs_get_no_silent_empty_answer(tmp_path, capsys):
    tried("wave5", 3)
    empty = tmp_path / "z.npy"
    np.save(empty, np.zeros((0, 3, 3), np.uint8))
    out = tmp_path / "mask.npy"
    for argv in (["check", str(empty)], ["check", str(empty), "--out", str(out)]):
        assert main(argv) == 2
        assert "no boards" in capsys.readouterr().err
    assert not out.exists()
    # the judge format is a count of cases: none is an answer of no lines (the judge's own start-up
    # is timed that way), not an error
    judge = tmp_path / "j.txt"
    judge.write_text("  \n")
    assert main(["reach", "--judge", str(judge)]) == 0
    assert capsys.readouterr().out == ""


def test_a_bad_npy_version_is_said_once(tmp_path, capsys):
    tried("wave5")
    path = tmp_path / "v3.npy"
    path.write_bytes(b"\x93NUMPY\x03\x00" + b"\0" * 64)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("is not a valid .npy file") == 1 and "version 3.0" in err


def test_pdb_build_draws_no_bar_into_a_log(capsys):
    tried("wave5", 2)
    assert main(["pdb", "build", "4-4", "--force"]) == 0
    assert "\r" not in capsys.readouterr().err  # standard error is no terminal here
    assert main(["pdb", "build", "4-4", "--force", "--progress"]) == 0
    assert "\r" in capsys.readouterr().err


def test_a_zarr_store_whose_header_claims_huge_chunks_is_refused_before_reading(tmp_path):
    pytest.importorskip("zarr")
    from fastpuzzle import distributed

    tried("wave5")
    store = tmp_path / "e.zarr"
    store.mkdir()
    (store / ".zarray").write_text('{"zarr_format":2,"shape":[30000000,3,3],"chunks":[30000000,3,3],"dtype":"<i8",'
                                   '"compressor":null,"fill_value":0,"filters":null,"order":"C"}')
    with pytest.raises(fp.BoardFileError, match="chunks of 2,160,000,000 bytes"):
        distributed.from_zarr(store)


def test_a_gif_checks_the_memory_of_its_frames_first(monkeypatch):
    pytest.importorskip("PIL")
    from fastpuzzle import memory

    tried("wave5")
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 20)
    animation = fp.animate(fp.goal_board(3, 3), "LR" * 50)
    with pytest.raises(fp.AllocationError, match="GIF of 101 frames"):
        animation.save_gif(os.devnull)
