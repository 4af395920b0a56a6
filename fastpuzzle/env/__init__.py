"""Gymnasium environments of the sliding-tile puzzle (the ``rl`` extra: ``pip install "fastpuzzle[rl]"``).

* :class:`SlidingPuzzleEnv` — one board, a ``gymnasium.Env``;
* :class:`SlidingPuzzleVectorEnv` — many boards stepped in one compiled call,
  a ``gymnasium.vector.VectorEnv``.

Both take any ``m x n`` board; actions are the move model's codes ``0..3``
(``U L R D``, the blank's direction), ``info["action_mask"]`` marks the legal
ones, and a move off the board leaves the board as it is (``illegal="stay"``,
the default) or raises (``illegal="raise"``).  See ``docs/rl.md``.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
except ModuleNotFoundError as error:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        "fastpuzzle.env needs gymnasium: pip install 'fastpuzzle[rl]' (or pip install gymnasium)", name=error.name
    ) from None

from .curriculum import Curriculum
from .options import REWARDS, board_text
from .single import SlidingPuzzleEnv
from .vector import SlidingPuzzleVectorEnv

__all__ = ["SlidingPuzzleEnv", "SlidingPuzzleVectorEnv", "Curriculum", "REWARDS", "board_text"]
