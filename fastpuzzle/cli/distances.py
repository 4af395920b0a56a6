"""``fastpuzzle distances MxN``: the exact depth table of every board of a small shape.

Prints :func:`fastpuzzle.distances.format_depth_table`: a header with the
number of boards, the radius and the number of antipodes, then one line per
depth (boards at that depth, and boards up to it).  The 12-cell shapes (3x4,
2x6) take about a minute the first time and are cached on disk after it.

Examples (shell)::

    fastpuzzle distances 3x3
    fastpuzzle distances 3x4 --out depths-3x4.txt --time-limit 600
    fastpuzzle distances 2x3 --goal "0 1 2/3 4 5"
"""

from __future__ import annotations

import sys

from .common import CLIError, load_board_arg, notice, one_board, output_arg, refuse_overwrite, seconds_arg, shape_arg

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``distances``."""
    d = subparsers.add_parser(
        "distances",
        help="the exact distance of every board of a shape up to 12 cells: the depth table",
        description="Breadth-first search over every MxN board that can reach the goal (at most 12 cells: "
        "3x4 and 2x6 have 239,500,800 boards); prints the boards at each depth, the radius and the "
        "number of antipodes. Tables of 12 cells are cached on disk after the first run.",
    )
    d.add_argument("shape", type=shape_arg, metavar="MxN", help="board shape, at most 12 cells (e.g. 3x3, 3x4, 2x6)")
    d.add_argument("--goal", help="goal board: a file or cells written inline (default: 1..mn-1, blank last)")
    d.add_argument("--out", type=output_arg, metavar="FILE", help="write the table to FILE instead of standard output")
    d.add_argument("--time-limit", type=seconds_arg, metavar="S", help="stop the search after S seconds (exit 2)")
    d.add_argument("--progress", action="store_true", help="always show the progress bar")
    d.add_argument("--no-progress", "--quiet", dest="no_progress", action="store_true", help="never show the progress bar")
    d.set_defaults(run=run)


def _progress(args, boards):
    """True, False, or None when the table is cached (then nothing is searched)."""
    from ..distances.table import PROGRESS_MIN_BOARDS

    if args.no_progress:
        return False
    if args.progress:
        return True
    return sys.stderr is not None and sys.stderr.isatty() and boards > PROGRESS_MIN_BOARDS


def run(args) -> int:
    """Run ``distances``."""
    import math

    from ..distances.table import MAX_TABLE_CELLS, distance_table, format_depth_table
    from ..io.write import write_text

    m, n = args.shape
    refuse_overwrite("--out", args.out, args.goal)
    if m * n > MAX_TABLE_CELLS:
        raise CLIError(f"{m}x{n} has {m * n} cells: distance tables cover boards of at most {MAX_TABLE_CELLS} "
                       "cells (3x4 and 2x6 are the largest)")
    goal = None
    if args.goal is not None:
        boards, _, goal_name = load_board_arg(args.goal, (m, n), "--goal")
        goal = one_board(boards, goal_name, (m, n))
    size = m * n if 1 in (m, n) else math.factorial(m * n) // 2
    try:
        table = distance_table(m, n, goal=goal, progress=_progress(args, size), time_limit=args.time_limit)
    except TimeoutError as error:
        raise CLIError(f"--time-limit {args.time_limit:g}: {error}") from None
    text = format_depth_table(table) + "\n"
    if args.out is None or args.out == "-":
        sys.stdout.write(text)
        return 0
    write_text(args.out, text)
    how = f"loaded from {table.path}" if table.path is not None and not table.seconds else f"searched in {table.seconds:.2f} s"
    k = int(table.counts[-1])
    notice(f"wrote the {m}x{n} depth table ({table.size:,} boards, radius {table.radius}, {k:,} "
          f"antipode{'s' if k != 1 else ''}) to {args.out}; {how}")
    return 0
