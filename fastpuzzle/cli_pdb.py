"""Command line for pattern databases: ``fastpuzzle pdb build|list|solve``.

``add_parser(subparsers)`` registers the ``pdb`` subcommand on the main
parser; ``run(args)`` executes it and returns the exit status.

Examples (shell)::

    fastpuzzle pdb build 7-8          # once; cached in ~/.cache/fastpuzzle
    fastpuzzle pdb list
    fastpuzzle pdb solve boards.txt --database 7-8 --max-nodes 100000000
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

__all__ = ["add_parser", "run", "main"]


class CliError(Exception):
    """A one-line error for the user (exit status 2)."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdb`` with its actions to an argparse ``subparsers`` object."""
    p = subparsers.add_parser("pdb", help="pattern databases: build, list, solve optimally")
    actions = p.add_subparsers(dest="pdb_action", required=True)
    b = actions.add_parser("build", help="build a named database and cache it")
    b.add_argument("name", help="4-4 (3x3), 5-5-5, 6-6-3, 7-8 (4x4), 6-6-6-6 (5x5)")
    b.add_argument("--force", action="store_true", help="rebuild even when cached")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    actions.add_parser("list", help="list databases and whether they are cached")
    s = actions.add_parser("solve", help="solve boards optimally with IDA* and a pattern database")
    s.add_argument("file", help="one board per line: the tiles row-major, 0 = blank ('-' reads stdin)")
    s.add_argument("--database", default=None, help="database name (default: best cached for the size)")
    s.add_argument("--goal-blank-first", action="store_true", help="goal 0 1 2 ... (blank top-left) instead of blank last")
    s.add_argument("--max-nodes", type=int, default=None, help="node budget per board")
    s.add_argument("--time-limit", type=float, default=None, help="seconds per board")
    p.set_defaults(run=run)
    return p


def _read_boards(path: str):
    fh = sys.stdin if path == "-" else None
    try:
        text = fh.read() if fh is not None else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror or exc}") from None
    boards = []
    side = None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            values = [int(v) for v in line.replace(",", " ").split()]
        except ValueError:
            raise CliError(f"{path}:{lineno}: tiles must be integers") from None
        k = math.isqrt(len(values))
        if k * k != len(values):
            k = math.isqrt(len(values) - 1)
            if k * k != len(values) - 1:
                raise CliError(f"{path}:{lineno}: {len(values)} numbers is not a square board (a trailing length is allowed)")
            values = values[:-1]
        if side is None:
            side = k
        elif k != side:
            raise CliError(f"{path}:{lineno}: a {k}x{k} board among {side}x{side} boards")
        boards.append((lineno, values))
    if not boards:
        raise CliError(f"{path}: no boards")
    return side, boards


def run(args) -> int:
    """Run a parsed ``pdb`` command; returns the exit status."""
    from . import pdb

    try:
        if args.pdb_action == "build":
            db = pdb.build(args.name, progress=not args.no_progress, force=args.force)
            print(
                f"{db.name}: {db.shape[0]}x{db.shape[1]}, patterns {' / '.join(' '.join(map(str, p)) for p in db.partition)}, "
                f"{db.nbytes / 1e6:.1f} MB in {db.path}, built in {db.build_seconds:.1f} s"
            )
            return 0
        if args.pdb_action == "list":
            have = set(pdb.available())
            for name, spec in pdb.DATABASES.items():
                m, n = spec["shape"]
                size = sum(pdb.placement_count(m * n, len(p)) for p in spec["partition"])
                state = "cached" if name in have else "not built"
                print(f"{name:8s} {m}x{n}  {size / 1e6:8.1f} MB  {state}")
            print(f"cache: {pdb.cache_dir()}")
            return 0
        if args.pdb_action == "solve":
            side, rows = _read_boards(args.file)
            batch = np.array([v for _, v in rows], np.int64).reshape(-1, side, side)
            goal = np.arange(side * side).reshape(side, side) if args.goal_blank_first else None
            try:
                sols = pdb.solve_many_with_pdb(
                    batch, goal=goal, database=args.database, max_nodes=args.max_nodes, time_limit=args.time_limit
                )
            except ValueError as exc:
                msg = str(exc)
                for i, (lineno, _) in enumerate(rows):
                    if f"board {i} " in msg or msg.startswith(f"boards: board {i} "):
                        raise CliError(f"{args.file}:{lineno}: {msg}") from None
                if len(rows) == 1:
                    raise CliError(f"{args.file}:{rows[0][0]}: {msg}") from None
                raise CliError(f"{args.file}: {msg}") from None
            for (lineno, _), s in zip(rows, sols):
                print(f"{s.length if s.solved else '-'}\t{s.status}\t{s.nodes}\t{s.seconds:.3f}\t{s.moves}")
            return 0
    except CliError as exc:
        print(f"fastpuzzle pdb: {exc}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError) as exc:
        print(f"fastpuzzle pdb: {exc}", file=sys.stderr)
        return 2
    raise CliError(f"unknown pdb action {args.pdb_action!r}")  # pragma: no cover - argparse refuses it


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m fastpuzzle.cli_pdb pdb ...``)."""
    parser = argparse.ArgumentParser(prog="fastpuzzle")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
