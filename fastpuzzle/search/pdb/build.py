"""Building pattern databases: a breadth-first search over pattern placements.

The search runs over (pattern placement, blank region): the blank travels for
free among the cells that hold no pattern tile, so only the connected region
of free cells that holds it matters.  Each placement keeps one 2-bit code per
blank region (unseen, frontier of an even or odd layer, expanded) and the
table one byte, the minimum over blank regions.  A layer is expanded in word
ranges, on all threads for large patterns; the result does not depend on the
thread count (each layer is a set).
"""

from __future__ import annotations

import os
import time

import numpy as np
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..._jit import jit, pjit, use_threads
from ...boards import as_goal
from .heuristic import MAX_CELLS, PatternDatabase, check_partition, reflection_applies
from .ranking import placement_count, placement_weights, rank_placement, unrank_placement

__all__ = ["build_partition", "big_zeros", "peak_rss_bytes"]

#: Patterns with more placements than this keep one byte of search state per
#: placement: 4 blank regions told apart, further regions merged into the
#: fourth.  Merging only adds moves to the abstract puzzle, so the values stay
#: admissible.  It touches placements whose free cells split into 5 or more
#: regions: 5.4 % of the cell sets of the 8-tile pattern of 7-8, 2.6 % of the
#: 7-tile one, and a few placements of the 6-tile patterns of 6-6-6-6.
#: Smaller patterns keep 4 bytes (16 regions, exact).
COMPACT_STATE_ENTRIES = 1 << 24


@jit
def _spread(s, n, full, not_first, not_last):
    """Cells next to a cell of mask ``s``."""
    return ((s >> n) | (s << n) | ((s & not_last) << 1) | ((s & not_first) >> 1)) & full


@jit
def _flood(seed, free, n, full, not_first, not_last):
    comp = seed
    while True:
        grown = (comp | _spread(comp, n, full, not_first, not_last)) & free
        if grown == comp:
            return comp
        comp = grown


@jit
def _regions(free, n, full, not_first, not_last, n_slots, out):
    """Blank regions of the free cells, ordered by their lowest cell; regions
    past ``n_slots - 1`` are merged into the last slot.  Returns the count."""
    rest = free
    s = 0
    while rest != 0:
        if s == n_slots - 1:
            out[s] = rest
            return s + 1
        comp = _flood(rest & -rest, free, n, full, not_first, not_last)
        out[s] = comp
        rest &= ~comp
        s += 1
    return s


@jit
def _slot_of(x, free, n, full, not_first, not_last, n_slots):
    """Slot of the region of ``free`` that holds cell ``x``."""
    rest = free
    s = 0
    while True:
        if s == n_slots - 1:
            return s
        comp = _flood(rest & -rest, free, n, full, not_first, not_last)
        if (comp >> x) & 1:
            return s
        rest &= ~comp
        s += 1


@intrinsic
def _atomic_or(typingctx, arr, idx, val):
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
def _edge_masks(n_cells, n):
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
def _region_labels(m, n):
    """For boards of at most 16 cells: ``labels[free, c]`` is the order (by
    lowest cell) of the region of free-cell mask ``free`` that holds ``c``."""
    n_cells = m * n
    full, not_first, not_last = _edge_masks(n_cells, n)
    labels = np.zeros((1 << n_cells, n_cells), np.uint8)
    for f in range(1 << n_cells):
        rest = f
        s = 0
        while rest != 0:
            comp = _flood(rest & -rest, f, n, full, not_first, not_last)
            rest &= ~comp
            for c in range(n_cells):
                if (comp >> c) & 1:
                    labels[f, c] = s
            s += 1
    return labels


@jit
def _bfs_seed(state, table, goal_cells, k, w, blank_goal, m, n, n_slots):
    """Mark the goal placement (blank region of the goal blank) as layer 0."""
    n_cells = m * n
    full, not_first, not_last = _edge_masks(n_cells, n)
    occ = 0
    for i in range(k):
        occ |= 1 << goal_cells[i]
    s = _slot_of(blank_goal, full & ~occ, n, full, not_first, not_last, n_slots)
    idx = rank_placement(goal_cells, k, w)
    state[idx] = 1 << (2 * s)
    table[idx] = 0


@jit
def _bfs_pass(state, words, table, k, w, m, n, n_slots, per_word, depth, lo, hi, labels):
    """Expand the states of layer ``depth`` among placements ``[lo, hi)`` words.

    Each placement has ``n_slots`` 2-bit codes, one per blank region:
    0 unseen, 2 expanded, 1/3 frontier of an even/odd layer.  Successors are
    marked with the other frontier code, so one array serves both layers.
    ``labels`` is :func:`_region_labels` on boards of at most 16 cells (a
    lookup instead of flood fills), else an empty array.
    Returns the number of states expanded.
    """
    n_cells = m * n
    use_labels = labels.shape[0] > 1
    last = n_slots - 1
    full, not_first, not_last = _edge_masks(n_cells, n)
    cur = 1 if depth % 2 == 0 else 3
    nxt = 4 - cur
    lows = np.uint64(0x5555555555555555)
    cells_of = np.zeros(k, np.int64)
    where = np.full(n_cells, -1, np.int64)
    regs = np.zeros(n_slots, np.int64)
    expanded = 0
    n_entries = state.shape[0]
    for wi in range(lo, hi):
        word = words[wi]
        lo_bits = word & lows
        hi_bits = (word >> np.uint64(1)) & lows
        hit = (lo_bits & ~hi_bits) if cur == 1 else (lo_bits & hi_bits)
        if hit == 0:
            continue
        for e in range(wi * per_word, min((wi + 1) * per_word, n_entries)):
            code = np.int64(state[e])
            match = False
            for s in range(n_slots):
                if (code >> (2 * s)) & 3 == cur:
                    match = True
            if not match:
                continue
            if table[e] == 255:
                table[e] = depth
            occ = unrank_placement(e, k, w, cells_of)
            for i in range(k):
                where[cells_of[i]] = i
            free = full & ~occ
            if use_labels:
                nreg = 0
                for s in range(n_slots):
                    regs[s] = 0
                rest = free
                while rest != 0:
                    bit = rest & -rest
                    rest ^= bit
                    c = 0
                    while (bit >> c) != 1:
                        c += 1
                    s = min(np.int64(labels[free, c]), last)
                    regs[s] |= bit
                    if s + 1 > nreg:
                        nreg = s + 1
            else:
                nreg = _regions(free, n, full, not_first, not_last, n_slots, regs)
            for s in range(nreg):
                if (code >> (2 * s)) & 3 != cur:
                    continue
                expanded += 1
                reg = regs[s]
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
                        ybit = ys & -ys
                        ys ^= ybit
                        y = 0
                        while (ybit >> y) != 1:
                            y += 1
                        x = y + step
                        i = where[x]
                        # rank after tile i moves x -> y: digit i changes,
                        # and later digits whose cell lies between x and y
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
                        nocc = (occ & ~(1 << x)) | (1 << y)
                        if use_labels:
                            ns = min(np.int64(labels[full & ~nocc, x]), last)
                        else:
                            ns = _slot_of(x, full & ~nocc, n, full, not_first, not_last, n_slots)
                        ncode = np.int64(state[ne])
                        if (ncode >> (2 * ns)) & 3 == 0:
                            _atomic_or(state, ne, nxt << (2 * ns))
                code = (code & ~(3 << (2 * s))) | (2 << (2 * s))
            # Only this pass writes placement e: successors have the other
            # parity (sum of the pattern tiles' rows and columns), never e's.
            state[e] = code
            for i in range(k):
                where[cells_of[i]] = -1
    return expanded


@pjit
def _bfs_pass_parallel(state, words, table, k, w, m, n, n_slots, per_word, depth, lo, hi, labels, n_parts):
    """:func:`_bfs_pass` with the word range split across threads; the
    result does not depend on the thread count (each layer is a set)."""
    step = (hi - lo + n_parts - 1) // n_parts
    total = 0
    for part in prange(n_parts):
        a = lo + part * step
        b = min(hi, a + step)
        if a < b:
            total += _bfs_pass(state, words, table, k, w, m, n, n_slots, per_word, depth, a, b, labels)
    return total


def big_zeros(count: int, dtype) -> np.ndarray:
    """Zeroed array for the build; large ones get transparent huge pages,
    which saves most TLB misses of the random accesses of the search."""
    dtype = np.dtype(dtype)
    nbytes = count * dtype.itemsize
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


_LABELS = {}


def _labels_for(m, n):
    if m * n > 16 or os.environ.get("FASTPUZZLE_NO_LABELS"):
        return np.zeros((1, 1), np.uint8)
    if (m, n) not in _LABELS:
        _LABELS[(m, n)] = _region_labels(m, n)
    return _LABELS[(m, n)]


def _build_pattern(table, m, n, goal, tiles, progress=None, label="", max_slots=None, parallel=None):
    """Fill ``table`` (uint8, one entry per placement of ``tiles``) in place."""
    n_cells = m * n
    k = len(tiles)
    size = placement_count(n_cells, k)
    assert table.shape == (size,)
    w = placement_weights(n_cells, k)
    flat_goal = np.asarray(goal).ravel()
    goal_cells = np.array([int(np.flatnonzero(flat_goal == t)[0]) for t in tiles], np.int64)
    blank_goal = int(np.flatnonzero(flat_goal == 0)[0])
    if max_slots is None:
        max_slots = 4 if size > COMPACT_STATE_ENTRIES else 16
    dtype = np.uint8 if max_slots <= 4 else np.uint32
    n_slots = 4 if dtype == np.uint8 else 16
    n_slots = min(n_slots, max_slots)
    per_word = 8 // np.dtype(dtype).itemsize
    n_words = -(-size // per_word)
    raw = big_zeros(n_words, np.uint64)
    state = raw.view(dtype)[:size]
    table[:] = 255
    _bfs_seed(state, table, goal_cells, k, w, blank_goal, m, n, n_slots)
    labels = _labels_for(m, n)
    chunk = max(1, (1 << 22) // per_word)
    threads = use_threads(size) if parallel is None else bool(parallel)
    depth = 0
    done = 0
    while True:
        expanded = 0
        for lo in range(0, n_words, chunk):
            hi = min(n_words, lo + chunk)
            if threads:
                expanded += _bfs_pass_parallel(state, raw, table, k, w, m, n, n_slots, per_word, depth, lo, hi, labels, 64)
            else:
                expanded += _bfs_pass(state, raw, table, k, w, m, n, n_slots, per_word, depth, lo, hi, labels)
        if expanded == 0:
            break
        done += expanded
        if progress is not None:
            progress.set_postfix_str(f"{label} depth {depth}, {done:,} states", refresh=False)
            progress.update(1)
        depth += 1
    del raw, state
    if (table == 255).any():  # pragma: no cover - build_partition refuses patterns that leave placements unreached
        raise ValueError(f"pattern {tiles}: some placements were not reached")
    return done



def build_partition(
    shape, partition, goal=None, *, name="custom", reflect=None, progress=False, max_slots=None, parallel=None
):
    """Build databases for any partition in memory (nothing is cached).

    Parameters
    ----------
    shape : (int, int)
        Board shape ``(m, n)``, at most 31 cells.
    partition : sequence of sequences of int
        Disjoint tile sets.  Tiles left out simply do not count.
    goal : array_like, optional
        Goal board (default: blank last).
    reflect : bool, optional
        Use the diagonal reflection too (default: when the board is square and
        the goal blank lies on the diagonal).
    progress : bool
        Show a progress bar.
    parallel : bool, optional
        Expand each layer on all threads (default: for patterns with at
        least 2**18 placements).  The tables are the same either way.

    Examples
    --------
    >>> db = build_partition((2, 3), [(1, 2, 3), (4, 5)])
    >>> db.lookup([[0, 1, 2], [4, 5, 3]]) <= 5
    True
    """
    m, n = (int(shape[0]), int(shape[1]))
    if m < 2 or n < 2:
        raise ValueError(f"pattern databases need a board with at least 2 rows and 2 columns, got {m}x{n}")
    if m * n > MAX_CELLS:
        raise ValueError(f"pattern databases support boards of at most {MAX_CELLS} cells, got {m}x{n}")
    goal = as_goal(goal, m, n)
    partition = check_partition(partition, m, n)
    for tiles in partition:
        if len(tiles) > m * n - 3:
            # with two free cells or fewer the blank cannot reorder the
            # pattern's tiles freely: half the placements are unreachable
            raise ValueError(
                f"pattern {tiles} does not fit the {m}x{n} board: a pattern may hold at most "
                f"{m * n - 3} tiles there (three cells must stay free of it)"
            )
    n_cells = m * n
    sizes = [placement_count(n_cells, len(p)) for p in partition]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    data = big_zeros(int(sum(sizes)), np.uint8)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"pdb {name}", unit=" layer")
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        for p, tiles in enumerate(partition):
            _build_pattern(
                data[offsets[p] : offsets[p] + sizes[p]],
                m,
                n,
                goal,
                tiles,
                progress=bar,
                label=f"pattern {p + 1}/{len(partition)}",
                max_slots=max_slots,
                parallel=parallel,
            )
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = peak_rss_bytes()
    if reflect is None:
        reflect = reflection_applies(goal, partition)
    elif reflect and not reflection_applies(goal, partition):
        raise ValueError("reflection needs a square board whose goal blank lies on the main diagonal")
    return PatternDatabase(
        name, (m, n), partition, goal, data, offsets, bool(reflect), seconds, build_peak_bytes=peak, build_cpu_seconds=cpu
    )


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (0 where unknown).

    ``VmHWM`` where Linux has it: ``ru_maxrss`` would also count a parent's
    memory from before ``exec``.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak if sys.platform == "darwin" else peak * 1024)
    except Exception:  # pragma: no cover - platform without resource
        return 0

