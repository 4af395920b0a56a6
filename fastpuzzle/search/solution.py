"""The result of every solver: a move sequence plus how it was found."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..boards import as_boards, as_goal
from ..moves import _apply_codes, decode_moves, encode_moves

__all__ = ["Solution"]


@dataclass(eq=False)
class Solution:
    """A move sequence for one board.

    Attributes
    ----------
    codes : ndarray of uint8
        Move codes (0=U, 1=L, 2=R, 3=D: the blank's direction).
    status : str
        ``"optimal"`` (shortest possible), ``"found"`` (valid, not proven
        shortest), or ``"budget"`` (a node or time budget stopped the search;
        ``codes`` is then empty and nothing is claimed).
    nodes : int
        Nodes the search expanded or generated (see the solver's docs).
    seconds : float
        Wall time of the search.
    method : str
        Which solver produced it (``"ida"``, ``"constructive"``, ...).
    heuristic : str
        Heuristic used, where the solver has one.
    move_count : int or None
        Number of moves when the solver only counted them (``codes`` is then
        empty, e.g. the constructive solver's ``count_only`` mode); ``None``
        when ``codes`` holds the moves.  :attr:`length` reports it.

    Examples
    --------
    >>> s = Solution(np.array([0, 1], np.uint8), status="optimal")
    >>> s.moves, s.length
    ('UL', 2)
    """

    codes: np.ndarray
    status: str = "optimal"
    nodes: int = 0
    seconds: float = 0.0
    method: str = "ida"
    heuristic: str = ""
    move_count: int | None = None
    _moves: str | None = field(default=None, repr=False)

    @property
    def moves(self) -> str:
        """Moves as a ``U D L R`` string (built from the codes on first use)."""
        if self._moves is None:
            self._moves = decode_moves(self.codes)
        return self._moves

    @property
    def length(self) -> int:
        """Number of moves (``move_count`` when only the count was kept)."""
        if self.move_count is not None:
            return int(self.move_count)
        return int(len(self.codes))

    @property
    def solved(self) -> bool:
        """True unless a budget stopped the search."""
        return self.status != "budget"

    def verify(self, start, goal=None) -> bool:
        """True when the moves, applied to ``start``, reach ``goal``.

        Raises ``ValueError`` if a move is illegal on ``start``.
        """
        batch, _ = as_boards(start, label="start")
        m, n = batch.shape[1:]
        target = as_goal(goal, m, n)
        cells = batch[0].ravel().copy()
        bad = _apply_codes(cells, m, n, encode_moves(self.codes))
        if bad >= 0:
            raise ValueError(f"move {bad} of the solution is illegal on this start board")
        return bool(np.array_equal(cells, target.ravel()))

    def __repr__(self) -> str:
        shown = self.moves if self.length <= 60 else self.moves[:57] + "..."
        return (
            f"Solution(length={self.length}, status={self.status!r}, nodes={self.nodes}, "
            f"seconds={self.seconds:.4f}, method={self.method!r}, moves={shown!r})"
        )
