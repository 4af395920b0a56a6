"""``fastpuzzle pdb build|list|solve``: pattern databases.

``pdb solve`` is an alias of ``solve --heuristic pdb`` (same options, same
output), kept for the scripts that use it.

Examples (shell)::

    fastpuzzle pdb build 7-8          # once; cached in ~/.cache/fastpuzzle
    fastpuzzle pdb build slides-4x4   # the multi-tile (slide) databases of --metric mtm
    fastpuzzle pdb list
    fastpuzzle pdb solve boards.txt --database 7-8 --max-nodes 100000000
"""

from __future__ import annotations

import math

from . import solve
from .common import CLIError, want_progress

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``pdb`` with its actions."""
    p = subparsers.add_parser("pdb", help="pattern databases: build, list, solve optimally")
    actions = p.add_subparsers(dest="pdb_action", required=True, metavar="ACTION")
    b = actions.add_parser("build", help="build a named database and cache it")
    b.add_argument("name", help="4-4 (3x3), 5-5-5, 6-6-3, 7-8, 7-8x2 (4x4), 6-6-6-6, 6-6-6-6x2 (5x5), or slides-MxN: the multi-tile "
                                "databases of MxN boards (default goal; slides-4x4 for the 15-puzzle)")
    b.add_argument("--force", action="store_true", help="rebuild even when cached")
    b.add_argument("--progress", action="store_true", help="a progress bar even when standard error is no terminal")
    b.add_argument("--no-progress", "--quiet", dest="no_progress", action="store_true",
                   help="no progress bar (default where standard error is no terminal)")
    b.set_defaults(run=_build)
    listing = actions.add_parser("list", help="list databases and whether they are cached")
    listing.set_defaults(run=_list)
    s = actions.add_parser("solve", help="the same as: solve --heuristic pdb")
    solve.configure(s, heuristic="pdb")
    return p


def run(args) -> int:  # pragma: no cover - every action sets its own run
    raise CLIError(f"unknown pdb action {args.pdb_action!r}")


def _build(args) -> int:
    from .. import pdb

    if str(args.name).strip().lower().startswith("slides-"):
        return _build_slides(args)
    import os
    import time

    def stamp():
        try:
            from ..search.pdb.store import cache_path, resolve_name

            return os.stat(cache_path(resolve_name(args.name)) / "meta.json").st_mtime_ns
        except (OSError, ValueError):
            return None

    before, t0 = stamp(), time.perf_counter()
    # long work: a bar on a terminal (or asked for), a log file gets no carriage returns
    db = pdb.build(args.name, progress=want_progress(args, math.inf), force=args.force)
    took = time.perf_counter() - t0
    patterns = " / ".join(" ".join(map(str, p)) for p in db.partition)
    # a database found cached says so, instead of quoting the old build time as this run's
    how = (f"built in {db.build_seconds:.1f} s" if before is None or stamp() != before
           else f"already cached (loaded in {took:.2f} s; built earlier in {db.build_seconds:.1f} s)")  # fmt: skip
    print(f"{db.name}: {db.shape[0]}x{db.shape[1]}, patterns {patterns}, "
          f"{db.nbytes / 1e6:.1f} MB in {db.path}, {how}")
    return 0


def _build_slides(args) -> int:
    """``pdb build slides-MxN``: the slide databases of the default goal, built once and cached."""
    import time

    from ..boards import goal_board
    from ..io.errors import parse_shape
    from ..search.pdb import slides

    try:
        m, n = parse_shape(str(args.name).strip()[len("slides-"):])
        goal = goal_board(m, n)
        built = slides.slide_tables_built(goal)
        if args.force:
            slides.forget_cached(goal)
        t0 = time.perf_counter()
        data = slides.slide_tables(goal)[0]
    except (ValueError, TypeError) as error:
        raise CLIError(f"pdb build {args.name}: {error}") from None
    how = "already cached" if built and not args.force else "built"
    patterns = " / ".join(" ".join(str(int(goal.flat[c])) for c in p) for p in slides.slide_patterns(goal))
    print(f"slides-{m}x{n}: patterns {patterns}, {data.nbytes / 1e6:.1f} MB in {slides.cache_directory()}, "
          f"{how} in {time.perf_counter() - t0:.1f} s")
    return 0


def _list(args) -> int:
    from .. import pdb

    have = set(pdb.available())
    for name, spec in pdb.DATABASES.items():
        m, n = spec["shape"]
        size = sum(math.perm(m * n, len(p)) for p in spec["partition"])  # one byte per placement of a pattern
        state = "cached" if name in have else "not built"
        print(f"{name:8s} {m}x{n}  {size / 1e6:8.1f} MB  {state}")
    print(f"cache: {pdb.cache_dir()}")
    return 0
