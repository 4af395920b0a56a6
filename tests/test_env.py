"""The Gymnasium environments: the checker, steps against the move model, autoreset, seeding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import fastpuzzle as fp
from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv
from gymnasium.utils.env_checker import check_env


@pytest.mark.parametrize("options", [
    dict(), dict(reward="sparse", curriculum={"distance": (1, 5)}), dict(reward="manhattan", random_goal=True),
    dict(reward="distance", curriculum={"scramble": 4}),
])
def test_gymnasium_checker(options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec" warnings about render modes
        check_env(SlidingPuzzleEnv(2, 3, **options), skip_render_check=True)


@pytest.mark.slow
def test_vector_steps_match_the_move_model_and_the_single_env():
    vec = SlidingPuzzleVectorEnv(64, 3, 4, reward="manhattan", max_steps=None)
    obs, info = vec.reset(seed=1)
    goal = fp.goal_board(3, 4)
    h = fp.heuristics.manhattan(obs)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = rng.integers(0, 4, 64)
        legal = info["action_mask"][np.arange(64), actions]
        assert (info["action_mask"] == fp.legal_moves(obs)).all()
        want = fp.step_boards(obs, actions, illegal="stay")
        obs2, reward, term, trunc, info = vec.step(actions)
        assert (obs2 == want).all() and (info["illegal"] == ~legal).all()
        h2 = fp.heuristics.manhattan(obs2)
        assert (reward == h - h2).all()
        assert (term == (obs2 == goal).all(axis=(1, 2))).all() and not trunc.any()
        obs, h = obs2, h2


def test_single_env_follows_the_same_rule():
    env = SlidingPuzzleEnv(3, 3, reward="step", max_steps=7)
    board, info = env.reset(seed=2)
    rng = np.random.default_rng(1)
    for t in range(7):
        a = int(rng.integers(0, 4))
        assert (info["action_mask"] == fp.legal_moves(board)).all()
        want = fp.step_boards(board, a, illegal="stay")
        legal = bool(fp.legal_moves(board)[a])
        board, reward, term, trunc, info = env.step(a)
        assert (board == want).all() and reward == -1.0 and info["illegal"] == (not legal)
        assert trunc == (t == 6 and not term)
    with pytest.raises(ValueError):
        env.step(4)
    strict = SlidingPuzzleEnv(2, 2, illegal="raise")
    _, info = strict.reset(seed=0)
    with pytest.raises(ValueError, match="off the"):
        strict.step(int(np.flatnonzero(~info["action_mask"])[0]))  # a 2x2 blank always has two moves off


def test_distance_reward_and_termination():
    env = SlidingPuzzleVectorEnv(20, 2, 3, reward="distance", curriculum={"distance": 3})
    obs, info = env.reset(seed=4)
    assert (env.distances == 3).all() and (fp.distance(obs) == 3).all()
    total = np.zeros(20)
    for _ in range(3):  # a greedy step on the table reaches the goal in three moves
        succ, mask = fp.neighbours(obs)
        d = np.where(mask, fp.distance(succ.reshape(-1, 2, 3)).reshape(20, 4), 99)
        obs, reward, term, trunc, info = env.step(d.argmin(axis=1))
        total += reward
    assert term.all() and (total == 3).all()


def test_next_step_autoreset():
    env = SlidingPuzzleVectorEnv(8, 2, 2, curriculum={"scramble": 1}, reward="sparse")
    obs, info = env.reset(seed=5)
    undo = np.array([[3, 2, 1, 0][int(np.flatnonzero(info["action_mask"][b] & (fp.step_boards(
        np.repeat(obs[b:b + 1], 4, 0), np.arange(4), illegal="stay") == fp.goal_board(2, 2)).all(axis=(1, 2)))[0])]
        for b in range(8)])
    solve = 3 - undo
    obs, reward, term, trunc, info = env.step(solve)
    assert term.all() and (reward == 1).all() and (obs == fp.goal_board(2, 2)).all()
    obs, reward, term, trunc, info = env.step(np.zeros(8, np.int64))  # ignored: the boards reset
    assert not term.any() and (reward == 0).all()
    assert (fp.distance(obs) == 1).all()


def test_same_step_autoreset_and_truncation():
    env = SlidingPuzzleVectorEnv(5, 3, 3, max_steps=2, autoreset_mode="SameStep")
    env.reset(seed=6)
    env.step(env.sample_actions())
    obs, reward, term, trunc, info = env.step(env.sample_actions())
    assert (trunc | term).all() and info["_final_obs"].all()
    assert not (info["final_obs"] == obs).all()
    obs, reward, term, trunc, info = env.step(env.sample_actions())
    assert not (trunc | term).any()
    with pytest.raises(ValueError):
        SlidingPuzzleVectorEnv(2, 3, 3, autoreset_mode="Later")


def test_seeding_and_random_goals():
    a = SlidingPuzzleVectorEnv(16, 3, 3, random_goal=True, curriculum={"scramble": 6})
    b = SlidingPuzzleVectorEnv(16, 3, 3, random_goal=True, curriculum={"scramble": 6})
    oa, ia = a.reset(seed=7)
    ob, ib = b.reset(seed=7)
    assert (oa == ob).all() and (ia["goal"] == ib["goal"]).all()
    assert fp.reachable(oa, ia["goal"][0]).shape == (16,)
    for k in range(16):
        assert fp.distance(oa[k], goal=ia["goal"][k]) <= 6
    assert len({g.tobytes() for g in ia["goal"]}) > 1
    for _ in range(5):
        sa, sb = a.sample_actions(), b.sample_actions()
        assert (sa == sb).all() and a.step(sa)[0].tobytes() == b.step(sb)[0].tobytes()
    other = SlidingPuzzleVectorEnv(16, 4, 4).reset(seed=8)[0]
    again = SlidingPuzzleVectorEnv(16, 4, 4).reset(seed=8)[0]
    assert (other == again).all()


def test_curriculum_by_distance_and_reset_options():
    env = SlidingPuzzleVectorEnv(50, 4, 4, curriculum={"distance": (10, 12)})
    obs, _ = env.reset(seed=9)
    d = fp.distance(obs[:6])
    assert ((d >= 10) & (d <= 12)).all()
    obs, _ = env.reset(options={"curriculum": {"distance": 2}})
    assert (fp.distance(obs[:5]) == 2).all()
    with pytest.raises(ValueError, match="curriculum"):
        SlidingPuzzleVectorEnv(2, 3, 3, curriculum={"walk": 3})
    with pytest.raises(ValueError, match="reward"):
        SlidingPuzzleVectorEnv(2, 4, 4, reward="distance")
    with pytest.raises(ValueError):
        env.step(np.zeros(3, np.int64))


def test_reward_function_and_text():
    def reward(previous, actions, boards, solved):
        return (previous != boards).any(axis=(1, 2)).astype(float)

    env = SlidingPuzzleVectorEnv(4, 2, 3, reward=reward, render_mode="ansi")
    obs, info = env.reset(seed=10)
    actions = np.array([0, 1, 2, 3])
    obs, r, *_ , info = env.step(actions)
    assert (r == ~info["illegal"]).all()
    assert env.render().count(".") == 4
    single = SlidingPuzzleEnv(2, 3, reward=reward, render_mode="ansi")
    single.reset(seed=1)
    assert single.step(0)[1] in (0.0, 1.0) and "." in single.render()


def test_threaded_and_serial_steps_agree():
    a = SlidingPuzzleVectorEnv(600, 3, 4, reward="manhattan", max_steps=5)
    b = SlidingPuzzleVectorEnv(600, 3, 4, reward="manhattan", max_steps=5)
    a._parallel, b._parallel = True, False  # parts on the threads against one call
    oa, _ = a.reset(seed=1)
    ob, _ = b.reset(seed=1)
    assert (oa == ob).all()
    for _ in range(8):  # through a truncation and the autoreset after it
        acts = a.sample_actions()
        assert (acts == b.sample_actions()).all()
        ra, rb = a.step(acts), b.step(acts)
        for x, y in zip(ra[:4], rb[:4]):
            assert (x == y).all()
        assert (ra[4]["action_mask"] == rb[4]["action_mask"]).all()


@pytest.mark.parametrize("threaded", [False, True])
def test_step_random_is_sample_actions_then_step(threaded):
    a = SlidingPuzzleVectorEnv(300, 2, 3, max_steps=3)
    b = SlidingPuzzleVectorEnv(300, 2, 3, max_steps=3)
    a._parallel = threaded
    a.reset(seed=4)
    b.reset(seed=4)
    for _ in range(7):  # through truncations and the resets after them
        pending = b._pending.copy()
        acts_b = b.sample_actions()
        ra, rb = a.step_random(), b.step(acts_b)
        # a board reset before this step draws for its new board; its action is unused either way
        assert (ra[4]["actions"][~pending] == acts_b[~pending]).all()
        assert not ra[4]["illegal"].any()
        for x, y in zip(ra[:4], rb[:4]):
            assert (x == y).all()
        assert (ra[4]["action_mask"] == rb[4]["action_mask"]).all()
    a.reset(seed=4)  # a new seed starts the stream again
    c = SlidingPuzzleVectorEnv(300, 2, 3, max_steps=3)
    c.reset(seed=4)
    assert (a.step_random()[4]["actions"] == c.sample_actions()).all()


@pytest.mark.parametrize("shape", [(2, 4), (3, 3)])
def test_copies_stay_and_views_are_overwritten(shape):
    """copy=True: arrays a step returned never change (kept or dropped); copy=False: the env's own arrays."""
    m, n = shape
    envs = [SlidingPuzzleVectorEnv(300, m, n, copy=c, max_steps=3, reward="manhattan") for c in (True, False)]
    outs = [env.reset(seed=3) for env in envs]
    kept = []
    for t in range(7):
        acts = envs[0].sample_actions()
        assert (acts == envs[1].sample_actions()).all()
        a, b = envs[0].step(acts), envs[1].step(acts)
        for x, y in zip(a[:4], b[:4]):
            assert (x == y).all()
        assert (a[4]["action_mask"] == b[4]["action_mask"]).all()
        if t % 2:  # keep every other result (and a view of one): the dropped ones may be reused
            kept.append(tuple(np.array(x, copy=True) for x in (*a[:4], a[4]["action_mask"])) + (a[:4], a[4]))
            kept[-1] += (a[0][:, 0],)
    for *frozen, live, info, view in kept:
        for x, y in zip(frozen, (*live, info["action_mask"])):
            assert (x == y).all()
        assert (view == frozen[0][:, 0]).all()
    obs, *_ = envs[1].step(envs[1].sample_actions())
    assert obs is envs[1].step(envs[1].sample_actions())[0]


def test_disabled_autoreset_waits_for_a_reset_mask():
    env = SlidingPuzzleVectorEnv(6, 2, 3, max_steps=2, autoreset_mode="Disabled", copy=False)
    obs, _ = env.reset(seed=11)
    env.step(env.sample_actions())
    obs, _, term, trunc, info = env.step(env.sample_actions())
    ended = term | trunc
    assert ended.all()  # the step limit ends every episode
    with pytest.raises(ValueError, match="reset"):
        env.step(env.sample_actions())
    before = obs.copy()
    keep = np.zeros(6, np.bool_)
    keep[:3] = True
    obs, info = env.reset(options={"reset_mask": ~keep})
    assert (obs[:3] == before[:3]).all() and (info["action_mask"] == fp.legal_moves(obs)).all()
    with pytest.raises(ValueError, match="reset"):  # the first three still wait
        env.step(env.sample_actions())
    env.reset(options={"reset_mask": keep})
    obs, _, term, trunc, info = env.step(env.sample_actions())
    assert not (term | trunc).any() or (fp.distance(obs[term]) == 0).all()


def test_random_goal_rewards_and_ends_against_each_boards_goal():
    env = SlidingPuzzleVectorEnv(300, 4, 4, random_goal=True, reward="manhattan", curriculum={"scramble": 2},
                                 max_steps=None)
    obs, info = env.reset(seed=12)
    goals = info["goal"]
    h = np.array([fp.heuristics.manhattan(obs[b], goal=goals[b]) for b in range(300)]).reshape(-1)
    ended = np.zeros(300, np.bool_)
    solved = 0
    for _ in range(3):
        obs, reward, term, trunc, info = env.step(env.sample_actions())
        h2 = np.array([fp.heuristics.manhattan(obs[b], goal=goals[b]) for b in range(300)]).reshape(-1)
        live = ~ended  # boards that ended reset on this step: reward 0, a new goal
        assert (reward[live] == (h - h2)[live]).all() and (reward[ended] == 0).all()
        assert (term[live] == (obs == goals).all(axis=(1, 2))[live]).all()
        ended, goals = term, info["goal"]
        solved += int(term.sum())
        h = np.array([fp.heuristics.manhattan(obs[b], goal=goals[b]) for b in range(300)]).reshape(-1)
    assert solved > 0  # two moves from the goal: some random walks go back (the terminal rule was exercised)


@pytest.mark.parametrize("num_envs", [5, 20_000])  # serial, and split over threads
def test_vector_refuses_bad_actions_before_any_board_moves(num_envs):
    env = SlidingPuzzleVectorEnv(num_envs, 3, 3, illegal="raise")
    obs, info = env.reset(seed=2)
    before = obs.copy()
    legal = np.argmax(info["action_mask"], axis=1)  # a legal code for every board
    for dtype in (np.int64, np.int8, np.uint8):
        for bad_board, code in ((num_envs - 1, 4), (num_envs // 2, -1)):
            actions = legal.astype(dtype)
            actions[bad_board] = np.array(code).astype(dtype)
            with pytest.raises(fp.MoveError, match=f"board {bad_board}: move is"):
                env.step(actions)
            assert (env._boards == before).all()
    off = np.flatnonzero(~info["action_mask"][num_envs - 1])[0]
    actions = legal.copy()
    actions[num_envs - 1] = off
    with pytest.raises(fp.MoveError, match=f"board {num_envs - 1}: move is action {off}: it takes the blank off"):
        env.step(actions)
    assert (env._boards == before).all()
    lenient = SlidingPuzzleVectorEnv(num_envs, 3, 3, illegal="stay")
    obs, info = lenient.reset(seed=2)
    obs2, _, _, _, info2 = lenient.step(actions)  # off the board: the board stays, flagged
    assert (obs2[-1] == obs[-1]).all() and info2["illegal"][-1] and not info2["illegal"][:-1].any()
    with pytest.raises(ValueError, match="move codes"):
        lenient.step(np.full(num_envs, 7))


@pytest.mark.parametrize("num_envs", [5, 20_000])  # serial, and split over threads
def test_stay_mode_refuses_bad_codes_of_any_integer_type(num_envs):
    """illegal="stay" checks the codes alone (one OR of every action): a bad code anywhere, of any
    integer type, is found and named, and no board has moved."""
    env = SlidingPuzzleVectorEnv(num_envs, 3, 3)
    obs, info = env.reset(seed=5)
    before = obs.copy()
    legal = np.argmax(info["action_mask"], axis=1)
    for dtype, code in ((np.int8, -1), (np.int16, 4), (np.int32, -(1 << 31)), (np.uint64, 1 << 63), (np.uint8, 255)):
        for bad_board in (0, num_envs // 2, num_envs - 1):
            actions = legal.astype(dtype)
            actions[bad_board] = np.array(code).astype(dtype)
            with pytest.raises(fp.MoveError, match=f"board {bad_board}: move is {int(actions[bad_board])};"):
                env.step(actions)
            assert (env._boards == before).all()
    obs, *_ = env.step(legal.astype(np.uint8))  # good codes of a narrow type step
    assert (obs != before).any(axis=(1, 2)).all()


@pytest.mark.parametrize("shape", [(4, 4), (5, 5), (2, 3)])
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_observations_copied_in_the_step_are_the_boards(shape, mode):
    """copy=True: the step writes each chunk of boards into the new observations as it goes
    (batches not a multiple of the chunk, on the threads and on one): they are the boards, in an
    array of their own."""
    m, n = shape
    for parallel in (False, True):
        env = SlidingPuzzleVectorEnv(1000, m, n, max_steps=3, autoreset_mode=mode)
        lean = SlidingPuzzleVectorEnv(1000, m, n, max_steps=3, autoreset_mode=mode, copy=False)
        env._parallel = parallel
        env.reset(seed=6)
        lean.reset(seed=6)
        for t in range(7):  # through truncations and the resets after them
            obs, *_ = env.step_random() if t % 2 else env.step(env.sample_actions())
            lean_obs, *_ = lean.step_random() if t % 2 else lean.step(lean.sample_actions())
            assert obs is not env._boards and not np.shares_memory(obs, env._boards)
            assert (obs == env._boards).all() and (obs == lean_obs).all()
