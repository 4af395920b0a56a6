"""``fastpuzzle generate``: random boards that can reach the goal (or scrambles, or permutations, or
boards at a chosen optimal distance) to a file."""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..atomic import names_a_descriptor
from .common import CLIError, count_arg, dask_module, load_board_arg, notice, one_board, output_arg, progress_bar, \
    refuse_overwrite, same_file, seed_arg, shape_arg, want_progress

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``generate``."""
    g = subparsers.add_parser(
        "generate",
        help="write random boards that can reach the goal (or scrambles) to a file",
        description="Random boards drawn uniformly from those that can reach the goal, or random walks "
        "from it (--scramble K). The same --seed gives the same file on any machine and thread count.",
    )
    g.add_argument("--shape", type=shape_arg, required=True, help="board shape MxN, e.g. 4x4")
    g.add_argument("--count", type=count_arg, required=True, help="number of boards")
    g.add_argument("--seed", type=seed_arg, default=None, help="seed (default: fresh randomness)")
    g.add_argument("--scramble", type=count_arg, metavar="K", help="random walks of K moves from the goal instead")
    g.add_argument("--permutations", action="store_true", help="plain random permutations (about half unsolvable)")
    g.add_argument("--distance", type=distance_arg, metavar="K|LO:HI",
                   help="only boards at optimal distance K (or LO..HI) from the goal, uniform among them "
                   "(shapes up to 12 cells; up to 16 cells near the goal; 4x4 by optimal solves)")
    g.add_argument("--labels", nargs="?", const="", metavar="FILE",
                   help="also write each board's exact optimal distance to FILE (.npy, int64; default: the "
                   "output's name with .labels.npy); shapes up to 16 cells")
    g.add_argument("--goal", metavar="FILE", help="goal board (default: 1..mn-1 row-major, blank last)")
    g.add_argument("--out", required=True, type=output_arg, metavar="FILE",
                   help="output: .npy, or text ('-' for standard output)")
    g.add_argument("--format", choices=["npy", "lines", "grids", "scramble"], help="output format (default: from the name)")
    g.add_argument("--progress", action="store_true", help="always show the progress bar")
    g.add_argument("--no-progress", "--quiet", dest="no_progress", action="store_true", help="never show the progress bar")
    g.add_argument("--dask", action="store_true", help="run the chunks as Dask tasks on local threads (needs the dask extra)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:port)")
    g.set_defaults(run=run)


def distance_arg(text):
    """``--distance K`` or ``--distance LO:HI``: ``K`` or ``(LO, HI)`` with 0 <= LO <= HI."""
    parts = str(text).split(":")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"expected K or LO:HI (whole numbers), got {text!r}")
    try:
        values = [count_arg(p) for p in parts]
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"expected K or LO:HI (whole numbers >= 0), got {text!r}: {error}") from None
    if len(values) == 1:
        return values[0]
    if values[0] > values[1]:
        raise argparse.ArgumentTypeError(f"the range {text!r} runs backwards (LO must be <= HI)")
    return tuple(values)


def _check_disk(args, m, n, itemsize, fmt):
    """Refuse, before writing, a file too large for its disk (memory is checked by the generator)."""
    per_cell = itemsize if fmt == "npy" else len(str(m * n - 1)) + 1
    per_board = m * n * per_cell + (1 if fmt == "grids" else 0)  # a grid's blank line after it
    _check_room(args.out, args.count * per_board, f"{args.count:,} {m}x{n} boards")


def _check_room(path, need, what):
    """Refuse ``path`` when the ``need`` bytes of ``what`` would not fit on its disk."""
    if path == "-" or names_a_descriptor(path) or (os.path.exists(path) and not os.path.isfile(path)):
        return  # standard output, a pipe or a device: no disk to fill (the writer names a closed one)
    directory = os.path.dirname(os.path.abspath(os.path.realpath(path))) or "."
    try:
        stats = os.statvfs(directory)
    except OSError:
        return  # the writer names the missing directory
    free = stats.f_bavail * stats.f_frsize
    if os.path.isfile(path):
        free += os.path.getsize(path)
    if need > free:
        raise CLIError(f"{path}: {what} need about {need:,} bytes, more than the {free:,} bytes free on its disk")


def _check_options(args):
    excluded = [("--scramble", args.scramble is not None), ("--permutations", args.permutations),
                ("--dask", args.dask), ("--scheduler", args.scheduler is not None)]
    if args.scramble is not None and args.permutations:
        raise CLIError("--scramble and --permutations exclude each other")
    from ..generate.api import MAX_WALK

    if args.scramble is not None and args.scramble > MAX_WALK:
        raise CLIError(f"--scramble must be at most {MAX_WALK:,} moves a walk, got {args.scramble:,}")
    if args.distance is not None:
        for option, given in excluded:
            if given:
                raise CLIError(f"--distance draws random boards at a chosen distance; it excludes {option}")
    if (args.dask or args.scheduler) and args.scramble is not None:
        raise CLIError("--dask/--scheduler make random boards; --scramble runs locally")


def run(args) -> int:
    """Run ``generate``."""
    from ..boards import board_dtype
    from ..io.npy import is_npy_name
    from ..io.write import writer_for

    m, n = args.shape
    _check_options(args)
    fmt = args.format or ("npy" if is_npy_name(args.out) else "lines")
    if args.out == "-" and fmt == "npy":
        raise CLIError("writing .npy to standard output is not supported; give --out FILE.npy or --format lines")
    dtype = board_dtype(m * n)
    refuse_overwrite("--out", args.out, args.goal)
    _check_disk(args, m, n, dtype.itemsize, fmt)
    goal = None
    if args.goal is not None:
        boards, _, goal_name = load_board_arg(args.goal, (m, n), "--goal")
        goal = one_board(boards, goal_name, (m, n))
    count = args.count
    started = time.perf_counter()
    if args.labels is not None:
        return _run_labelled(args, m, n, goal, dtype, fmt, started)
    chunks = _chunks(args, m, n, goal)  # the generator checks every argument here, before the file is opened
    bar = progress_bar(count, "generate", want_progress(args, count * m * n + count * (args.scramble or 0)))
    try:
        with writer_for(args.out, (count, m, n), dtype, fmt) as writer:
            for chunk in chunks:
                writer.write(chunk)
                bar.update(chunk.shape[0])
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    what = f"scrambled ({args.scramble} moves)" if args.scramble is not None else (
        "random (unchecked)" if args.permutations else "random solvable")
    if args.distance is not None:
        lo, hi = (args.distance, args.distance) if isinstance(args.distance, int) else args.distance
        what += f" (distance {lo})" if lo == hi else f" (distance {lo}..{hi})"
    if args.out != "-" or not sys.stdout.isatty():
        notice(f"wrote {count} {what} {m}x{n} boards to {args.out} in {seconds:.2f} s "
               f"({count / seconds if seconds > 0 else 0:,.0f} boards/s)")
    return 0


def labels_path(args) -> str:
    """``--labels FILE``, or the output's name with ``.labels.npy`` for a bare ``--labels``."""
    if args.labels:
        return args.labels
    if args.out == "-" or (os.path.exists(args.out) and not os.path.isfile(args.out)):  # a device, FIFO, descriptor
        where = "standard output" if args.out == "-" else args.out
        raise CLIError(f"--labels needs a file name when the boards go to {where}")
    stem = args.out[:-4] if args.out.lower().endswith(".npy") else args.out
    return stem + ".labels.npy"


def _run_labelled(args, m, n, goal, dtype, fmt, started):
    """``generate --labels``: boards and their exact distances, chunk by chunk, through the one writer."""
    import numpy as np

    from ..io.write import NpyWriter, writer_for
    from ..labels import labelled_chunks

    for option, given in [("--scramble", args.scramble is not None), ("--permutations", args.permutations),
                          ("--dask", args.dask), ("--scheduler", args.scheduler is not None)]:
        if given:
            raise CLIError(f"--labels labels uniform boards or boards at a --distance; it excludes {option}")
    target = labels_path(args)
    if target == "-" or names_a_descriptor(target):
        raise CLIError(f"--labels {target}: the labels are an .npy file; writing .npy to standard output is not "
                       "supported (give a file name)")
    if same_file(target, args.out):  # the same name, or one file through a link
        raise CLIError(f"--labels {target}: the labels would overwrite the boards")
    refuse_overwrite("--labels", target, args.goal)
    _check_room(target, 8 * args.count + 128, f"the labels of {args.count:,} boards")
    try:
        chunks = labelled_chunks(m, n, args.count, distance=args.distance, seed=args.seed, goal=goal)
    except ValueError as error:
        raise CLIError(f"--labels: {error}") from None
    count = args.count
    bar = progress_bar(count, "generate", want_progress(args, count * m * n))
    try:
        with writer_for(args.out, (count, m, n), dtype, fmt) as boards_out, \
                NpyWriter(target, (count,), np.int64) as labels_out:
            for _, boards, labels, _ in chunks:
                boards_out.write(boards)
                labels_out.write(labels)
                bar.update(boards.shape[0])
            # both files written out before either is put in place: a failure in one replaces neither
            boards_out.close_file()
            labels_out.close_file()
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    notice(f"wrote {count} labelled {m}x{n} boards to {args.out} and their distances to {target} in "
           f"{seconds:.2f} s ({count / seconds if seconds > 0 else 0:,.0f} boards/s)")
    return 0


def _chunks(args, m, n, goal):
    """The boards as an iterable of chunks; every argument is checked on the call."""
    kind = "permutations" if args.permutations else "solvable"
    if args.distance is not None:
        from ..distances.sample import check_distance
        from ..generate import random_solvable

        try:
            check_distance(args.distance, m, n)
        except ValueError as error:
            raise CLIError(f"--distance: {error}") from None
        # one draw: the same seed gives the same boards as random_solvable(..., distance=)
        return [random_solvable(m, n, count=args.count, seed=args.seed, goal=goal, distance=args.distance)]
    if args.dask or args.scheduler:
        distributed = dask_module()
        lazy = distributed.random_solvable(m, n, count=args.count, seed=args.seed, goal=goal, solvable=kind == "solvable")
        return (chunk for _, chunk in distributed.iter_blocks(lazy, scheduler=args.scheduler or "threads"))
    from ..generate import generate_chunks

    chunks = generate_chunks(m, n, args.count, seed=args.seed, goal=goal, scramble_moves=args.scramble, kind=kind)
    return (chunk for _, chunk in chunks)
