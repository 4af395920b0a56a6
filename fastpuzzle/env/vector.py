"""``SlidingPuzzleVectorEnv``: many boards stepped in one compiled call."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import OptionError
from ..steps import move_tables
from .kernel import env_refresh, env_step, env_step_serial, random_actions, random_actions_parallel
from .options import EnvOptions, board_text

__all__ = ["SlidingPuzzleVectorEnv"]

_MODES = {mode.value: mode for mode in AutoresetMode}
#: Batches of at least this many boards step on the threaded kernels.
PARALLEL_MIN_ENVS = 256


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
        Return copies of the boards (default); False returns the array the
        next step overwrites.

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
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise OptionError("num_envs", num_envs, "must be a whole number >= 1")
        mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else _MODES.get(autoreset_mode)
        if mode is None:
            raise OptionError("autoreset_mode", autoreset_mode, f"must be one of {', '.join(_MODES)}")
        self.autoreset_mode = mode
        self.metadata = dict(self.metadata, autoreset_mode=mode)
        self.options = opts = EnvOptions.parse(m, n, **options)
        self.num_envs = B = int(num_envs)
        self.render_mode = opts.render_mode
        self.single_observation_space, self.single_action_space = opts.spaces()
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        N = opts.m * opts.n
        self._targets, self._legal = move_tables(opts.m, opts.n)
        self._boards = np.zeros((B, opts.m, opts.n), opts.dtype)
        self._flat = self._boards.reshape(B, N)
        self._per_env = opts.curriculum.random_goal
        self._goals = np.broadcast_to(opts.curriculum.goal, (B, opts.m, opts.n)).copy() if self._per_env else None
        self._goal_where = np.empty((B if self._per_env else 1, N), np.int64)
        self._set_goal_where(np.arange(self._goal_where.shape[0]), opts.curriculum.goal.reshape(1, N))
        self._blanks = np.zeros(B, np.int64)
        self._wrong = np.zeros(B, np.int64)
        self._manh = np.zeros(B, np.int64)
        self._steps = np.zeros(B, np.int64)
        self._rewards = np.zeros(B, np.float64)
        self._term = np.zeros(B, np.bool_)
        self._trunc = np.zeros(B, np.bool_)
        self._illegal = np.zeros(B, np.bool_)
        self._mask = np.zeros((B, 4), np.bool_)
        self._pending = np.zeros(B, np.bool_)  # boards to reset on the next step
        self._table = opts.distance_table() if opts.exact_reward else None
        self._dist = np.zeros(B, np.int64)
        self._counter = 0
        # the threaded kernels from a few hundred boards: they also compile to a much tighter loop than
        # the serial ones (about 5 against 70 ns of CPU a board-step, measured on 4x4)
        self._parallel = B >= PARALLEL_MIN_ENVS

    # ------------------------------------------------------------------ state

    def _set_goal_where(self, rows, goals):
        N = goals.shape[1]
        cells = np.broadcast_to(np.arange(N), goals.shape)
        self._goal_where[rows[:, None], goals.astype(np.int64)] = cells

    def _reset_envs(self, idx):
        """Draw new boards (and goals) for the environments ``idx`` and refresh their counters."""
        if idx.size == 0:
            return
        boards, goals = self.options.curriculum.draw(idx.size, self.np_random)
        self._boards[idx] = boards
        if goals is not None:
            self._goals[idx] = goals
            self._set_goal_where(idx, goals.reshape(idx.size, -1))
        env_refresh(self._flat, idx.astype(np.int64), self._goal_where, self._per_env, self.options.n, self._legal,
                    self._blanks, self._wrong, self._manh, self._steps, self._mask)
        if self._table is not None:
            self._dist[idx] = self._table.depths[self._table.space.ranks(self._flat[idx])]

    def _info(self):
        info = {"action_mask": self._mask.copy() if self.options.copy else self._mask,
                "illegal": self._illegal.copy()}
        if self._per_env:
            info["goal"] = self._goals.copy()
        return info

    def _obs(self):
        return self._boards.copy() if self.options.copy else self._boards

    # ------------------------------------------------------------------ the API

    def reset(self, *, seed=None, options=None):
        """Reset every board (or, with ``options={"reset_mask": mask}``, those marked).

        ``options`` may also hold ``"curriculum"`` (a new curriculum from now on).
        """
        super().reset(seed=seed)
        options = dict(options or {})
        if "curriculum" in options:
            self.options.curriculum = self.options.curriculum.renewed(options.pop("curriculum"))
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"unknown reset options: {', '.join(map(str, options))}")
        if mask is None:
            idx = np.arange(self.num_envs)
        else:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be a boolean array of shape ({self.num_envs},)")
            idx = np.flatnonzero(mask)
        self._reset_envs(idx)
        self._pending[idx] = False
        self._illegal[idx] = False
        return self._obs(), self._info()

    def step(self, actions):
        """Move every board by its action; returns ``(obs, rewards, terminated, truncated, info)``."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integer move codes 0..3, got {actions.dtype} {actions.shape}")
        if actions.size and (actions.min() < 0 or actions.max() > 3):
            raise ValueError("actions are move codes 0..3 (U, L, R, D)")
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            skip = self._pending
            idx = np.flatnonzero(skip)
            self._reset_envs(idx)
        else:
            if self.autoreset_mode == AutoresetMode.DISABLED and self._pending.any():
                raise ValueError("some boards ended their episode: reset them first (autoreset is disabled)")
            skip = np.zeros(self.num_envs, np.bool_) if not self._pending.any() else self._pending
        if not self.options.stay:
            bad = np.flatnonzero(~skip & (self._targets[self._blanks, actions] < 0))
            if bad.size:
                raise ValueError(f"action {int(actions[bad[0]])} of board {int(bad[0])} takes the blank off the board")
        fn = self.options.reward_fn
        previous = self._boards.copy() if fn is not None else None
        kernel = env_step if self._parallel else env_step_serial
        kernel(self._flat, self._blanks, self._goal_where, self._per_env, np.ascontiguousarray(actions, np.int64),
               self._targets, self._legal, self.options.n, skip, self.options.stay, self.options.reward_code,
               self._wrong, self._manh, self._steps, self.options.max_steps, self._rewards, self._term, self._trunc,
               self._illegal, self._mask)
        if self._table is not None:
            new = np.asarray(self._table.depths[self._table.space.ranks(self._flat)], np.int64)
            self._rewards[:] = np.where(skip, 0.0, self._dist - new)
            self._dist = new
        if fn is not None:
            self._rewards[:] = np.where(skip, 0.0, np.asarray(fn(previous, actions, self._boards.copy(), self._term),
                                                             np.float64))
        self._pending = self._term | self._trunc
        info = self._info()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and self._pending.any():
            info["final_obs"] = self._boards.copy()
            info["_final_obs"] = self._pending.copy()
            self._reset_envs(np.flatnonzero(self._pending))
            self._pending[:] = False
            info["action_mask"] = self._mask.copy()
            if self._per_env:
                info["goal"] = self._goals.copy()
        return self._obs(), self._rewards.copy(), self._term.copy(), self._trunc.copy(), info

    def sample_actions(self):
        """A move per board, uniform among its legal moves, from the environment's random stream."""
        out = np.empty(self.num_envs, np.int64)
        if self._counter == 0:
            self._key = int(self.np_random.integers(0, 1 << 63))
        self._counter += 1
        (random_actions_parallel if self._parallel else random_actions)(self._blanks, self._targets, self._key,
                                                                        self._counter, out)
        return out

    def render(self):
        """The boards as text (``ansi``: returned; ``human``: printed)."""
        text = "\n\n".join(board_text(b) for b in self._boards)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    @property
    def distances(self):
        """The exact distance of every board (``reward="distance"`` only), else None."""
        return None if self._table is None else self._dist.copy()

