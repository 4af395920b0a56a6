"""The whole-space search as chunked frontier passes on a Dask cluster.

The rank range (:mod:`~fastpuzzle.distances.ranking`) is cut into
``partitions`` slices of whole tile-order blocks; slice ``t`` keeps its
depth bytes (one per board, the table's product) on a worker.  Pass ``d`` is
one **step** task per slice, which

1. copies the slice and marks ``d`` where unseen at the offsets that the
   other slices sent it in pass ``d - 1``: the slice's layer ``d`` is now
   complete;
2. expands the slice's boards at depth ``d`` with the local search's kernel
   (:func:`~fastpuzzle.distances.search.expand_range`, ``emit`` mode):
   neighbours inside the slice are marked ``d + 1`` on the spot (every
   horizontal move, since a slice holds whole tile-order blocks, and the
   vertical moves that stay inside), the others are written out as ranks;
3. buckets those ranks by owning slice with a compiled counting sort, as
   ``uint32`` offsets within the target slice (4 bytes a rank, no sort,
   duplicates left in: marking twice is harmless).

It returns ``(slice, boards at depth d, buckets)``.  Small ``getitem`` tasks
hand bucket ``t`` of every step to step ``t`` of the next pass, so only
offsets cross between workers; a slice stays on its worker (its next step
takes the previous step's result, which lives there).  The client sees the
counts one pass late (it submits pass ``d + 1`` before waiting for the
counts of pass ``d``), so its round trip is off the critical path; the first
pass that finds no board ends the search and the slices are gathered into a
:class:`~fastpuzzle.distances.table.DistanceTable` equal to the local one.

Per pass the tasks are ``P`` steps, ``P`` tallies and ``P (P - 1)``
bucket picks for ``P`` slices; the data shipped is 4 bytes per emitted
vertical neighbour that leaves its slice.
"""

from __future__ import annotations

import numbers
import operator
import time

import numpy as np

from .._jit import jit
from ..boards import as_goal
from ..errors import OptionError, OptionTypeError
from .ranking import StateSpace
from .search import UNSEEN, expand_range, histogram
from .table import DistanceTable

__all__ = ["distance_table_dask"]

_SPACES: dict = {}
#: Offsets within a slice are ``uint32``.
_MAX_SLICE = 2**32


def _space(m, n, goal_bytes):
    """The state space of a goal, built once per worker process."""
    key = (m, n, goal_bytes)
    if key not in _SPACES:
        goal = np.frombuffer(goal_bytes, np.uint8).reshape(m, n)
        _SPACES[key] = StateSpace(m, n, goal)
    return _SPACES[key]


@jit
def _count_byte(chunk, size, value):
    """Bytes equal to ``value`` in ``chunk[:size]``."""
    found = 0
    for i in range(size):
        if chunk[i] == value:
            found += 1
    return found


@jit
def _mark(chunk, offsets, value):
    """``chunk[o] = value`` where it is unseen, for every offset ``o``."""
    for i in range(offsets.shape[0]):
        o = offsets[i]
        if chunk[o] == 255:
            chunk[o] = value


@jit
def _bucket(ranks, count, edges, N):
    """Counting sort of ``ranks[:count]`` by owning slice (``edges`` in
    tile-order blocks).  Returns ``(offsets, starts)``: the ``uint32`` offsets
    within the owner of slice ``t`` are ``offsets[starts[t]:starts[t + 1]]``."""
    P = edges.shape[0] - 1
    owner = np.empty(count, np.int32)
    starts = np.zeros(P + 1, np.int64)
    for i in range(count):
        q = ranks[i] // N
        lo, hi = 0, P
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if edges[mid] <= q:
                lo = mid
            else:
                hi = mid
        owner[i] = lo
        starts[lo + 1] += 1
    for t in range(P):
        starts[t + 1] += starts[t]
    fill = starts[:P].copy()
    offsets = np.empty(count, np.uint32)
    for i in range(count):
        t = owner[i]
        offsets[fill[t]] = ranks[i] - edges[t] * N
        fill[t] += 1
    return offsets, starts


def _initial_state(q_lo, q_hi, N, goal_rank, P):
    size = (q_hi - q_lo) * N
    chunk = np.full(-(-size // 8) * 8, UNSEEN, np.uint8)
    if q_lo * N <= goal_rank < q_hi * N:
        chunk[goal_rank - q_lo * N] = 0
    return chunk, 0, [np.empty(0, np.uint32)] * P


def _step(state, d, t, m, n, goal_bytes, edges, *incoming):
    """Pass ``d`` of slice ``t``: merge the offsets sent to it, expand its layer ``d``."""
    space = _space(m, n, goal_bytes)
    N, n_, k, fact, pop, sel, row_parity = space.kernel_args()
    q_lo, q_hi = edges[t], edges[t + 1]
    chunk = state[0].copy()  # tasks stay pure: a lost worker's result can be recomputed
    for offsets in incoming:
        if offsets.shape[0]:
            _mark(chunk, offsets, np.uint8(d))
    frontier = _count_byte(chunk, (q_hi - q_lo) * N, np.uint8(d))
    out = np.empty(2 * frontier, np.int64)
    written = 0
    if frontier:
        _, written = expand_range(chunk, chunk.view(np.uint64), d, q_lo, q_hi, N, n_, k, fact, pop, sel, row_parity, True, out)
    offsets, starts = _bucket(out, written, np.asarray(edges, np.int64), N)
    buckets = [offsets[starts[s] : starts[s + 1]] for s in range(len(edges) - 1)]
    return chunk, frontier, buckets


def _bucket_for(state, t):
    return state[2][t]


def _tally(state, t):
    """``(boards at depth d, offsets sent to other slices)`` of a step of slice ``t``."""
    return state[1], sum(b.shape[0] for s, b in enumerate(state[2]) if s != t)


def distance_table_dask(m, n, *, goal=None, client=None, partitions=8, progress=False, stats=None) -> DistanceTable:
    """:func:`~fastpuzzle.distances.distance_table` computed by a Dask cluster.

    Parameters
    ----------
    m, n : int
        Board shape (at most 16 cells; a slice must fit a worker's memory at
        one byte per board, twice during a step).
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    partitions : int
        Slices of the rank range (step tasks per pass); each must hold fewer
        than ``2**32`` boards.
    progress : bool
        Print one line per pass (depth, boards, seconds).
    stats : dict, optional
        Filled with ``partitions`` (slices used), ``passes`` (step tasks per
        slice) and ``shipped`` (``int64`` per pass: ``uint32`` offsets sent
        between slices).

    Returns
    -------
    DistanceTable
        Gathered on the client; equal to the local table.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster, \\
    ...         Client(cluster) as client:
    ...     distance_table_dask(2, 3, client=client, partitions=3).radius
    21
    """
    for name, value in (("m", m), ("n", n), ("partitions", partitions)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise OptionTypeError(name, value, "must be an integer")
    if partitions < 1:
        raise OptionError("partitions", partitions, "must be at least 1")
    if not isinstance(progress, bool):
        raise OptionTypeError("progress", progress, "must be True or False")
    if stats is not None and not isinstance(stats, dict):
        raise OptionTypeError("stats", type(stats).__name__, "must be a dict or None")
    goal = as_goal(goal, m, n)
    space = StateSpace(m, n, goal)
    N = space.cells
    edges = np.unique(np.linspace(0, space.orders, min(int(partitions), space.orders) + 1).astype(np.int64)).tolist()
    P = len(edges) - 1
    widest = max(edges[i + 1] - edges[i] for i in range(P)) * N
    if widest >= _MAX_SLICE:
        raise OptionError("partitions", partitions, f"leaves a slice of {widest:,} boards; at most {_MAX_SLICE - 1:,}")
    if client is not None and not (hasattr(client, "submit") and hasattr(client, "gather")):
        raise OptionTypeError("client", type(client).__name__, "must be a distributed.Client or None")
    if client is None:
        from distributed import get_client

        client = get_client()
    goal_bytes = goal.astype(np.uint8).tobytes()
    states = [client.submit(_initial_state, edges[t], edges[t + 1], N, space.goal_rank, P, pure=False) for t in range(P)]
    counts, shipped, pending = [], [], []  # pending: the tally futures of passes not yet read
    start = time.perf_counter()
    d = 0
    while True:
        states = [
            client.submit(
                _step, states[t], d, t, m, n, goal_bytes, edges,
                *[client.submit(_bucket_for, states[s], t, pure=False) for s in range(P) if s != t], pure=False,
            )
            for t in range(P)
        ]  # fmt: skip
        pending.append((states, [client.submit(_tally, s, t, pure=False) for t, s in enumerate(states)]))
        d += 1
        if len(pending) < 2:
            continue
        done_states, tally_futures = pending.pop(0)
        tallies = client.gather(tally_futures)
        found = sum(f for f, _ in tallies)
        shipped.append(sum(o for _, o in tallies))
        if found == 0:
            break
        counts.append(found)
        if progress:
            print(f"depth {len(counts) - 1}: {found:,} boards ({time.perf_counter() - start:.1f} s)")
        if d - 1 >= UNSEEN:  # pragma: no cover - no board of <= 16 cells is that deep
            raise RuntimeError("depth 255 reached: the byte encoding cannot hold it")
    client.cancel(pending[0][0])
    if stats is not None:
        stats.update(partitions=P, passes=len(shipped), shipped=np.asarray(shipped, np.int64))
    parts = client.gather([client.submit(operator.getitem, s, 0, pure=False) for s in done_states])
    depths = np.full(-(-space.size // 8) * 8, UNSEEN, np.uint8)
    for t, part in enumerate(parts):
        lo, hi = edges[t] * N, edges[t + 1] * N
        depths[lo:hi] = part[: hi - lo]
    hist = histogram(depths, space.size)
    if hist[UNSEEN]:  # pragma: no cover - every ranked board reaches the goal
        raise RuntimeError(f"{int(hist[UNSEEN])} boards were not reached")
    return DistanceTable((m, n), goal, space, depths, np.asarray(counts, np.int64), time.perf_counter() - start)
