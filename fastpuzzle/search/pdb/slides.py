"""Multi-tile pattern databases: lower bounds on slides, for ``metric="mtm"``.

Under the multi-tile metric one move slides a whole row or column segment, so
a single-tile table divided by the longest slide is a weak bound (about 16 on
15-puzzles whose optimum is 30 to 43).  A *slide database* is exact on an
abstraction: the cells of ``k`` tiles and of the blank, the other tiles alike.
Its breadth-first search moves the blank by slides, so every real solution
maps onto an abstract one of as many slides and the table is admissible.
One slide moves tiles of every pattern at once, so the tables do not add up:
the bound is their maximum, each also read on the board's images under the
symmetries that keep the goal's blank cell (on the 15-puzzle the transposed
board: four lookups from two tables).

Two patterns per shape (:func:`slide_patterns`): the row and the column
farthest from the goal's blank, nearest their shared corner first (tiles 1 2
3 4 5 9 on the 15-puzzle), and the blank's own row and column (4 8 12 13 14
15).  On the 15-puzzle each table holds ``16!/9!`` = 57,657,600 placements, a
byte each, built in well under a minute on 2 cores and cached like the
distance tables (:mod:`fastpuzzle.cachefile`).  A search with a budget reads
them only when built (:func:`slide_tables_built`).  See ``docs/pictures.md``.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
from numba import prange

from ..._jit import as_unsigned, jit, pjit
from ...cachefile import CorruptCacheError, cache_root, open_array, remove_cached, save_checked, usable_directory
from ...boards import as_goal
from ...errors import OptionError, OptionTypeError, ShapeError
from ...memory import check_allocation
from ...moves import board_symmetries
from .ranking import placement_count, placement_weights, popcount, rank_placement_bits, unrank_placement

__all__ = ["SLIDE_TILES", "SLIDE_MIN_CELLS", "SLIDE_MAX_CELLS", "slide_patterns", "build_slide_table",
           "slide_tables", "no_slide_tables", "slide_bound", "slide_bounds", "slide_cost", "tile_cells",
           "root_slide_bound", "slide_tables_built", "SLIDES_NOT_BUILT", "cache_directory", "forget_cached"]  # fmt: skip

#: Tiles per pattern (with the blank: 16!/9! placements on the 15-puzzle).
SLIDE_TILES = 6
#: Boards the multi-tile search reads slide databases on (smaller ones are quick without).
SLIDE_MIN_CELLS, SLIDE_MAX_CELLS = 10, 16
#: Largest board a slide database takes (cells are bits of a 64-bit mask).
MAX_BOARD_CELLS = 62
_FORMAT = 1
_UNSEEN = 255
_CHUNK = 1 << 16


def slide_patterns(goal: np.ndarray, tiles: int = SLIDE_TILES) -> list:
    """The patterns' goal cells (each a tuple, ``tiles`` long) for ``goal``.

    Examples
    --------
    >>> goal = np.append(np.arange(1, 16), 0).reshape(4, 4)
    >>> [sorted(int(goal.flat[c]) for c in p) for p in slide_patterns(goal)]
    [[1, 2, 3, 4, 5, 9], [4, 8, 12, 13, 14, 15]]
    """
    m, n = goal.shape
    blank = int(np.flatnonzero(goal.ravel() == 0)[0])
    br, bc = divmod(blank, n)
    fr, fc = (0 if 2 * br >= m - 1 else m - 1), (0 if 2 * bc >= n - 1 else n - 1)
    cells = [(r, c) for r in range(m) for c in range(n) if r * n + c != blank]

    def first(group, key):
        chosen = sorted(group, key=lambda rc: (key(rc), rc))
        extra = sorted((rc for rc in cells if rc not in group), key=lambda rc: (key(rc), rc))
        return tuple(r * n + c for r, c in (chosen + extra)[:tiles])

    far = first([rc for rc in cells if rc[0] == fr or rc[1] == fc], lambda rc: abs(rc[0] - fr) + abs(rc[1] - fc))
    near = first([rc for rc in cells if rc[0] == br or rc[1] == bc], lambda rc: -abs(rc[0] - br) - abs(rc[1] - bc))
    return [far] if set(far) == set(near) else [far, near]


@jit
def _expand_chunk(dist, depth, m, n, k1, w, lo, hi):
    """Every placement of ``dist[lo:hi]`` at ``depth``: its slides' placements not seen get ``depth + 1``."""
    cells, moved = np.empty(k1, np.int64), np.empty(k1, np.int64)
    occupant = np.full(m * n, -1, np.int64)
    found = 0
    for idx in range(lo, hi):
        if dist[idx] != depth:
            continue
        unrank_placement(idx, k1, w, cells)
        for i in range(k1 - 1):
            occupant[cells[i]] = i
        for d in range(4):
            dr, dc = (-1, 0, 0, 1)[d], (0, -1, 1, 0)[d]
            moved[:] = cells
            r, c = cells[k1 - 1] // n, cells[k1 - 1] % n
            while 0 <= r + dr < m and 0 <= c + dc < n:  # a slide of 1, 2, ... cells: each one move
                nxt = (r + dr) * n + c + dc
                if occupant[nxt] >= 0:
                    moved[occupant[nxt]] = r * n + c
                moved[k1 - 1] = nxt
                j = rank_placement_bits(moved, k1, w)
                if dist[j] == _UNSEEN:
                    dist[j] = depth + 1  # threads may both write it: the same value
                    found += 1
                r, c = r + dr, c + dc
        for i in range(k1 - 1):
            occupant[cells[i]] = -1
    return found


@pjit
def _layer(dist, depth, m, n, k1, w):
    chunks = (dist.shape[0] + _CHUNK - 1) // _CHUNK
    found = np.zeros(chunks, np.int64)
    for i in prange(chunks):  # chunks of placements, each thread with its own buffers
        found[i] = _expand_chunk(dist, depth, m, n, k1, w, i * _CHUNK, min(dist.shape[0], (i + 1) * _CHUNK))
    return found.sum()


def build_slide_table(m: int, n: int, pattern, blank: int) -> np.ndarray:
    """Slides from every placement of ``pattern``'s tiles and the blank to the goal's.

    ``pattern``: the tiles' goal cells (the placement's order); ``blank``: the goal's blank
    cell.  Returns the table as ``uint8``, indexed by the rank of (tile cells..., blank cell).

    Examples
    --------
    >>> t = build_slide_table(2, 3, (0, 1), 5)       # tiles 1 and 2 of the 2x3 goal
    >>> t.size, int(t.max()), int((t == 0).sum())
    (120, 13, 1)
    """
    cells = [int(c) for c in pattern] + [int(blank)]
    if m * n > MAX_BOARD_CELLS or len(set(cells)) != len(cells) or not all(0 <= c < m * n for c in cells):
        raise OptionError("pattern", pattern, f"must be distinct cells of a board of at most {MAX_BOARD_CELLS} cells "
                                              f"({m}x{n}) other than the blank's ({blank})")  # fmt: skip
    k1 = len(pattern) + 1
    size = placement_count(m * n, k1)
    check_allocation(size, f"a slide database of {size:,} placements")
    w = placement_weights(m * n, k1)
    dist = np.full(size, _UNSEEN, np.uint8)
    dist[rank_placement_bits(np.array([*pattern, blank], np.int64), np.int64(k1), w)] = 0
    depth = 0
    while _layer(dist, np.int64(depth), np.int64(m), np.int64(n), np.int64(k1), w):
        depth += 1
    return dist


def _symmetries(goal: np.ndarray) -> list:
    """Cell maps ``sigma`` (where each cell's content goes) of the symmetries that keep the goal's blank cell."""
    m, n = goal.shape
    blank = int(np.flatnonzero(goal.ravel() == 0)[0])
    out = []
    for _, transform, _ in board_symmetries(m, n):
        image = np.asarray(transform(np.arange(m * n).reshape(m, n))).ravel()  # image cell -> source cell
        sigma = np.argsort(image)
        if sigma[blank] == blank:
            out.append(sigma.astype(np.int64))
    return out


def _describe(m, n, pattern, blank) -> dict:
    return {"kind": "slide-database", "format": _FORMAT, "board": [m, n], "pattern": [int(c) for c in pattern],
            "blank": int(blank)}  # fmt: skip


def _table(m, n, pattern, blank, cache):
    """The table for ``pattern``: from the cache when it is whole and ours, else built (and cached)."""
    path = _table_path(m, n, pattern, blank)
    if cache:
        try:
            return open_array(path, _describe(m, n, pattern, blank))
        except FileNotFoundError:
            pass
        except CorruptCacheError as error:  # never used: rebuilt below, over the bad copy
            warnings.warn(f"{error}; it is rebuilt", RuntimeWarning, stacklevel=4)
            try:
                remove_cached(path)
            except OSError:
                pass
    problem = usable_directory(path.parent) if cache else None
    if problem is not None:  # said before the work, not after it
        warnings.warn(f"the slide database cannot be cached: {problem}; it is built in memory only", RuntimeWarning,
                      stacklevel=4)  # fmt: skip
    table = build_slide_table(m, n, pattern, blank)
    if cache and problem is None:
        try:
            save_checked(path, table, _describe(m, n, pattern, blank))
        except OSError as error:
            warnings.warn(f"the slide database was not cached ({error}); the table in memory serves",
                          RuntimeWarning, stacklevel=4)  # fmt: skip
    return table


#: ``Solution.note`` of a multi-tile search that went without the slide databases.
SLIDES_NOT_BUILT = ("the multi-tile pattern databases are not built and a budget was given, so the search went "
                    "without them; build them once with `fastpuzzle pdb build slides-MxN` (or solve once with no "
                    "budget)")  # fmt: skip


def _checked_goal(goal) -> np.ndarray:
    """A validated goal board (any shape of 2 to :data:`MAX_BOARD_CELLS` cells with 2 rows and columns at least)."""
    shape = np.shape(goal)
    if len(shape) != 2 or min(shape) < 2 or shape[0] * shape[1] > MAX_BOARD_CELLS:
        raise ShapeError(shape, f"slide databases take one goal board with 2 rows and 2 columns at least and at most "
                                f"{MAX_BOARD_CELLS} cells, got shape {shape}")  # fmt: skip
    return as_goal(goal, *shape)


def _checked_patterns(patterns, n_cells, blank) -> tuple:
    """Patterns as tuples of goal cells, all of one length, each cell on the board and not the blank's."""
    if isinstance(patterns, (str, bytes)) or not hasattr(patterns, "__len__") or len(patterns) == 0:
        raise OptionTypeError("patterns", patterns, "must be a non-empty list of tuples of cells")
    out = []
    for p in patterns:
        if isinstance(p, (str, bytes)) or not hasattr(p, "__len__") or not all(
                isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in p):  # fmt: skip
            raise OptionTypeError("patterns", patterns, "must hold tuples of cell indexes")
        cells = tuple(int(c) for c in p)
        if not cells or len(cells) != len(out[0] if out else cells) or len(set(cells)) != len(cells) or blank in cells \
                or not all(0 <= c < n_cells for c in cells):  # fmt: skip
            raise OptionError("patterns", patterns, f"must be equally long tuples of distinct cells 0..{n_cells - 1} "
                                                    f"other than the goal's blank ({blank})")  # fmt: skip
        out.append(cells)
    return tuple(out)


def cache_directory():
    """Where the slide databases are cached: ``slides/`` under the cache directory."""
    return cache_root() / "slides"


def _table_path(m, n, pattern, blank):
    return cache_directory() / f"{m}x{n}-b{blank}-{'-'.join(map(str, pattern))}-v{_FORMAT}.npy"


def forget_cached(goal) -> None:
    """Remove the default tables of ``goal`` from the cache and from memory (the next use rebuilds them)."""
    m, n, patterns, blank = _default_key(_checked_goal(goal))
    with _JOINED_LOCK:
        _JOINED.pop((m, n, patterns, blank, True), None)
    for p in patterns:
        remove_cached(_table_path(m, n, p, blank))


def _default_key(goal) -> tuple:
    """``(m, n, patterns, blank)`` of the default tables for a validated goal."""
    m, n = goal.shape
    return m, n, tuple(slide_patterns(goal)), int(np.flatnonzero(goal.ravel() == 0)[0])


def slide_tables_built(goal: np.ndarray) -> bool:
    """Whether the default tables for ``goal`` are in memory or in the cache (checked when read).

    Examples
    --------
    >>> slide_tables_built(np.array([[1, 2, 3, 0], [4, 5, 6, 7], [8, 9, 10, 11]]))
    False
    """
    m, n, patterns, blank = _default_key(_checked_goal(goal))
    if (m, n, patterns, blank, True) in _JOINED:
        return True
    return all(_table_path(m, n, p, blank).exists() for p in patterns)


def slide_tables(goal: np.ndarray, patterns=None, *, cache: bool = True) -> tuple:
    """The engine's slide tables for boards of ``goal``'s shape (see :func:`no_slide_tables`).

    ``patterns``: goal cells per pattern (default :func:`slide_patterns`); ``cache``: read and
    write the tables under the cache directory.

    Examples
    --------
    >>> goal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    >>> data, tiles, cells, offsets, weights = slide_tables(goal, [(0, 1, 2)], cache=False)
    >>> tiles.tolist(), offsets.tolist()
    ([[1, 2, 3, 0], [1, 4, 7, 0]], [0, 0])
    """
    goal = _checked_goal(goal)
    m, n = goal.shape
    flat = goal.ravel().astype(np.int64)
    blank = int(np.flatnonzero(flat == 0)[0])
    patterns = tuple(slide_patterns(goal)) if patterns is None else _checked_patterns(patterns, m * n, blank)
    data, starts = _joined_tables(m, n, patterns, blank, bool(cache))
    tiles, cells, offsets = [], [], []
    for pattern, start in zip(patterns, starts):
        for sigma in _symmetries(goal):
            inverse = np.argsort(sigma)
            tiles.append([int(flat[inverse[p]]) for p in pattern] + [0])
            cells.append(sigma)
            offsets.append(start)
    return (data, np.array(tiles, np.int64), np.array(cells, np.int64), np.array(offsets, np.int64),
            placement_weights(m * n, len(patterns[0]) + 1))  # fmt: skip


_JOINED: dict = {}
_JOINED_LOCK = threading.Lock()


def _joined_tables(m, n, patterns, blank, cache):
    """The patterns' tables end to end and where each starts: made once per process (threads wait)."""
    key = (m, n, patterns, blank, cache)
    with _JOINED_LOCK:
        if key not in _JOINED:
            tables = [np.asarray(_table(m, n, p, blank, cache)) for p in patterns]
            data = np.concatenate(tables)
            data.setflags(write=False)  # one type for cached (memory-mapped) and built tables
            _JOINED[key] = data, np.cumsum([0] + [t.size for t in tables[:-1]]).tolist()
        return _JOINED[key]


def no_slide_tables(n_cells: int) -> tuple:
    """Tables of the same types with no lookup: the bound stays the single-tile one."""
    data = np.zeros(1, np.uint8)
    data.setflags(write=False)
    return (data, np.zeros((0, 1), np.int64), np.zeros((0, n_cells), np.int64), np.zeros(0, np.int64),
            np.ones(1, np.int64))  # fmt: skip


@jit(inline="always")
def slide_bound(tile_cell, tile, tile_to, blank_cell, data, tiles, cells, offsets, weights, enough=_UNSEEN):
    """Largest table value of the board ``tile_cell`` (cell of each tile) with ``tile`` moved to
    ``tile_to`` and the blank on ``blank_cell`` (``tile = -1``: the board as it is); the first value
    of at least ``enough`` is returned at once (the search prunes the child on it)."""
    best = 0
    for lookup in range(tiles.shape[0]):
        idx, used = 0, 0
        for i in range(tiles.shape[1]):
            t = tiles[lookup, i]
            c = blank_cell if t == 0 else (tile_to if t == tile else tile_cell[t])
            c = cells[lookup, c]
            idx += (c - popcount(used & ((1 << c) - 1))) * weights[i]  # rank_placement_bits on the mapped cells, inline: per node
            used |= 1 << c
        v = np.int64(data[offsets[lookup] + idx])
        if v > best:
            best = v
            if best >= enough:
                break
    return best


@jit
def tile_cells(cells):
    """The cell of each tile of the flat board ``cells`` (the blank's at 0)."""
    out = np.empty(cells.shape[0], np.int64)
    for c in range(cells.shape[0]):
        out[cells[c]] = c
    return out


@jit
def root_slide_bound(cells, mtm_tables):
    """The slide databases' bound of the flat board ``cells`` (0 without them); ``mtm_tables``: the engine's."""
    slide_tiles = mtm_tables[3]
    if slide_tiles.shape[0] == 0:
        return 0
    tile_cell = tile_cells(cells)
    return slide_bound(tile_cell, np.int64(-1), np.int64(-1), tile_cell[0], mtm_tables[2], slide_tiles, mtm_tables[4],
                       mtm_tables[5], mtm_tables[6])  # fmt: skip


@jit(inline="always")
def slide_cost(h, op, last, src, tile, blank, tile_cell, room, reach, longest, slide_data, slide_tiles, slide_cells,
               slide_offsets, slide_weights):  # fmt: skip
    """A step's cost (0 when it goes on in the direction of the last one: the same slide) and its
    bound minus one: what is left takes >= ``h`` single steps, the first ``reach`` of them free,
    then at most ``longest`` per slide; and at least the slide databases' value less one where the
    slide may go on for free (:func:`slide_bound`). Past ``room`` the child is pruned: the tables
    are read no further (a smaller ``f`` for a pruned child is still a lower bound)."""
    step = 0 if op == last else 1
    free = reach[as_unsigned(src * 4 + op)]
    rest = h - free
    bound = (rest + longest - 1) // longest if rest > 0 else 0
    cont = 1 if free > 0 else 0
    if slide_tiles.shape[0] > 0 and step - 1 + bound <= room:  # the tile went to ``blank``, the blank to ``src``
        slides = slide_bound(tile_cell, tile, blank, src, slide_data, slide_tiles, slide_cells, slide_offsets,
                             slide_weights, room - step + 2 + cont) - cont  # fmt: skip
        if slides > bound:
            bound = slides
    return step, step - 1 + bound


@jit
def _bounds_kernel(flat, data, tiles, cells, offsets, weights, out):
    for b in range(flat.shape[0]):
        tile_cell = tile_cells(flat[b])
        out[b] = slide_bound(tile_cell, np.int64(-1), np.int64(-1), tile_cell[0], data, tiles, cells, offsets, weights)


def slide_bounds(flat: np.ndarray, tables: tuple) -> np.ndarray:
    """The bound of :func:`slide_tables` ``tables`` for each row of ``flat`` (validated boards, one per row).

    Examples
    --------
    >>> goal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    >>> tables = slide_tables(goal, [(0, 1, 2)], cache=False)
    >>> slide_bounds(np.array([[1, 2, 3, 4, 5, 6, 7, 8, 0], [0, 2, 3, 1, 5, 6, 4, 7, 8]]), tables).tolist()
    [0, 2]
    """
    flat = np.ascontiguousarray(flat, dtype=np.int64)
    out = np.empty(flat.shape[0], np.int64)
    _bounds_kernel(flat, *tables, out)
    return out
