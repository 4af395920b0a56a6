"""Invariant and validation of large boards by walking the permutation's cycles.

The parity of a permutation of ``N`` values is ``(N - cycles) % 2``.  One
walker following a cycle waits a full memory latency per step (each step's
address is the value just read), so the walk is split over
:data:`WALKERS` walkers advanced in turn: their loads are independent and
the processor overlaps them.

A walker starts at the first position no walker has reached yet, marks every
position it reaches in a bitmap (N / 8 bytes: 125 KB for a million cells,
it stays in L2) and stops at the first marked one.  On a permutation a walker
can only stop at a walker's *start* (a marked run of a cycle begins at its
start), so the walkers of one cycle stop at each other's starts in a ring:
the cycles of the permutation are the cycles of the small permutation
"walker -> walker whose start it stopped at", counted at the end.  A walker
that stops at its own start closed a cycle alone and is only counted, so
memory beyond the bitmaps is one (start, stop) pair per walker that shared
its cycle: none for the identity, 660 for a random board of 10^6 cells,
at worst (adjacent transpositions) one per cell.

Validation comes from the same walk.  Every position is read exactly once
(by the walker that marked it), so a walk always ends, after at most ``2N``
steps.  A value ``>= N`` (or below 0, in a signed array) is caught as it
is read.  If all values are in range but one is repeated, some position ``c``
has two predecessors; at most one of them can have marked ``c``, so the
other stops at ``c``: either ``c`` is not a start, or it is a start stopped
at twice.  Hence the board is a permutation iff every value is in range,
every walker stops at a start and no start is stopped at twice -- exactly
what the kernel checks.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .._jit import jit, jit_inner, pjit

__all__ = ["WALKERS", "cycle_scratch", "invariant_cycles_checked", "batch_invariant_cycles_checked",
           "batch_invariant_cycles_checked_par"]

#: Walkers advanced in turn: enough independent loads in flight to hide the
#: latency of a cache miss.
WALKERS = 64


@intrinsic
def _prefetch(typingctx, arr, index):
    """Ask for the cache line of ``arr[index]`` without waiting for it (LLVM's
    ``prefetch``: a hint, it never faults and holds nothing up)."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, array_type, array, [args[1]], wraparound=False)
        byte_ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn_type = ir.FunctionType(ir.VoidType(), [byte_ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fn_type, "llvm.prefetch.p0")
        builder.call(fn, [byte_ptr, i32(0), i32(3), i32(1)])  # read, keep in all levels, data
        return context.get_dummy_value()

    return types.void(arr, index), codegen


@jit
def cycle_scratch(n_cells):
    """Scratch of :func:`invariant_cycles_checked` for boards of ``n_cells``:
    three bitmaps (marked, start, stopped-at) of one word per 64 cells.

    Examples
    --------
    >>> cycle_scratch(1000).shape
    (3, 16)
    """
    return np.empty((3, (n_cells + 63) >> 6), np.uint64)


@jit_inner
def _next_start(marked, cursor, n_cells):
    """First unmarked position at or after ``cursor``, or ``n_cells``."""
    w = cursor >> 6
    n_words = marked.shape[0]
    if w >= n_words:
        return n_cells
    free = ~marked[w] & (np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(cursor & 63))
    while free == 0:
        w += 1
        if w >= n_words:
            return n_cells
        free = ~marked[w]
    bit = 0
    while (free >> np.uint64(bit)) & np.uint64(1) == 0:
        bit += 1
    return min((w << 6) + bit, n_cells)


@jit_inner
def _ring_cycles(ring_starts, ring_stops, n_ring):
    """Cycles of the walker permutation "walker -> walker whose start it
    stopped at", over the walkers that stopped at another's start."""
    order = np.argsort(ring_starts[:n_ring])
    sorted_starts = ring_starts[:n_ring][order]
    nxt = np.empty(n_ring, np.int64)
    for w in range(n_ring):
        nxt[w] = order[np.searchsorted(sorted_starts, ring_stops[w])]
    cycles = 0
    for w in range(n_ring):
        if nxt[w] < 0:
            continue
        cycles += 1
        i = w
        while nxt[i] >= 0:
            j = nxt[i]
            nxt[i] = -1
            i = j
    return cycles


@jit_inner
def _start_walker(marked, is_start, cursor, n_cells, pos, start, s, cells):
    """Put a new walker on slot ``s`` at the first unmarked position at or
    after ``cursor``; returns the new cursor (``n_cells``: none left, the
    slot goes idle)."""
    cursor = _next_start(marked, cursor, n_cells)
    if cursor >= n_cells:
        start[s] = -1
        return cursor
    bit = np.uint64(1) << np.uint64(cursor & 63)
    marked[cursor >> 6] |= bit
    is_start[cursor >> 6] |= bit
    start[s] = cursor
    pos[s] = cursor
    _prefetch(cells, cursor)
    return cursor


@jit
def invariant_cycles_checked(cells, colour, bits):
    """Invariant of one board (any size) and whether it is a permutation of
    ``0..N-1``, by :data:`WALKERS` interleaved cycle walkers (see the module
    docstring).  ``bits`` comes from :func:`cycle_scratch`.

    A walker that stops at its own start closed a cycle alone and is only
    counted; the others are kept as (start, stop) pairs, in arrays that grow
    as needed.  On a board that is not a permutation the invariant returned
    is 0 and means nothing; the walk stops at the first sign of it.

    Examples
    --------
    >>> from fastpuzzle.boards import cell_colours
    >>> colour = cell_colours(2, 3)
    >>> [int(x) for x in invariant_cycles_checked(np.array([1, 2, 3, 4, 5, 0], np.uint8), colour, cycle_scratch(6))]
    [0, 1]
    >>> [int(x) for x in invariant_cycles_checked(np.array([2, 1, 3, 4, 5, 0], np.uint8), colour, cycle_scratch(6))]
    [1, 1]
    >>> bool(invariant_cycles_checked(np.array([1, 1, 3, 4, 5, 0], np.uint8), colour, cycle_scratch(6))[1])
    False
    """
    n_cells = cells.size
    marked, is_start, stopped_at = bits[0], bits[1], bits[2]
    marked[:] = 0
    is_start[:] = 0
    stopped_at[:] = 0
    pos = np.empty(WALKERS, np.int64)  # where each slot's walker stands (marked)
    start = np.empty(WALKERS, np.int64)  # where it started, -1 once the slot is idle
    ring_starts = np.empty(256, np.int64)
    ring_stops = np.empty(256, np.int64)
    n_ring = 0
    alone = 0
    cursor = 0
    blank = 0
    live = 0
    for s in range(WALKERS):
        cursor = _start_walker(marked, is_start, cursor, n_cells, pos, start, s, cells)
        live += start[s] >= 0
    while live > 0:
        for s in range(WALKERS):
            if start[s] < 0:
                continue
            p = pos[s]
            v = np.int64(cells[p])  # prefetched a round ago
            if v >= n_cells or v < 0:  # (negative: a signed array passed in directly)
                return np.uint8(0), False
            if v == 0:
                blank = p
            word = marked[v >> 6]
            bit = np.uint64(1) << np.uint64(v & 63)
            if word & bit == 0:  # the walk goes on
                marked[v >> 6] = word | bit
                pos[s] = v
                _prefetch(cells, v)
                continue
            # stopped at a marked position: it must be a start nobody stopped at yet
            if is_start[v >> 6] & bit == 0 or stopped_at[v >> 6] & bit != 0:
                return np.uint8(0), False
            stopped_at[v >> 6] |= bit
            if v == start[s]:
                alone += 1
            else:
                if n_ring == ring_starts.size:
                    ring_starts = np.concatenate((ring_starts, np.empty(n_ring, np.int64)))
                    ring_stops = np.concatenate((ring_stops, np.empty(n_ring, np.int64)))
                ring_starts[n_ring] = start[s]
                ring_stops[n_ring] = v
                n_ring += 1
            cursor = _start_walker(marked, is_start, cursor, n_cells, pos, start, s, cells)
            live -= start[s] < 0
    cycles = alone + _ring_cycles(ring_starts, ring_stops, n_ring)
    return np.uint8((n_cells - cycles) & 1) ^ colour[blank], True


@jit
def _cycles_range(flat, colour, out, lo, hi):
    """Boards ``lo..hi-1`` with one set of scratch; the first bad one, or -1."""
    bits = cycle_scratch(flat.shape[1])
    first_bad = -1
    for b in range(lo, hi):
        out[b], ok = invariant_cycles_checked(flat[b], colour, bits)
        if not ok and first_bad < 0:
            first_bad = b
    return first_bad


@jit
def batch_invariant_cycles_checked(flat, colour, out):
    """:func:`invariant_cycles_checked` over a batch, serial, into ``out``;
    returns the first board that is not a permutation, or -1 (``out`` of
    such a board is 0).

    Examples
    --------
    >>> from fastpuzzle.boards import cell_colours
    >>> boards = np.array([[1, 2, 3, 0], [2, 1, 3, 0], [1, 2, 3, 3]], np.uint8)
    >>> out = np.empty(3, np.uint8)
    >>> int(batch_invariant_cycles_checked(boards, cell_colours(2, 2), out)), out[:2].tolist()
    (2, [1, 0])
    """
    return _cycles_range(flat, colour, out, 0, flat.shape[0])


@pjit
def batch_invariant_cycles_checked_par(flat, colour, out):
    """:func:`batch_invariant_cycles_checked` across threads: ``prange`` over
    chunks of boards, each chunk with its own scratch."""
    n_boards = flat.shape[0]
    per_chunk = max(1, (1 << 18) // flat.shape[1])
    n_chunks = (n_boards + per_chunk - 1) // per_chunk
    firsts = np.empty(n_chunks, np.int64)
    for c in prange(n_chunks):
        firsts[c] = _cycles_range(flat, colour, out, c * per_chunk, min((c + 1) * per_chunk, n_boards))
    for c in range(n_chunks):
        if firsts[c] >= 0:
            return firsts[c]
    return -1
