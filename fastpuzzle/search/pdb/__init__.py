"""Additive pattern databases: ranking, the breadth-first builder, the disk
cache and the heuristic (see :mod:`fastpuzzle.search.pdb.heuristic`).

Searching with them is the one IDA* engine's job (:mod:`fastpuzzle.search.ida`);
:mod:`fastpuzzle.pdb` is the public face.
"""

from .build import build_partition
from .heuristic import MAX_CELLS, GoalPlan, PatternDatabase
from .store import DATABASES, available, build, cache_dir, choose_database, load

__all__ = [
    "PatternDatabase", "GoalPlan", "DATABASES", "MAX_CELLS",
    "build", "build_partition", "load", "available", "cache_dir", "choose_database",
]  # fmt: skip
