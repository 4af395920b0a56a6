"""``distance_table``: the exact distance of every board of a small shape.

One breadth-first search (:mod:`~fastpuzzle.distances.search`) from the goal
over the ``(mn)!/2`` boards that reach it (``m*n`` on a board of one row or
column), one byte per board, indexed by the rank of
:mod:`~fastpuzzle.distances.ranking`.  A table depends on the goal only
through the blank's cell (tiles are relabelled), so one file per
``(shape, blank cell)`` serves every goal.  Tables of more than
:data:`CACHE_MIN_BOARDS` boards are written to the cache directory of the
pattern databases (``$FASTPUZZLE_CACHE`` or ``~/.cache/fastpuzzle``, folder
``distances``) and memory-mapped when loaded.

Measured on 2 cores (``python -m bench --only distances``): 3x3 in a few
hundredths of a second, 3x4 and 2x6 (239,500,800 boards each) in about a
minute with a peak of about 300 MB.
"""

from __future__ import annotations

import math
import numbers
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import options
from ..boards import as_boards, as_goal
from ..errors import OptionTypeError, ShapeError, UnreachableError
from ..cachefile import CorruptCacheError, cache_root, open_array, remove_cached, save_checked, usable_directory
from ..notation import check_metric
from .index import ranks_in_range
from .multi import mtm_bfs
from .ranking import StateSpace
from .search import UNSEEN, bfs, histogram

__all__ = ["DistanceTable", "distance_table", "format_depth_table", "MAX_TABLE_CELLS", "table_path"]

#: Largest board a table is built for (3x4 and 2x6: 240 MB).
MAX_TABLE_CELLS = 12
#: Tables with more boards than this are cached on disk (the 12-cell ones).
CACHE_MIN_BOARDS = 1 << 22
#: Show a progress bar (when ``progress`` is None) above this many boards.
PROGRESS_MIN_BOARDS = 1 << 24
_FORMAT = 1
_MEMO: dict = {}


@dataclass(eq=False)
class DistanceTable:
    """Exact distances to one goal for every board of one shape.

    Attributes
    ----------
    shape : (int, int)
        Board shape ``(m, n)``.
    goal : ndarray
        The goal board.
    depths : ndarray of uint8
        Depth of every board, indexed by rank (a read-only memory map when
        loaded from the cache); :attr:`space` turns boards into ranks.
    counts : ndarray of int64
        ``counts[d]`` boards at distance ``d``, for ``d`` in ``0 .. radius``.
    seconds : float
        Time the search took (0 when loaded).
    path : Path or None
        File the depths were loaded from.

    Examples
    --------
    >>> table = distance_table(3, 3)
    >>> table.radius, int(table.counts.sum()), len(table.antipodes)
    (31, 181440, 2)
    >>> table.lookup([[8, 6, 7], [2, 5, 4], [3, 0, 1]])
    31
    """

    shape: tuple
    goal: np.ndarray
    space: StateSpace = field(repr=False)
    depths: np.ndarray = field(repr=False)
    counts: np.ndarray
    seconds: float = 0.0
    path: object = None
    #: block index of each depth range asked for (see :mod:`.index`)
    range_index: dict = field(default_factory=dict, repr=False)
    #: ``"stm"`` (a move slides one tile) or ``"mtm"`` (a row or column segment)
    metric: str = "stm"

    @property
    def radius(self) -> int:
        """Largest distance of any board."""
        return len(self.counts) - 1

    @property
    def size(self) -> int:
        """Boards in the table (``(mn)!/2``, or ``mn`` on a line)."""
        return self.space.size

    @property
    def antipodes(self) -> np.ndarray:
        """The boards at distance :attr:`radius`, a batch ``(K, m, n)`` in rank order."""
        return self.boards_at(self.radius)

    def ranks_at(self, lo: int, hi: int | None = None) -> np.ndarray:
        """Ranks of the boards at distance ``lo .. hi`` (``hi = lo`` by default), ascending."""
        lo = options.whole(lo, "lo")
        hi = lo if hi is None else options.whole(hi, "hi")
        return ranks_in_range(self.depths, self.size, self.counts, lo, hi, self.range_index)

    def boards_at(self, lo: int, hi: int | None = None) -> np.ndarray:
        """Every board at distance ``lo .. hi``, a batch in rank order (mind the size)."""
        return self.space.boards(self.ranks_at(lo, hi))

    def lookup(self, boards):
        """Exact distance of each board to :attr:`goal`.

        Returns an ``int`` for one board, else an ``int64`` array ``(B,)``.
        Raises :class:`~fastpuzzle.errors.UnreachableError` naming the first board that cannot reach the goal.
        """
        batch, single = as_boards(boards, label="boards")
        if batch.shape[1:] != tuple(self.shape):
            raise ShapeError(
                batch.shape[1:],
                f"boards are {batch.shape[1]}x{batch.shape[2]} but the table is for "
                f"{self.shape[0]}x{self.shape[1]} boards"
            )
        ranks = self.space.ranks(batch.reshape(batch.shape[0], batch.shape[1] * batch.shape[2]))
        bad = np.flatnonzero(ranks < 0)
        if bad.size:
            raise UnreachableError(None if single else int(bad[0]))
        out = np.asarray(self.depths[ranks], np.int64)
        return int(out[0]) if single else out


def table_path(m: int, n: int, blank: int, metric: str = "stm"):
    """Cache file of the table for ``m x n`` boards whose goal blank is at cell ``blank``."""
    suffix = "" if metric == "stm" else f"-{metric}"
    return cache_root() / "distances" / f"{m}x{n}-blank{blank}{suffix}-v{_FORMAT}.npy"


def _describe(space, metric="stm") -> dict:
    """What a cached table must say it holds (checked with its CRC-32 on load)."""
    return {"kind": "distance-table", "format": _FORMAT, "board": [space.m, space.n], "blank": int(space.blank),
            "boards": int(space.size), "metric": metric}  # fmt: skip


def _load(space, path, metric="stm"):
    """Depths and counts of the cached table (``CorruptCacheError`` if it is not whole and ours)."""
    depths = open_array(path, _describe(space, metric))
    padded = -(-space.size // 8) * 8
    if depths.dtype != np.uint8 or depths.shape != (padded,):
        raise CorruptCacheError(path, "is truncated or foreign")
    counts = histogram(depths, space.size)
    if counts[UNSEEN] or counts[0] != 1:
        raise CorruptCacheError(path, "is incomplete")
    radius = int(np.flatnonzero(counts[:UNSEEN])[-1])
    return depths, counts[: radius + 1].copy()


def _cached(space, goal, path, metric="stm"):
    """The cached table, or None (missing; corrupted or foreign ones are removed with a warning)."""
    try:
        depths, counts = _load(space, path, metric)
    except FileNotFoundError:
        return None
    except CorruptCacheError as error:
        warnings.warn(f"{error}; it is rebuilt", RuntimeWarning, stacklevel=3)
        try:
            remove_cached(path)
        except OSError:
            pass
        return None
    return DistanceTable((space.m, space.n), goal, space, depths, counts, 0.0, path, metric=metric)


def _check_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise OptionTypeError(name, value, "must be an integer")
    return int(value)


def distance_table(m, n, *, goal=None, metric="stm", cache=None, progress=None, time_limit=None,
                   threads=None) -> DistanceTable:  # fmt: skip
    """Breadth-first search over every ``m x n`` board that can reach ``goal``.

    Parameters
    ----------
    m, n : int
        Board shape, at most :data:`MAX_TABLE_CELLS` cells (2x6 and 3x4:
        239,500,800 boards, about a minute on 2 cores, 240 MB).
    goal : array_like (m, n), optional
        Default: tiles row-major, blank last.  Any goal: tiles are relabelled.
    metric : {"stm", "mtm"}
        Count a move per tile (``"stm"``) or per slide of a row or column
        segment (``"mtm"``, :mod:`.multi`; several times slower to build).
    cache : bool, optional
        Read and write the table in the cache directory.  Default: for tables
        of more than :data:`CACHE_MIN_BOARDS` boards (the 12-cell shapes).
        Tables are also kept in memory for the process unless ``cache=False``.
    progress : bool, optional
        Progress bar (tqdm) on stderr; default for tables above
        :data:`PROGRESS_MIN_BOARDS` boards.
    time_limit : float, optional
        Stop the search with ``TimeoutError`` (naming the depth reached)
        after this many seconds.
    threads : int, optional
        ``1``: one thread; default (or more than 1): split each pass across
        Numba's threads.

    Returns
    -------
    DistanceTable

    Examples
    --------
    >>> t = distance_table(2, 3)
    >>> t.counts.tolist()
    [1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1]
    >>> t.antipodes
    array([[[4, 5, 0],
            [1, 2, 3]]], dtype=uint8)
    """
    m, n = _check_int(m, "m"), _check_int(n, "n")
    metric = check_metric(metric)
    if m * n > MAX_TABLE_CELLS and m >= 1 and n >= 1:  # before the goal is built (10**6 x 10**6: 7 TiB)
        raise ShapeError(
            (m, n),
            f"distance tables cover boards of at most {MAX_TABLE_CELLS} cells, got {m}x{n} = {m * n} cells "
            f"({f'{math.factorial(m * n) // 2:,}' if m * n <= 40 else 'more than 10^47'} boards); use fastpuzzle.distance (optimal solver) or the Dask "
            "search in fastpuzzle.distances.cluster"
        )
    goal = as_goal(goal, m, n)  # also checks the shape
    cache, progress = options.flag(cache, "cache", none=True), options.flag(progress, "progress", none=True)
    threads, time_limit = options.threads(threads), options.seconds(time_limit)
    space = StateSpace(m, n, goal)
    key = (m, n, space.blank, metric)
    memo = _MEMO.get(key) if cache is not False else None
    if memo is not None and (cache is None or memo.path is not None):  # same blank cell: the same depths under other tile labels
        return DistanceTable((m, n), goal, space, memo.depths, memo.counts, 0.0, memo.path, memo.range_index, metric)
    on_disk = space.size > CACHE_MIN_BOARDS if cache is None else cache
    path = table_path(m, n, space.blank, metric) if on_disk else None
    table = _cached(space, goal, path, metric) if path is not None else None
    if table is None:
        problem = usable_directory(path.parent) if path is not None else None
        if problem is not None:  # said before the work, not after it
            warnings.warn(f"the distance table cannot be cached: {problem}; it is built in memory only",
                          RuntimeWarning, stacklevel=2)  # fmt: skip
            path = None
        table = _build(space, goal, progress, time_limit, threads != 1, metric)
        if path is not None:
            try:
                save_checked(path, table.depths, _describe(space, metric))
            except OSError as error:
                warnings.warn(f"the distance table was not cached ({error}); the answer stands",
                              RuntimeWarning, stacklevel=2)  # fmt: skip
            else:
                seconds = table.seconds
                del table  # the memory map replaces the built array: one copy at a time
                depths, counts = _load(space, path, metric)
                table = DistanceTable((m, n), goal, space, depths, counts, seconds, path, metric=metric)
    if cache is not False:
        _MEMO[key] = table
    return table


def _build(space, goal, progress, time_limit, threads, metric="stm"):
    if metric == "mtm":
        start = time.perf_counter()
        depths, counts = mtm_bfs(space, time_limit=time_limit)
        return DistanceTable((space.m, space.n), goal, space, depths, counts, time.perf_counter() - start, metric=metric)
    if progress is None:
        progress = space.size > PROGRESS_MIN_BOARDS
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=space.size, file=sys.stderr, unit="board", unit_scale=True,
                   desc=f"distances {space.m}x{space.n}")  # fmt: skip
    start = time.perf_counter()
    try:
        depths, counts = bfs(space, progress=bar, time_limit=time_limit, threads=threads)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    return DistanceTable((space.m, space.n), goal, space, depths, counts, seconds)


def format_depth_table(table: DistanceTable) -> str:
    """The depth table as text: one line per depth, then the radius and antipodes.

    Examples
    --------
    >>> print(format_depth_table(distance_table(2, 2)))  # doctest: +NORMALIZE_WHITESPACE
    # 2x2 boards reaching goal [1 2 / 3 0]: 12 boards, radius 6, 1 antipode
    depth  boards  cumulative
        0       1           1
        1       2           3
        2       2           5
        3       2           7
        4       2           9
        5       2          11
        6       1          12
    """
    m, n = table.shape
    goal = " / ".join(" ".join(str(int(v)) for v in row) for row in table.goal)
    total = int(table.counts.sum())
    k = int(table.counts[-1])
    lines = [f"# {m}x{n} boards reaching goal [{goal}]: {total:,} boards, radius {table.radius}, "
             f"{k:,} antipode{'s' if k != 1 else ''}"]  # fmt: skip
    width = max(6, len(f"{total:,}"))
    lines.append(f"{'depth':>5}  {'boards':>{width}}  {'cumulative':>{width}}")
    running = 0
    for d, c in enumerate(table.counts.tolist()):
        running += c
        lines.append(f"{d:>5}  {c:>{width},}  {running:>{width},}")
    return "\n".join(lines)
