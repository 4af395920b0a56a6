"""Building pattern databases for a partition: one exact table per pattern.

Each table is filled by :func:`fastpuzzle.search.pdb.build_sets.build_pattern`
(a breadth-first search over pattern placements and blank regions, nothing
merged); this module sizes the tables, runs the builds with a progress bar and
records what they cost.
"""

from __future__ import annotations

import time

import numpy as np

from ... import options
from ...boards import as_goal, check_shape
from ...errors import OptionError, OptionTypeError, ShapeError
from ...memory import check_allocation
from .build_sets import build_pattern
from .heuristic import MAX_CELLS, PatternDatabase, check_groups, check_partition, reflection_applies
from .ranking import placement_count
from .regions import big_zeros

__all__ = ["build_partition", "peak_rss_bytes"]

def build_partition(
    shape, partition, *, goal=None, name="custom", reflect=None, progress=False, parallel=None, groups=None
):
    """Build databases for any partition in memory (nothing is cached).

    Parameters
    ----------
    shape : (int, int)
        Board shape ``(m, n)``, at most 63 cells.
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
    groups : sequence of int, optional
        Several partitions in one database: ``partition`` lists their
        patterns one partition after the other, ``groups`` how many each
        has; a tile may be in one pattern of each.  The bound is the largest
        partition's sum (reflections included): as strong as the strongest
        partition on every board, stronger on many, for one more lookup
        where the first cannot prune.  At most two partitions with the
        reflection, four without (:data:`~fastpuzzle.search.pdb.heuristic.MAX_VIEWS`).

    Examples
    --------
    >>> db = build_partition((2, 3), [(1, 2, 3), (4, 5)])
    >>> both = build_partition((2, 3), [(1, 2, 3), (4, 5), (1, 4), (2, 3, 5)], groups=(2, 2))
    >>> bool(both.lookup([[1, 2, 3], [4, 0, 5]]) >= db.lookup([[1, 2, 3], [4, 0, 5]]))
    True
    >>> db.lookup([[0, 1, 2], [4, 5, 3]]) <= 5
    True
    """
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) != 2:
        raise OptionTypeError("shape", shape, "must be a pair (m, n)")
    m, n = check_shape(shape[0], shape[1])
    if m < 2 or n < 2:
        raise ShapeError((m, n), f"pattern databases need a board with at least 2 rows and 2 columns, got {m}x{n}")
    if m * n > MAX_CELLS:
        raise ShapeError((m, n), f"pattern databases support boards of at most {MAX_CELLS} cells, got {m}x{n}",
                         expected=MAX_CELLS)  # fmt: skip
    goal = as_goal(goal, m, n)
    reflect, parallel = options.flag(reflect, "reflect", none=True), options.flag(parallel, "parallel", none=True)
    progress = options.flag(progress, "progress")
    if reflect is None:
        reflect = reflection_applies(goal)
    elif reflect and not reflection_applies(goal):  # refused before hours of building
        raise OptionError("reflect", reflect, "needs a square board whose goal blank lies on the main diagonal")
    if groups is not None:
        if isinstance(partition, (str, bytes)) or not hasattr(partition, "__len__"):
            raise OptionTypeError("partition", partition, "must be a sequence of tile sequences")
        groups = check_groups(groups, len(partition), reflect)
    partition = check_partition(partition, m, n, groups)
    for tiles in partition:
        if len(tiles) > m * n - 3:
            # with two free cells or fewer the blank cannot reorder the
            # pattern's tiles freely: half the placements are unreachable
            raise OptionError(
                "partition", tiles,
                f"does not fit the {m}x{n} board: a pattern may hold at most "
                f"{m * n - 3} tiles there (three cells must stay free of it)"
            )
    n_cells = m * n
    sizes = [placement_count(n_cells, len(p)) for p in partition]
    # the tables, plus the largest pattern's working set (reached marks and two frontier bitsets)
    largest = max(sizes)
    work = largest * (1 if n_cells <= 16 else 2) + 2 * 8 * (-(-largest // 64))
    check_allocation(int(sum(sizes)) + work, f"pattern databases of {', '.join(str(len(p)) for p in partition)} tiles "
                                             f"on a {m}x{n} board")  # fmt: skip
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
            table = data[offsets[p] : offsets[p] + sizes[p]]
            label = f"pattern {p + 1}/{len(partition)}"
            build_pattern(table, m, n, goal, tiles, progress=bar, label=label, parallel=parallel)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = peak_rss_bytes()
    return PatternDatabase(
        name, (m, n), partition, goal, data, offsets, bool(reflect), seconds, build_peak_bytes=peak, build_cpu_seconds=cpu,
        groups=() if groups is None or len(groups) == 1 else groups,
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

