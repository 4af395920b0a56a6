"""Hints for a game: the distance to the goal and every optimal next move.

* up to 12 cells, from the distance table of the metric (all at once, batched):
  a move is optimal when it lands one closer;
* larger boards up to 16 cells (the 15-puzzle), single-tile metric: each
  neighbour's distance by the optimal solver (pattern databases where the
  goal allows), within the budget given; a neighbour the budget stopped
  leaves the hint unproved;
* the same for the multi-tile metric from 13 to 16 cells, the solver reading
  the slide databases (:mod:`fastpuzzle.search.pdb.slides`; built once, about a
  minute for the 15-puzzle);
* beyond, the solver's best solution: its length is an upper bound and its
  first move the hint, ``proved`` is False.

:func:`count_optimal` counts the optimal solutions (layer by layer through
the table, each board's count the sum of its successors' one layer closer)
and :func:`optimal_solutions` lists them up to a limit.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .boards import as_boards, as_goal
from .distances import distance_table
from .distances.exact import PDB_SHAPES
from .distances.multi import slide_neighbours
from .distances.table import MAX_TABLE_CELLS
from .errors import DistanceBudgetError, OptionError, OptionTypeError, ShapeError
from .moves import MOVE_CHARS
from . import options
from .notation import check_metric

__all__ = ["Hint", "hints", "count_optimal", "optimal_solutions", "MAX_HINT_CELLS"]

#: Largest board whose hints are proved optimal (by solving each neighbour).
MAX_HINT_CELLS = 16


@dataclass(frozen=True)
class Hint:
    """The hint for one board.

    Attributes
    ----------
    distance : int
        Moves to the goal in ``metric`` (exact when ``proved``, else the
        length of the best solution found: an upper bound).
    moves : tuple of str
        Every optimal first move in the blank's letters (``"U"``; in the
        multi-tile metric a slide of ``k`` cells is ``"U2"``), in U L R D
        order; empty at the goal.
    proved : bool
        ``distance`` is optimal and ``moves`` are all the optimal first moves.
    metric : str
        ``"stm"`` or ``"mtm"``.

    Examples
    --------
    >>> h = hints([[1, 2, 3], [4, 0, 6], [7, 5, 8]])
    >>> h.distance, h.moves, h.proved
    (2, ('D',), True)
    """

    distance: int
    moves: tuple
    proved: bool = True
    metric: str = "stm"


def _letter(code, steps, metric):
    return MOVE_CHARS[int(code)] + (str(int(steps)) if metric == "mtm" and steps > 1 else "")


def hints(board, *, goal=None, metric="stm", time_limit=None, max_nodes=None):
    """The distance to ``goal`` and every optimal next move, for a board or a batch.

    Parameters
    ----------
    board : array_like, shape (m, n) or (B, m, n)
        Boards that can reach the goal.
    goal : array_like (m, n), optional
        Default: tiles in order, blank last.
    metric : {"stm", "mtm"}
        Single-tile moves, or multi-tile moves (boards of at most 16 cells).
    time_limit, max_nodes : optional
        Budget of each neighbour's optimal search (boards of 13 to 16 cells),
        or of the one search beyond.

    Returns
    -------
    Hint, or a list of Hint for a batch

    Examples
    --------
    >>> hints([[1, 2, 3], [4, 5, 6], [0, 7, 8]], metric="mtm").moves
    ('R2',)
    >>> [h.distance for h in hints([[[1, 2], [0, 3]], [[1, 2], [3, 0]]])]
    [1, 0]
    """
    metric = check_metric(metric)
    time_limit, max_nodes = options.seconds(time_limit), options.node_budget(max_nodes)
    batch, single = as_boards(board, label="board")
    B, m, n = batch.shape
    target = as_goal(goal, m, n)
    from .search.solution import require_reachable

    require_reachable(batch, target, single=single)  # one error, "the board" for one board
    if m * n <= MAX_TABLE_CELLS:
        out = _table_hints(batch, target, metric)
    elif metric == "mtm":
        if m * n > MAX_HINT_CELLS:
            raise ShapeError((m, n), f"multi-tile hints cover boards of at most {MAX_HINT_CELLS} cells, got {m}x{n}",
                             expected=MAX_HINT_CELLS)  # fmt: skip
        out = [_solved_slide_hint(b, target, time_limit, max_nodes) for b in batch]
    elif m * n <= MAX_HINT_CELLS:
        out = [_solved_hint(b, target, time_limit, max_nodes) for b in batch]
    else:
        out = [_best_hint(b, target, time_limit, max_nodes) for b in batch]
    return out[0] if single else out


def _table_hints(batch, goal, metric):
    B, m, n = batch.shape
    table = distance_table(m, n, goal=goal, metric=metric)
    d = np.atleast_1d(table.lookup(batch))
    nb, source, code, steps = slide_neighbours(batch.reshape(B, m * n), m, n, metric)
    nd = np.atleast_1d(table.lookup(nb.reshape(-1, m, n))) if len(nb) else np.zeros(0, np.int64)
    good = nd == d[source] - 1
    order = np.lexsort((steps, code, source))  # U L R D, shorter slides first
    moves = [[] for _ in range(B)]
    for i in order[good[order]].tolist():
        moves[int(source[i])].append(_letter(code[i], steps[i], metric))
    return [Hint(int(d[b]), tuple(moves[b]), True, metric) for b in range(B)]


def _engine(m, n, goal):
    """The engine set up as :func:`~fastpuzzle.distances.distance` solves: pattern databases where
    the goal's blank sits in a corner of a shape that has them, else linear conflict."""
    from .search.solve import search_setup

    r, c = divmod(int(np.flatnonzero(goal.ravel() == 0)[0]), n)
    if (m, n) in PDB_SHAPES and r in (0, m - 1) and c in (0, n - 1):
        try:
            return search_setup(m, n, goal, "pdb")
        except (FileNotFoundError, ValueError):
            pass
    return search_setup(m, n, goal, "linear_conflict")


def _solved_hint(board, goal, time_limit, max_nodes):
    """The board solved once (distance ``d`` and one optimal first move), then every other neighbour
    searched only for a solution of ``d - 1`` moves: one bounded pass each (the depth-bounded mode of
    the engine), since by parity a neighbour is ``d - 1`` or ``d + 1`` away."""
    from .search import ida

    m, n = board.shape
    if np.array_equal(board, goal):
        return Hint(0, (), True)
    setup = _engine(m, n, goal)
    status, codes, _, _ = ida.ida_search(setup.map_boards(board.reshape(1, -1))[0], setup.engine, max_nodes,
                                         time_limit)  # fmt: skip
    if status != ida.STATUS_FOUND:  # no distance known: the budget fell short, as distance() says
        _out_of_budget()
    d, first = len(codes), int(setup.unmap_codes(codes[:1])[0])
    nb, _, code, _ = slide_neighbours(board.reshape(1, -1), m, n, "stm")
    moves, proved = [], True
    for child, c in zip(setup.map_boards(nb), code.tolist()):
        if c == first:
            moves.append(c)
            continue
        found, _, _, _ = ida.ida_search(child, setup.engine, max_nodes, time_limit, max_length=d - 1, threshold=d - 1)
        if found == ida.STATUS_FOUND:
            moves.append(c)
        elif found != ida.STATUS_BOUND:  # the budget stopped it: this move may be optimal too
            proved = False
    return Hint(d, tuple(MOVE_CHARS[c] for c in sorted(moves)), proved)


def _solved_slide_hint(board, goal, time_limit, max_nodes):
    """:func:`_solved_hint` in the multi-tile metric: a neighbour is ``d - 1``, ``d`` or ``d + 1``
    slides away, so each is searched for a solution of ``d - 1`` slides."""
    from .notation import count_moves
    from .search import ida
    from .search.solve import search_setup

    m, n = board.shape
    if np.array_equal(board, goal):
        return Hint(0, (), True, "mtm")
    setup = search_setup(m, n, goal, "linear_conflict", metric="mtm")
    status, codes, _, _ = ida.ida_search(setup.map_boards(board.reshape(1, -1))[0], setup.engine, max_nodes,
                                         time_limit)  # fmt: skip
    if status != ida.STATUS_FOUND:
        _out_of_budget()
    codes = setup.unmap_codes(codes)  # the user's moves, whatever frame the engine searched in
    d = count_moves(codes, metric="mtm")
    run = 1
    while run < len(codes) and codes[run] == codes[0]:
        run += 1
    moves, proved = [], True
    nb, _, code, steps = slide_neighbours(board.reshape(1, -1), m, n, "mtm")
    for child, c, k in zip(setup.map_boards(nb), code.tolist(), steps.tolist()):
        if (c, k) != (int(codes[0]), run):
            found, _, _, _ = ida.ida_search(child, setup.engine, max_nodes, time_limit, max_length=d - 1,
                                            threshold=d - 1)  # fmt: skip
            if found != ida.STATUS_FOUND:
                proved = proved and found == ida.STATUS_BOUND  # else the budget stopped it: it may be optimal too
                continue
        moves.append((c, k))
    return Hint(d, tuple(_letter(c, k, "mtm") for c, k in sorted(moves)), proved, "mtm")


def _out_of_budget():
    """The budget, not the input, fell short: :class:`~fastpuzzle.errors.DistanceBudgetError`, as ``distance`` raises."""
    raise DistanceBudgetError(np.array([0], np.int64), np.array([-1], np.int64), "raise max_nodes/time_limit")


def _best_hint(board, goal, time_limit, max_nodes):
    from .search.solve import solve

    solution = solve(board, goal=goal, max_nodes=max_nodes, time_limit=time_limit)
    if not solution.solved:
        _out_of_budget()
    first = (solution.moves[0],) if solution.length else ()
    return Hint(solution.length, first, solution.status == "optimal" and solution.length <= 1)


def _table_for_one(board, goal, metric, what):
    metric = check_metric(metric)
    batch, single = as_boards(board, label="board")
    if not single:
        raise ShapeError(batch.shape, f"{what} takes one board (m, n), got a batch of shape {batch.shape}")
    m, n = batch.shape[1:]
    if m * n > MAX_TABLE_CELLS:
        raise ShapeError((m, n), f"{what} needs a distance table: boards of at most {MAX_TABLE_CELLS} cells, got {m}x{n}",
                         expected=MAX_TABLE_CELLS)  # fmt: skip
    target = as_goal(goal, m, n)
    return batch[0], distance_table(m, n, goal=target, metric=metric), metric


def count_optimal(board, *, goal=None, metric="stm") -> int:
    """Number of optimal solutions (distinct shortest move sequences) from ``board`` to ``goal``.

    Boards of at most 12 cells (the distance table of the metric).

    Examples
    --------
    >>> count_optimal([[1, 2, 3], [4, 5, 6], [0, 7, 8]]), count_optimal([[0, 4, 5], [3, 1, 2]])
    (1, 3)
    """
    start, table, metric = _table_for_one(board, goal, metric, "count_optimal")
    m, n = start.shape
    space = table.space
    d = table.lookup(start)
    ranks = np.array([space.rank(start)], np.int64)
    counts = np.ones(1, np.int64)
    for depth in range(d - 1, -1, -1):
        nb, source, _, _ = slide_neighbours(space.boards(ranks).reshape(len(ranks), m * n), m, n, metric)
        r = space.ranks(nb)
        keep = np.asarray(table.depths[r]) == depth
        r, w = r[keep], counts[source[keep]]
        ranks, inverse = np.unique(r, return_inverse=True)
        counts = np.bincount(inverse, weights=w.astype(np.float64)).astype(np.float64)
        if counts.max() > 2.0**62:
            raise OverflowError(f"more than 2^62 optimal solutions (distance {d})")
        counts = counts.astype(np.int64)
    return int(counts.sum())


def optimal_solutions(board, *, goal=None, metric="stm", limit=100) -> list:
    """Optimal solutions (blank letters; folded slides in the multi-tile metric), at most ``limit``.

    Examples
    --------
    >>> optimal_solutions([[0, 4, 5], [3, 1, 2]])
    ['RDLURRDLURD', 'RDLURDRULDR', 'DRULDRRULDR']
    """
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
        raise OptionTypeError("limit", limit, "must be a whole number >= 1")
    if limit < 1:
        raise OptionError("limit", limit, "must be a whole number >= 1")
    cap = int(limit)
    start, table, metric = _table_for_one(board, goal, metric, "optimal_solutions")
    m, n = start.shape
    found: list = []

    def walk(flat, left, path):
        if len(found) >= cap:
            return
        if left == 0:
            found.append("".join(path))
            return
        nb, _, code, steps = slide_neighbours(flat.reshape(1, -1), m, n, metric)
        nd = np.atleast_1d(table.lookup(nb.reshape(-1, m, n)))
        for i in np.flatnonzero(nd == left - 1).tolist():
            walk(nb[i], left - 1, path + [_letter(code[i], steps[i], metric)])

    walk(start.ravel(), table.lookup(start), [])
    return found
