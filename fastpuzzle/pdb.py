"""Additive pattern databases: the public face.

The tables, their builder and cache live in :mod:`fastpuzzle.search.pdb`;
searching with them is the one IDA* engine of :mod:`fastpuzzle.search.ida`,
reached through :func:`solve_with_pdb` (or ``fastpuzzle.solve(board,
heuristic="pdb")``).  See those modules for the details.

The named databases and their sizes are listed in
:mod:`fastpuzzle.search.pdb.store` (:data:`DATABASES`).
"""

from .search.pdb import (
    DATABASES,
    MAX_CELLS,
    PatternDatabase,
    available,
    build,
    build_partition,
    cache_dir,
    load,
)
from .search.pdb.ranking import placement_count
from .search.solve import solve_many_with_pdb, solve_with_pdb

__all__ = [
    "PatternDatabase", "DATABASES", "MAX_CELLS",
    "build", "build_partition", "load", "available", "cache_dir", "placement_count",
    "solve_with_pdb", "solve_many_with_pdb",
]  # fmt: skip
