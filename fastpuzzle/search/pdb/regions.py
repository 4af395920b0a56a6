"""Blank regions of a pattern placement, and the memory helpers of the builders.

The blank travels for free among the cells that hold no pattern tile, so a
builder needs the connected regions of free cells (cell sets as bit masks,
boards of at most 63 cells), an atomic OR for marks that threads share, and
large zeroed arrays.
"""

from __future__ import annotations

import os

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..._jit import jit
from ...memory import check_allocation

__all__ = ["flood", "slides_into", "atomic_or", "edge_masks", "region_labels", "labels_for", "big_zeros"]


@jit
def spread(s, n, full, not_first, not_last):
    """Cells next to a cell of mask ``s``."""
    return ((s >> n) | (s << n) | ((s & not_last) << 1) | ((s & not_first) >> 1)) & full


@jit
def slides_into(reg, occ, dirn, n, full, not_first, not_last):
    """``(ys, step)``: the blank cells of region ``reg`` with a pattern tile
    (``occ``) next to them in direction ``dirn``, and the step from such a cell
    ``y`` to that tile's cell ``x = y + step`` (the tile slides ``x -> y``)."""
    if dirn == 0:
        return reg & (occ << n) & full, -n
    if dirn == 1:
        return reg & not_first & ((occ & not_last) << 1), -1
    if dirn == 2:
        return reg & not_last & ((occ & not_first) >> 1), 1
    return reg & (occ >> n), n


@jit
def flood(seed, free, n, full, not_first, not_last):
    comp = seed
    while True:
        grown = (comp | spread(comp, n, full, not_first, not_last)) & free
        if grown == comp:
            return comp
        comp = grown


@intrinsic
def atomic_or(typingctx, arr, idx, val):
    """``arr[idx] |= val`` as one atomic read-modify-write (threads of a
    parallel pass may mark different blank regions of the same placement)."""
    if not isinstance(arr, types.Array):
        return None
    sig = types.void(arr, types.intp, arr.dtype)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary, i, v = args
        array = context.make_array(arrty)(context, builder, ary)
        ptr = cgutils.get_item_pointer(context, builder, arrty, array, [i])
        builder.atomic_rmw("or", ptr, v, "monotonic")
        return context.get_dummy_value()

    return sig, codegen


@jit(inline="always")
def edge_masks(n_cells, n):
    """Bit masks over the cells: all cells, cells not in the first column,
    cells not in the last column (for shifting a region left or right)."""
    full = (1 << n_cells) - 1
    not_first = 0
    not_last = 0
    for c in range(n_cells):
        if c % n != 0:
            not_first |= 1 << c
        if c % n != n - 1:
            not_last |= 1 << c
    return full, not_first, not_last


@jit
def region_labels(m, n):
    """For boards of at most 16 cells: ``labels[free, c]`` is the order (by
    lowest cell) of the region of free-cell mask ``free`` that holds ``c``."""
    n_cells = m * n
    full, not_first, not_last = edge_masks(n_cells, n)
    labels = np.zeros((1 << n_cells, n_cells), np.uint8)
    for f in range(1 << n_cells):
        rest = f
        s = 0
        while rest != 0:
            comp = flood(rest & -rest, f, n, full, not_first, not_last)
            rest &= ~comp
            for c in range(n_cells):
                if (comp >> c) & 1:
                    labels[f, c] = s
            s += 1
    return labels


def big_zeros(count: int, dtype) -> np.ndarray:
    """Zeroed array for the build; large ones get transparent huge pages,
    which saves most TLB misses of the random accesses of the search."""
    dtype = np.dtype(dtype)
    nbytes = count * dtype.itemsize
    check_allocation(nbytes, f"a pattern-database build buffer of {count:,} {dtype} entries")
    if nbytes < (1 << 26) or os.environ.get("FASTPUZZLE_NO_HUGEPAGES"):
        return np.zeros(count, dtype)
    import mmap

    buf = mmap.mmap(-1, nbytes)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            buf.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # pragma: no cover - kernel without THP
            pass
    return np.frombuffer(buf, dtype, count)


_LABELS_BY_SHAPE = {}


def labels_for(m, n):
    if m * n > 16 or os.environ.get("FASTPUZZLE_NO_LABELS_BY_SHAPE"):
        return np.zeros((1, 1), np.uint8)
    if (m, n) not in _LABELS_BY_SHAPE:
        _LABELS_BY_SHAPE[(m, n)] = region_labels(m, n)
    return _LABELS_BY_SHAPE[(m, n)]
