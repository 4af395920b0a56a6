"""The result of every solver (a move sequence plus how it was found), and the
check every solver makes before it searches (:func:`require_reachable`)."""

from __future__ import annotations

import operator

from dataclasses import dataclass, field

import numpy as np

from ..boards import as_boards, as_goal
from ..errors import MoveError, OptionTypeError, ShapeError, UnreachableError
from ..manhattan import tile_distances
from ..moves import apply_codes, move_codes, move_letters, solution_parity
from ..notation import count_moves, decode_moves, encode_moves
from ..solvability import is_solvable

__all__ = ["Solution", "SolveManyResult", "require_reachable"]


def require_reachable(boards, goal, *, single: bool = False) -> None:
    """Raise the one "cannot reach the goal" error if any board cannot reach ``goal``.

    Parameters
    ----------
    boards : ndarray, shape (B, m, n)
        Validated boards.
    goal : ndarray, shape (m, n)
        Validated goal.
    single : bool
        The caller was given one board (the message then says "the board").

    Raises
    ------
    UnreachableError
        A ``ValueError`` naming the first board that cannot reach the goal.

    Examples
    --------
    >>> require_reachable(np.array([[[2, 1], [3, 0]]]), np.array([[1, 2], [3, 0]]), single=True)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.UnreachableError: the board cannot reach the goal: it lies in the other half of the state space (an odd permutation away; for one-row/column boards, its tiles are in another order)
    """
    ok = np.asarray(is_solvable(boards, goal=goal, check=False)).reshape(-1)
    if ok.all():
        return
    raise UnreachableError(None if single else int(np.flatnonzero(~ok)[0]))


@dataclass(eq=False)
class Solution:
    """A move sequence for one board.

    Attributes
    ----------
    codes : ndarray of uint8
        Move codes (0=U, 1=L, 2=R, 3=D: the blank's direction).
    status : str
        ``"optimal"`` (shortest possible: ``length == lower_bound``),
        ``"bounded"`` (a search proved ``lower_bound``: the length is within
        :attr:`bound_factor` of the optimum), ``"found"`` (valid, no search
        proved anything about it; ``lower_bound`` may still hold the root
        heuristic), or ``"budget"`` (a node or time budget stopped plain IDA*;
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
    lower_bound : int or None
        An admissible bound on the optimal length (never above it): the best
        the solver proved (the last plain IDA* threshold completed, or the
        root heuristic), ``None`` when none is known.
    note : str
        What the caller should know about how it was found (e.g. that a
        default time limit applied); empty when nothing.
    metric : str
        ``"stm"`` (one tile per move) or ``"mtm"``: a slide of the blank over
        ``k`` cells in one direction is one move; :attr:`length` counts the
        slides and :attr:`moves` folds them (``"U2"``).
    stats : dict
        How a budgeted search spent its budget (``method="anytime"`` up to
        25 cells): ``{"answer": ..., "proof": ..., "improve": ...}``, each
        ``{"seconds", "nodes", "threads"}``, the proof's also ``"bound"``
        where it stopped short; empty for the other solvers.

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
    lower_bound: int | None = None
    note: str = ""
    metric: str = "stm"
    stats: dict = field(default_factory=dict, repr=False)
    _moves: str | None = field(default=None, repr=False)

    def __post_init__(self):
        codes = self.codes
        if isinstance(codes, np.ndarray) and codes.dtype == np.uint8 and codes.ndim == 1:
            if codes.size and int(codes.max()) > 3:  # one pass, no copy: solvers hand over millions of moves
                move_codes(codes)  # raises ValueError naming the first bad move
        else:
            self.codes = move_codes(codes)  # TypeError/ValueError for anything but move codes

    @property
    def moves(self) -> str:
        """Moves as a ``U D L R`` string (built from the codes on first use; slides folded in ``"mtm"``)."""
        if self._moves is None:
            self._moves = decode_moves(self.codes, fold=True) if self.metric == "mtm" else move_letters(self.codes)
        return self._moves

    @property
    def length(self) -> int:
        """Number of moves (``move_count`` when only the count was kept)."""
        if self.move_count is not None:
            return int(self.move_count)
        if self.metric == "mtm":
            return count_moves(self.codes, metric="mtm")
        return int(len(self.codes))

    @property
    def bound_factor(self) -> float:
        """``length / lower_bound``: the solution is at most this many times the optimum
        (1.0 when optimal; ``inf`` with a zero bound off the goal, ``nan`` without a bound).

        Examples
        --------
        >>> Solution(np.zeros(3, np.uint8), status="bounded", lower_bound=2).bound_factor
        1.5
        """
        if self.lower_bound is None or not self.solved:
            return float("nan")
        if self.lower_bound == 0:
            return 1.0 if self.length == 0 else float("inf")
        return self.length / self.lower_bound

    @property
    def solved(self) -> bool:
        """True unless a budget stopped the search."""
        return self.status != "budget"

    def verify(self, start, *, goal=None) -> bool:
        """True when the moves, applied to ``start``, reach ``goal``.

        For a solution that only counted its moves (``move_count`` set, no
        codes) nothing can be replayed: True when ``start`` can reach
        ``goal`` and the count is consistent with it (at least the Manhattan
        distance, and of its parity: every move changes the parity of the
        blank's row plus column).

        Raises ``ValueError`` if a move is illegal on ``start``, or if
        ``start`` is a batch (a solution belongs to one board).

        Examples
        --------
        >>> Solution(np.array([2], np.uint8)).verify([[1, 2], [0, 3]])
        True
        >>> Solution(np.zeros(0, np.uint8), status="found", move_count=3).verify([[1, 2], [0, 3]])
        True
        """
        batch, single = as_boards(start, label="start")
        if not single:
            raise ShapeError(batch.shape, f"verify takes the one board (m, n) the solution belongs to, got a batch of "
                             f"shape {batch.shape}; verify each board with its own solution")  # fmt: skip
        m, n = batch.shape[1:]
        target = as_goal(goal, m, n)
        cells = batch[0].ravel().copy()
        if self.move_count is not None and len(self.codes) == 0:
            return self._count_consistent(cells, target)
        bad = apply_codes(cells, m, n, self.codes)
        if bad >= 0:
            letter = move_letters(self.codes[bad:bad + 1])
            raise MoveError(bad, letter, f"({letter!r}) of the solution is illegal on this start board")
        return bool(np.array_equal(cells, target.ravel()))

    def _count_consistent(self, cells, target) -> bool:
        m, n = target.shape
        if not bool(is_solvable(cells.reshape(m, n), goal=target, check=False)):
            return False
        distance = int(tile_distances(cells, target).sum())  # O(cells): count-only boards can be huge
        count = int(self.move_count)
        return count >= distance and count % 2 == solution_parity(cells, target, n)

    def _repr_svg_(self) -> str:
        """The moves as a picture in Jupyter: an animation when the solution
        carries its ``start`` board, else the path of the blank (:mod:`fastpuzzle.pictures`)."""
        from ..pictures import solution_svg

        return solution_svg(self.codes, start=getattr(self, "start", None))

    def __repr__(self) -> str:
        shown = self.moves if self.length <= 60 else self.moves[:57] + "..."
        return (
            f"Solution(length={self.length}, status={self.status!r}, lower_bound={self.lower_bound}, nodes={self.nodes}, "
            f"seconds={self.seconds:.4f}, method={self.method!r}, moves={shown!r})"
        )


@dataclass(eq=False)
class SolveManyResult:
    """Results of :func:`solve_many`, one entry per board.

    Attributes
    ----------
    lengths : ndarray of int64
        Solution length; ``-1`` where a budget stopped the search.
    nodes : ndarray of int64
        Nodes generated per board (see :func:`solve`).
    status : ndarray of str
        ``"optimal"``, ``"bounded"`` (within :attr:`bound_factors` of the
        optimum), ``"found"`` (valid, not proven shortest) or ``"budget"``.
    seconds : ndarray of float64
        Time spent on each board.
    moves : list of str
        Move strings (``""`` where a budget stopped the search).
    method, heuristic : str
        As passed to :func:`solve_many`.
    lower_bounds : ndarray of int64
        Admissible bound on each board's optimal length (see
        :attr:`Solution.lower_bound`); ``-1`` where none was proved.
    """

    lengths: np.ndarray
    nodes: np.ndarray
    status: np.ndarray
    seconds: np.ndarray
    moves: list
    method: str = "ida"
    heuristic: str = "linear_conflict"
    lower_bounds: np.ndarray | None = None
    metric: str = "stm"

    def __post_init__(self):
        if self.lower_bounds is None:
            self.lower_bounds = np.where(self.status == "optimal", self.lengths, -1).astype(np.int64)

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def solved(self) -> np.ndarray:
        """Boolean mask of the boards that got a solution."""
        return self.status != "budget"

    @property
    def bound_factors(self) -> np.ndarray:
        """Length over lower bound per board (1.0 at the goal, ``nan`` without both)."""
        lengths, bounds = self.lengths.astype(np.float64), self.lower_bounds.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(bounds > 0, lengths / bounds, np.nan)
        out[(lengths == 0) & (bounds == 0)] = 1.0
        out[lengths < 0] = np.nan
        return out

    def solutions(self) -> list:
        """One :class:`Solution` per board (also what iterating and indexing the result give)."""
        return [self[i] for i in range(len(self))]

    def __getitem__(self, i):
        """The solution of board ``i`` (negative from the end), or a list of them for a slice."""
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        if isinstance(i, (bool, np.bool_)):
            raise OptionTypeError("index", i, "must be an integer board index or a slice, not a bool")
        if not hasattr(i, "__index__"):
            raise OptionTypeError("index", i, "must be an integer board index or a slice")
        k = operator.index(i)
        if not -len(self) <= k < len(self):
            raise IndexError(f"board index {k} out of range for {len(self)} boards")
        i = range(len(self))[k]
        lb = int(self.lower_bounds[i])
        return Solution(encode_moves(self.moves[i]), status=str(self.status[i]), nodes=int(self.nodes[i]),
                        seconds=float(self.seconds[i]), method=self.method, heuristic=self.heuristic,
                        lower_bound=lb if lb >= 0 else None, metric=self.metric)  # fmt: skip

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        ok = int(self.solved.sum())
        return f"SolveManyResult({len(self)} boards, {ok} solved, nodes={int(self.nodes.sum())})"
