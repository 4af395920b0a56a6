"""Perfect hashing of pattern placements.

A placement of a pattern's ``k`` tiles is the ordered list of their cells.
Its rank is a mixed-radix number whose digit ``i`` counts the free cells
below tile ``i``'s cell (cells of tiles ``0..i-1`` removed), so the ranks of
all ``N! / (N-k)!`` placements are exactly ``0 .. N!/(N-k)! - 1``.
"""

from __future__ import annotations

import numpy as np

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ... import options
from ..._jit import jit

__all__ = ["placement_weights", "placement_count", "rank_placement", "rank_placement_bits", "unrank_placement", "popcount",
           "prefetch"]  # fmt: skip


def placement_weights(n_cells: int, k: int) -> np.ndarray:
    """Place values of the ranking: digit ``i`` ranges over ``n_cells - i`` cells."""
    w = np.ones(k, np.int64)
    for i in range(k - 2, -1, -1):
        w[i] = w[i + 1] * (n_cells - i - 1)
    return w


def placement_count(n_cells: int, k: int) -> int:
    """Number of placements of ``k`` distinct tiles on ``n_cells`` cells.

    Examples
    --------
    >>> placement_count(16, 7)
    57657600
    """
    n_cells = options.whole(n_cells, "n_cells")
    k = options.whole(k, "k", most=n_cells)
    out = 1
    for i in range(k):
        out *= n_cells - i
    return out


@jit
def rank_placement(cells_of, k, w):
    """Rank of the ordered placement ``cells_of[0:k]`` (distinct cells).

    Examples
    --------
    >>> w = placement_weights(4, 2)
    >>> [int(rank_placement(np.array(p), 2, w)) for p in ([0, 1], [1, 0], [3, 2])]
    [0, 3, 11]
    """
    idx = 0
    for i in range(k):
        c = cells_of[i]
        d = c
        for j in range(i):
            if cells_of[j] < c:
                d -= 1
        idx += d * w[i]
    return idx


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer (one instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the memory system for the cache line of ``arr[idx]`` and go on
    (no bounds check, no fault: a hint).  The search asks for the table
    entries of all a node's children before it reads the first, so their
    cache misses overlap instead of coming one after the other."""
    if not isinstance(arr, types.Array):
        return None
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        array = context.make_array(arrty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrty, array, [args[1]])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")  # fmt: skip
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep in all caches, data
        return context.get_dummy_value()

    return sig, codegen


@jit
def rank_placement_bits(cells_of, k, w):
    """:func:`rank_placement` by bit counts: one ``popcount`` per tile instead of a scan of the
    tiles before it (cells below 63).  The slide databases' build ranks every slide with it.

    Examples
    --------
    >>> w = placement_weights(4, 2)
    >>> [int(rank_placement_bits(np.array(p), 2, w)) for p in ([0, 1], [1, 0], [3, 2])]
    [0, 3, 11]
    """
    idx, used = 0, 0
    for i in range(k):
        c = cells_of[i]
        idx += (c - popcount(used & ((1 << c) - 1))) * w[i]
        used |= 1 << c
    return idx


@jit
def unrank_placement(idx, k, w, out):
    """Inverse of :func:`rank_placement`; returns the occupied-cell mask."""
    used = 0
    for i in range(k):
        d = idx // w[i]
        idx -= d * w[i]
        c = 0
        while True:
            if (used >> c) & 1 == 0:
                if d == 0:
                    break
                d -= 1
            c += 1
        out[i] = c
        used |= 1 << c
    return used

