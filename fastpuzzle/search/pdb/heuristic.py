"""The pattern-database heuristic: the tables of a partition and their lookups.

A *pattern* is a set of tiles.  Its table maps every placement of those tiles
(the other tiles are indistinguishable and the blank may be anywhere) to the
fewest moves **of pattern tiles** needed to bring them home.  Since a real
move moves exactly one tile, the values of disjoint patterns add up to a lower
bound on the solution length (Korf & Felner 2002).  For a square board whose
goal blank lies on the main diagonal the same tables also bound the board
reflected about that diagonal, and the larger of the two sums is used.

:class:`PatternDatabase` holds the tables; :meth:`PatternDatabase.lookup`
evaluates boards in batches; :func:`pdb_kernel_tables` gives the arrays the
IDA* engine (:mod:`fastpuzzle.search.ida`) reads, and the ``pdb_*`` kernels
below update the heuristic one move at a time inside that engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import prange

from ..._jit import as_unsigned, jit, pjit, use_threads
from ...atomic import save_array, write_text
from ...cachefile import describe_array
from ...boards import as_boards, relabel_table
from ...errors import BoardError, OptionError, OptionTypeError, ShapeError
from ...manhattan import manhattan_table
from ...moves import board_symmetries
from .ranking import placement_weights, prefetch, rank_placement

__all__ = [
    "PatternDatabase", "GoalPlan", "MAX_CELLS", "FORMAT_VERSION", "check_partition", "check_groups",
    "reflection_applies",
    "MAX_VIEWS", "PATTERN_OF", "TILE_WEIGHT", "CELL_MAP", "TILE_MAP",
    "pdb_kernel_tables", "pdb_new_state", "pdb_start", "rank_step", "pdb_children", "pdb_child", "pdb_push", "pdb_pop",
]  # fmt: skip

#: Largest board the kernels handle (cell sets are 64-bit masks: one bit per cell, the sign bit unused).
MAX_CELLS = 63
#: Version of the cache layout written by :meth:`PatternDatabase.save`.
FORMAT_VERSION = 2  # 2: exact blank regions (the 7-8 and 6-6-6-6 tables changed)


def check_groups(groups, n_patterns, reflect):
    """``groups`` (patterns per partition, or None: one partition) as a tuple, checked against the
    ``n_patterns`` patterns and the engine's :data:`MAX_VIEWS` (a reflected partition takes two)."""
    if groups is None:
        return (n_patterns,)
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__iter__"):
        raise OptionTypeError("groups", groups, "must be a sequence of pattern counts, one per partition")
    out = []
    for g in groups:
        if isinstance(g, (bool, np.bool_)) or not isinstance(g, (int, np.integer)):
            raise OptionTypeError("groups", g, f"must hold whole numbers of patterns ({type(g).__name__} given)")
        if g < 1:
            raise OptionError("groups", g, "must hold counts of at least one pattern each")
        out.append(int(g))
    if not out or sum(out) != n_patterns:
        raise OptionError("groups", groups, f"must count the partition's {n_patterns} patterns, in order (sum {sum(out)})")
    views = len(out) * (2 if reflect else 1)
    if views > MAX_VIEWS:
        raise OptionError("groups", groups, f"holds {len(out)} partitions{' each reflected' if reflect else ''}: "
                                            f"{views} views, the search keeps at most {MAX_VIEWS}")  # fmt: skip
    return tuple(out)


def check_partition(partition, m, n, groups=None):
    """The patterns of ``partition`` as tuples of tiles, checked for a ``m x n`` board (disjoint within
    each partition of ``groups``, the patterns per partition; None: one partition)."""
    n_cells = m * n
    out = []
    if isinstance(partition, (str, bytes)) or not hasattr(partition, "__iter__"):
        raise OptionTypeError("partition", partition, "must be a sequence of tile sequences")
    for p in partition:
        if isinstance(p, (str, bytes)) or not hasattr(p, "__iter__"):
            raise OptionTypeError("partition", p, "must hold patterns that are each a sequence of tiles")
        p = list(p)
        for t in p:  # 1.0 and True are not tiles
            if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, np.integer)):
                raise OptionTypeError("partition", t, f"must hold integer tiles ({type(t).__name__} in pattern {p!r})")
        tiles = tuple(int(t) for t in p)
        if not tiles:
            raise OptionError("partition", p, "must hold patterns of at least one tile each")
        for t in tiles:
            if not 1 <= t <= n_cells - 1:
                raise OptionError("partition", t, f"pattern tile {t} is outside 1..{n_cells - 1} for a {m}x{n} board")
        out.append(tiles)
    if not out:
        raise OptionError("partition", partition, "needs at least one pattern of tiles")
    sizes = (len(out),) if groups is None else groups
    first = 0
    for size in sizes:  # additive: each partition's patterns are disjoint
        seen = set()
        for tiles in out[first : first + size]:
            for t in tiles:
                if t in seen:
                    raise OptionError("partition", t, f"must be disjoint (additive patterns): tile {t} is in two "
                                                      "patterns" + (" of one partition" if len(sizes) > 1 else ""))  # fmt: skip
                seen.add(t)
        first += size
    return tuple(out)


#: Most views the engine keeps (two partitions and their reflections): its stack has room for that many.
MAX_VIEWS = 4


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
    groups : tuple of int
        Patterns per partition, in :attr:`partition`'s order: ``(4, 4)`` holds
        two partitions of four patterns each, and the bound is the largest of
        their sums (and of their reflections).  Empty: one partition.

    Examples
    --------
    >>> from fastpuzzle.pdb import build_partition
    >>> db = build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    >>> db.lookup([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), db.lookup([[1, 2, 3], [4, 5, 6], [7, 0, 8]])
    (0, 1)
    """

    name: str
    shape: tuple
    partition: tuple
    goal: np.ndarray = field(repr=False)  # the arrays stay out of the repr (a table is up to GBs)
    data: np.ndarray = field(repr=False)
    offsets: np.ndarray = field(repr=False)
    reflect: bool = False
    build_seconds: float = 0.0
    path: Path | None = None
    build_peak_bytes: int = 0
    build_cpu_seconds: float = 0.0
    groups: tuple = ()
    _arrays: tuple | None = field(default=None, repr=False)

    @property
    def tables(self) -> list:
        """One uint8 array per pattern (views of :attr:`data`)."""
        ends = list(self.offsets[1:]) + [self.data.shape[0]]
        return [self.data[a:b] for a, b in zip(self.offsets, ends)]

    @property
    def nbytes(self) -> int:
        return int(self.data.shape[0])

    @property
    def pattern_groups(self) -> tuple:
        """Patterns per partition (one partition: ``(len(partition),)``)."""
        return tuple(self.groups) or (len(self.partition),)

    def group(self, q: int) -> "PatternDatabase":
        """Partition ``q`` alone, as a database sharing this one's tables.

        Examples
        --------
        >>> from fastpuzzle.pdb import build_partition
        >>> both = build_partition((2, 3), [(1, 2, 3), (4, 5), (1, 4), (2, 3, 5)], groups=(2, 2))
        >>> both.group(1).partition
        ((1, 4), (2, 3, 5))
        """
        sizes = self.pattern_groups
        if isinstance(q, (bool, np.bool_)) or not isinstance(q, (int, np.integer)):
            raise OptionTypeError("q", q, "must be the whole number of a partition")
        if not 0 <= q < len(sizes):
            raise OptionError("q", q, f"names no partition: the database holds {len(sizes)}")
        first = sum(sizes[:q])
        end = first + sizes[q]
        stop = self.offsets[end] if end < len(self.offsets) else self.data.shape[0]
        offsets = np.asarray(self.offsets[first:end], np.int64)
        return PatternDatabase(self.name, self.shape, tuple(self.partition[first:end]), self.goal,
                               self.data[offsets[0]:stop], offsets - offsets[0], self.reflect)  # fmt: skip

    def _kernel_arrays(self):
        """Arrays describing the partitions for the kernels (cached).

        ``(tiles, sizes, weights, offsets)`` per pattern (all partitions in
        turn), then per *view* (a partition as the board shows it, or as its
        reflection shows it): ``pattern_of[v, u]`` the pattern of tile ``u``
        (-1: none), ``cell_map[v]`` / ``tile_map[v]`` the cells and tiles as
        the view sees them (the identity, or the reflection: both their own
        inverse), ``views[v] = (first pattern, end, reflected)`` and
        ``tile_weight[v, u]`` the place value of tile ``u`` in its pattern's rank.
        """
        if self._arrays is None:
            check_groups(self.pattern_groups, len(self.partition), self.reflect)  # the engine's stack has MAX_VIEWS
            m, n = self.shape
            n_cells = m * n
            n_pat = len(self.partition)
            kmax = max(len(p) for p in self.partition)
            tiles = np.zeros((n_pat, kmax), np.int64)
            sizes = np.zeros(n_pat, np.int64)
            weights = np.zeros((n_pat, kmax), np.int64)
            for p, pt in enumerate(self.partition):
                sizes[p] = len(pt)
                tiles[p, : len(pt)] = pt
                weights[p, : len(pt)] = placement_weights(n_cells, len(pt))
            # Reflection: cell (r, c) -> (c, r); tile t -> the goal tile found
            # at the reflected cell of t's goal cell.
            flat_goal = self.goal.ravel().astype(np.int64)
            identity = np.arange(n_cells, dtype=np.int64)
            cell_map, tile_map = identity.copy(), identity.copy()
            if self.reflect:
                cell_map = (identity % n) * n + identity // n
                tile_map[flat_goal] = flat_goal[cell_map]
            pattern_of, tile_weight, cells, tiles_seen, views = [], [], [], [], []
            first = 0
            for size in self.pattern_groups:
                row, row_weight = np.full(n_cells, -1, np.int64), np.zeros(n_cells, np.int64)
                for p in range(first, first + size):
                    row[tiles[p, : sizes[p]]] = p
                    row_weight[tiles[p, : sizes[p]]] = weights[p, : sizes[p]]
                for reflected in (0, 1) if self.reflect else (0,):
                    pattern_of.append(row)
                    tile_weight.append(row_weight)
                    cells.append(cell_map if reflected else identity)
                    tiles_seen.append(tile_map if reflected else identity)
                    views.append((first, first + size, reflected))
                first += size
            self._arrays = (tiles, sizes, weights, np.asarray(self.offsets, np.int64), np.array(pattern_of),
                            np.array(cells), np.array(tiles_seen), np.array(views, np.int64),
                            np.array(tile_weight))  # fmt: skip
        return self._arrays

    def lookup(self, boards) -> np.ndarray:
        """Heuristic value of each board (``(B,)`` int array, or an int for one board).

        Boards are measured against :attr:`goal`.
        """
        batch, single = as_boards(boards, label="boards")
        if batch.shape[1:] != tuple(self.shape):
            raise ShapeError(
                batch.shape[1:],
                f"boards are {batch.shape[1]}x{batch.shape[2]} but database {self.name!r} is for "
                f"{self.shape[0]}x{self.shape[1]} boards"
            )
        tiles, sizes, weights, offsets, _, cell_map, tile_map, views, _ = self._kernel_arrays()
        kernel = _lookup_batch_parallel if use_threads(batch.size) else _lookup_batch
        flat = batch.reshape(batch.shape[0], batch.shape[1] * batch.shape[2])
        out = kernel(flat, self.data, tiles, sizes, weights, offsets, cell_map, tile_map, views)
        return int(out[0]) if single else out

    def save(self, directory) -> Path:
        """Write ``meta.json`` and ``tables.npy`` into ``directory``."""
        directory = Path(directory)
        save_array(directory / "tables.npy", self.data)
        meta = dict(
            tables=describe_array(self.data),  # checked with the data on load (fastpuzzle.cachefile)
            format=FORMAT_VERSION,
            name=self.name,
            shape=list(self.shape),
            partition=[list(p) for p in self.partition],
            goal=self.goal.ravel().tolist(),
            offsets=[int(o) for o in self.offsets],
            reflect=bool(self.reflect),
            groups=list(self.pattern_groups),
            build_seconds=self.build_seconds,
            build_peak_bytes=int(self.build_peak_bytes),
            build_cpu_seconds=float(self.build_cpu_seconds),
        )
        write_text(directory / "meta.json", json.dumps(meta, indent=1))
        return directory


class GoalPlan:
    """How a goal maps onto a database: a board symmetry plus a relabelling.

    A goal whose blank a symmetry of the board brings to the blank cell of the
    database's goal is searched on the image board, its tiles renamed so that
    the image goal reads as the database goal; moves found there map back
    through the symmetry.

    Examples
    --------
    >>> from fastpuzzle.pdb import build
    >>> plan = GoalPlan(build("4-4", progress=False), np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]]))
    >>> plan.name, plan.map_board(np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])).tolist()
    ('rot180', [[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    """

    def __init__(self, db: PatternDatabase, goal: np.ndarray):
        m, n = db.shape
        db_goal = db.goal
        blank_db = tuple(int(v) for v in np.argwhere(db_goal == 0)[0])
        for name, transform, code_map in board_symmetries(m, n):
            image = transform(goal)
            if image.shape == (m, n) and tuple(int(v) for v in np.argwhere(image == 0)[0]) == blank_db:
                self.transform, self.name = transform, name
                # tile image[cell] of the goal plays the part of tile db_goal[cell]
                self.relabel = relabel_table(image, db_goal)
                self.code_back = np.argsort(code_map).astype(np.uint8)
                # the user's move order (U L R D) as codes on the image board
                self.move_order = tuple(int(c) for c in code_map)
                return
        raise BoardError(
            "goal", None,
            f"has its blank where no symmetry of the {m}x{n} board brings it to cell {blank_db}, the blank of "
            f"database {db.name!r}'s goal.  Build a database for this goal with "
            "fastpuzzle.pdb.build_partition(shape, partition, goal=goal)",
        )  # fmt: skip

    def map_board(self, board: np.ndarray) -> np.ndarray:
        """The board (or batch) as the database sees it."""
        return self.relabel[self.transform(np.asarray(board)).astype(np.int64)]

    def unmap_codes(self, codes: np.ndarray) -> np.ndarray:
        """Move codes found on the mapped board, as moves on the original board."""
        return self.code_back[np.asarray(codes, np.int64)]


@jit
def _pattern_sum(pos, r, tiles, sizes, weights, offsets, data, buf, first, end):
    """Sum of patterns ``first .. end - 1`` with the tiles on cells ``pos[r]``."""
    total = 0
    for p in range(first, end):
        k = sizes[p]
        for i in range(k):
            buf[i] = pos[r, tiles[p, i]]
        total += data[offsets[p] + rank_placement(buf, k, weights[p])]
    return total


@jit
def _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, views, out, lo, hi):
    n_cells = flat.shape[1]
    pos = np.zeros((2, n_cells), np.int64)  # the tiles' cells on the board (row 0) and its reflection (row 1)
    buf = np.zeros(tiles.shape[1], np.int64)
    for b in range(lo, hi):
        h = 0
        for v in range(views.shape[0]):  # the largest sum over the views
            r = views[v, 2]
            if v < 2:  # the first partition's views hold every kind: later partitions read their cells
                for c in range(n_cells):
                    pos[r, tile_map[v, flat[b, c]]] = cell_map[v, c]
            hv = _pattern_sum(pos, r, tiles, sizes, weights, offsets, data, buf, views[v, 0], views[v, 1])
            if hv > h:
                h = hv
        out[b] = h


@jit
def _lookup_batch(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, views):
    out = np.zeros(flat.shape[0], np.int64)
    _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, views, out, 0, flat.shape[0])
    return out


@pjit
def _lookup_batch_parallel(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, views):
    n_boards = flat.shape[0]
    out = np.zeros(n_boards, np.int64)
    n_parts = 64
    step = (n_boards + n_parts - 1) // n_parts
    for part in prange(n_parts):
        lo = part * step
        hi = min(n_boards, lo + step)
        if lo < hi:
            _lookup_range(flat, data, tiles, sizes, weights, offsets, cell_map, tile_map, views, out, lo, hi)
    return out


def reflection_applies(goal: np.ndarray) -> bool:
    """Reflection applies to square boards whose goal maps the blank to itself
    (any partition: the reflected board is looked up in the same tables).

    Examples
    --------
    >>> reflection_applies(np.array([[1, 2], [3, 0]])), reflection_applies(np.array([[1, 2, 3], [4, 5, 0]]))
    (True, False)
    """
    m, n = goal.shape
    if m != n:
        return False
    flat = goal.ravel()
    b = int(np.flatnonzero(flat == 0)[0])
    return (b % n) * n + b // n == b



# ---------------------------------------------------------------------------
# The heuristic inside the IDA* engine (one move at a time)
# ---------------------------------------------------------------------------


def pdb_kernel_tables(db: PatternDatabase, toward_first: bool = True) -> tuple:
    """Arrays of ``db`` in the order the engine reads them.

    ``(data, tiles, sizes, weights, offsets, maps, views, goal_distance)``:
    ``maps[PATTERN_OF]``, ``maps[TILE_WEIGHT]``, ``maps[CELL_MAP]`` and
    ``maps[TILE_MAP]`` are the views' rows of
    :meth:`PatternDatabase._kernel_arrays` in one array (one argument for
    the engine's helpers instead of four);
    ``goal_distance[t * N + c]`` is the Manhattan
    distance from cell ``c`` to tile ``t``'s goal cell
    (:func:`fastpuzzle.manhattan.manhattan_table`; the engine tries the
    moves that bring their tile closer first: in the last pass it meets the
    goal sooner; the passes before search every node below their bound in any
    order).  ``toward_first=False`` gives it empty: the engine keeps the
    successor tables' order alone, in one pass.
    """
    data = np.asarray(db.data).view(np.ndarray).view()
    data.setflags(write=False)  # one type for loaded (memory-mapped) and built tables
    goal_distance = manhattan_table(db.goal).astype(np.int64).ravel()
    goal_distance = np.ascontiguousarray(goal_distance if toward_first else goal_distance[:0])
    tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map, views, tile_weight = db._kernel_arrays()
    maps = np.ascontiguousarray(np.stack([pattern_of, tile_weight, cell_map, tile_map]))
    return data, tiles, sizes, weights, offsets, maps, views, goal_distance


#: Rows of the engine's ``maps`` (:func:`pdb_kernel_tables`).
PATTERN_OF, TILE_WEIGHT, CELL_MAP, TILE_MAP = 0, 1, 2, 3


@jit
def pdb_new_state(tiles, n_cells, n_views):
    """Per-search state: tile cells (one row per view), the value of each
    pattern in each view, the views' sums, a rank buffer, the table index of
    each pattern's placement (rows as for the values) and the child's new
    value in each view (:func:`pdb_start` fills the first five, :func:`pdb_child` the last)."""
    n_patterns = tiles.shape[0]
    return (np.zeros((n_views, n_cells), np.int64), np.zeros((n_views, n_patterns), np.int64),
            np.zeros(n_views, np.int64), np.zeros(tiles.shape[1], np.int64),
            np.zeros((n_views, n_patterns), np.int64), np.zeros(n_views, np.int64))  # fmt: skip


@jit
def pdb_start(cells, data, tiles, sizes, weights, offsets, maps, views, where, values, sums, buf, at):
    """Fill the state (``where`` ... ``at``) for the flat board ``cells``; returns ``h``."""
    h = 0
    for v in range(views.shape[0]):
        for c in range(cells.shape[0]):
            where[v, maps[TILE_MAP, v, cells[c]]] = maps[CELL_MAP, v, c]
        sums[v] = 0
        for p in range(views[v, 0], views[v, 1]):
            for i in range(sizes[p]):
                buf[i] = where[v, tiles[p, i]]
            at[v, p] = offsets[p] + rank_placement(buf, sizes[p], weights[p])
            values[v, p] = np.int64(data[at[v, p]])
            sums[v] += values[v, p]
        h = max(h, sums[v])
    return h


@jit(inline="always")
def rank_step(cells, x, y, t, p, v, reflected, maps):
    """How the rank of pattern ``p``'s placement changes when its tile ``t``
    slides from cell ``x`` to the adjacent blank ``y``, as view ``v`` sees
    the move (``reflected``: the view reflects the board; ``x``, ``y``, ``t``
    already as the view sees them; ``maps``: see :func:`pdb_kernel_tables`).

    Digit ``i`` of the rank (see :mod:`fastpuzzle.search.pdb.ranking`) is the
    cell of tile ``i`` less the cells of earlier tiles below it.  The moved
    tile's digit changes by ``y - x`` less the earlier tiles strictly between
    ``x`` and ``y``; each later tile strictly between gains (or loses) one.
    Between two cells side by side lies none; a vertical move passes the
    ``n - 1`` cells of the row between.  So the step reads at most ``n - 1``
    cells of the board, instead of ranking the whole pattern.  Place values
    fall with the digit, so "earlier" is "larger place value".
    """
    wt = maps[TILE_WEIGHT, v, t]
    step = (y - x) * wt
    lo, hi, s = (x, y, 1) if x < y else (y, x, -1)
    for c in range(lo + 1, hi):
        u = maps[TILE_MAP, v, cells[maps[CELL_MAP, v, c]]] if reflected else cells[c]
        if maps[PATTERN_OF, v, u] == p:
            wu = maps[TILE_WEIGHT, v, u]
            step += s * wu if wu < wt else -s * wt
    return step


@jit(inline="always")
def pdb_children(cells, blank, first, count, state, depth, succ_packed, automaton, data, maps, views, at,
                 goal_distance, child_at):  # fmt: skip
    """Where the children of the node (blank on ``blank``) are read in ``data``, each asked for at once.

    ``child_at[depth, MAX_VIEWS * j + v]``: the index of the table entry of
    the pattern of the tile that successor ``j`` moves, after the move, in
    view ``v`` (-1: the tile is in no pattern of the view, or the move
    automaton prunes the move).  Each is the node's index ``at`` plus
    :func:`rank_step`, and is prefetched
    (:func:`fastpuzzle.search.pdb.ranking.prefetch`).  ``child_at[depth, 4 * MAX_VIEWS + j]``:
    1 when successor ``j`` moves its tile toward its goal cell (``goal_distance``,
    see :func:`pdb_kernel_tables`; not written when it is empty), which the engine tries first.
    View 0 is the first partition on the board itself: it maps nothing.
    """
    n_cells = cells.shape[0]
    n_views = views.shape[0]
    for j in range(count):
        packed = succ_packed[first + j]
        for v in range(n_views):
            child_at[depth, MAX_VIEWS * j + v] = -1
        if automaton[state, packed & 3] < 0:
            continue
        src = packed >> 2
        tile = np.int64(cells[src])
        if goal_distance.shape[0]:  # empty: the tables' order alone
            child_at[depth, 4 * MAX_VIEWS + j] = goal_distance[tile * n_cells + blank] < goal_distance[tile * n_cells + src]
        p = maps[PATTERN_OF, 0, tile]
        if p >= 0:
            k = at[0, p] + rank_step(cells, src, blank, tile, p, 0, False, maps)
            prefetch(data, k)
            child_at[depth, MAX_VIEWS * j] = k
        for v in range(1, n_views):
            seen = maps[TILE_MAP, v, tile]
            p = maps[PATTERN_OF, v, seen]
            if p >= 0:
                k = at[v, p] + rank_step(cells, maps[CELL_MAP, v, src], maps[CELL_MAP, v, blank], seen, p, v, True,
                                         maps)  # fmt: skip
                prefetch(data, k)
                child_at[depth, MAX_VIEWS * j + v] = k


@jit(inline="always")
def pdb_child(tile, j, depth, weight, shift, room, next_threshold, every_view, data, maps, n_views, values, sums,
              child_at, child_value):  # fmt: skip
    """``h`` of child ``j`` (``tile`` moves) from the entries :func:`pdb_children` asked for;
    ``child_value[v]`` gets the new value of the tile's pattern in view ``v`` (-1: unchanged).

    The views after the first are read only where they can matter (``every_view``: always, as
    the multi-tile metric needs): the child is not pruned yet (its ``(h * weight) >> shift`` is
    at most ``room``), or its ``f`` may lower ``next_threshold``.  A child cut short is pruned,
    never pushed, so :func:`pdb_push` reads only values written here.
    """
    h = sums[0]
    child_value[0] = -1
    at = child_at[as_unsigned(depth), as_unsigned(MAX_VIEWS * j)]
    if at >= 0:
        child_value[0] = np.int64(data[as_unsigned(at)])
        h += child_value[0] - values[0, maps[PATTERN_OF, 0, as_unsigned(tile)]]
    for v in range(1, n_views):
        h_weighted = (h * weight) >> shift
        if h_weighted > room and depth + 1 + h_weighted >= next_threshold and not every_view:
            break
        h_view = sums[v]
        child_value[v] = -1
        at = child_at[as_unsigned(depth), as_unsigned(MAX_VIEWS * j + v)]
        if at >= 0:
            child_value[v] = np.int64(data[as_unsigned(at)])
            h_view += child_value[v] - values[v, maps[PATTERN_OF, v, maps[TILE_MAP, v, as_unsigned(tile)]]]
        h = max(h, h_view)
    return h


@jit(inline="always")
def pdb_push(tile, depth, j, child_value, child_at, maps, n_views, values, sums, at, undo):
    """Make the move of ``tile`` in the state, with the values :func:`pdb_child` read for child
    ``j`` (``child_value[v]``, -1: the pattern is unchanged in view ``v``) at the indexes
    ``child_at`` holds; the old values and indexes go to ``undo[depth]``."""
    for v in range(n_views):
        if child_value[v] >= 0:
            p = maps[PATTERN_OF, v, maps[TILE_MAP, v, tile]]
            undo[depth, 2 * v] = values[v, p]
            undo[depth, 2 * v + 1] = at[v, p]
            sums[v] += child_value[v] - values[v, p]
            values[v, p] = child_value[v]
            at[v, p] = child_at[depth, MAX_VIEWS * j + v]


@jit(inline="always")
def pdb_pop(tile, depth, maps, n_views, values, sums, at, undo):
    """Undo :func:`pdb_push` of ``tile``'s move."""
    for v in range(n_views):
        p = maps[PATTERN_OF, v, maps[TILE_MAP, v, tile]]
        if p >= 0:
            sums[v] += undo[depth, 2 * v] - values[v, p]
            values[v, p] = undo[depth, 2 * v]
            at[v, p] = undo[depth, 2 * v + 1]
