"""``fastpuzzle draw``: boards (or a solution played on a board) as an SVG picture."""

from __future__ import annotations

import math
import sys

from .common import (
    CLIError, load_board_arg, one_board, output_arg, progress_bar, refuse_overwrite, refuse_stdin_twice,
    shape_arg, want_progress,
)

__all__ = ["add_parser", "run"]

#: Animations of at least this many moves show a progress bar while their GIF frames are drawn.
GIF_BAR_FRAMES = 20
_SCHEMES = ("plain", "rows", "columns", "fringe", "distance")  # fastpuzzle.pictures.SCHEMES (not imported to parse)


def add_parser(subparsers):
    """Register ``draw``."""
    d = subparsers.add_parser(
        "draw",
        help="boards as an SVG picture (or --moves: an animated solution)",
        description="Draw the boards of FILE (a file, '-', or one board written inline, rows separated by '/') "
        "as one SVG picture; boards with a side over 24 cells become heat maps. With --moves, play the moves "
        "on the (single) board as an animated SVG with a move counter, or write a GIF when --out ends in .gif.",
    )
    d.add_argument("file", metavar="FILE|-|BOARD")
    d.add_argument("--out", metavar="PICTURE.svg", type=output_arg, default="-", help="output file (default: standard output)")
    d.add_argument("--scheme", choices=_SCHEMES, help="tile colours (default: plain; distance for heat maps)")
    d.add_argument("--shape", type=shape_arg, help="board shape MxN for one-board-per-line text")
    d.add_argument("--index", type=int, metavar="I", help="draw only board I of the file (0-based)")
    d.add_argument("--columns", type=int, metavar="K", help="boards per row of the picture")
    d.add_argument("--moves", metavar="MOVES", help="animate these moves ('solve' to solve the board first)")
    d.add_argument("--notation", choices=("blank", "tile"), default="blank", help="how --moves is written")
    d.add_argument("--goal", metavar="FILE|BOARD", help="goal the colour schemes (and 'solve') refer to")
    d.set_defaults(run=run)


def run(args) -> int:
    """Run ``draw``."""
    from ..pictures import animate, draw

    refuse_stdin_twice(("FILE", args.file), ("--goal", args.goal))
    refuse_overwrite("--out", args.out, args.file, args.goal)
    boards, _, name = load_board_arg(args.file, args.shape, "board file")
    if args.index is not None:
        if not -boards.shape[0] <= args.index < boards.shape[0]:
            raise CLIError(f"--index {args.index}: {name} holds {boards.shape[0]} boards")
        i = args.index % boards.shape[0]  # -1 is the last board
        boards = boards[i : i + 1]
    goal = None
    if args.goal is not None:
        goals, _, goal_name = load_board_arg(args.goal, args.shape, "--goal")
        goal = one_board(goals, goal_name, boards.shape[1:])
    if args.columns is not None and args.columns < 1:
        raise CLIError(f"--columns must be at least 1, got {args.columns}")
    if args.moves is None:
        if args.out.lower().endswith(".gif"):  # a still picture is SVG: never SVG bytes under a .gif name
            raise CLIError(f"--out {args.out}: a GIF is an animation; give --moves, or an .svg name")
        picture = draw(boards, scheme=args.scheme, goal=goal, columns=args.columns, check=False)
    else:
        board = one_board(boards, name)
        moves = args.moves
        if moves == "solve":
            from ..search.solve import solve

            moves = solve(board, goal=goal).codes
        picture = animate(board, moves, goal=goal, scheme=args.scheme, notation=args.notation)
        if args.out.lower().endswith(".gif"):
            # rasterising takes a fraction of a second a frame: a bar on a terminal for long animations
            long_work = math.inf if picture.length >= GIF_BAR_FRAMES else 0
            bar = progress_bar(picture.length + 1, "frames", want_progress(args, long_work), unit=" frames")
            try:
                picture.save_gif(args.out, progress=bar)
            finally:
                bar.close()
            return 0
    if args.out == "-":
        sys.stdout.write(picture.svg + "\n")
        sys.stdout.flush()
    else:
        picture.save(args.out)
    return 0
