"""Inversion-count and parity kernels (Numba), one board or a batch.

An inversion is a pair of tiles, blank skipped, that appear in row-major order
as ``a`` before ``b`` with ``a > b``.  Counts are exact ``int64``.

Kernels, by what they compute:

===========================  =====================================  ==============
kernel                       computes                               boards
===========================  =====================================  ==============
``_count_merge``             exact count, bottom-up merge sort      any size
``_count_fenwick``           exact count, binary indexed tree       any size
``_count_radix``             exact count, bitwise radix partition   any size
``_count_bitmask``           exact count, popcount of a seen-mask   N <= 64 cells
``_invariant_bitmask``       parity only, XOR of seen-masks         N <= 64 cells
``_invariant_bitmask128``    parity only, two seen-mask registers   N <= 128 cells
``_invariant_words``         parity only, a word per 64 values      N <= 4096
``invariant_tree``          parity only, a tree of parity words    any size
===========================  =====================================  ==============

The cycle count of the permutation (parity only, any size, validating) lives
in :mod:`fastpuzzle.solvability.cycle_kernels`.

The *invariant* of a board (m, n >= 2) is the parity of its inversions with the
blank counted as the smallest value, XOR the colour ``(row + col) % 2`` of the
blank's cell.  That equals the textbook rule -- width odd: inversions (blank
skipped); width even: inversions plus the blank's row -- because the blank's
own inversions are its row-major index ``row * n + col``.  Two boards are
reachable from each other iff their invariants match.  Batch drivers
``batch_*`` run the per-board kernels across threads (``prange`` over fixed
chunks, each chunk with its own scratch buffers).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import jit, jit_inner, pjit

# -- exact counts --------------------------------------------------------------


@jit
def _count_merge(cells, buf, tmp):
    """Exact inversions of ``cells`` (blank skipped) by bottom-up merge sort.

    ``buf`` and ``tmp`` are scratch arrays of at least ``cells.size`` entries.
    """
    k = 0
    for v in cells:
        if v != 0:
            buf[k] = v
            k += 1
    count = np.int64(0)
    width = 1
    src, dst = buf, tmp
    while width < k:
        lo = 0
        while lo < k:
            mid = min(lo + width, k)
            hi = min(lo + 2 * width, k)
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                if src[j] < src[i]:
                    # src[j] jumps ahead of every tile left in the left run
                    count += mid - i
                    dst[o] = src[j]
                    j += 1
                else:
                    dst[o] = src[i]
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < hi:
                dst[o] = src[j]
                j += 1
                o += 1
            lo = hi
        src, dst = dst, src
        width *= 2
    return count


@jit
def _count_fenwick(cells, tree):
    """Exact inversions (blank skipped) with a binary indexed tree.

    Scans right to left; for each tile counts the smaller tiles already seen.
    ``tree`` is a scratch array of at least ``cells.size`` int32 entries.
    """
    n_cells = cells.size
    for i in range(n_cells):
        tree[i] = 0
    count = np.int64(0)
    for p in range(n_cells - 1, -1, -1):
        v = min(np.int64(cells[p]), n_cells - 1)  # a non-permutation (check=False) stays inside the tree
        if v == 0:
            continue
        i = v - 1  # tiles smaller than v sit at tree indices 1..v-1
        while i > 0:
            count += tree[i]
            i -= i & (-i)
        i = v
        while i < n_cells:
            tree[i] += 1
            i += i & (-i)
    return count


@jit_inner
def _radix_groups(src, dst, level, n_tiles, first, last):
    """Stable partition by bit ``level`` of groups first..last-1 (each group:
    the values that share the bits above ``level``); returns the inversions
    between a tile with the bit set and a later one without."""
    half = np.int64(1) << level
    size = half << 1
    mask = dst.shape[0] - 1
    count = np.int64(0)
    for g in range(first, last):
        start = g * size
        end = min(start + size, n_tiles)
        c0 = start
        c1 = min(start + half, end)
        ones = np.int64(0)
        for i in range(start, end):
            x = src[i]
            bit = np.int64((x >> level) & 1)
            count += ones & (bit - 1)     # bit == 0: every earlier set-bit tile is larger
            ones += bit
            d = c0 + (c1 - c0) * bit
            dst[d & mask] = x
            c0 += 1 - bit
            c1 += bit
    return count

@jit_inner
def _radix_load(cells, a):
    """Copy the tiles (blank skipped) into ``a`` as 0..N-2; return their number
    and the top bit level to partition on."""
    n_tiles = 0
    mask = a.shape[0] - 1
    for v in cells:
        if v != 0:
            a[n_tiles & mask] = v - 1
            n_tiles += 1
    level = 0
    while (np.int64(1) << (level + 1)) < n_tiles:
        level += 1
    return n_tiles, level


@jit
def _count_radix(cells, a, b):
    """Exact inversions (blank skipped) by a most-significant-bit-first
    radix partition, O(N log N) in sequential, branch-free passes.

    Since the tiles are exactly 1..N-1, after sorting by their top bits
    each group of equal top bits fills a known slice of the array, so a
    level is a stable two-way partition of every slice, counting each tile
    with the bit set that precedes one without.  ``a`` and ``b`` are scratch
    of a power-of-two size >= N; writes are masked to it, so a board that is
    not a permutation (``check=False``) gives a wrong count, never a crash.
    """
    n_tiles, level = _radix_load(cells, a)
    count = np.int64(0)
    src, dst = a, b
    for lv in range(level, -1, -1):
        size = np.int64(2) << lv
        n_groups = (n_tiles + size - 1) // size
        count += _radix_groups(src, dst, lv, n_tiles, 0, n_groups)
        src, dst = dst, src
    return count

@pjit
def count_radix_par(cells, a, b, n_parts):
    """:func:`_count_radix` for one large board, each level's groups split
    over ``n_parts`` threads."""
    n_tiles, level = _radix_load(cells, a)
    count = np.int64(0)
    for lv in range(level, -1, -1):
        size = np.int64(2) << lv
        n_groups = (n_tiles + size - 1) // size
        src = a if (level - lv) % 2 == 0 else b
        dst = b if (level - lv) % 2 == 0 else a
        parts = min(n_parts, n_groups)
        level_count = np.int64(0)
        for p in prange(parts):
            level_count += _radix_groups(src, dst, lv, n_tiles, p * n_groups // parts, (p + 1) * n_groups // parts)
        count += level_count
    return count

@jit
def _count_bitmask(cells):
    """Exact inversions (blank skipped) for boards of at most 64 cells."""
    seen = np.uint64(0)
    count = np.int64(0)
    for v in cells:
        w = np.uint64(v)
        if w != 0:
            # earlier tiles greater than v: bits above v in the seen-mask
            count += popcount64((seen >> w) >> np.uint64(1))
        seen |= np.uint64(1) << w
    return count


@jit_inner
def popcount64(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit_inner
def parity64(x):
    x ^= x >> np.uint64(32)
    x ^= x >> np.uint64(16)
    x ^= x >> np.uint64(8)
    x ^= x >> np.uint64(4)
    x ^= x >> np.uint64(2)
    x ^= x >> np.uint64(1)
    return np.uint8(x & np.uint64(1))


# -- parity (the invariant) ----------------------------------------------------


@jit_inner
def _blank_index(cells):
    """Cell of the blank.  A loop of its own, not fused into the parity loop:
    alone it is a reduction the compiler vectorises across the cells."""
    blank = 0
    for j in range(cells.size):
        blank = max(blank, j * (cells[j] == 0))  # a cell index even if 0 repeats (check=False)
    return blank


@jit
def _invariant_bitmask(cells, colour):
    """Invariant of a board of at most 64 cells, branch-free.

    The parity of a sum of popcounts is the popcount parity of the XOR of
    the words, so one XOR per cell replaces the popcount; the blank (value 0)
    is counted as the smallest value, its colour corrects for that.
    """
    seen = np.uint64(0)
    acc = np.uint64(0)
    for j in range(cells.size):
        v = np.uint64(cells[j])
        acc ^= seen >> v
        seen |= np.uint64(1) << v
    return parity64(acc) ^ colour[_blank_index(cells)]


@jit
def _invariant_bitmask128(cells, colour):
    """Invariant of a board of 65..128 cells: the seen-mask in two registers,
    the word chosen by masks instead of branches or memory."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    acc = np.uint64(0)
    for j in range(cells.size):
        v = np.uint64(cells[j])
        in_hi = np.uint64(0) - ((v >> np.uint64(6)) & np.uint64(1))  # all ones if v >= 64
        bit = v & np.uint64(63)
        acc ^= ((hi & in_hi) | (lo & ~in_hi)) >> bit
        acc ^= hi & ~in_hi  # a value in the low word is below every value in the high word
        hi |= (np.uint64(1) << bit) & in_hi
        lo |= (np.uint64(1) << bit) & ~in_hi
    return parity64(acc) ^ colour[_blank_index(cells)]


@jit
def _invariant_words(cells, colour, words):
    """Invariant of a board of at most 4096 cells: a seen-mask of 64-bit
    words plus one word holding each word's parity, so a cell costs O(1):
    the tiles above v are the bits above v in its own word and the parities
    of all higher words.  ``words`` is scratch of at least N/64 + 1 uint64."""
    n_words = (cells.size + 63) >> 6
    for w in range(n_words):
        words[w] = 0
    word_parity = np.uint64(0)
    acc = np.uint64(0)
    blank = 0
    for j in range(cells.size):
        v = np.int64(cells[j])
        k = min(v >> 6, n_words - 1)  # stays inside even for check=False input
        bit = np.uint64(v & 63)
        acc ^= words[k] >> bit
        acc ^= (word_parity >> np.uint64(k)) >> np.uint64(1)
        words[k] |= np.uint64(1) << bit
        word_parity ^= np.uint64(1) << np.uint64(k)
        blank = max(blank, j * (v == 0))  # stays a cell index even for check=False input
    return parity64(acc) ^ colour[blank]


#: Most levels a parity tree has (boards of up to 64**7 cells).
TREE_MAX_LEVELS = 7


@jit
def fill_tree_levels(n_cells, offsets):
    """Write the parity tree's word offsets for ``n_cells`` into ``offsets``
    (``TREE_MAX_LEVELS + 1`` int64 at least) and return the number of
    levels; for kernels that allocate nothing (the judge format).  The
    layout is that of :func:`tree_levels`.
    """
    offsets[0] = 0
    words = (n_cells + 63) >> 6
    levels = 0
    while True:
        offsets[levels + 1] = offsets[levels] + words
        levels += 1
        if words <= 1:
            return levels
        words = (words + 63) >> 6


@jit
def tree_levels(n_cells):
    """Word offsets of the parity tree for boards of ``n_cells``.

    Level 0 holds one bit per value (the seen-mask), level ``l`` one bit per
    64**l values: the parity of how many of them were seen.  The top level
    is a single word.  ``offsets[l]`` is where level ``l`` starts;
    ``offsets[-1]`` is the number of words.
    """
    offsets = np.zeros(TREE_MAX_LEVELS + 1, np.int64)
    levels = fill_tree_levels(n_cells, offsets)
    return offsets[: levels + 1].copy()


@jit
def invariant_tree(cells, colour, words, offsets):
    """Invariant of a board of any size in O(N log64 N), no branches.

    A seen-mask over the values plus, per level up, one parity bit per block
    of 64**l values: the parity of the tiles seen before a cell that are
    larger than it is the XOR of the bits above it, word by word up the tree.
    ``words`` is scratch of ``offsets[-1]`` uint64, ``offsets`` from
    :func:`tree_levels`.  Every index stays inside its level, so even a
    board that is not a permutation (``check=False``) cannot write outside.
    """
    return invariant_tree_checked(cells, colour, words, offsets)[0]


@jit
def invariant_tree_checked(cells, colour, words, offsets):
    """:func:`invariant_tree` and whether ``cells`` is a permutation of
    0..N-1, for the price of one OR per cell: the tree's level 0 is a
    seen-mask, so a value seen twice (or one past N) shows there."""
    n_levels = offsets.shape[0] - 1
    n_cells = cells.size
    for w in range(offsets[n_levels]):
        words[w] = 0
    acc = np.uint64(0)
    clash = np.uint64(0)
    blank = 0
    for j in range(n_cells):
        v = np.int64(cells[j])
        blank = max(blank, j * (v == 0))  # stays a cell index even for check=False input
        clash |= np.uint64(v >= n_cells)
        k = min(offsets[0] + (v >> 6), offsets[1] - 1)
        # level 0: values above v inside v's word (v's own bit is not set yet)
        acc ^= words[k] >> np.uint64(v & 63)
        clash |= (words[k] >> np.uint64(v & 63)) & np.uint64(1)  # v seen before
        words[k] |= np.uint64(1) << np.uint64(v & 63)
        idx = k - offsets[0]
        for level in range(1, n_levels):
            k = min(offsets[level] + (idx >> 6), offsets[level + 1] - 1)
            bit = np.uint64(idx & 63)
            # blocks above v's block within the same parent word
            acc ^= (words[k] >> bit) >> np.uint64(1)
            words[k] ^= np.uint64(1) << bit
            idx = k - offsets[level]
    return parity64(acc) ^ colour[blank], clash == 0


@jit
def batch_invariant_tree_checked(flat, colour, offsets, out):
    """:func:`invariant_tree_checked` over a batch (serial: meant for few,
    large boards); returns the first board that is not a permutation, or -1."""
    words = np.empty(offsets[-1], np.uint64)
    first_bad = -1
    for b in range(flat.shape[0]):
        out[b], ok = invariant_tree_checked(flat[b], colour, words, offsets)
        if not ok and first_bad < 0:
            first_bad = b
    return first_bad


# -- tile order (one-row and one-column boards) --------------------------------


@jit
def _same_order(cells, reference):
    """True when ``cells`` holds the tiles of ``reference`` in the same order,
    blanks skipped in both."""
    i = 0
    j = 0
    n_cells = cells.size
    while True:
        while i < n_cells and cells[i] == 0:
            i += 1
        while j < n_cells and reference[j] == 0:
            j += 1
        if i == n_cells or j == n_cells:
            return i == n_cells and j == n_cells
        if cells[i] != reference[j]:
            return False
        i += 1
        j += 1


# -- batch drivers --------------------------------------------------------------

METHOD_MERGE, METHOD_FENWICK, METHOD_BITMASK, METHOD_RADIX = 0, 1, 2, 3
PARITY_BITMASK, PARITY_TREE, PARITY_WORDS, PARITY_BITMASK128 = 0, 1, 3, 4


@jit
def _chunk_bounds(n_boards, n_cells):
    """Fixed chunks of about 2^16 cells: enough work per chunk to amortise
    scratch buffers, enough chunks to balance threads."""
    per_chunk = max(1, (1 << 16) // n_cells)
    return per_chunk, (n_boards + per_chunk - 1) // per_chunk


@jit
def radix_buffer_size(n_cells):
    """Power of two >= n_cells: the radix scratch size (writes are masked)."""
    size = 1
    while size < n_cells:
        size *= 2
    return size


@jit
def _count_range(flat, method, out, lo, hi):
    n_cells = flat.shape[1]
    buf = np.empty(n_cells, flat.dtype)
    tmp = np.empty(n_cells, flat.dtype)
    tree = np.empty(n_cells, np.int32)
    radix_size = radix_buffer_size(n_cells)
    radix_a = np.empty(radix_size if method == METHOD_RADIX else 1, flat.dtype)
    radix_b = np.empty(radix_size if method == METHOD_RADIX else 1, flat.dtype)
    for b in range(lo, hi):
        if method == METHOD_RADIX:
            out[b] = _count_radix(flat[b], radix_a, radix_b)
        elif method == METHOD_BITMASK:
            out[b] = _count_bitmask(flat[b])
        elif method == METHOD_FENWICK:
            out[b] = _count_fenwick(flat[b], tree)
        else:
            out[b] = _count_merge(flat[b], buf, tmp)


@jit
def batch_count(flat, method, out):
    _count_range(flat, method, out, 0, flat.shape[0])


@pjit
def batch_count_par(flat, method, out):
    per_chunk, n_chunks = _chunk_bounds(flat.shape[0], flat.shape[1])
    for c in prange(n_chunks):
        _count_range(flat, method, out, c * per_chunk, min((c + 1) * per_chunk, flat.shape[0]))


@jit
def _invariant_range(flat, colour, kind, offsets, out, lo, hi):
    n_cells = flat.shape[1]
    if kind == PARITY_BITMASK:
        for b in range(lo, hi):
            out[b] = _invariant_bitmask(flat[b], colour)
    elif kind == PARITY_BITMASK128:
        for b in range(lo, hi):
            out[b] = _invariant_bitmask128(flat[b], colour)
    elif kind == PARITY_WORDS:
        words = np.empty((n_cells >> 6) + 1, np.uint64)
        for b in range(lo, hi):
            out[b] = _invariant_words(flat[b], colour, words)
    else:
        words = np.empty(offsets[-1], np.uint64)
        for b in range(lo, hi):
            out[b] = invariant_tree(flat[b], colour, words, offsets)


@jit
def batch_invariant(flat, colour, kind, offsets, out):
    _invariant_range(flat, colour, kind, offsets, out, 0, flat.shape[0])


@pjit
def batch_invariant_par(flat, colour, kind, offsets, out):
    per_chunk, n_chunks = _chunk_bounds(flat.shape[0], flat.shape[1])
    for c in prange(n_chunks):
        _invariant_range(flat, colour, kind, offsets, out, c * per_chunk, min((c + 1) * per_chunk, flat.shape[0]))


@jit
def batch_same_order(flat, reference, out):
    for b in range(flat.shape[0]):
        out[b] = _same_order(flat[b], reference[b % reference.shape[0]])


@pjit
def batch_same_order_par(flat, reference, out):
    for b in prange(flat.shape[0]):
        out[b] = _same_order(flat[b], reference[b % reference.shape[0]])


_count_radix_par, _batch_count, _batch_count_par = count_radix_par, batch_count, batch_count_par
_batch_invariant, _batch_invariant_par = batch_invariant, batch_invariant_par
_batch_same_order, _batch_same_order_par = batch_same_order, batch_same_order_par
