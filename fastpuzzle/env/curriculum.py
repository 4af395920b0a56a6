"""Where episodes start: the curriculum of the environments' resets.

A curriculum is one of

* ``"uniform"`` — uniform over the boards that reach the goal
  (:func:`fastpuzzle.random_solvable`);
* ``{"distance": k}`` or ``{"distance": (lo, hi)}`` — uniform over the boards
  at that exact optimal distance (``random_solvable(..., distance=)``: tables
  up to 12 cells, the layers near the goal up to 16);
* ``{"scramble": k}`` — a random walk of ``k`` moves from the goal
  (:func:`fastpuzzle.scramble`, no immediate undo).

With a random goal every episode draws its goal uniformly over all boards
(blank anywhere) and the start board from the curriculum relative to it: the
start is drawn for the goal with the same blank cell and tiles in order, then
both are relabelled by one random permutation of the tiles, which keeps every
distance.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import options as checks
from ..boards import as_goal
from ..errors import OptionError
from ..moves import board_symmetries

__all__ = ["Curriculum", "MAX_SCRAMBLE", "check_curriculum"]

#: Longest random walk a scramble curriculum takes: every reset walks it on every board, and a
#: walk much longer than the board's diameter squared is no nearer uniform ("uniform" is exact).
MAX_SCRAMBLE = 1_000_000


def check_curriculum(spec, m, n):
    """``(kind, value)`` of a curriculum spec (see the module notes)."""
    if spec is None or (isinstance(spec, str) and spec == "uniform"):
        return "uniform", None
    if isinstance(spec, dict) and len(spec) == 1:
        (kind, value), = spec.items()
        if kind == "distance":
            from ..distances.sample import check_distance

            return "distance", check_distance(value, m, n)
        if kind == "scramble":
            return "scramble", checks.whole(value, "curriculum scramble length", most=MAX_SCRAMBLE)
    raise OptionError("curriculum", spec, "must be 'uniform', {'distance': k or (lo, hi)} or {'scramble': k}")


@functools.lru_cache(maxsize=64)
def orbit_start(m: int, n: int, cell: int):
    """``(first, transform)``: the smallest cell of ``cell``'s orbit under the board's symmetries
    and a symmetry that takes a board's cell ``first`` to ``cell`` (on a board's last two axes).

    Examples
    --------
    >>> orbit_start(3, 3, 8)[0], orbit_start(3, 3, 4)[0], orbit_start(2, 3, 4)[0]
    (0, 4, 1)
    """
    cells = np.arange(m * n).reshape(m, n)
    return min(((int(f(cells).ravel()[cell]), i, f) for i, (_, f, _) in enumerate(board_symmetries(m, n))),
               key=lambda found: found[:2])[::2]


class Curriculum:
    """Draws start boards (and goals) for resets.

    Examples
    --------
    >>> c = Curriculum(3, 3, {"distance": 4})
    >>> boards, goals = c.draw(2, np.random.default_rng(0))
    >>> boards.shape, goals
    ((2, 3, 3), None)
    """

    def __init__(self, m, n, spec=None, *, goal=None, random_goal=False):
        self.m, self.n = m, n
        self.kind, self.value = check_curriculum(spec, m, n)
        self.goal = as_goal(goal, m, n)
        self.random_goal = checks.flag(random_goal, "random_goal")

    def renewed(self, spec):
        """The same board shape, goal and goal option with another curriculum ``spec``."""
        return Curriculum(self.m, self.n, spec, goal=self.goal, random_goal=self.random_goal)

    def _starts(self, count, rng, goal):
        from ..generate import random_solvable, scramble

        m, n = self.m, self.n
        if self.kind == "uniform":
            return random_solvable(m, n, count=count, seed=rng, goal=goal)
        if self.kind == "distance":
            return random_solvable(m, n, count=count, seed=rng, goal=goal, distance=self.value)
        return scramble(m, n, self.value, count=count, seed=rng, goal=goal)

    def draw(self, count, rng):
        """``(boards (count, m, n), goals (count, m, n) or None)`` from the generator ``rng``."""
        if not self.random_goal:
            return self._starts(count, rng, self.goal), None
        m, n = self.m, self.n
        N = m * n
        blanks = rng.integers(0, N, size=count)
        dtype = self.goal.dtype
        boards = np.empty((count, N), dtype)
        goals = np.empty((count, N), dtype)
        ordered = np.arange(1, N, dtype=np.int64)
        for cell in np.unique(blanks):
            at = np.flatnonzero(blanks == cell)
            # exact distances: drawn for the first cell of the blank's orbit under the board's symmetries,
            # then moved onto ``cell`` (distances kept), so a few goals' layers serve every cell
            first, transform = orbit_start(m, n, int(cell)) if self.kind == "distance" else (int(cell), None)
            base = np.insert(ordered, first, 0).astype(dtype).reshape(m, n)  # tiles in order, the blank at ``first``
            starts = self._starts(at.size, rng, base)
            if transform is not None:
                starts, base = transform(starts), transform(base)
            boards[at] = starts.reshape(at.size, N)
            goals[at] = base.ravel()
        # one random relabelling of the tiles per episode (the blank stays 0)
        perm = np.argsort(rng.random((count, N - 1)), axis=1).astype(np.int64) + 1
        relabel = np.concatenate([np.zeros((count, 1), np.int64), perm], axis=1)
        rows = np.arange(count)[:, None]
        boards = relabel[rows, boards.astype(np.int64)].astype(dtype)
        goals = relabel[rows, goals.astype(np.int64)].astype(dtype)
        return boards.reshape(count, m, n), goals.reshape(count, m, n)
