"""Additive pattern databases: ranking, the breadth-first builder, the disk
cache and the heuristic (see :mod:`fastpuzzle.search.pdb.heuristic`).

Searching with them is the one IDA* engine's job (:mod:`fastpuzzle.search.ida`);
:mod:`fastpuzzle.pdb` is the public face.  The package exports what a search
reads; the builder (:mod:`~fastpuzzle.search.pdb.build` and the modules it
uses) is imported only when a table is built, so looking tables up, or
searching with Manhattan distance, never loads it.
"""

from .heuristic import MAX_CELLS, GoalPlan, PatternDatabase
from .store import DATABASES, available, cache_dir, choose_database, load

__all__ = ["PatternDatabase", "GoalPlan", "DATABASES", "MAX_CELLS", "load", "available", "cache_dir", "choose_database"]
