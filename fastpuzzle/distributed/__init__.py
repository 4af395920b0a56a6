"""Scale-out on Dask: the same kernels, one chunk of boards per task.

Batches that outgrow one machine live in a ``dask.array`` of shape
``(B, m, n)`` chunked along the batch axis only.  Each function here checks
what it can before any task is scheduled (dimensions, dtype, board shape,
the goal), builds a lazy graph whose tasks call the local functions of
fastpuzzle on their chunk, and returns a dask array.  A bad board found inside
a chunk is reported with its index in the whole batch (with bad boards in
several chunks, the one named is in the chunk whose task failed first).
:mod:`~fastpuzzle.distributed.arrays` holds the lazy twins,
:mod:`~fastpuzzle.distributed.solving` the cluster's ``solve_many``.

Install with ``pip install -e ".[dask]"``.
"""

from __future__ import annotations

from .arrays import (
    MAX_ZARR_CHUNK_BYTES, as_dask_boards, compute, default_chunks, from_npy, from_zarr, inversions, is_solvable,
    iter_blocks, random_solvable, reachable, to_zarr,
)  # fmt: skip
from .solving import solve_many

__all__ = [
    "as_dask_boards", "is_solvable", "reachable", "inversions", "random_solvable",
    "from_npy", "to_zarr", "from_zarr", "MAX_ZARR_CHUNK_BYTES", "compute", "iter_blocks", "solve_many",
]
