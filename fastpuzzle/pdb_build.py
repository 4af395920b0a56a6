"""Breadth-first construction of one pattern table, exact in the blank regions.

The abstract state is (placement of the pattern tiles, region of free cells
that holds the blank): the blank moves for free inside its region, a pattern
tile sliding into it costs one move.  The table keeps, per placement, the
fewest moves over its regions.

Search state, per pattern of ``P`` placements:

* ``reached``: one byte (two on boards of more than 16 cells) per placement,
  bit ``r`` set once the blank region labelled ``r`` (regions ordered by their
  lowest cell) has been reached.  A board of ``c`` cells has at most
  ``ceil(c / 2)`` regions (they are separated by tiles), so every region has
  its own bit: nothing is merged and the values are exact.
* two bitsets of ``P`` bits: the placements of the layer being expanded and
  those of the next one.  A successor is marked when its region bit was
  clear, so every (placement, region) enters the search once; when a
  placement of the frontier has several reached regions all of them are
  expanded (the older ones generate nothing new).
* the table itself records the depth of a placement's first region.

For 7-8 on the 4x4 board that is 2 bytes + 2 bits per placement of the
8-tile pattern next to the 577 MB of tables, and every layer scans 65 MB of
bitset instead of the whole state array.  Threads expand disjoint word
ranges of the frontier; marks go to placements of the other parity (a
pattern-tile move changes the sum of the tiles' rows and columns by one),
through atomic ORs since two threads may mark the same word.
"""

from __future__ import annotations

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from ._jit import jit, pjit, use_threads
from .pdb import _atomic_or, _big_zeros, _edge_masks, _flood, _labels_for, _n_placements, _rank, _unrank, _weights

__all__ = ["build_pattern"]


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
            comp = _flood(rest & -rest, free, n, full, not_first, not_last)
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
        comp = _flood(rest & -rest, free, n, full, not_first, not_last)
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
    full, not_first, not_last = _edge_masks(n_cells, n)
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
            occ = _unrank(e, k, w, cells_of)
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
                    # ys: blank cells of the region with a pattern tile next to
                    # them in direction dirn; that tile slides into the blank.
                    if dirn == 0:
                        ys = reg & (occ << n) & full
                        step = -n
                    elif dirn == 1:
                        ys = reg & not_first & ((occ & not_last) << 1)
                        step = -1
                    elif dirn == 2:
                        ys = reg & not_last & ((occ & not_first) >> 1)
                        step = 1
                    else:
                        ys = reg & (occ >> n)
                        step = n
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
                                _atomic_or(reached, ne, bit)
                                _atomic_or(nxt, ne >> 6, one << np.uint64(ne & 63))
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
    full, not_first, not_last = _edge_masks(n_cells, n)
    occ = 0
    for i in range(k):
        occ |= np.int64(1) << goal_cells[i]
    s = _label_of(blank_goal, full & ~occ, n, full, not_first, not_last, labels.shape[0] > 1, labels)
    e = _rank(goal_cells, k, w)
    reached[e] = np.int64(1) << s
    cur[e >> 6] |= np.uint64(1) << np.uint64(e & 63)


def build_pattern(table, m, n, goal, tiles, progress=None, label="", parallel=None):
    """Fill ``table`` (uint8, one entry per placement of ``tiles`` in the
    order of :func:`fastpuzzle.pdb._rank`) with exact pattern distances.

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

    Returns
    -------
    int
        Number of (placement, blank region) states expanded.

    Examples
    --------
    >>> import numpy as np
    >>> from fastpuzzle import goal_board
    >>> table = np.zeros(3 * 8 * 7, np.uint8)
    >>> _ = build_pattern(table, 3, 3, goal_board(3, 3), (1, 2, 3))
    >>> int(table.min()), int(table.max())
    (0, 15)
    """
    n_cells = m * n
    k = len(tiles)
    size = _n_placements(n_cells, k)
    if table.shape != (size,) or table.dtype != np.uint8:
        raise ValueError(f"table must be a uint8 array of {size} entries, got {table.dtype} {table.shape}")
    w = _weights(n_cells, k)
    flat_goal = np.asarray(goal).ravel()
    goal_cells = np.array([int(np.flatnonzero(flat_goal == t)[0]) for t in tiles], np.int64)
    blank_goal = int(np.flatnonzero(flat_goal == 0)[0])
    # regions are separated by tiles, so there are at most ceil(cells / 2)
    reached = _big_zeros(size, np.uint8 if n_cells <= 16 else np.uint16)
    n_words = -(-size // 64)
    cur = _big_zeros(n_words, np.uint64)
    nxt = _big_zeros(n_words, np.uint64)
    labels = _labels_for(m, n)
    table[:] = 255
    _seed(cur, reached, goal_cells, k, w, blank_goal, m, n, labels)
    threads = use_threads(size) if parallel is None else bool(parallel)
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
    del reached, cur, nxt
    if (table == 255).any():  # pragma: no cover - every placement is reachable
        raise RuntimeError(f"pattern {tuple(tiles)}: some placements were not reached")
    return done
