"""Hostile inputs, tenth pass: the training environment's autoreset and reward refusals, ragged
options, a pair of outputs written together, folded move strings, pictures of unchecked boards
and codes, and the Dask twins' checks."""

import subprocess
import sys

import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import fastpuzzle as fp
import fastpuzzle.distributed as fd
from fastpuzzle import memory
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv
from fastpuzzle.notation import folded_count
from fastpuzzle.pictures import solution_svg
from .hostile import one_line_error, tried


def test_same_step_autoreset_reports_the_new_goals_beside_the_new_boards():
    tried("wave10", 1)
    env = SlidingPuzzleVectorEnv(64, 2, 2, random_goal=True, autoreset_mode="SameStep", curriculum={"scramble": 1})
    obs, info = env.reset(seed=0)
    succ, mask = fp.neighbours(obs)  # every board is one move from its goal: make that move
    act = ((succ == info["goal"][:, None]).all(axis=(2, 3)) & mask).argmax(axis=1)
    old_goals = info["goal"].copy()
    obs, _, term, _, info = env.step(act)
    assert term.all() and info["_final_info"].all()
    assert (info["final_obs"] == old_goals).all()  # each ended on its goal
    assert (info["final_info"]["goal"] == old_goals).all()
    # the goals now beside the new boards: each new board reaches its own goal
    assert fp.reachable(obs, info["goal"]).all()
    assert (info["goal"] == env._goals).all() and not (info["goal"] == old_goals).all()


def test_a_refused_reward_leaves_the_environment_needing_a_reset():
    tried("wave10", 2)

    def nan_reward(previous, actions, boards, solved):
        return np.full(len(actions), np.nan)

    env = SlidingPuzzleVectorEnv(4, 2, 3, reward=nan_reward)
    env.reset(seed=1)
    with pytest.raises(fp.OptionError):
        env.step_random()
    with pytest.raises(ResetNeeded):  # was: the next step went on from the moved boards
        env.step_random()
    env.reset(seed=1)
    single = SlidingPuzzleEnv(2, 3, reward=nan_reward)
    single.reset(seed=1)
    with pytest.raises(fp.OptionError):
        single.step(int(np.flatnonzero(single.action_masks())[0]))
    with pytest.raises(ResetNeeded):
        single.step(0)


def test_calls_before_the_first_reset_say_so():
    tried("wave10", 3)
    env = SlidingPuzzleVectorEnv(3, 2, 2)
    for call in (env.sample_actions, env.render):
        with pytest.raises(ResetNeeded):
            call()
    single = SlidingPuzzleEnv(2, 2)
    for call in (single.render, single.action_masks):
        with pytest.raises(ResetNeeded):
            call()


def test_ragged_options_are_refused_by_name():
    tried("wave10", 6)
    boards = fp.random_solvable(2, 3, count=2, seed=1)
    for call, name in ((lambda: fp.step_boards(boards, [[0], [1, 2]]), "moves"),
                       (lambda: fp.inverse_moves([[0], [1, 2]]), "moves")):
        with pytest.raises(fp.OptionError, match=name):
            call()
    env = SlidingPuzzleVectorEnv(2, 2, 3)
    env.reset(seed=0)
    with pytest.raises(fp.OptionError, match="actions"):
        env.step([[0], [1, 2]])
    with pytest.raises(fp.OptionError, match="reset_mask"):
        env.reset(options={"reset_mask": [[True], [False, True]]})
    with pytest.raises(fp.OptionError, match="autoreset_mode"):
        SlidingPuzzleVectorEnv(2, 2, 3, autoreset_mode=["NextStep"])
    masked = np.ma.masked_all(2)
    env = SlidingPuzzleVectorEnv(2, 2, 3, reward=lambda *a: masked)
    env.reset(seed=0)
    with pytest.raises(fp.OptionError, match="masked"):  # was: the hidden data read as rewards
        env.step_random()


def test_the_check_flag_of_the_batched_moves_is_checked():
    tried("wave10", 4)
    no_blank = np.full((2, 3), 7)
    for call in (fp.legal_moves, fp.neighbours, fp.random_legal_moves):
        for bad in (None, "no", 1):
            with pytest.raises(fp.OptionTypeError, match="check"):
                call(no_blank, check=bad)
    with pytest.raises(fp.OptionTypeError, match="check"):
        fp.step_boards(no_blank, [0], check=None)


def test_random_goals_are_counted_in_the_environments_memory(monkeypatch):
    tried("wave10", 1)
    monkeypatch.setattr(memory, "available_memory", lambda: 400 << 20)
    SlidingPuzzleVectorEnv(100_000, 16, 16)  # fits without goals of its own ...
    with pytest.raises(fp.AllocationError):  # ... not with a goal drawn for each board (about 1.5 GB)
        SlidingPuzzleVectorEnv(100_000, 16, 16, random_goal=True)


def _generate(*args, cwd):
    return subprocess.run([sys.executable, "-m", "fastpuzzle", "generate", *args], capture_output=True, text=True,
                          cwd=cwd)  # fmt: skip


def test_labels_and_boards_are_replaced_together_or_not_at_all(tmp_path):
    tried("wave10", 3)
    labels = tmp_path / "L.npy"
    out = _generate("--shape", "3x3", "--count", "5", "--seed", "1", "--out", "/dev/full", "--labels", str(labels),
                    cwd=tmp_path)  # fmt: skip
    assert out.returncode == 2 and one_line_error(out.stderr) and "/dev/full" in out.stderr
    assert not labels.exists()  # was: the labels of the failed run written
    out = _generate("--shape", "3x3", "--count", "5", "--out", "b.npy", "--labels", "-", cwd=tmp_path)
    assert out.returncode == 2 and one_line_error(out.stderr) and "standard output" in out.stderr
    assert out.stdout == "" and not (tmp_path / "b.npy").exists()
    out = _generate("--shape", "3x3", "--count", "5", "--seed", "2", "--out", "b.npy", "--labels", "L.npy",
                    cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    boards, d = np.load(tmp_path / "b.npy"), np.load(labels)
    assert (fp.distance(boards) == d).all()


def test_folded_move_strings_are_counted_before_they_are_written_out(monkeypatch):
    tried("wave10", 4)
    monkeypatch.setattr(memory, "available_memory", lambda: 100 << 20)  # 5e8 moves would not fit
    with pytest.raises(fp.OptionError, match="at most 5000 moves"):  # was: unfolded first (2 GB)
        fp.animate([[1, 2], [3, 0]], "U500000000")
    assert fp.count_moves("U5000000000", metric="mtm") == 1
    assert fp.count_moves("U5000000000 R2") == 5000000002
    assert fp.count_moves("U50R3R2d", metric="mtm") == fp.count_moves("U" * 50 + "RRRRRD", metric="mtm") == 3
    assert folded_count("R3 U") == 4 and folded_count([0, 1]) is None
    with pytest.raises(fp.OptionError, match="not a move"):
        fp.count_moves("R3X")


def test_pictures_refuse_unchecked_boards_and_bad_codes():
    tried("wave10", 6)
    for board in ([[1, 2], [3, 9]], np.array([[1, 2], [3, -1]])):
        with pytest.raises(fp.BoardError, match="outside 0..3"):  # was: IndexError
            fp.draw(board, check=False)
    with pytest.raises(fp.MoveError):
        solution_svg([5])
    with pytest.raises(fp.OptionTypeError):
        solution_svg("UR")
    with pytest.raises(fp.OptionTypeError):
        solution_svg(np.zeros((2, 2), int))

    class Codes:
        codes = np.array([5, 5], np.uint8)

    with pytest.raises(fp.MoveError, match="has code 5"):  # was: "move 0 is illegal"
        fp.animate([[1, 2], [0, 3]], Codes())
    Codes.codes = [0]  # a list of codes, as legal as an array (was: a compile error)
    assert fp.animate([[1, 2], [3, 0]], Codes()).boards.shape[0] == 2


def test_dask_twins_check_as_the_local_functions_do():
    tried("wave10", 7)
    x = fp.random_solvable(3, 3, count=4, seed=1)
    for b, error, name in (([[1, 1, 2], [3, 4, 5], [6, 7, 0]], fp.BoardError, "b:"),
                           (fp.goal_board(2, 2), fp.ShapeError, "different shapes"),
                           (None, fp.OptionTypeError, "b")):
        with pytest.raises(error, match=name):
            fp.reachable(x, b)
        with pytest.raises(error, match=name):
            fd.reachable(x, b)
    objects = x.astype(object)
    assert fd.is_solvable(objects).compute().tolist() == fp.is_solvable(objects).tolist()
    # refused before any task (no cluster needed), as the local function refuses them
    for kw in (dict(metric="mtm", method="constructive"), dict(method="constructive", max_nodes=10)):
        with pytest.raises(fp.OptionError):
            fp.solve_many(x, **kw)
        with pytest.raises(fp.OptionError):
            fd.solve_many(x, client=None, **kw)
    empty = np.zeros((0, 4, 4), np.uint8)
    local, remote = fp.solve_many(empty, heuristic="pdb"), fd.solve_many(empty, heuristic="pdb")
    assert (remote.method, remote.heuristic) == (local.method, local.heuristic)


@pytest.mark.slow
def test_a_refused_dask_solve_leaves_the_next_call_whole(dask_client):
    tried("wave10", 1)
    boards = fp.random_solvable(3, 3, count=6, seed=1)
    want = fp.solve_many(boards).lengths.tolist()
    for _ in range(3):
        with pytest.raises(fp.OptionError):
            fd.solve_many(boards, client=dask_client, database="8-7")
        assert fd.solve_many(boards, client=dask_client).lengths.tolist() == want


def test_pictures_are_bounded_before_any_text_is_written():
    tried("wave10", 2)
    with pytest.raises(fp.ShapeError, match="at most 1,000,000"):  # was 4,000,000: about 1 GB of SVG
        fp.draw(np.zeros((2, 1000, 1000), np.int64), check=False)
    with pytest.raises(fp.ShapeError, match="with numbers draws at most 250,000"):
        fp.draw(fp.random_solvable(600, 600, seed=1), numbers=True)
