"""``fastpuzzle pdb build|list|solve``: pattern databases.

``pdb solve`` is an alias of ``solve --heuristic pdb`` (same options, same
output), kept for the scripts that use it.

Examples (shell)::

    fastpuzzle pdb build 7-8          # once; cached in ~/.cache/fastpuzzle
    fastpuzzle pdb list
    fastpuzzle pdb solve boards.txt --database 7-8 --max-nodes 100000000
"""

from __future__ import annotations

import math

from . import solve
from .common import CLIError

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``pdb`` with its actions."""
    p = subparsers.add_parser("pdb", help="pattern databases: build, list, solve optimally")
    actions = p.add_subparsers(dest="pdb_action", required=True, metavar="ACTION")
    b = actions.add_parser("build", help="build a named database and cache it")
    b.add_argument("name", help="4-4 (3x3), 5-5-5, 6-6-3, 7-8 (4x4), 6-6-6-6 (5x5)")
    b.add_argument("--force", action="store_true", help="rebuild even when cached")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
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

    import os
    import time

    def stamp():
        try:
            from ..search.pdb.store import cache_path, resolve_name

            return os.stat(cache_path(resolve_name(args.name)) / "meta.json").st_mtime_ns
        except (OSError, ValueError):
            return None

    before, t0 = stamp(), time.perf_counter()
    db = pdb.build(args.name, progress=not args.no_progress, force=args.force)
    took = time.perf_counter() - t0
    patterns = " / ".join(" ".join(map(str, p)) for p in db.partition)
    # a database found cached says so, instead of quoting the old build time as this run's
    how = (f"built in {db.build_seconds:.1f} s" if before is None or stamp() != before
           else f"already cached (loaded in {took:.2f} s; built earlier in {db.build_seconds:.1f} s)")  # fmt: skip
    print(f"{db.name}: {db.shape[0]}x{db.shape[1]}, patterns {patterns}, "
          f"{db.nbytes / 1e6:.1f} MB in {db.path}, {how}")
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
