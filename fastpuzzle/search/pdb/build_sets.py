"""Breadth-first construction of one pattern table, exact in the blank regions.

The abstract state is (placement of the pattern tiles, region of free cells
that holds the blank): the blank moves for free inside its region, a pattern
tile sliding into it costs one move.  The table keeps, per placement, the
fewest moves over its regions, indexed by :func:`fastpuzzle.search.pdb.ranking.rank_placement` so
lookups are unchanged.  Every region is told apart (nothing is merged).

Set-major search (patterns of at most 8 tiles, :data:`SET_MAJOR_MAX_TILES`).
A placement is a *cell set* plus an *ordering* of the tiles over the set's
sorted cells.  The blank regions depend on the cell set alone, and a move
changes the ordering in a way that depends only on the slots involved: the
tile of slot ``a`` (cell x) becomes slot ``b`` of the new set (cell y); with
no tile between x and y (every horizontal move, many vertical ones) the
ordering is unchanged.  So the search keeps one bitset over the ``k!``
orderings per (cell set, region) *block* and expands a whole block at once:
a word-wise OR into the successor's block, or, when ``a != b``, each set bit
through a precomputed map of orderings (``moved``), inside two 5 KB blocks.
Two bitsets in all: ``V`` (reached) and ``F`` (frontier).  Successors of a
set have the other parity (a pattern-tile move changes the sum of the tiles'
rows and columns by one), so ``F`` holds the layer being expanded in the
sets of one parity and collects the next layer in the others.  At the end
of a layer each set of the next parity keeps ``F & ~V`` as its frontier and
writes the depth of the orderings none of whose regions was reached before.
For the 8-tile half of 7-8: 12,870 cell sets, 35,343 blocks of 40,320 bits,
178 MB per bitset, next to the 519 MB table.

Placement search (larger patterns): a byte of reached-region bits per
placement and two bitsets of placements (this layer, next layer); a
placement of the frontier expands all its reached regions.

Threads split the sets (or the frontier words) into disjoint ranges; marks
into blocks of other sets go through atomic ORs.  The tables do not depend
on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from ..._jit import jit, pjit, use_threads
from ...boards import as_goal
from ...errors import OptionError, ShapeError
from ...boards import goal_cells as cells_of_tiles
from .heuristic import MAX_CELLS
from .regions import atomic_or, big_zeros, edge_masks, flood, slides_into
from .ranking import placement_count, placement_weights, popcount, rank_placement, unrank_placement

from .build_placement import build_by_placement

__all__ = ["build_pattern", "SET_MAJOR_MAX_TILES"]


# ---------------------------------------------------------------------------
# Set-major search: one bitset over the tiles' orderings per (cell set, region)
# ---------------------------------------------------------------------------

#: Largest pattern built set-major (its orderings, k!, index one bitset).
SET_MAJOR_MAX_TILES = 8


@jit
def _binomials(n_max):
    binom = np.zeros((n_max + 1, n_max + 1), np.int64)
    for i in range(n_max + 1):
        binom[i, 0] = 1
        for j in range(1, i + 1):
            binom[i, j] = binom[i - 1, j - 1] + binom[i - 1, j]
    return binom


@jit
def _set_index(mask, binom):
    """Rank of a cell set among the sets of its size, in increasing mask order."""
    idx = 0
    j = 0
    rest = mask
    while rest != 0:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - 1
        j += 1
        idx += binom[c, j]
    return idx


@jit
def _set_layout(n_cells, n, k, binom):
    """Every k-cell set (increasing mask order), its parity (sum of the cells'
    rows and columns), and the blank regions of its free cells: set ``i`` owns
    blocks ``first[i]:first[i + 1]``, ``region_masks[b]`` the cells of block ``b``."""
    full, not_first, not_last = edge_masks(n_cells, n)
    n_sets = binom[n_cells, k]
    set_masks = np.zeros(n_sets, np.int64)
    parity = np.zeros(n_sets, np.int64)
    first = np.zeros(n_sets + 1, np.int64)
    regions = np.zeros(n_sets * ((n_cells + 1) // 2), np.int64)
    mask = (np.int64(1) << k) - 1
    n_blocks = 0
    for i in range(n_sets):
        set_masks[i] = mask
        p = 0
        for c in range(n_cells):
            if (mask >> c) & 1:
                p += c // n + c % n
        parity[i] = p & 1
        free = full & ~mask
        rest = free
        while rest != 0:
            comp = flood(rest & -rest, free, n, full, not_first, not_last)
            regions[n_blocks] = comp
            n_blocks += 1
            rest &= ~comp
        first[i + 1] = n_blocks
        low = mask & -mask  # next set of k cells (Gosper)
        ripple = mask + low
        mask = (((ripple ^ mask) >> 2) // low) | ripple
    return set_masks, parity, first, regions[:n_blocks].copy()


@jit
def _ordering_tables(k, w, fw):
    """Orderings of the k tiles over the sorted cells of a set, ranked
    lexicographically (``order[slot] = tile``).

    Returns ``slot_of[o, i]`` (slot of tile i), ``shift[o]`` (what the digits
    of :func:`fastpuzzle.search.pdb.ranking.rank_placement` lose to the cells held by earlier tiles:
    ``_rank = sum(w[i] * cell of tile i) - shift[o]``) and ``moved[a * k + b, o]``
    (the ordering once the tile of slot ``a`` is taken out and put back at slot
    ``b``, the tiles between shifting over)."""
    n_orders = 1
    for i in range(2, k + 1):
        n_orders *= i
    slot_of = np.zeros((n_orders, k), np.int64)
    shift = np.zeros(n_orders, np.int64)
    moved = np.zeros((k * k, n_orders), np.uint16)
    order = np.zeros(k, np.int64)
    other = np.zeros(k, np.int64)
    for o in range(n_orders):
        unrank_placement(o, k, fw, order)
        for s in range(k):
            slot_of[o, order[s]] = s
        for i in range(k):
            for j in range(i):
                if slot_of[o, j] < slot_of[o, i]:
                    shift[o] += w[i]
        for a in range(k):
            for b in range(k):
                d = 0
                for s in range(k):
                    if s != a:
                        if d == b:
                            d += 1
                        other[d] = order[s]
                        d += 1
                other[b] = order[a]
                moved[a * k + b, o] = rank_placement(other, k, fw)
    return slot_of, shift, moved


@jit
def _expand_sets(F, set_masks, parity, first, regions, cur_parity, binom, moved, k, n_words, n, n_cells, lo, hi, atomic):
    """Expand the frontier blocks of the sets ``[lo, hi)`` of parity
    ``cur_parity``: OR each successor ordering into the block of the set and
    region it lands in (those sets have the other parity)."""
    full, not_first, not_last = edge_masks(n_cells, n)
    for si in range(lo, hi):
        if parity[si] != cur_parity:
            continue
        occ = set_masks[si]
        for blk in range(first[si], first[si + 1]):
            src = blk * n_words
            live = False
            for q in range(n_words):
                if F[src + q] != 0:
                    live = True
                    break
            if not live:
                continue
            reg = regions[blk]
            for dirn in range(4):
                ys, step = slides_into(reg, occ, dirn, n, full, not_first, not_last)
                while ys != 0:
                    y = np.int64(trailing_zeros(ys))
                    ys &= ys - 1
                    x = y + step
                    nocc = occ ^ ((np.int64(1) << x) | (np.int64(1) << y))
                    nsi = _set_index(nocc, binom)
                    dst_blk = first[nsi]
                    while (regions[dst_blk] >> x) & 1 == 0:
                        dst_blk += 1
                    dst = dst_blk * n_words
                    a = popcount(occ & ((np.int64(1) << x) - 1))
                    b = popcount(nocc & ((np.int64(1) << y) - 1))
                    if a == b:  # no tile between x and y: same ordering
                        for q in range(n_words):
                            v = F[src + q]
                            if v != 0:
                                if atomic:
                                    atomic_or(F, dst + q, v)
                                else:
                                    F[dst + q] |= v
                    else:
                        row = a * k + b
                        for q in range(n_words):
                            v = F[src + q]
                            while v != 0:
                                o = np.int64(moved[row, q * 64 + np.int64(trailing_zeros(v))])
                                v &= v - np.uint64(1)
                                bit = np.uint64(1) << np.uint64(o & 63)
                                if atomic:
                                    atomic_or(F, dst + (o >> 6), bit)
                                else:
                                    F[dst + (o >> 6)] |= bit


@jit
def _settle_sets(F, V, table, set_masks, parity, first, cur_parity, slot_of, shift, w, k, n_words, n_cells, depth, lo, hi):
    """End of a layer for sets ``[lo, hi)``: clear the expanded frontier
    (parity ``cur_parity``); in the other sets keep the marks not seen
    before as the next frontier, add them to ``V`` and write ``depth`` for the
    orderings none of whose regions was reached before.  Returns the number
    of new states."""
    cells = np.zeros(n_cells, np.int64)
    new_states = 0
    for si in range(lo, hi):
        b0 = first[si]
        b1 = first[si + 1]
        if parity[si] == cur_parity:
            F[b0 * n_words : b1 * n_words] = 0
            continue
        occ = set_masks[si]
        j = 0
        for c in range(n_cells):
            if (occ >> c) & 1:
                cells[j] = c
                j += 1
        for q in range(n_words):
            seen = np.uint64(0)
            fresh = np.uint64(0)
            for blk in range(b0, b1):
                at = blk * n_words + q
                v = V[at]
                f = F[at] & ~v
                F[at] = f
                V[at] = v | f
                seen |= v
                fresh |= f
                new_states += popcount(f)
            fresh &= ~seen
            while fresh != 0:
                o = q * 64 + np.int64(trailing_zeros(fresh))
                fresh &= fresh - np.uint64(1)
                idx = -shift[o]
                for i in range(k):
                    idx += w[i] * cells[slot_of[o, i]]
                table[idx] = depth
    return new_states


@pjit
def _layer_parallel(F, V, table, set_masks, parity, first, regions, cur_parity, binom, moved, slot_of, shift, w, k,
                    n_words, n, n_cells, depth, n_parts):
    """One layer on all threads: expand (atomic ORs, two sets may feed one
    block), then settle (each set on one thread)."""
    n_sets = set_masks.shape[0]
    step = (n_sets + n_parts - 1) // n_parts
    for part in prange(n_parts):
        lo = min(n_sets, part * step)
        hi = min(n_sets, lo + step)
        _expand_sets(F, set_masks, parity, first, regions, cur_parity, binom, moved, k, n_words, n, n_cells, lo, hi, True)
    total = 0
    for part in prange(n_parts):
        lo = min(n_sets, part * step)
        hi = min(n_sets, lo + step)
        total += _settle_sets(F, V, table, set_masks, parity, first, cur_parity, slot_of, shift, w, k, n_words, n_cells,
                              depth, lo, hi)
    return total


def _build_set_major(table, m, n, goal_cells, blank_goal, k, w, progress, label, threads):
    """Layers of the set-major search until one adds nothing; returns the
    number of (placement, region) states."""
    n_cells = m * n
    binom = _binomials(n_cells)
    set_masks, parity, first, regions = _set_layout(n_cells, n, k, binom)
    slot_of, shift, moved = _ordering_tables(k, w, placement_weights(k, k))
    n_orders = slot_of.shape[0]
    n_words = -(-n_orders // 64)
    n_blocks = regions.shape[0]
    F = big_zeros(n_blocks * n_words, np.uint64)
    V = big_zeros(n_blocks * n_words, np.uint64)
    # seed: the goal placement, blank in the goal blank's region
    occ = 0
    for c in goal_cells:
        occ |= 1 << int(c)
    si = int(_set_index(np.int64(occ), binom))
    blk = int(first[si])
    while not (int(regions[blk]) >> blank_goal) & 1:
        blk += 1
    order = np.argsort(goal_cells)  # tiles in slot order
    o = int(rank_placement(order.astype(np.int64), k, placement_weights(k, k)))
    F[blk * n_words + o // 64] = V[blk * n_words + o // 64] = np.uint64(1) << np.uint64(o % 64)
    table[:] = 255
    table[rank_placement(goal_cells, k, w)] = 0
    cur_parity = int(parity[si])
    depth = 0
    done = 1
    n_sets = set_masks.shape[0]
    while True:
        if threads:
            new = _layer_parallel(F, V, table, set_masks, parity, first, regions, cur_parity, binom, moved, slot_of, shift,
                                  w, k, n_words, n, n_cells, depth + 1, 256)
        else:
            _expand_sets(F, set_masks, parity, first, regions, cur_parity, binom, moved, k, n_words, n, n_cells, 0, n_sets,
                         False)
            new = _settle_sets(F, V, table, set_masks, parity, first, cur_parity, slot_of, shift, w, k, n_words, n_cells,
                               depth + 1, 0, n_sets)
        if progress is not None:
            progress.set_postfix_str(f"{label} depth {depth}, {done:,} states", refresh=False)
            progress.update(1)
        if new == 0:
            break
        done += int(new)
        depth += 1
        cur_parity ^= 1
    return done


def build_pattern(table, m, n, goal, tiles, progress=None, label="", parallel=None, method=None):
    """Fill ``table`` (uint8, one entry per placement of ``tiles`` in the
    order of :func:`fastpuzzle.search.pdb.ranking.rank_placement`) with exact pattern distances.

    Parameters
    ----------
    table : ndarray of uint8, shape (placements,)
        Filled in place.
    m, n : int
        Board shape.
    goal : ndarray, shape (m, n)
        Goal board the distances are measured to.
    tiles : sequence of int
        The pattern tiles, in the order of the ranking's digits.
    progress : tqdm bar, optional
        Advanced once per layer.
    label : str
        Shown on the progress bar.
    parallel : bool, optional
        Expand each layer on all threads (default: for at least 2**18
        placements).  The table is the same either way.
    method : {None, "sets", "placements"}
        Set-major search (default up to :data:`SET_MAJOR_MAX_TILES` tiles) or
        the placement-frontier search (any size).  Same table either way.

    Returns
    -------
    int
        Set-major: number of (placement, blank region) states; placement
        search: number of expansions (a state may be expanded again).

    Raises
    ------
    ValueError
        Board of more than 63 cells or under 2x2, tiles repeated or outside
        ``1..m*n-1``, a goal of another shape, a table of the wrong size, an
        unknown method.

    Examples
    --------
    >>> import numpy as np
    >>> from fastpuzzle import goal_board
    >>> table = np.zeros(9 * 8 * 7, np.uint8)
    >>> _ = build_pattern(table, 3, 3, goal_board(3, 3), (1, 2, 3))
    >>> int(table.min()), int(table.max())
    (0, 11)
    """
    if method not in (None, "sets", "placements"):
        raise OptionError("method", method, "must be 'sets' or 'placements'")
    m, n = int(m), int(n)
    n_cells = m * n
    if m < 2 or n < 2 or n_cells > MAX_CELLS:
        raise ShapeError((m, n), f"pattern tables need a board of 2x2 to {MAX_CELLS} cells, got {m}x{n}", expected=MAX_CELLS)
    goal = as_goal(goal, m, n)
    tiles = tuple(int(t) for t in tiles)
    if not tiles or len(set(tiles)) != len(tiles) or not all(1 <= t < n_cells for t in tiles):
        raise OptionError("tiles", tiles, f"must be distinct tiles of 1..{n_cells - 1}")
    k = len(tiles)
    size = placement_count(n_cells, k)
    if table.shape != (size,) or table.dtype != np.uint8:
        raise OptionError("table", f"{table.dtype} {table.shape}", f"must be a uint8 array of {size} entries")
    w = placement_weights(n_cells, k)
    flat_goal = np.asarray(goal).ravel()
    goal_cells = cells_of_tiles(flat_goal)[list(tiles)]
    blank_goal = int(np.flatnonzero(flat_goal == 0)[0])
    threads = use_threads(size) if parallel is None else bool(parallel)
    if method is None:
        method = "sets" if k <= SET_MAJOR_MAX_TILES else "placements"
    if method == "sets" and k <= SET_MAJOR_MAX_TILES:
        done = _build_set_major(table, m, n, goal_cells, blank_goal, k, w, progress, label, threads)
    else:
        done = build_by_placement(table, m, n, goal_cells, blank_goal, k, w, progress, label, threads)
    if int(table.max()) == 255:  # pragma: no cover - every placement is reachable (max: no temporary)
        raise RuntimeError(f"pattern {tuple(tiles)}: some placements were not reached")
    return done

