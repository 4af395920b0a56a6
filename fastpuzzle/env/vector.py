"""``SlidingPuzzleVectorEnv``: many boards stepped in one compiled call."""

from __future__ import annotations

import sys

import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import options as checks
from ..errors import MoveError, OptionError
from .._jit import split_threads
from ..memory import check_allocation
from .kernel import (REWARD_WEIGHTS, StepTables, any_bad_code, env_refresh, env_step, first_bad_action,
                     random_actions)
from .options import EnvOptions, board_text, reset_arguments, reward_values

__all__ = ["SlidingPuzzleVectorEnv"]

_MODES = {mode.value: mode for mode in AutoresetMode}
#: Batches of at least this many boards step on the threads (a part of the batch each): below it,
#: handing parts to the threads costs more than the step.
PARALLEL_MIN_ENVS = 1 << 14
#: Sets of step outputs kept for reuse with ``copy=True`` (:meth:`SlidingPuzzleVectorEnv._fresh_outputs`).
POOL_SIZE = 3


def _refs(arrays):
    """The most references any of ``arrays`` has (the pool's tuple and this call's own count too)."""
    return max(sys.getrefcount(a) for a in arrays)


def _reused(pool, make):
    """A set of arrays from ``pool`` that only the pool still refers to, else ``make()`` (kept when there is room)."""
    for arrays in pool:
        if _refs(arrays) <= _FREE_REFS:
            return arrays
    arrays = make()
    if len(pool) < POOL_SIZE:
        pool.append(arrays)
    return arrays


#: What :func:`_refs` says of arrays only a pool holds (measured, not assumed: interpreters count differently).
_FREE_REFS = _refs([(np.empty(1),)][0])


class SlidingPuzzleVectorEnv(VectorEnv):
    """``num_envs`` sliding-tile puzzles of one shape, stepped together.

    Parameters
    ----------
    num_envs : int
        Number of boards.
    m, n : int
        Board shape (any, up to 256 cells).
    curriculum : "uniform", {"distance": k or (lo, hi)} or {"scramble": k}
        Where episodes start (:mod:`fastpuzzle.env.curriculum`).
    reward : str or callable
        ``"step"`` (-1 a move, the default), ``"sparse"`` (1 on reaching the
        goal), ``"manhattan"`` (the decrease in Manhattan distance),
        ``"distance"`` (the decrease in exact distance; at most 12 cells), or
        ``f(previous, actions, boards, solved) -> rewards`` on batches.
    illegal : {"stay", "raise"}
        A move off the board leaves the board as it is and counts as a step
        (``info["illegal"]`` says so), or raises ``ValueError``.
    max_steps : int or None
        Episodes are truncated after this many steps (default 500).
    goal : array_like (m, n), optional
        The goal (default: tiles row-major, blank last); with
        ``random_goal=True`` every episode draws its own (``info["goal"]``).
    autoreset_mode : str or AutoresetMode
        ``"NextStep"`` (Gymnasium's default: the step after an episode ends
        resets that board, with reward 0), ``"SameStep"`` (reset at once; the
        last board in ``info["final_obs"]``, marked by
        ``info["_final_obs"]``), or ``"Disabled"`` (call ``reset(options=
        {"reset_mask": mask})`` yourself).
    copy : bool
        True (the default): every array a step or reset returns is new.
        False: the observations, rewards, terminated, truncated and the
        action mask are the environment's own arrays, which the next step
        overwrites (no allocation and no copy a step).

    Observations are the boards ``(num_envs, m, n)``; actions the move
    codes ``0..3`` (``U L R D``, the blank's direction); ``info["action_mask"]``
    is the boolean ``(num_envs, 4)`` mask of the legal moves.

    Examples
    --------
    >>> env = SlidingPuzzleVectorEnv(3, 3, 3, curriculum={"distance": 1})
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, info["action_mask"].shape
    ((3, 3, 3), (3, 4))
    >>> from fastpuzzle import neighbours, goal_board
    >>> succ, mask = neighbours(obs)  # one move from the goal: find it
    >>> solve = (succ == goal_board(3, 3)).all(axis=(2, 3)).argmax(axis=1)
    >>> obs, reward, terminated, truncated, info = env.step(solve)
    >>> terminated.tolist(), reward.tolist()
    ([True, True, True], [-1.0, -1.0, -1.0])
    """

    metadata = {"render_modes": ["ansi", "human"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs, m, n, *, autoreset_mode="NextStep", **options):
        num_envs = checks.whole(num_envs, "num_envs", least=1)  # a bool or a float: OptionTypeError
        mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else (
            _MODES.get(autoreset_mode) if isinstance(autoreset_mode, str) else None)  # a list cannot be a key
        if mode is None:
            raise OptionError("autoreset_mode", autoreset_mode, f"must be one of {', '.join(_MODES)}")
        self.autoreset_mode = mode
        self.metadata = dict(self.metadata, autoreset_mode=mode)
        self.options = opts = EnvOptions.parse(m, n, **options)
        self._ready = False  # no boards before the first reset
        self.num_envs = B = int(num_envs)
        # every per-board array below (boards twice, goal cells, counters, outputs), before gymnasium's spaces
        # a random goal a board: the goals kept, their cells, and a draw's keys, order and relabelling (int64, float64)
        per_cell = 2 * np.dtype(opts.dtype).itemsize + 8 + (48 if opts.curriculum.random_goal else 0)
        check_allocation(B * opts.m * opts.n * per_cell + B * 64, f"{B:,} environments of {opts.m}x{opts.n} boards")
        self.render_mode = opts.render_mode
        self.single_observation_space, self.single_action_space = opts.spaces()
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        N = opts.m * opts.n
        self._tables = tables = StepTables(opts.m, opts.n)
        self._targets = tables.targets
        self._boards = np.zeros((B, opts.m, opts.n), opts.dtype)
        self._flat = self._boards.reshape(B, N)
        self._per_env = opts.curriculum.random_goal
        self._goals = np.broadcast_to(opts.curriculum.goal, (B, opts.m, opts.n)).copy() if self._per_env else None
        self._goal_where = np.empty((B if self._per_env else 1, N), np.int64)
        self._set_goal_where(np.arange(self._goal_where.shape[0]), opts.curriculum.goal.reshape(1, N))
        # per-environment goals read their tiles' homes instead (env_step)
        self._tile_md = tables.md if self._per_env else tables.tile_distances(self._goal_where[0])
        self._blanks = np.zeros(B, np.int16)
        self._manh = np.zeros(B, np.int16)
        self._steps = np.zeros(B, np.int64)
        self._pending = np.zeros(B, np.bool_)  # boards that ended their episode: reset before the next step
        self._any_pending = False
        # the env's own outputs (copy=False returns them; copy=True writes fresh arrays each step)
        self._out = self._new_outputs()
        self._pool = []
        self._action_pool = []
        self._table = opts.distance_table() if opts.exact_reward else None
        self._dist = np.zeros(B, np.int64)
        self._counter = 0
        self._parallel = B >= PARALLEL_MIN_ENVS
        self._weights = REWARD_WEIGHTS[opts.reward_code].copy()
        self._limit = opts.max_steps if opts.max_steps > 0 else np.iinfo(np.int64).max

    def _new_outputs(self):
        """``(rewards, terminated, truncated, illegal, mask)``, uninitialised."""
        B = self.num_envs
        return (np.empty(B, np.float64), np.zeros(B, np.bool_), np.zeros(B, np.bool_), np.zeros(B, np.bool_),
                np.zeros((B, 4), np.bool_))

    def _fresh_outputs(self):
        """``(obs, rewards, terminated, truncated, illegal, mask)`` for a step with ``copy=True``.

        A set of arrays an earlier step returned is used again once nothing
        but this pool refers to it (the caller dropped the arrays and every
        view of them: a view holds its base): a few megabytes allocated a
        step come back from the allocator as fresh pages, and their page
        faults cost more than the step itself (measured: 2.1 against 0.7 ms
        of CPU a step of 100,000 4x4 boards).
        """
        return _reused(self._pool, lambda: (np.empty_like(self._boards), *self._new_outputs()))

    # ------------------------------------------------------------------ state

    def _set_goal_where(self, rows, goals):
        N = goals.shape[1]
        cells = np.broadcast_to(np.arange(N), goals.shape)
        self._goal_where[rows[:, None], goals.astype(np.int64)] = cells

    def _reset_envs(self, idx, mask):
        """Draw new boards (and goals) for the environments ``idx`` and refresh their counters and ``mask``."""
        if idx.size == 0:
            return
        boards, goals = self.options.curriculum.draw(idx.size, self.np_random)
        self._boards[idx] = boards
        if goals is not None:
            self._goals[idx] = goals
            self._set_goal_where(idx, goals.reshape(idx.size, -1))
        t = self._tables
        env_refresh(self._flat, idx.astype(np.int64), self._goal_where, self._per_env, t.md, t.legal32,
                    self._blanks, self._manh, self._steps, mask.view(np.uint32).reshape(-1))
        if self._table is not None:
            self._dist[idx] = self._table.depths[self._table.space.ranks(self._flat[idx])]

    def _info(self, mask, illegal):
        info = {"action_mask": mask, "illegal": illegal}
        if self._per_env:
            info["goal"] = self._goals.copy()
        return info

    # ------------------------------------------------------------------ the API

    def reset(self, *, seed=None, options=None):
        """Reset every board (or, with ``options={"reset_mask": mask}``, those marked; the first
        reset draws every board whatever the mask, as none has one before it).

        ``options`` may also hold ``"curriculum"`` (a new curriculum from now on).
        """
        seed, options = reset_arguments(seed, options)
        old = curriculum = self.options.curriculum
        if "curriculum" in options:
            curriculum = curriculum.renewed(options.pop("curriculum"))
        mask = options.pop("reset_mask", None)
        if options:
            raise OptionError("reset options", sorted(map(str, options)), "are unknown reset options")
        if mask is None or not self._ready:  # the first reset draws every board: none has one yet
            idx = np.arange(self.num_envs)
            if mask is not None:
                self._check_mask(mask)
        else:
            idx = np.flatnonzero(self._check_mask(mask))
        super().reset(seed=seed)
        if seed is not None:
            self._counter = 0  # the random actions' stream starts again from the new seed
        _, _, _, illegal, action_mask = self._out
        self.options.curriculum = curriculum
        try:
            self._reset_envs(idx, action_mask)
        except BaseException:  # a curriculum that draws nothing changes nothing (the boards are drawn first)
            self.options.curriculum = old
            raise
        self._ready = True
        self._pending[idx] = False
        self._any_pending = bool(self._pending.any())
        # a reset moves no board: nothing is illegal, the mask is every board's (reset or not)
        illegal[:] = False
        action_mask[:] = self._tables.legal[self._blanks]
        if self.options.copy:
            return self._boards.copy(), self._info(action_mask.copy(), illegal.copy())
        return self._boards, self._info(action_mask, illegal)

    def _check_mask(self, mask):
        mask = checks.array(mask, "reset_mask")
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise OptionError("reset_mask", f"{mask.dtype} {mask.shape}", f"must be a boolean array of shape ({self.num_envs},)")
        return mask

    def _check_actions(self, actions):
        actions = checks.array(actions, "actions")
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise OptionError("actions", f"{actions.dtype} {actions.shape}", f"must be {self.num_envs} integer move codes 0..3")
        if not (actions.flags.c_contiguous and actions.flags.writeable and actions.dtype.isnative):
            # the kernel takes native, writable, contiguous arrays (it writes drawn moves in the same place)
            actions = np.array(actions, dtype=actions.dtype.newbyteorder("="), order="C")
        return actions

    def _refuse_bad_actions(self, actions, on_board):
        """Raise on the first action that is no move code or (``on_board``) takes its blank off the board."""
        if not on_board and not any_bad_code(actions):  # the common case: one vector pass, no threads
            return
        t = self._tables
        firsts = self._on_threads(lambda lo, hi: first_bad_action(actions, self._blanks, t.targets, self._pending,
                                                                  on_board, lo, hi))
        bad = next((int(f) for f in firsts if f >= 0), -1)
        if bad < 0:
            return
        code = int(actions[bad])
        if not 0 <= code <= 3:
            raise MoveError(None, code, f"is {code}; actions are move codes 0..3 (U, L, R, D)", board=bad)
        raise MoveError(None, code, f"is action {code}: it takes the blank off the board", board=bad)

    def step(self, actions):
        """Move every board by its action; returns ``(obs, rewards, terminated, truncated, info)``.

        With ``copy=True`` (the default) every array returned is new; with
        ``copy=False`` they are the environment's own, overwritten by the next step.
        """
        return self._step(self._check_actions(actions), False)

    def step_random(self):
        """:meth:`step` with a random legal move per board, drawn in the same compiled pass.

        The moves are those :meth:`sample_actions` would have drawn from the
        same state (the stream's next draw), in ``info["actions"]``; a board
        reset before this step (next-step autoreset) draws for its new board.

        Examples
        --------
        >>> env = SlidingPuzzleVectorEnv(4, 3, 3)
        >>> _ = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step_random()
        >>> info["actions"].shape, bool(info["illegal"].any())
        ((4,), False)
        """
        (actions,) = _reused(self._action_pool, lambda: (np.empty(self.num_envs, np.int64),))
        obs, rewards, term, trunc, info = self._step(actions, True)
        info["actions"] = actions
        return obs, rewards, term, trunc, info

    def _step(self, actions, draw):
        if not self._ready:
            raise ResetNeeded("call reset() before step(): the environments have no boards yet")
        opts = self.options
        if not draw:  # before anything changes: a refused step leaves every board as it was
            self._refuse_bad_actions(actions, not opts.stay)
        copy = opts.copy
        if copy:
            obs, rewards, term, trunc, illegal, mask = self._fresh_outputs()
        else:
            obs = self._boards
            rewards, term, trunc, illegal, mask = self._out
        mask32 = mask.view(np.uint32).reshape(-1)
        if self._any_pending:
            if self.autoreset_mode == AutoresetMode.DISABLED:
                # the order of calls, not a bad value: stays a plain ValueError (allow-listed in tests/test_errors.py)
                raise ValueError("some boards ended their episode: reset them first (autoreset is disabled)")
            self._reset_envs(np.flatnonzero(self._pending), mask)
        fn = opts.reward_fn
        skip = self._pending.copy() if (fn is not None or self._table is not None) and self._any_pending else None
        previous = self._boards.copy() if fn is not None else None
        t = self._tables
        key, counter = self._next_stream() if draw else (0, 0)
        args = (self._flat, self._blanks, self._manh, self._steps, self._pending, actions, t.targets, t.legal32,
                t.md, self._tile_md, self._goal_where, self._per_env, self._weights, self._limit, rewards, term, trunc,
                illegal, mask32)
        # with copy=True the kernel copies each chunk of boards into obs while the chunk is in the cache
        cells = obs.reshape(-1)
        ended = sum(self._on_threads(lambda lo, hi: env_step(*args, lo, hi, draw, t.moves, t.counts,
                                                             key, counter, cells, copy)))
        self._any_pending = ended > 0
        if self._table is not None:
            new = np.asarray(self._table.depths[self._table.space.ranks(self._flat)], np.int64)
            rewards[:] = self._dist - new
            self._dist = new
        if fn is not None:
            try:
                rewards[:] = reward_values(fn(previous, actions, self._boards.copy(), term.copy()), rewards.shape[0])
            except BaseException:  # the boards have moved: no step may follow as if this one had been answered
                self._ready = False
                raise
        if skip is not None:
            rewards[skip] = 0.0
        info = self._info(mask, illegal)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and self._any_pending:
            ended = self._pending.copy()
            info["final_obs"] = obs.copy() if copy else self._boards.copy()
            info["_final_obs"] = ended
            # the ended episodes' own info (masks, goals) before their boards are drawn again
            info["final_info"] = {key: value.copy() for key, value in info.items() if not key.endswith("_obs")}
            info["_final_info"] = ended
            self._reset_envs(np.flatnonzero(ended), mask)
            if self._per_env:  # the goals of the new episodes, beside their boards in obs
                info["goal"] = self._goals.copy()
            self._pending[:] = False
            self._any_pending = False
            if copy:
                obs[ended] = self._boards[ended]
        return obs, rewards, term, trunc, info

    def sample_actions(self):
        """A move per board, uniform among its legal moves, from the environment's random stream.

        The array is new to the caller (one an earlier call returned is used again once nothing
        refers to it: fresh pages cost more than the draw)."""
        if not self._ready:
            raise ResetNeeded("call reset() before sample_actions(): the environments have no boards yet")
        (out,) = _reused(self._action_pool, lambda: (np.empty(self.num_envs, np.int64),))
        t = self._tables
        key, counter = self._next_stream()
        self._on_threads(lambda lo, hi: random_actions(self._blanks, t.moves, t.counts, key, counter, out, lo, hi))
        return out

    def _next_stream(self):
        """``(key, counter)`` of the next draw of random actions (the key from the seeded ``np_random``)."""
        if self._counter == 0:
            self._key = int(self.np_random.integers(0, 1 << 63))
        self._counter += 1
        return self._key, self._counter

    def _on_threads(self, work):
        """``work(lo, hi)`` over every board, on the threads for large batches; its results."""
        return split_threads(work, self.num_envs, align=64) if self._parallel else [work(0, self.num_envs)]

    def render(self):
        """The boards as text (``ansi``: returned; ``human``: printed)."""
        if not self._ready:
            raise ResetNeeded("call reset() before render(): the environments have no boards yet")
        text = "\n\n".join(board_text(b) for b in self._boards)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    @property
    def distances(self):
        """The exact distance of every board (``reward="distance"`` only), else None."""
        return None if self._table is None else self._dist.copy()

