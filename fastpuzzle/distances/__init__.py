"""Exact distances: whole-state-space tables and boards of a chosen difficulty.

* :mod:`.ranking` — the perfect hash of the boards that reach a goal;
* :mod:`.search` — breadth-first search, one byte per board;
* :mod:`.table` — :func:`distance_table` and its cache;
* :mod:`.exact` — :func:`distance` for any batch (table or optimal solver);
* :mod:`.sample` — uniform boards at a chosen distance;
* :mod:`.cluster` — the same search as chunked passes on Dask.
"""

from .exact import DistanceBudgetError, distance
from .table import DistanceTable, distance_table, format_depth_table

__all__ = ["distance_table", "DistanceTable", "distance", "DistanceBudgetError", "format_depth_table"]
