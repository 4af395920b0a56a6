"""Additive pattern databases: the public face.

The tables, their builder and cache live in :mod:`fastpuzzle.search.pdb`;
searching with them is the one IDA* engine of :mod:`fastpuzzle.search.ida`,
reached through :func:`solve_with_pdb` (or ``fastpuzzle.solve(board,
heuristic="pdb")``).  See those modules for the details.

===========  ======  =========================================  ============
name         board   patterns (default goal, blank last)        table bytes
===========  ======  =========================================  ============
``4-4``      3x3     1 2 3 4 / 5 6 7 8                          6 048
``5-5-5``    4x4     1 2 3 5 6 / 4 7 8 11 12 / 9 10 13 14 15    1.6 M
``6-6-3``    4x4     1 2 5 6 9 13 / 3 4 7 8 11 12 / 10 14 15    11.5 M
``7-8``      4x4     9..15 / 1..8                               577 M
``6-6-6-6``  5x5     four 6-tile blocks                         510 M
===========  ======  =========================================  ============
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
    save_atomic,
)
from .search.pdb.ranking import placement_count
from .search.solve import solve_many_with_pdb, solve_with_pdb

__all__ = [
    "PatternDatabase", "DATABASES", "MAX_CELLS",
    "build", "build_partition", "load", "available", "cache_dir", "placement_count", "save_atomic",
    "solve_with_pdb", "solve_many_with_pdb",
]  # fmt: skip
