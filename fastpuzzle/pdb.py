"""Additive pattern databases and an IDA* search that uses them.

A *pattern* is a set of tiles.  Its database maps every placement of those
tiles (the other tiles are indistinguishable and the blank may be anywhere)
to the fewest moves **of pattern tiles** needed to bring them home.  Since a
real move moves exactly one tile, the values of disjoint patterns add up to a
lower bound on the solution length (Korf & Felner 2002).  For a square board
the same tables also bound the board reflected about the main diagonal, and the
larger of the two sums is used.

Databases are built by a breadth-first search over (pattern placement, blank
region): the blank travels for free among the cells that hold no pattern tile,
so only the connected region of free cells that holds it matters.  Each
placement is stored as one byte (the minimum over blank regions); a placement
is addressed by a perfect hash (the rank of the tiles' cells as a partial
permutation).  Named databases are cached on disk (``$FASTPUZZLE_CACHE`` or
``~/.cache/fastpuzzle``) and memory-mapped when loaded.

===========  ======  =========================================  ============
name         board   patterns (default goal, blank last)        table bytes
===========  ======  =========================================  ============
``4-4``      3x3     1 2 3 4 / 5 6 7 8                          6 048
``5-5-5``    4x4     1 2 3 5 6 / 4 7 8 11 12 / 9 10 13 14 15    1.6 M
``6-6-3``    4x4     1 2 5 6 9 13 / 3 4 7 8 11 12 / 10 14 15    11.5 M
``7-8``      4x4     9..15 / 1..8                               577 M
``6-6-6-6``  5x5     four 6-tile blocks                         510 M
===========  ======  =========================================  ============
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import jit, pjit, use_threads
from .boards import as_boards, as_goal, goal_board
from .search.solution import Solution
from .solvability import is_solvable

__all__ = [
    "PatternDatabase",
    "DATABASES",
    "build",
    "build_partition",
    "load",
    "available",
    "cache_dir",
    "save_atomic",
    "solve_with_pdb",
    "solve_many_with_pdb",
]

#: Named partitions, for the default goal (tiles 1..N-1 row-major, blank last).
DATABASES = {
    "4-4": dict(shape=(3, 3), partition=((1, 2, 3, 4), (5, 6, 7, 8))),
    "5-5-5": dict(shape=(4, 4), partition=((1, 2, 3, 5, 6), (4, 7, 8, 11, 12), (9, 10, 13, 14, 15))),
    "6-6-3": dict(shape=(4, 4), partition=((1, 2, 5, 6, 9, 13), (3, 4, 7, 8, 11, 12), (10, 14, 15))),
    "7-8": dict(shape=(4, 4), partition=((9, 10, 11, 12, 13, 14, 15), (1, 2, 3, 4, 5, 6, 7, 8))),
    "6-6-6-6": dict(
        shape=(5, 5),
        partition=((1, 2, 3, 6, 7, 8), (4, 5, 9, 10, 14, 15), (11, 12, 16, 17, 21, 22), (13, 18, 19, 20, 23, 24)),
    ),
}

#: Preferred database per board shape, strongest first.  Databases marked
#: ``auto`` are quick enough to build on first use.
_PREFERENCE = {
    (3, 3): [("4-4", True)],
    (4, 4): [("7-8", False), ("6-6-3", True)],
    (5, 5): [("6-6-6-6", False)],
}

#: Largest board the kernels handle (cell sets are 64-bit masks).
MAX_CELLS = 31
#: Patterns with more placements than this keep one byte of search state per
#: placement: 4 blank regions told apart, further regions merged into the
#: fourth.  Merging only adds moves to the abstract puzzle, so the values stay
#: admissible.  It touches placements whose free cells split into 5 or more
#: regions: 5.4 % of the cell sets of the 8-tile pattern of 7-8, 2.6 % of the
#: 7-tile one, and a few placements of the 6-tile patterns of 6-6-6-6.
#: Smaller patterns keep 4 bytes (16 regions, exact).
_COMPACT_STATE_ENTRIES = 1 << 24
_FORMAT_VERSION = 1


def cache_dir() -> Path:
    """Directory of cached databases: ``$FASTPUZZLE_CACHE`` or ``~/.cache/fastpuzzle``."""
    env = os.environ.get("FASTPUZZLE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "fastpuzzle"


def save_atomic(path, array=None, text=None) -> Path:
    """Write an ``.npy`` array (or a text) to ``path`` through a temporary file
    and a rename, so that a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.part{os.getpid()}-{threading.get_ident()}")  # threads may race
    if text is not None:
        tmp.write_text(text)
    else:
        with open(tmp, "wb") as fh:
            np.save(fh, np.asarray(array))
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------
# Perfect hashing of pattern placements
# ---------------------------------------------------------------------------


def _weights(n_cells: int, k: int) -> np.ndarray:
    """Place values of the ranking: digit ``i`` ranges over ``n_cells - i`` cells."""
    w = np.ones(k, np.int64)
    for i in range(k - 2, -1, -1):
        w[i] = w[i + 1] * (n_cells - i - 1)
    return w


def _n_placements(n_cells: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n_cells - i
    return out


@jit
def _rank(cells_of, k, w):
    """Rank of the ordered placement ``cells_of[0:k]`` (distinct cells)."""
    idx = 0
    for i in range(k):
        c = cells_of[i]
        d = c
        for j in range(i):
            if cells_of[j] < c:
                d -= 1
        idx += d * w[i]
    return idx


@jit
def _unrank(idx, k, w, out):
    """Inverse of :func:`_rank`; returns the occupied-cell mask."""
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


# ---------------------------------------------------------------------------
# Breadth-first construction
# ---------------------------------------------------------------------------


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
    idx = _rank(goal_cells, k, w)
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
            occ = _unrank(e, k, w, cells_of)
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


def _big_zeros(count: int, dtype) -> np.ndarray:
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
    size = _n_placements(n_cells, k)
    assert table.shape == (size,)
    w = _weights(n_cells, k)
    flat_goal = np.asarray(goal).ravel()
    goal_cells = np.array([int(np.flatnonzero(flat_goal == t)[0]) for t in tiles], np.int64)
    blank_goal = int(np.flatnonzero(flat_goal == 0)[0])
    if max_slots is None:
        max_slots = 4 if size > _COMPACT_STATE_ENTRIES else 16
    dtype = np.uint8 if max_slots <= 4 else np.uint32
    n_slots = 4 if dtype == np.uint8 else 16
    n_slots = min(n_slots, max_slots)
    per_word = 8 // np.dtype(dtype).itemsize
    n_words = -(-size // per_word)
    raw = _big_zeros(n_words, np.uint64)
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
    if (table == 255).any():  # pragma: no cover - every placement is reachable
        raise RuntimeError(f"pattern {tiles}: some placements were not reached")
    return done


# ---------------------------------------------------------------------------
# The database object
# ---------------------------------------------------------------------------


def _check_partition(partition, m, n):
    n_cells = m * n
    seen = set()
    out = []
    for p in partition:
        tiles = tuple(int(t) for t in p)
        if not tiles:
            raise ValueError("a pattern must hold at least one tile")
        for t in tiles:
            if not 1 <= t <= n_cells - 1:
                raise ValueError(f"pattern tile {t} is outside 1..{n_cells - 1} for a {m}x{n} board")
            if t in seen:
                raise ValueError(f"tile {t} is in two patterns; additive patterns must be disjoint")
            seen.add(t)
        out.append(tiles)
    return tuple(out)


@dataclass(eq=False)
class PatternDatabase:
    """Disjoint additive pattern databases for one board shape.

    Attributes
    ----------
    name : str
        Database name (``"7-8"``...) or ``"custom"``.
    shape : (int, int)
        Board shape ``(m, n)``.
    partition : tuple of tuples
        Tiles of each pattern (disjoint; need not cover every tile).
    goal : ndarray
        Goal board the tables measure distance to.
    data : ndarray of uint8
        All tables, one after the other (a memory map when loaded from disk).
    offsets : ndarray of int64
        Start of each pattern's table in ``data``.
    reflect : bool
        Also look up the board reflected about the main diagonal and keep the
        larger sum (square boards whose goal is symmetric under it).

    Examples
    --------
    >>> db = build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    >>> db.lookup([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), db.lookup([[1, 2, 3], [4, 5, 6], [7, 0, 8]])
    (0, 1)
    """

    name: str
    shape: tuple
    partition: tuple
    goal: np.ndarray
    data: np.ndarray
    offsets: np.ndarray
    reflect: bool = False
    build_seconds: float = 0.0
    path: Path | None = None
    build_peak_bytes: int = 0
    build_cpu_seconds: float = 0.0
    _arrays: tuple | None = field(default=None, repr=False)

    @property
    def tables(self) -> list:
        """One uint8 array per pattern (views of :attr:`data`)."""
        ends = list(self.offsets[1:]) + [self.data.shape[0]]
        return [self.data[a:b] for a, b in zip(self.offsets, ends)]

    @property
    def nbytes(self) -> int:
        return int(self.data.shape[0])

    def _kernel_arrays(self):
        """Arrays describing the partition for the kernels (cached)."""
        if self._arrays is None:
            m, n = self.shape
            n_cells = m * n
            n_pat = len(self.partition)
            kmax = max(len(p) for p in self.partition)
            tiles = np.zeros((n_pat, kmax), np.int64)
            sizes = np.zeros(n_pat, np.int64)
            weights = np.zeros((n_pat, kmax), np.int64)
            pat_of = np.full(n_cells, -1, np.int64)
            for p, pt in enumerate(self.partition):
                sizes[p] = len(pt)
                tiles[p, : len(pt)] = pt
                weights[p, : len(pt)] = _weights(n_cells, len(pt))
                for t in pt:
                    pat_of[t] = p
            # Reflection: cell (r, c) -> (c, r); tile t -> the goal tile found
            # at the reflected cell of t's goal cell.
            flat_goal = self.goal.ravel().astype(np.int64)
            cell_map = np.arange(n_cells, dtype=np.int64)
            tile_map = np.arange(n_cells, dtype=np.int64)
            if self.reflect:
                for c in range(n_cells):
                    cell_map[c] = (c % n) * n + c // n
                for c in range(n_cells):
                    tile_map[flat_goal[c]] = flat_goal[cell_map[c]]
            self._arrays = (tiles, sizes, weights, np.asarray(self.offsets, np.int64), pat_of, cell_map, tile_map)
        return self._arrays

    def lookup(self, boards) -> np.ndarray:
        """Heuristic value of each board (``(B,)`` int array, or an int for one board).

        Boards are measured against :attr:`goal`.
        """
        batch, single = as_boards(boards, label="boards")
        if batch.shape[1:] != tuple(self.shape):
            raise ValueError(
                f"boards are {batch.shape[1]}x{batch.shape[2]} but database {self.name!r} is for "
                f"{self.shape[0]}x{self.shape[1]} boards"
            )
        tiles, sizes, weights, offsets, pat_of, cell_map, tile_map = self._kernel_arrays()
        kernel = _lookup_batch_parallel if use_threads(batch.size) else _lookup_batch
        out = kernel(
            batch.reshape(batch.shape[0], -1), self.data, tiles, sizes, weights, offsets, cell_map, tile_map, self.reflect
        )
        return int(out[0]) if single else out

    def save(self, directory) -> Path:
        """Write ``meta.json`` and ``tables.npy`` into ``directory``."""
        directory = Path(directory)
        save_atomic(directory / "tables.npy", self.data)
        meta = dict(
            format=_FORMAT_VERSION,
            name=self.name,
            shape=list(self.shape),
            partition=[list(p) for p in self.partition],
            goal=self.goal.ravel().tolist(),
            offsets=[int(o) for o in self.offsets],
            reflect=bool(self.reflect),
            build_seconds=self.build_seconds,
            build_peak_bytes=int(self.build_peak_bytes),
            build_cpu_seconds=float(self.build_cpu_seconds),
        )
        save_atomic(directory / "meta.json", text=json.dumps(meta, indent=1))
        return directory


@jit
def _pattern_sum(pos, tiles, sizes, weights, offsets, data, buf):
    total = 0
    for p in range(sizes.shape[0]):
        k = sizes[p]
        for i in range(k):
            buf[i] = pos[tiles[p, i]]
        total += data[offsets[p] + _rank(buf, k, weights[p])]
    return total


@jit
def _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect, out, lo, hi):
    n_cells = flat.shape[1]
    pos = np.zeros(n_cells, np.int64)
    rpos = np.zeros(n_cells, np.int64)
    buf = np.zeros(tiles.shape[1], np.int64)
    for b in range(lo, hi):
        for c in range(n_cells):
            t = flat[b, c]
            pos[t] = c
            rpos[tile_map[t]] = cell_map[c]
        h = _pattern_sum(pos, tiles, sizes, weights, offsets, data, buf)
        if reflect:
            hr = _pattern_sum(rpos, tiles, sizes, weights, offsets, data, buf)
            if hr > h:
                h = hr
        out[b] = h


@jit
def _lookup_batch(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect):
    out = np.zeros(flat.shape[0], np.int64)
    _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect, out, 0, flat.shape[0])
    return out


@pjit
def _lookup_batch_parallel(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect):
    n_boards = flat.shape[0]
    out = np.zeros(n_boards, np.int64)
    n_parts = 64
    step = (n_boards + n_parts - 1) // n_parts
    for part in prange(n_parts):
        lo = part * step
        hi = min(n_boards, lo + step)
        if lo < hi:
            _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect, out, lo, hi)
    return out


def _reflect_ok(goal: np.ndarray, partition) -> bool:
    """Reflection applies to square boards whose goal maps the blank to itself."""
    m, n = goal.shape
    if m != n:
        return False
    flat = goal.ravel()
    b = int(np.flatnonzero(flat == 0)[0])
    return (b % n) * n + b // n == b


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
    partition = _check_partition(partition, m, n)
    n_cells = m * n
    sizes = [_n_placements(n_cells, len(p)) for p in partition]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    data = _big_zeros(int(sum(sizes)), np.uint8)
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
    peak = _peak_rss_bytes()
    if reflect is None:
        reflect = _reflect_ok(goal, partition)
    elif reflect and not _reflect_ok(goal, partition):
        raise ValueError("reflection needs a square board whose goal blank lies on the main diagonal")
    return PatternDatabase(
        name, (m, n), partition, goal, data, offsets, bool(reflect), seconds, build_peak_bytes=peak, build_cpu_seconds=cpu
    )


def _peak_rss_bytes() -> int:
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


def _resolve_name(name: str) -> str:
    key = str(name).strip().lower()
    for prefix in ("3x3-", "4x4-", "5x5-", "15-", "24-", "8-"):
        if key.startswith(prefix) and key[len(prefix) :] in DATABASES:
            key = key[len(prefix) :]
    if key not in DATABASES:
        raise ValueError(f"unknown pattern database {name!r}; choose one of {', '.join(DATABASES)}")
    return key


def build(name: str, progress: bool = True, *, force: bool = False, directory=None) -> PatternDatabase:
    """Build a named database (see :data:`DATABASES`) and cache it on disk.

    Returns the loaded (memory-mapped) database.  An existing cache entry is
    reused unless ``force``.

    Examples
    --------
    >>> db = build("4-4", progress=False)
    >>> db.shape, [len(p) for p in db.partition]
    ((3, 3), [4, 4])
    """
    key = _resolve_name(name)
    target = Path(directory) if directory is not None else cache_dir() / key
    if not force:
        try:
            return load(key, directory=directory)
        except FileNotFoundError:
            pass
    spec = DATABASES[key]
    db = build_partition(spec["shape"], spec["partition"], name=key, progress=progress)
    db.save(target)
    loaded = load(key, directory=directory)
    return loaded


def _cache_path(key: str, directory=None) -> Path:
    return Path(directory) if directory is not None else cache_dir() / key


def available() -> list[str]:
    """Names of the databases present in the cache."""
    return [k for k in DATABASES if (_cache_path(k) / "meta.json").exists()]


def load(name: str, *, directory=None) -> PatternDatabase:
    """Load a cached database (tables memory-mapped read-only).

    Raises ``FileNotFoundError`` naming the build command when it is missing.
    """
    key = _resolve_name(name)
    path = _cache_path(key, directory)
    meta_path = path / "meta.json"
    if not meta_path.exists() or not (path / "tables.npy").exists():
        raise FileNotFoundError(
            f"pattern database {key!r} is not built (looked in {path}); build it with "
            f"`fastpuzzle pdb build {key}` or fastpuzzle.pdb.build({key!r})"
        )
    meta = json.loads(meta_path.read_text())
    spec = DATABASES[key]
    m, n = meta["shape"]
    partition = tuple(tuple(p) for p in meta["partition"])
    if meta.get("format") != _FORMAT_VERSION or tuple(meta["shape"]) != spec["shape"] or partition != spec["partition"]:
        raise ValueError(f"cached database in {path} is stale or foreign; rebuild it with build({key!r}, force=True)")
    data = np.load(path / "tables.npy", mmap_mode="r")
    n_cells = m * n
    expected = sum(_n_placements(n_cells, len(p)) for p in partition)
    if data.dtype != np.uint8 or data.shape != (expected,):
        raise ValueError(f"cached database in {path} is truncated; rebuild it with build({key!r}, force=True)")
    goal = np.asarray(meta["goal"], np.int64).reshape(m, n).astype(goal_board(m, n).dtype)
    return PatternDatabase(
        key,
        (m, n),
        partition,
        goal,
        data,
        np.asarray(meta["offsets"], np.int64),
        bool(meta["reflect"]),
        float(meta.get("build_seconds", 0.0)),
        path,
        int(meta.get("build_peak_bytes", 0)),
        float(meta.get("build_cpu_seconds", 0.0)),
    )


# ---------------------------------------------------------------------------
# IDA* with incremental pattern lookups
# ---------------------------------------------------------------------------

#: Deepest search (moves); bounds beyond it stop the search as a budget.
MAX_DEPTH = 1000

# Scalars of a resumable search, kept in an int64 array between kernel calls.
_S_DEPTH, _S_BOUND, _S_NEXT, _S_NODES, _S_HN, _S_HR = range(6)


@jit
def _ida_chunk(
    cells, pos, rpos, goal_flat, m, n, data, tiles, sizes, weights, offsets, pat_of, cell_map, tile_map,
    reflect, hn, hr, path, nextc, saved, scal, node_limit,
):
    """Run IDA* at the current bound until solved, the bound is exhausted or
    ``node_limit`` total nodes are reached.

    Returns 1 solved (``path[:depth]``), 2 iteration finished (``scal`` holds
    the next bound), 0 node limit reached (call again to resume), 3 depth limit.
    """
    n_cells = m * n
    buf = np.zeros(tiles.shape[1], np.int64)
    depth = scal[_S_DEPTH]
    bound = scal[_S_BOUND]
    nxt = scal[_S_NEXT]
    nodes = scal[_S_NODES]
    hsum = scal[_S_HN]
    hrsum = scal[_S_HR]
    status = 0
    while True:
        if nodes >= node_limit:
            status = 0
            break
        code = nextc[depth]
        if code == 4:
            if depth == 0:
                status = 2
                break
            # undo the move that led here
            depth -= 1
            c = path[depth]
            b = pos[0]
            if c == 0:
                x = b + n
            elif c == 1:
                x = b + 1
            elif c == 2:
                x = b - 1
            else:
                x = b - n
            t = cells[x]
            cells[b] = t
            cells[x] = 0
            pos[t] = b
            pos[0] = x
            rpos[tile_map[t]] = cell_map[b]
            rpos[0] = cell_map[x]
            p = saved[depth, 0]
            if p >= 0:
                hsum += saved[depth, 1] - hn[p]
                hn[p] = saved[depth, 1]
            pr = saved[depth, 2]
            if pr >= 0:
                hrsum += saved[depth, 3] - hr[pr]
                hr[pr] = saved[depth, 3]
            continue
        nextc[depth] = code + 1
        if depth > 0 and code == 3 - path[depth - 1]:
            continue
        b = pos[0]
        r = b // n
        col = b - r * n
        if code == 0:
            if r == 0:
                continue
            x = b - n
        elif code == 1:
            if col == 0:
                continue
            x = b - 1
        elif code == 2:
            if col == n - 1:
                continue
            x = b + 1
        else:
            if r == m - 1:
                continue
            x = b + n
        # move tile t from x into the blank at b
        t = cells[x]
        cells[b] = t
        cells[x] = 0
        pos[t] = b
        pos[0] = x
        rt = tile_map[t]
        rpos[rt] = cell_map[b]
        rpos[0] = cell_map[x]
        nodes += 1
        p = pat_of[t]
        saved[depth, 0] = p
        if p >= 0:
            saved[depth, 1] = hn[p]
            k = sizes[p]
            for i in range(k):
                buf[i] = pos[tiles[p, i]]
            v = np.int64(data[offsets[p] + _rank(buf, k, weights[p])])
            hsum += v - hn[p]
            hn[p] = v
        h = hsum
        pr = -1
        if reflect:
            pr = pat_of[rt]
            if pr >= 0:
                saved[depth, 3] = hr[pr]
                k = sizes[pr]
                for i in range(k):
                    buf[i] = rpos[tiles[pr, i]]
                v = np.int64(data[offsets[pr] + _rank(buf, k, weights[pr])])
                hrsum += v - hr[pr]
                hr[pr] = v
            if hrsum > h:
                h = hrsum
        saved[depth, 2] = pr
        path[depth] = code
        f = depth + 1 + h
        if f > bound:
            if f < nxt:
                nxt = f
            nextc[depth + 1] = 4  # nothing to expand: the next step undoes it
            depth += 1
            continue
        if h == 0:
            same = True
            for c in range(n_cells):
                if cells[c] != goal_flat[c]:
                    same = False
                    break
            if same:
                depth += 1
                status = 1
                break
        depth += 1
        if depth >= path.shape[0] - 1:
            status = 3
            break
        nextc[depth] = 0
    scal[_S_DEPTH] = depth
    scal[_S_BOUND] = bound
    scal[_S_NEXT] = nxt
    scal[_S_NODES] = nodes
    scal[_S_HN] = hsum
    scal[_S_HR] = hrsum
    return status


# Board symmetries used to bring a goal's blank to the database goal's blank
# cell: (name, cell transform, move-code permutation).
def _symmetries(m, n):
    out = [("identity", lambda a: a, np.array([0, 1, 2, 3]))]
    out.append(("flip-lr", lambda a: a[:, ::-1], np.array([0, 2, 1, 3])))
    out.append(("flip-ud", lambda a: a[::-1, :], np.array([3, 1, 2, 0])))
    out.append(("rot180", lambda a: a[::-1, ::-1], np.array([3, 2, 1, 0])))
    if m == n:
        out.append(("transpose", lambda a: a.T, np.array([1, 0, 3, 2])))
        out.append(("anti-transpose", lambda a: a[::-1, ::-1].T, np.array([2, 3, 0, 1])))
        out.append(("rot90", lambda a: a.T[:, ::-1], np.array([2, 0, 3, 1])))
        out.append(("rot270", lambda a: a.T[::-1, :], np.array([1, 3, 0, 2])))
    return out


def _choose_database(shape, database):
    if isinstance(database, PatternDatabase):
        if tuple(database.shape) != tuple(shape):
            raise ValueError(
                f"database {database.name!r} is for {database.shape[0]}x{database.shape[1]} boards, "
                f"the boards are {shape[0]}x{shape[1]}"
            )
        return database
    if database is not None:
        key = _resolve_name(database)
        if DATABASES[key]["shape"] != tuple(shape):
            s = DATABASES[key]["shape"]
            raise ValueError(f"database {key!r} is for {s[0]}x{s[1]} boards, the boards are {shape[0]}x{shape[1]}")
        return load(key)
    prefs = _PREFERENCE.get(tuple(shape))
    if prefs is None:
        raise ValueError(
            f"no pattern database for {shape[0]}x{shape[1]} boards (named ones cover 3x3, 4x4 and 5x5); "
            "build one with fastpuzzle.pdb.build_partition(shape, partition) and pass it as database="
        )
    for key, _ in prefs:
        try:
            return load(key)
        except FileNotFoundError:
            continue
    for key, auto in prefs:
        if auto:
            return build(key, progress=False)
    key = prefs[0][0]
    raise FileNotFoundError(
        f"the {shape[0]}x{shape[1]} pattern database {key!r} is not built; build it once with "
        f"`fastpuzzle pdb build {key}` (takes minutes)"
    )


class _Plan:
    """How a goal maps onto a database: a board symmetry plus a relabelling."""

    def __init__(self, db: PatternDatabase, goal: np.ndarray):
        m, n = db.shape
        dbg = db.goal
        blank_db = tuple(int(v) for v in np.argwhere(dbg == 0)[0])
        for name, f, perm in _symmetries(m, n):
            g2 = f(goal)
            if g2.shape == (m, n) and tuple(int(v) for v in np.argwhere(g2 == 0)[0]) == blank_db:
                self.transform, self.perm, self.name = f, perm, name
                # tile g2[cell] of the goal plays the part of tile dbg[cell]
                relabel = np.zeros(m * n, np.int64)
                relabel[g2.ravel().astype(np.int64)] = dbg.ravel().astype(np.int64)
                self.relabel = relabel
                self.inverse = np.argsort(perm)
                return
        raise ValueError(
            f"database {db.name!r} measures distance to a goal with the blank at cell {blank_db}; "
            f"no symmetry of the {m}x{n} board brings this goal's blank there.  Build a database for "
            "this goal with fastpuzzle.pdb.build_partition(shape, partition, goal=goal)"
        )

    def map_board(self, board: np.ndarray) -> np.ndarray:
        return self.relabel[self.transform(board).astype(np.int64)]

    def unmap_codes(self, codes: np.ndarray) -> np.ndarray:
        # a move code c on the transformed board is perm[c'] for the original c'
        return self.inverse[codes].astype(np.uint8)


class _Searcher:
    """Reusable buffers for IDA* on one database."""

    def __init__(self, db: PatternDatabase):
        self.db = db
        m, n = db.shape
        self.m, self.n = m, n
        self.arrays = db._kernel_arrays()
        self.goal_flat = db.goal.ravel().astype(np.int64)
        self.path = np.zeros(MAX_DEPTH + 2, np.int64)
        self.nextc = np.zeros(MAX_DEPTH + 2, np.int64)
        self.saved = np.zeros((MAX_DEPTH + 2, 4), np.int64)

    def solve(self, board_flat: np.ndarray, max_nodes, time_limit, chunk=1 << 20):
        """IDA* on a board in the database's labelling.  Returns (codes, status, nodes)."""
        tiles, sizes, weights, offsets, pat_of, cell_map, tile_map = self.arrays
        data = self.db.data
        n_cells = self.m * self.n
        cells = board_flat.astype(np.int64).copy()
        pos = np.zeros(n_cells, np.int64)
        pos[cells] = np.arange(n_cells)
        rpos = np.zeros(n_cells, np.int64)
        rpos[tile_map[cells]] = cell_map
        n_pat = sizes.shape[0]
        hn = np.zeros(n_pat, np.int64)
        hr = np.zeros(n_pat, np.int64)
        for p in range(n_pat):
            hn[p] = data[offsets[p] + _rank(pos[tiles[p, : sizes[p]]].copy(), sizes[p], weights[p])]
            if self.db.reflect:
                hr[p] = data[offsets[p] + _rank(rpos[tiles[p, : sizes[p]]].copy(), sizes[p], weights[p])]
        h0 = max(int(hn.sum()), int(hr.sum()))
        if np.array_equal(cells, self.goal_flat):
            return np.zeros(0, np.uint8), "optimal", 0
        scal = np.zeros(6, np.int64)
        bound = h0
        nodes = 0
        deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
        limit_total = None if max_nodes is None else int(max_nodes)
        while True:
            if bound > MAX_DEPTH:
                return np.zeros(0, np.uint8), "budget", nodes
            scal[:] = (0, bound, 1 << 60, nodes, hn.sum(), hr.sum())
            self.nextc[0] = 0
            while True:
                if deadline is not None and time.perf_counter() >= deadline:
                    return np.zeros(0, np.uint8), "budget", nodes
                lim = nodes + chunk
                if limit_total is not None:
                    lim = min(lim, limit_total)
                status = _ida_chunk(
                    cells, pos, rpos, self.goal_flat, self.m, self.n, data, tiles, sizes, weights, offsets,
                    pat_of, cell_map, tile_map, self.db.reflect, hn, hr, self.path, self.nextc, self.saved, scal, lim,
                )
                nodes = int(scal[_S_NODES])
                if status == 1:
                    depth = int(scal[_S_DEPTH])
                    return self.path[:depth].astype(np.uint8), "optimal", nodes
                if status == 2:
                    break
                if status == 3:
                    return np.zeros(0, np.uint8), "budget", nodes
                if limit_total is not None and nodes >= limit_total:
                    return np.zeros(0, np.uint8), "budget", nodes
            # the search ended back at the root with the board restored
            bound = int(scal[_S_NEXT])


def _prepare(boards, goal, database):
    batch, single = as_boards(boards, label="boards")
    m, n = batch.shape[1:]
    if m < 2 or n < 2 or m * n > MAX_CELLS:
        raise ValueError(
            f"pattern-database search handles boards with 2..{MAX_CELLS} cells and at least 2 rows and "
            f"columns, got {m}x{n}"
        )
    goal_arr = as_goal(goal, m, n)
    ok = np.atleast_1d(is_solvable(batch, goal=goal_arr, check=False))
    bad = np.flatnonzero(~ok)
    if bad.size:
        where = "the board" if single else f"board {int(bad[0])}"
        raise ValueError(f"{where} cannot reach the goal (wrong permutation parity): it is unsolvable")
    db = _choose_database((m, n), database)
    plan = _Plan(db, goal_arr)
    return batch, single, db, plan


def _solve_prepared(searcher, plan, board, max_nodes, time_limit, name):
    t0 = time.perf_counter()
    mapped = plan.map_board(board).ravel()
    codes, status, nodes = searcher.solve(mapped, max_nodes, time_limit)
    return Solution(
        plan.unmap_codes(codes),
        status=status,
        nodes=int(nodes),
        seconds=time.perf_counter() - t0,
        method="ida",
        heuristic=f"pdb:{name}",
    )


def solve_with_pdb(board, goal=None, database=None, max_nodes=None, time_limit=None) -> Solution:
    """Optimal solution by IDA* with additive pattern databases.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (0 = blank).
    goal : array_like, optional
        Goal board (default: tiles row-major, blank last).  Any goal whose
        blank a board symmetry brings to the database goal's blank cell (for
        the named databases: any corner) is handled by relabelling.
    database : str or PatternDatabase, optional
        Named database (``"7-8"``, ``"6-6-3"``, ``"5-5-5"``, ``"4-4"``,
        ``"6-6-6-6"``) or a built one.  Default: the strongest cached database
        for the board size (``4-4`` and ``6-6-3`` are built on first use).
    max_nodes : int, optional
        Stop after this many generated nodes (status ``"budget"``).
    time_limit : float, optional
        Stop after about this many seconds (status ``"budget"``).

    Returns
    -------
    Solution
        ``nodes`` counts generated nodes over all iterations.

    Raises
    ------
    ValueError
        Malformed or unsolvable board, unsupported board size or goal.
    FileNotFoundError
        The database named (or needed) is not built.

    Examples
    --------
    >>> s = solve_with_pdb([[1, 2, 3], [4, 5, 6], [0, 7, 8]])
    >>> s.moves, s.status
    ('RR', 'optimal')
    """
    batch, single, db, plan = _prepare(board, goal, database)
    if not single:
        raise ValueError(f"solve_with_pdb takes one board (m, n), got a batch of shape {batch.shape}; use solve_many_with_pdb")
    return _solve_prepared(_Searcher(db), plan, batch[0], max_nodes, time_limit, db.name)


def solve_many_with_pdb(boards, goal=None, database=None, max_nodes=None, time_limit=None) -> list:
    """:func:`solve_with_pdb` for each board of a batch ``(B, m, n)``.

    ``max_nodes`` and ``time_limit`` apply to each board.  Every board is
    checked before any search starts.

    Examples
    --------
    >>> sols = solve_many_with_pdb([[[1, 2, 3], [4, 5, 6], [7, 0, 8]], [[1, 2, 3], [4, 5, 6], [7, 8, 0]]])
    >>> [s.length for s in sols]
    [1, 0]
    """
    batch, _, db, plan = _prepare(boards, goal, database)
    searcher = _Searcher(db)
    return [_solve_prepared(searcher, plan, b, max_nodes, time_limit, db.name) for b in batch]
