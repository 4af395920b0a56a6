"""``SlidingPuzzleEnv``: one board, stepped in plain Python (a step is a few list reads).

One board is too small for a compiled call to pay: entering a kernel costs
more than the step.  The step here applies the same rule as the vector
kernel (:mod:`fastpuzzle.env.kernel`), reading the same move tables; the
tests step both side by side.
"""

from __future__ import annotations

import numpy as np
import gymnasium as gym
from gymnasium.error import ResetNeeded

from ..errors import MoveError, OptionError
from ..manhattan import cell_distances
from ..steps import move_tables
from .options import EnvOptions, board_text, reset_arguments, reward_values

__all__ = ["SlidingPuzzleEnv"]


class SlidingPuzzleEnv(gym.Env):
    """One sliding-tile puzzle as a Gymnasium environment.

    Takes the options of :class:`~fastpuzzle.env.SlidingPuzzleVectorEnv`
    (``curriculum``, ``reward``, ``illegal``, ``max_steps``, ``goal``,
    ``random_goal``, ``render_mode``).  The observation is the board
    ``(m, n)``; the action a move code ``0..3``; ``info["action_mask"]`` the
    boolean ``(4,)`` mask of the legal moves.

    Examples
    --------
    >>> env = SlidingPuzzleEnv(2, 2, curriculum={"scramble": 1})
    >>> board, info = env.reset(seed=3)
    >>> int(info["action_mask"].sum())  # a corner: two legal moves
    2
    >>> env.step(2 if board[1, 0] == 0 else 3)[2]  # the move back (R or D): terminated
    True
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, m, n, **options):
        self.options = opts = EnvOptions.parse(m, n, **options)
        self.render_mode = opts.render_mode
        self.observation_space, self.action_space = opts.spaces()
        targets, legal = move_tables(opts.m, opts.n)
        self._targets = targets.tolist()
        self._masks = [row.copy() for row in legal]
        for row in self._masks:
            row.setflags(write=False)
        self._n = opts.n
        self._table = opts.distance_table() if opts.exact_reward else None
        # the board lives in a bytearray (boards here are uint8): a step writes two bytes without
        # going through NumPy's item access, and the array view sees them
        self._buf = bytearray(opts.m * opts.n)
        self._board = np.frombuffer(self._buf, np.uint8).reshape(opts.m, opts.n)
        self._flat = self._board.reshape(-1)
        self._md = cell_distances(opts.m, opts.n).tolist()
        self._goal = opts.curriculum.goal.copy()
        self._set_goal(self._goal)
        self._blank = self._wrong = self._manh = self._steps = self._dist = 0
        self._ready = False  # no board before the first reset

    def _set_goal(self, goal):
        where = [0] * goal.size
        for cell, tile in enumerate(goal.ravel().tolist()):
            where[tile] = cell
        self._where = where

    def _dist_of(self, a, b):
        return self._md[a][b]

    def reset(self, *, seed=None, options=None):
        """Draw a board from the curriculum (``options={"curriculum": ...}`` changes it)."""
        seed, options = reset_arguments(seed, options)
        curriculum = self.options.curriculum
        if "curriculum" in options:
            curriculum = curriculum.renewed(options.pop("curriculum"))
        if options:
            raise OptionError("reset options", sorted(map(str, options)), "are unknown reset options")
        super().reset(seed=seed)
        boards, goals = curriculum.draw(1, self.np_random)  # a curriculum that draws nothing changes nothing
        self.options.curriculum = curriculum
        self._ready = True
        self._board[:] = boards[0]
        if goals is not None:
            self._goal = goals[0]
            self._set_goal(self._goal)
        cells = self._flat.tolist()
        self._blank = cells.index(0)
        self._wrong = sum(1 for c, t in enumerate(cells) if t and self._where[t] != c)
        self._manh = sum(self._dist_of(c, self._where[t]) for c, t in enumerate(cells) if t)
        self._steps = 0
        if self._table is not None:
            self._dist = int(self._table.lookup(self._board))
        return self._board.copy(), self._info(False)

    def _info(self, illegal):
        info = {"action_mask": self._masks[self._blank].copy(), "illegal": illegal}
        if self.options.curriculum.random_goal:
            info["goal"] = self._goal.copy()
        return info

    def step(self, action):
        """Move the blank; returns ``(board, reward, terminated, truncated, info)``."""
        if not self._ready:
            raise ResetNeeded("call reset() before step(): the environment has no board yet")
        if type(action) is not int or not 0 <= action <= 3:
            if isinstance(action, (np.integer, int)) and not isinstance(action, (bool, np.bool_)):
                action = int(action)
            elif not (isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"):
                raise OptionError("action", action, "must be a move code 0..3 (U, L, R, D)")
            else:
                action = int(action)
            if not 0 <= action <= 3:
                raise OptionError("action", action, "must be a move code 0..3 (U, L, R, D)")
        opts = self.options
        z = self._blank
        t = self._targets[z][action]
        fn = opts.reward_fn
        previous = self._board.copy() if fn is not None else None
        illegal = t < 0
        change = 0
        if illegal:
            if not opts.stay:
                raise MoveError(None, int(action), f"is action {int(action)}: it takes the blank off the {opts.m}x{opts.n} board")
        else:
            buf = self._buf
            tile = buf[t]
            home = self._where[tile]
            self._wrong += (home == t) - (home == z)
            md = self._md[home]
            change = md[z] - md[t]
            self._manh += change
            buf[z] = tile
            buf[t] = 0
            self._blank = z = t
        self._steps += 1
        solved = self._wrong == 0 and z == self._where[0]
        truncated = not solved and opts.max_steps > 0 and self._steps >= opts.max_steps
        code = opts.reward_code
        if fn is not None:
            try:
                reward = float(reward_values(fn(previous[None], np.array([action]), self._board[None].copy(),
                                                np.array([solved])), 1)[0])
            except BaseException:  # the board has moved: no step may follow as if this one had been answered
                self._ready = False
                raise
        elif self._table is not None:
            new = int(self._table.lookup(self._board))
            reward, self._dist = float(self._dist - new), new
        elif code == 0:
            reward = -1.0
        elif code == 1:
            reward = 1.0 if solved else 0.0
        else:
            reward = float(-change)
        return self._board.copy(), reward, solved, truncated, self._info(illegal)

    def action_masks(self):
        """The mask of the legal moves (the name ``sb3-contrib``'s masked PPO looks for)."""
        if not self._ready:
            raise ResetNeeded("call reset() before action_masks(): the environment has no board yet")
        return self._masks[self._blank].copy()

    def render(self):
        """The board as text (``ansi``: returned; ``human``: printed)."""
        if not self._ready:
            raise ResetNeeded("call reset() before render(): the environment has no board yet")
        text = board_text(self._board)
        if self.render_mode == "human":
            print(text)
            return None
        return text
