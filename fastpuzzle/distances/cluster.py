"""The whole-space search as chunked frontier passes on a Dask cluster.

The rank range (:mod:`~fastpuzzle.distances.ranking`) is cut into
``partitions`` slices of whole tile-order blocks; each slice's depth bytes
live on a worker as one future.  Pass ``d`` runs two kinds of task:

* **expand** (one per slice): the boards of the slice at depth ``d`` emit
  the ranks of their neighbours (the same kernel as the local search,
  :func:`~fastpuzzle.distances.search.expand_range`, in its ``emit`` mode),
  deduplicated and split by the slice that owns them;
* **merge** (one per slice): the ranks sent to a slice by every expand task
  become ``d + 1`` where the slice still holds 255 (unseen).

Only counts travel to the client between passes; the slices stay on the
workers until :func:`distance_table_dask` gathers them at the end into a
:class:`~fastpuzzle.distances.table.DistanceTable` equal to the local one.
"""

from __future__ import annotations

import numbers
import time

import numpy as np

from ..boards import as_goal
from .ranking import StateSpace
from .search import UNSEEN, expand_range, histogram
from .table import DistanceTable

__all__ = ["distance_table_dask"]

_SPACES: dict = {}


def _space(m, n, goal_bytes):
    """The state space of a goal, built once per worker process."""
    key = (m, n, goal_bytes)
    if key not in _SPACES:
        goal = np.frombuffer(goal_bytes, np.uint8).reshape(m, n)
        _SPACES[key] = StateSpace(m, n, goal)
    return _SPACES[key]


def _initial_slice(q_lo, q_hi, N, goal_rank):
    size = (q_hi - q_lo) * N
    chunk = np.full(-(-size // 8) * 8, UNSEEN, np.uint8)
    if q_lo * N <= goal_rank < q_hi * N:
        chunk[goal_rank - q_lo * N] = 0
    return chunk


def _expand(chunk, d, q_lo, q_hi, m, n, goal_bytes, edges):
    """Neighbour ranks of the slice's boards at depth ``d``, one sorted array per slice."""
    space = _space(m, n, goal_bytes)
    N, n_, k, fact, pop, sel, row_parity = space.kernel_args()
    frontier = int(np.count_nonzero(chunk == d))
    out = np.empty(4 * frontier, np.int64)
    written = 0
    if frontier:
        _, written = expand_range(chunk, chunk.view(np.uint64), d, q_lo, q_hi, N, n_, k, fact, pop, sel, row_parity, True, out)
    ranks = np.unique(out[:written])
    cuts = np.searchsorted(ranks, np.asarray(edges, np.int64) * N)
    return [ranks[cuts[i] : cuts[i + 1]] for i in range(len(edges) - 1)]


def _pick(parts, i):
    return parts[i]


def _merge(chunk, d, base, *incoming):
    """The slice after marking the incoming ranks ``d + 1`` where unseen."""
    new = chunk.copy()
    if incoming:
        local = np.unique(np.concatenate(incoming)) - base
        local = local[new[local] == UNSEEN]
        new[local] = d + 1
    return new


def _count(chunk, d):
    return int(np.count_nonzero(chunk == d))


def distance_table_dask(m, n, goal=None, *, client=None, partitions=8, progress=False) -> DistanceTable:
    """:func:`~fastpuzzle.distances.distance_table` computed by a Dask cluster.

    Parameters
    ----------
    m, n : int
        Board shape (at most 16 cells; each slice must fit a worker's memory:
        one byte per board).
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    partitions : int
        Slices of the rank range (tasks per pass and kind).
    progress : bool
        Print one line per pass (depth, boards, seconds).

    Returns
    -------
    DistanceTable
        Gathered on the client; equal to the local table.
    """
    from distributed import get_client

    for name, value in (("m", m), ("n", n), ("partitions", partitions)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, got {partitions}")
    goal = as_goal(goal, m, n)
    space = StateSpace(m, n, goal)
    client = get_client() if client is None else client
    N = space.cells
    edges = np.linspace(0, space.orders, min(int(partitions), space.orders) + 1).astype(np.int64)
    edges = np.unique(edges).tolist()
    P = len(edges) - 1
    goal_bytes = goal.astype(np.uint8).tobytes()
    slices = [client.submit(_initial_slice, edges[i], edges[i + 1], N, space.goal_rank, pure=False) for i in range(P)]
    counts = []
    start = time.perf_counter()
    d = 0
    while True:
        found = sum(client.gather([client.submit(_count, s, d, pure=False) for s in slices]))
        if found == 0:
            break
        counts.append(found)
        if progress:
            print(f"depth {d}: {found:,} boards ({time.perf_counter() - start:.1f} s)")
        emitted = [
            client.submit(_expand, s, d, edges[i], edges[i + 1], m, n, goal_bytes, edges, pure=False)
            for i, s in enumerate(slices)
        ]
        slices = [
            client.submit(
                _merge, slices[t], d, edges[t] * N,
                *[client.submit(_pick, e, t, pure=False) for e in emitted], pure=False,
            )
            for t in range(P)
        ]  # fmt: skip
        d += 1
    parts = client.gather(slices)
    depths = np.full(-(-space.size // 8) * 8, UNSEEN, np.uint8)
    for i, part in enumerate(parts):
        lo, hi = edges[i] * N, edges[i + 1] * N
        depths[lo:hi] = part[: hi - lo]
    hist = histogram(depths, space.size)
    if hist[UNSEEN]:  # pragma: no cover - every ranked board reaches the goal
        raise RuntimeError(f"{int(hist[UNSEEN])} boards were not reached")
    return DistanceTable((m, n), goal, space, depths, np.asarray(counts, np.int64), time.perf_counter() - start)
