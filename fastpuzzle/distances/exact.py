"""``distance``: exact optimal distances of any batch of boards.

Boards of at most :data:`~fastpuzzle.distances.table.MAX_TABLE_CELLS` cells
are looked up in the distance table (built on first use; the 12-cell tables
take about a minute once, then load from the cache).  Larger boards are
solved optimally by IDA*: with pattern databases on 4x4 and 5x5 when the
goal's blank is in a corner (``solve_many(heuristic="pdb")``) and the
database is built or quick to build (the 5x5 one takes minutes: ``fastpuzzle
pdb build 6-6-6-6``), else with the linear-conflict heuristic, under the
usual per-board budgets.
"""

from __future__ import annotations

import numpy as np

from .. import options
from ..boards import as_boards, as_goal
from ..errors import DistanceBudgetError, ShapeError
from ..search.pdb.slides import SLIDE_MAX_CELLS
from ..search.pdb import choose_database
from ..search.solve import solve_many
from ..notation import check_metric
from .table import MAX_TABLE_CELLS, distance_table

__all__ = ["distance"]

#: Shapes solved with pattern databases (named databases exist for them).
PDB_SHAPES = ((3, 3), (4, 4), (5, 5))


def distance(boards, *, goal=None, max_nodes=None, time_limit=None, stopped="raise", table=None, metric="stm"):
    """Exact optimal distance (fewest moves) from each board to ``goal``.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards that can reach the goal.
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.
    max_nodes, time_limit : optional
        Budget of each board's search (boards of more than 12 cells).
    stopped : {"raise", "mark"}
        What to do when a search hits its budget: raise
        :class:`DistanceBudgetError` (it carries the indices and the other
        distances), or return -1 for those boards.
    table : bool, optional
        Force (True) or forbid (False) the table; default: the table for
        boards of at most 12 cells.
    metric : {"stm", "mtm"}
        Single-tile moves, or multi-tile moves (a row or column segment slid
        at once: from the multi-tile table up to 12 cells, by the solver with
        slide databases up to 16).

    Returns
    -------
    int or ndarray of int64 ``(B,)``

    Raises
    ------
    ValueError
        Malformed boards or goal, or a board that cannot reach the goal.

    Examples
    --------
    >>> distance([[8, 6, 7], [2, 5, 4], [3, 0, 1]])
    31
    >>> distance([[[1, 2, 3], [4, 5, 6], [7, 0, 8]], [[1, 2, 3], [4, 5, 6], [7, 8, 0]]]).tolist()
    [1, 0]
    """
    options.choice(stopped, "stopped", ("raise", "mark"))
    table = options.flag(table, "table", none=True)
    max_nodes, time_limit = options.node_budget(max_nodes), options.seconds(time_limit)
    batch, single = as_boards(boards, label="boards")
    B, m, n = batch.shape
    target = as_goal(goal, m, n)
    use_table = m * n <= MAX_TABLE_CELLS if table is None else table
    if check_metric(metric) == "mtm":
        if use_table:
            if m * n > MAX_TABLE_CELLS:
                raise ShapeError((m, n), f"table=True needs boards of at most {MAX_TABLE_CELLS} cells, got {m}x{n}",
                                 expected=MAX_TABLE_CELLS)  # fmt: skip
            return distance_table(m, n, goal=target, metric="mtm").lookup(batch[0] if single else batch)
        if m * n > SLIDE_MAX_CELLS:
            raise ShapeError((m, n), f"multi-tile distances cover boards of at most {SLIDE_MAX_CELLS} cells (the table up "
                             f"to {MAX_TABLE_CELLS}, then the solver with slide databases), got {m}x{n}",
                             expected=SLIDE_MAX_CELLS)  # fmt: skip
        return _solved(solve_many(batch, goal=target, max_nodes=max_nodes, time_limit=time_limit, method="ida",
                                  metric="mtm"), single, stopped)  # fmt: skip
    if use_table:
        if m * n > MAX_TABLE_CELLS:
            raise ShapeError((m, n), f"table=True needs boards of at most {MAX_TABLE_CELLS} cells, got {m}x{n}",
                             expected=MAX_TABLE_CELLS)  # fmt: skip
        return distance_table(m, n, goal=target).lookup(batch[0] if single else batch)
    r, c = divmod(int(np.flatnonzero(target.ravel() == 0)[0]), n)
    corner = r in (0, m - 1) and c in (0, n - 1)  # the named databases' goals, up to symmetry
    heuristic = "pdb" if (m, n) in PDB_SHAPES and corner and _database_ready(m, n) else "linear_conflict"
    result = solve_many(batch, goal=target, heuristic=heuristic, max_nodes=max_nodes, time_limit=time_limit, method="ida")
    return _solved(result, single, stopped)


def _database_ready(m, n) -> bool:
    """Whether the shape's pattern database is built or quick to build (built here if so); one
    that takes minutes (5x5) is never built unasked: the search then uses linear conflicts."""
    try:
        choose_database((m, n), None)
    except FileNotFoundError:
        return False
    return True


def _solved(result, single, stopped):
    """The lengths of ``solve_many``'s result; boards its budget stopped raise or read -1."""
    out = np.asarray(result.lengths, np.int64).copy()
    bad = np.flatnonzero(out < 0)
    if bad.size and stopped == "raise":
        raise DistanceBudgetError(bad.astype(np.int64), out)
    return int(out[0]) if single else out
