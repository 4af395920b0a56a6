"""Solvability and reachability: which boards can reach a goal.

* :mod:`.api` — :func:`inversions`, :func:`invariant`, :func:`is_solvable`,
  :func:`reachable`: validation and the choice of kernel;
* :mod:`.inversion_kernels` — inversion counts and parities, one board at a
  time (merge sort, Fenwick tree, bit masks, radix), serial and threaded;
* :mod:`.lane_kernels` — the invariant of many boards of up to 128 cells at
  once, validating as they go;
* :mod:`.cycle_kernels` — the invariant of large boards by walking the
  permutation's cycles, O(N).
"""

from .api import WALK_CHECKED_MIN_CELLS, inversions, invariant, is_solvable, reachable

__all__ = ["inversions", "invariant", "is_solvable", "reachable", "WALK_CHECKED_MIN_CELLS"]
