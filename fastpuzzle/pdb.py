"""Additive pattern databases: the public face.

The tables, their builder and cache live in :mod:`fastpuzzle.search.pdb`;
searching with them is the one IDA* engine of :mod:`fastpuzzle.search.ida`,
reached through ``fastpuzzle.solve(board, heuristic="pdb")`` and
``fastpuzzle.solve_many(boards, heuristic="pdb")`` (``database=`` names or
passes a table).  See those modules for the details.

The named databases and their sizes are listed in
:mod:`fastpuzzle.search.pdb.store` (:data:`DATABASES`).

``solve_with_pdb`` and ``solve_many_with_pdb`` are deprecated aliases of
those two calls (with ``method="ida"``): they warn and return what the one
function returns, ``solve_many_with_pdb`` a :class:`~fastpuzzle.SolveManyResult`
(iterable as the list of :class:`~fastpuzzle.Solution` it used to return).
"""

from __future__ import annotations

import warnings

from .search.pdb import DATABASES, MAX_CELLS, PatternDatabase, available, cache_dir, load
from .search.pdb.build import build_partition
from .search.pdb.ranking import placement_count
from .search.pdb.store import build

__all__ = [
    "PatternDatabase", "DATABASES", "MAX_CELLS",
    "build", "build_partition", "load", "available", "cache_dir", "placement_count",
    "solve_with_pdb", "solve_many_with_pdb",
]  # fmt: skip


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"fastpuzzle.pdb.{old} is deprecated: call {new}", DeprecationWarning, stacklevel=3)


def solve_with_pdb(board, *, goal=None, database=None, max_nodes=None, time_limit=None, prune="automaton"):
    """Deprecated: ``fastpuzzle.solve(board, heuristic="pdb", method="ida", ...)``, which it returns.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     solve_with_pdb([[1, 2, 3], [4, 5, 6], [0, 7, 8]]).moves
    'RR'
    """
    from .search.solve import solve

    _deprecated("solve_with_pdb", 'fastpuzzle.solve(board, heuristic="pdb", method="ida")')
    return solve(board, goal=goal, heuristic="pdb", max_nodes=max_nodes, time_limit=time_limit, method="ida",
                 database=database, prune=prune)  # fmt: skip


def solve_many_with_pdb(boards, *, goal=None, database=None, max_nodes=None, time_limit=None, threads=None,
                        prune="automaton"):  # fmt: skip
    """Deprecated: ``fastpuzzle.solve_many(boards, heuristic="pdb", method="ida", ...)``, which it returns.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     [s.length for s in solve_many_with_pdb([[[1, 2, 3], [4, 5, 6], [7, 0, 8]]])]
    [1]
    """
    from .search.solve import solve_many

    _deprecated("solve_many_with_pdb", 'fastpuzzle.solve_many(boards, heuristic="pdb", method="ida")')
    return solve_many(boards, goal=goal, heuristic="pdb", max_nodes=max_nodes, time_limit=time_limit, method="ida",
                      threads=threads, database=database, prune=prune)  # fmt: skip
