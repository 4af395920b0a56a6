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

from ..._jit import jit, pjit, use_threads
from ...atomic import save_array, write_text
from ...cachefile import describe_array
from ...boards import as_boards, relabel_table
from ...errors import BoardError, OptionError, OptionTypeError, ShapeError
from ...manhattan import manhattan_table
from ...moves import board_symmetries
from .ranking import placement_weights, prefetch, rank_placement

__all__ = [
    "PatternDatabase", "GoalPlan", "MAX_CELLS", "FORMAT_VERSION", "check_partition",
    "reflection_applies",
    "pdb_kernel_tables", "pdb_new_state", "pdb_start", "rank_step", "pdb_children", "pdb_push", "pdb_pop",
]  # fmt: skip

#: Largest board the kernels handle (cell sets are 64-bit masks: one bit per cell, the sign bit unused).
MAX_CELLS = 63
#: Version of the cache layout written by :meth:`PatternDatabase.save`.
FORMAT_VERSION = 2  # 2: exact blank regions (the 7-8 and 6-6-6-6 tables changed)


def check_partition(partition, m, n):
    n_cells = m * n
    seen = set()
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
            if t in seen:
                raise OptionError("partition", t, f"must be disjoint (additive patterns): tile {t} is in two patterns")
            seen.add(t)
        out.append(tiles)
    if not out:
        raise OptionError("partition", partition, "needs at least one pattern of tiles")
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
                weights[p, : len(pt)] = placement_weights(n_cells, len(pt))
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
            raise ShapeError(
                batch.shape[1:],
                f"boards are {batch.shape[1]}x{batch.shape[2]} but database {self.name!r} is for "
                f"{self.shape[0]}x{self.shape[1]} boards"
            )
        tiles, sizes, weights, offsets, pat_of, cell_map, tile_map = self._kernel_arrays()
        kernel = _lookup_batch_parallel if use_threads(batch.size) else _lookup_batch
        out = kernel(
            batch.reshape(batch.shape[0], batch.shape[1] * batch.shape[2]), self.data, tiles, sizes, weights, offsets, cell_map, tile_map, self.reflect
        )
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
def _pattern_sum(pos, tiles, sizes, weights, offsets, data, buf):
    total = 0
    for p in range(sizes.shape[0]):
        k = sizes[p]
        for i in range(k):
            buf[i] = pos[tiles[p, i]]
        total += data[offsets[p] + rank_placement(buf, k, weights[p])]
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


def reflection_applies(goal: np.ndarray, partition) -> bool:
    """Reflection applies to square boards whose goal maps the blank to itself."""
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

    ``(data, tiles, sizes, weights, offsets, pattern_of, cell_map, tile_map,
    reflect, goal_distance)``; ``goal_distance[t * N + c]`` is the Manhattan
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
    return (data,) + tuple(db._kernel_arrays()) + (int(db.reflect), goal_distance)


@jit
def pdb_new_state(tiles, n_cells):
    """Per-search state: tile cells, reflected tile cells, the value of each
    pattern (row 0 direct, row 1 reflected), their sums, a rank buffer, the
    table index of each pattern's placement (rows as for the values) and each
    tile's place value in its pattern's rank (:func:`pdb_start` fills them)."""
    n_patterns = tiles.shape[0]
    return (np.zeros(n_cells, np.int64), np.zeros(n_cells, np.int64), np.zeros((2, n_patterns), np.int64),
            np.zeros(2, np.int64), np.zeros(tiles.shape[1], np.int64), np.zeros((2, n_patterns), np.int64),
            np.zeros(n_cells, np.int64))  # fmt: skip


@jit
def _pattern_value(data, tiles, sizes, weights, offsets, where, p, buf):
    k = sizes[p]
    for i in range(k):
        buf[i] = where[tiles[p, i]]
    return np.int64(data[offsets[p] + rank_placement(buf, k, weights[p])])


@jit
def pdb_start(cells, data, tiles, sizes, weights, offsets, cell_map, tile_map, reflect, pos, rpos, values, sums, buf,
              at, tile_weight):  # fmt: skip
    """Fill the state (``pos`` ... ``tile_weight``) for the flat board ``cells``; returns ``h``."""
    for c in range(cells.shape[0]):
        t = cells[c]
        pos[t] = c
        rpos[tile_map[t]] = cell_map[c]
    for p in range(sizes.shape[0]):
        for i in range(sizes[p]):
            tile_weight[tiles[p, i]] = weights[p, i]
    sums[0] = 0
    sums[1] = 0
    for p in range(values.shape[1]):
        for r in range(2 if reflect else 1):
            where = pos if r == 0 else rpos
            for i in range(sizes[p]):
                buf[i] = where[tiles[p, i]]
            at[r, p] = offsets[p] + rank_placement(buf, sizes[p], weights[p])
            values[r, p] = np.int64(data[at[r, p]])
            sums[r] += values[r, p]
    return max(sums[0], sums[1])


@jit(inline="always")
def rank_step(cells, x, y, t, p, r, pattern_of, tile_weight, cell_map, tile_map):
    """How the rank of pattern ``p``'s placement changes when its tile ``t``
    slides from cell ``x`` to the adjacent blank ``y`` (``r = 1``: the move as
    the reflected board sees it; ``x``, ``y``, ``t`` already reflected).

    Digit ``i`` of the rank (see :mod:`fastpuzzle.search.pdb.ranking`) is the
    cell of tile ``i`` less the cells of earlier tiles below it.  The moved
    tile's digit changes by ``y - x`` less the earlier tiles strictly between
    ``x`` and ``y``; each later tile strictly between gains (or loses) one.
    Between two cells side by side lies none; a vertical move passes the
    ``n - 1`` cells of the row between.  So the step reads at most ``n - 1``
    cells of the board, instead of ranking the whole pattern.  Place values
    fall with the digit, so "earlier" is "larger place value".
    """
    wt = tile_weight[t]
    step = (y - x) * wt
    lo, hi, s = (x, y, 1) if x < y else (y, x, -1)
    for c in range(lo + 1, hi):
        u = cells[c] if r == 0 else tile_map[cells[cell_map[c]]]
        if pattern_of[u] == p:
            wu = tile_weight[u]
            step += s * wu if wu < wt else -s * wt
    return step


@jit(inline="always")
def pdb_children(cells, blank, first, count, state, depth, succ_packed, automaton, data, pattern_of, cell_map,
                 tile_map, reflect, at, tile_weight, goal_distance, child_at):  # fmt: skip
    """Where the children of the node (blank on ``blank``) are read in ``data``, each asked for at once.

    ``child_at[depth, 2 j]``: the index of the table entry of the pattern of
    the tile that successor ``j`` moves, after the move (-1: the tile is in
    no pattern, or the move automaton prunes the move); ``2 j + 1`` the same
    on the reflected board.  Each is the node's index ``at`` plus
    :func:`rank_step`, and is prefetched
    (:func:`fastpuzzle.search.pdb.ranking.prefetch`).  ``child_at[depth, 8 + j]``:
    1 when successor ``j`` moves its tile toward its goal cell (``goal_distance``,
    see :func:`pdb_kernel_tables`; not written when it is empty), which the engine tries first.
    """
    n_cells = cells.shape[0]
    for j in range(count):
        packed = succ_packed[first + j]
        child_at[depth, 2 * j] = -1
        child_at[depth, 2 * j + 1] = -1
        if automaton[state, packed & 3] < 0:
            continue
        src = packed >> 2
        tile = np.int64(cells[src])
        if goal_distance.shape[0]:  # empty: the tables' order alone
            child_at[depth, 8 + j] = goal_distance[tile * n_cells + blank] < goal_distance[tile * n_cells + src]
        p = pattern_of[tile]
        if p >= 0:
            k = at[0, p] + rank_step(cells, src, blank, tile, p, 0, pattern_of, tile_weight, cell_map, tile_map)
            prefetch(data, k)
            child_at[depth, 2 * j] = k
        if reflect:
            reflected = tile_map[tile]
            p = pattern_of[reflected]
            if p >= 0:
                k = at[1, p] + rank_step(cells, cell_map[src], cell_map[blank], reflected, p, 1, pattern_of,
                                         tile_weight, cell_map, tile_map)  # fmt: skip
                prefetch(data, k)
                child_at[depth, 2 * j + 1] = k


@jit(inline="always")
def pdb_push(tile, blank, depth, new_value, new_reflected, new_at, new_reflected_at, pattern_of, cell_map, tile_map,
             pos, rpos, values, sums, at, undo):  # fmt: skip
    """Make the move of ``tile`` into ``blank`` in the state, with the values
    (and table indexes) the engine looked up for the child (-1: the pattern
    is unchanged); the old values and indexes go to ``undo[depth]``."""
    pos[tile] = blank
    reflected = tile_map[tile]
    rpos[reflected] = cell_map[blank]
    if new_value >= 0:
        p = pattern_of[tile]
        undo[depth, 0] = values[0, p]
        undo[depth, 2] = at[0, p]
        sums[0] += new_value - values[0, p]
        values[0, p] = new_value
        at[0, p] = new_at
    if new_reflected >= 0:
        p = pattern_of[reflected]
        undo[depth, 1] = values[1, p]
        undo[depth, 3] = at[1, p]
        sums[1] += new_reflected - values[1, p]
        values[1, p] = new_reflected
        at[1, p] = new_reflected_at


@jit(inline="always")
def pdb_pop(tile, src, depth, reflect, pattern_of, cell_map, tile_map, pos, rpos, values, sums, at, undo):
    """Undo :func:`pdb_push`: ``tile`` goes back to ``src``."""
    pos[tile] = src
    reflected = tile_map[tile]
    rpos[reflected] = cell_map[src]
    p = pattern_of[tile]
    if p >= 0:
        sums[0] += undo[depth, 0] - values[0, p]
        values[0, p] = undo[depth, 0]
        at[0, p] = undo[depth, 2]
    if reflect:
        p = pattern_of[reflected]
        if p >= 0:
            sums[1] += undo[depth, 1] - values[1, p]
            values[1, p] = undo[depth, 1]
            at[1, p] = undo[depth, 3]
