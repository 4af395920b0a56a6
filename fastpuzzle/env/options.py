"""The options both environments take, checked once: rewards, illegal moves, limits, spaces, text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .. import options as checks
from ..boards import as_goal, board_dtype, check_shape
from ..errors import OptionError, OptionTypeError, ShapeError
from .curriculum import Curriculum
from .kernel import REWARD_CODES

__all__ = ["EnvOptions", "REWARDS", "board_text", "reset_arguments", "reward_values"]

#: Reward names: ``step`` -1 a move; ``sparse`` 1 on reaching the goal, else 0;
#: ``manhattan`` the decrease in Manhattan distance (+1 or -1 a move, 0 when the
#: board stays); ``distance`` the decrease in exact optimal distance (boards of
#: at most 12 cells, a fixed goal: read from the distance table).
REWARDS = ("step", "sparse", "manhattan", "distance")


def reward_values(values, count: int) -> np.ndarray:
    """What a reward function returned, as ``count`` finite floats; a NaN or a wrong length is refused.

    Examples
    --------
    >>> reward_values(-1, 2)
    array([-1., -1.])
    >>> try:
    ...     reward_values([0.0, float("nan")], 2)
    ... except OptionError as error:
    ...     print(error)
    reward function must return a finite number per board (board 1), got nan
    >>> reward_values("1", 1)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: reward function must return real numbers, got 'str'
    """
    # real numbers only: NumPy would read "1" as 1.0 and drop the imaginary part of 1j
    if isinstance(values, np.ma.MaskedArray) and np.ma.getmaskarray(values).any():  # asarray would read the hidden data
        raise OptionError("reward", "a masked array with masked entries", "function must return a finite number per board")
    raw = checks.array(values, "reward")
    if raw.dtype.kind == "O":
        # None reads as NaN below (a function that forgot to return), refused as not finite
        reals = all(v is None or isinstance(v, (int, float, np.integer, np.floating)) for v in raw.ravel().tolist())
    else:
        reals = raw.dtype.kind in "biuf"
    if not reals:
        raise OptionTypeError("reward", type(values).__name__, "function must return real numbers")
    try:
        arr = raw.astype(np.float64, copy=False)
    except OverflowError:  # a Python int past any float
        raise OptionError("reward", "an integer past any float", "function must return a finite number per board") from None
    if arr.ndim == 0:
        arr = np.full(count, arr[()])
    elif arr.size != count:
        raise OptionError("reward", arr.shape, f"function must return one number per board ({count})")
    arr = arr.reshape(count)
    bad = np.flatnonzero(~np.isfinite(arr))  # None reads as NaN: a function that forgot to return
    if bad.size:
        raise OptionError("reward", float(arr[bad[0]]), f"function must return a finite number per board (board {int(bad[0])})")
    return arr


def reset_arguments(seed, options):
    """The ``(seed, options)`` of a ``reset``, checked: the seed ``None`` or a whole number >= 0
    (NumPy integers too, handed on as ``int`` as Gymnasium asks), the options ``None`` or a
    mapping (returned as a new ``dict``).

    Examples
    --------
    >>> reset_arguments(np.int64(3), None)
    (3, {})
    >>> reset_arguments(True, None)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: seed must be None or a whole number >= 0, got True
    """
    seed = checks.whole(seed, "seed", most=1 << 4096, none=True)
    if options is None:
        return seed, {}
    if not isinstance(options, Mapping):
        raise OptionTypeError("options", type(options).__name__, "must be None or a dict of reset options")
    return seed, dict(options)


@dataclass
class EnvOptions:
    m: int
    n: int
    curriculum: Curriculum
    reward_code: int
    reward_fn: object
    exact_reward: bool
    stay: bool
    max_steps: int
    copy: bool
    render_mode: object
    dtype: np.dtype

    @classmethod
    def parse(cls, m, n, **options):
        """The checked options of an environment of ``m x n`` boards (an unknown name is refused)."""
        known = ("curriculum", "reward", "illegal", "max_steps", "goal", "random_goal", "copy", "render_mode")
        for name in options:
            if name not in known:
                raise OptionTypeError(name, options[name], f"is not an option of the environments (they take {', '.join(known)})")
        return cls._parse(m, n, **options)

    @classmethod
    def _parse(cls, m, n, *, curriculum=None, reward="step", illegal="stay", max_steps=500, goal=None,
               random_goal=False, copy=True, render_mode=None):
        check_shape(m, n)
        m, n = int(m), int(n)
        if m * n > 256:
            raise ShapeError((m, n), f"the environments hold boards of at most 256 cells (uint8), got {m}x{n}", expected=256)
        goal = as_goal(goal, m, n)
        cur = Curriculum(m, n, curriculum, goal=goal, random_goal=random_goal)
        reward_fn, exact, code = None, False, REWARD_CODES["none"]
        if callable(reward):
            reward_fn = reward
        elif isinstance(reward, str) and reward in REWARDS:
            if reward == "distance":
                from ..distances.table import MAX_TABLE_CELLS

                if m * n > MAX_TABLE_CELLS or random_goal:
                    raise OptionError(
                        "reward", reward,
                        f"reads the distance table: boards of at most {MAX_TABLE_CELLS} cells and a fixed goal "
                        f"(these are {m}x{n}{', random_goal=True' if random_goal else ''}); "
                        "use 'manhattan' for a dense reward elsewhere",
                    )  # fmt: skip
                exact = True
            else:
                code = REWARD_CODES[reward]
        else:
            raise OptionError("reward", reward, f"must be one of {', '.join(REWARDS)} or a function")
        illegal = checks.choice(illegal, "illegal", ("stay", "raise"))
        max_steps = checks.whole(max_steps, "max_steps", least=1, none=True) or 0  # None: no limit
        if render_mode is not None:
            render_mode = checks.choice(render_mode, "render_mode", ("ansi", "human"))
        copy = checks.flag(copy, "copy")
        return cls(m, n, cur, code, reward_fn, exact, illegal == "stay", int(max_steps), bool(copy), render_mode,
                   board_dtype(m * n))

    def spaces(self):
        """``(observation_space, action_space)`` of one environment."""
        from gymnasium import spaces

        N = self.m * self.n
        return spaces.Box(0, N - 1, (self.m, self.n), self.dtype), spaces.Discrete(4)

    def distance_table(self):
        from ..distances.table import distance_table

        return distance_table(self.m, self.n, goal=self.curriculum.goal)


def board_text(board) -> str:
    """A board as rows of right-aligned numbers, ``.`` for the blank.

    Examples
    --------
    >>> print(board_text(np.array([[1, 2], [3, 0]])))
    1 2
    3 .
    """
    board = np.asarray(board)
    width = len(str(board.size - 1))
    return "\n".join(" ".join(("." if v == 0 else str(int(v))).rjust(width) for v in row) for row in board)
