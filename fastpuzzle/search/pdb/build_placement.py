"""Pattern tables by a placement-frontier search, for patterns of more tiles
than the set-major search of :mod:`fastpuzzle.search.pdb.build_sets` takes.

State: a byte (two on boards of more than 16 cells) of reached blank-region
bits per placement, bit ``r`` for the region labelled ``r`` (regions ordered
by their lowest cell; a board of ``c`` cells has at most ``ceil(c / 2)``, so
nothing is merged), and two bitsets of placements, this layer and the next.
A placement of the frontier expands all its reached regions (the older ones
mark nothing new); the table records the depth of each placement's first
region.  Threads expand disjoint word ranges of the frontier and mark
successors with atomic ORs.
"""

from __future__ import annotations

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from ..._jit import jit, pjit
from .regions import atomic_or, big_zeros, edge_masks, flood, labels_for, slides_into
from .ranking import rank_placement, unrank_placement

__all__ = ["build_by_placement"]


@jit
def _region_masks(free, rb, n, full, not_first, not_last, use_labels, labels, regs):
    """Cells of each blank region of ``free`` whose label is set in ``rb``
    (``regs[label]``; the others are left 0)."""
    if use_labels:
        rest = free
        while rest != 0:
            c = np.int64(trailing_zeros(rest))
            rest &= rest - 1
            s = np.int64(labels[free, c])
            if (rb >> s) & 1:
                regs[s] |= np.int64(1) << c
    else:
        rest = free
        s = 0
        while rest != 0 and (rb >> s) != 0:
            comp = flood(rest & -rest, free, n, full, not_first, not_last)
            if (rb >> s) & 1:
                regs[s] = comp
            rest &= ~comp
            s += 1


@jit
def _label_of(x, free, n, full, not_first, not_last, use_labels, labels):
    """Label of the region of ``free`` that holds cell ``x``."""
    if use_labels:
        return np.int64(labels[free, x])
    rest = free
    s = 0
    while True:
        comp = flood(rest & -rest, free, n, full, not_first, not_last)
        if (comp >> x) & 1:
            return s
        rest &= ~comp
        s += 1


@jit
def _expand_words(cur, nxt, reached, table, k, w, m, n, depth, lo, hi, labels, atomic):
    """Expand the placements whose bit is set in ``cur`` words ``[lo, hi)``.

    Records ``depth`` in the table for placements seen for the first time,
    marks new (placement, region) successors in ``reached`` and ``nxt``.
    Returns the number of (placement, region) states expanded.
    """
    n_cells = m * n
    use_labels = labels.shape[0] > 1
    full, not_first, not_last = edge_masks(n_cells, n)
    cells_of = np.zeros(k, np.int64)
    where = np.full(n_cells, -1, np.int64)
    regs = np.zeros(32, np.int64)
    one = np.uint64(1)
    expanded = 0
    for wi in range(lo, hi):
        word = cur[wi]
        while word != 0:
            e = wi * 64 + np.int64(trailing_zeros(word))
            word &= word - one
            if table[e] == 255:
                table[e] = depth
            rb = np.int64(reached[e])
            occ = unrank_placement(e, k, w, cells_of)
            for i in range(k):
                where[cells_of[i]] = i
            free = full & ~occ
            _region_masks(free, rb, n, full, not_first, not_last, use_labels, labels, regs)
            todo = rb
            while todo != 0:
                s = np.int64(trailing_zeros(todo))
                todo &= todo - 1
                expanded += 1
                reg = regs[s]
                regs[s] = 0
                for dirn in range(4):
                    ys, step = slides_into(reg, occ, dirn, n, full, not_first, not_last)
                    while ys != 0:
                        y = np.int64(trailing_zeros(ys))
                        ys &= ys - 1
                        x = y + step
                        i = where[x]
                        # rank after tile i moves x -> y: digit i changes, and
                        # later digits whose cell lies between x and y
                        ne = e
                        dx = x
                        dy = y
                        for j in range(i):
                            cj = cells_of[j]
                            if cj < x:
                                dx -= 1
                            if cj < y:
                                dy -= 1
                        ne += (dy - dx) * w[i]
                        for j in range(i + 1, k):
                            cj = cells_of[j]
                            if y < cj and not x < cj:
                                ne -= w[j]
                            elif x < cj and not y < cj:
                                ne += w[j]
                        nfree = free ^ ((np.int64(1) << x) | (np.int64(1) << y))
                        bit = np.int64(1) << _label_of(x, nfree, n, full, not_first, not_last, use_labels, labels)
                        if np.int64(reached[ne]) & bit == 0:
                            if atomic:
                                atomic_or(reached, ne, bit)
                                atomic_or(nxt, ne >> 6, one << np.uint64(ne & 63))
                            else:
                                reached[ne] |= bit
                                nxt[ne >> 6] |= one << np.uint64(ne & 63)
            for i in range(k):
                where[cells_of[i]] = -1
    return expanded


@pjit
def _expand_words_parallel(cur, nxt, reached, table, k, w, m, n, depth, lo, hi, labels, n_parts):
    """:func:`_expand_words` on ``n_parts`` disjoint word ranges across threads;
    the layers, hence the table, do not depend on the split."""
    step = (hi - lo + n_parts - 1) // n_parts
    total = 0
    for part in prange(n_parts):
        a = lo + part * step
        b = min(hi, a + step)
        if a < b:
            total += _expand_words(cur, nxt, reached, table, k, w, m, n, depth, a, b, labels, True)
    return total


@jit
def _seed(cur, reached, goal_cells, k, w, blank_goal, m, n, labels):
    """Put the goal placement, blank in the goal blank's region, in layer 0."""
    n_cells = m * n
    full, not_first, not_last = edge_masks(n_cells, n)
    occ = 0
    for i in range(k):
        occ |= np.int64(1) << goal_cells[i]
    s = _label_of(blank_goal, full & ~occ, n, full, not_first, not_last, labels.shape[0] > 1, labels)
    e = rank_placement(goal_cells, k, w)
    reached[e] = np.int64(1) << s
    cur[e >> 6] |= np.uint64(1) << np.uint64(e & 63)


def build_by_placement(table, m, n, goal_cells, blank_goal, k, w, progress, label, threads):
    """Fill ``table`` (uint8, one entry per placement) with exact pattern
    distances; ``goal_cells[i]`` is the goal cell of pattern tile ``i`` and
    ``w`` the weights of :func:`fastpuzzle.search.pdb.ranking.rank_placement`.  Returns the number of
    (placement, region) expansions.

    Examples
    --------
    >>> import numpy as np
    >>> from fastpuzzle.search.pdb.ranking import placement_weights
    >>> table = np.zeros(9 * 8, np.uint8)
    >>> _ = build_by_placement(table, 3, 3, np.array([0, 1]), 8, 2, placement_weights(9, 2), None, "", False)
    >>> int(table[0]), int(table.max())  # the goal placement (cells 0, 1) has rank 0
    (0, 7)
    """
    size = table.shape[0]
    # regions are separated by tiles, so there are at most ceil(cells / 2)
    reached = big_zeros(size, np.uint8 if m * n <= 16 else np.uint16)
    n_words = -(-size // 64)
    cur = big_zeros(n_words, np.uint64)
    nxt = big_zeros(n_words, np.uint64)
    labels = labels_for(m, n)
    table[:] = 255
    _seed(cur, reached, goal_cells, k, w, blank_goal, m, n, labels)
    depth = 0
    done = 0
    while True:
        if threads:
            expanded = _expand_words_parallel(cur, nxt, reached, table, k, w, m, n, depth, 0, n_words, labels, 256)
        else:
            expanded = _expand_words(cur, nxt, reached, table, k, w, m, n, depth, 0, n_words, labels, False)
        if expanded == 0:
            break
        done += expanded
        if progress is not None:
            progress.set_postfix_str(f"{label} depth {depth}, {done:,} states", refresh=False)
            progress.update(1)
        cur, nxt = nxt, cur
        nxt[:] = 0
        depth += 1
    return done
