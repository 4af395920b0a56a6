"""``fastpuzzle check``: solvability (or reachability of ``--goal``) of every board in a file."""

from __future__ import annotations

import os
import sys
import time

from .common import (
    CLIError, dask_module, input_name, load_board_arg, one_board, output_arg, refuse_overwrite,
    refuse_stdin_twice, shape_arg,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``check``."""
    c = subparsers.add_parser(
        "check",
        help="solvability (or reachability of --goal) of every board in a file",
        description="Print 'solvable' or 'unsolvable' for every board of FILE (one line per board, in order). "
        "FILE is .npy (streamed in chunks), text with one board per line, or text grids separated by blank lines; "
        "'-' reads standard input.",
    )
    c.add_argument("file", metavar="FILE|-")
    c.add_argument("--shape", type=shape_arg, help="board shape MxN for one-board-per-line text (default: square)")
    c.add_argument("--format", choices=["auto", "lines", "grids", "scramble"], default="auto", help="text layout (default: auto)")
    c.add_argument("--goal", metavar="FILE", help="check reachability of the board in FILE instead of the default goal")
    c.add_argument("--summary", action="store_true", help="print counts instead of a verdict per board")
    c.add_argument("--out", metavar="MASK.npy", type=output_arg, help="write the verdicts as a .npy bool mask")
    c.add_argument("--dask", action="store_true", help="run the chunks as Dask tasks on local threads (needs the dask extra)")
    c.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:port)")
    c.set_defaults(run=run)


def run(args) -> int:
    """Run ``check``."""
    import numpy as np

    from ..io.npy import is_npy_name
    from ..io.read import count_boards
    from ..io.write import NpyWriter

    if args.out == "-":
        raise CLIError("--out - would mix a binary .npy mask into the verdicts on standard output; give a file name")
    refuse_stdin_twice(("FILE", args.file), ("--goal", args.goal))
    refuse_overwrite("--out", args.out, args.file, args.goal)
    goal = None
    if args.goal is not None:
        boards, _, goal_name = load_board_arg(args.goal, args.shape, "--goal")
        goal = one_board(boards, goal_name)
    words = np.array(["unreachable", "reachable"] if goal is not None else ["unsolvable", "solvable"])
    total = solvable = 0
    masks = []
    started = time.perf_counter()
    writer = None
    if args.out is not None and args.file != "-" and is_npy_name(args.file) and os.path.isfile(args.file):
        # counted from the header first, so the mask streams out; a FIFO or device is read once (masks kept)
        writer = NpyWriter(args.out, (count_boards(args.file)[0],), np.bool_)
    with writer if writer is not None else _Nothing():
        for mask in _check_masks(args, goal):
            total += mask.shape[0]
            solvable += int(np.count_nonzero(mask))
            if writer is not None:
                writer.write(mask)
            elif args.out is not None:
                masks.append(mask)
            if not args.summary and mask.size:
                sys.stdout.write("\n".join(words[mask.astype(np.intp)].tolist()) + "\n")
        if total == 0:  # as a text file without boards: no silent empty answer (and no empty output left)
            raise CLIError(f"{input_name(args.file)}: no boards found")
    if writer is None and args.out is not None:
        all_masks = np.concatenate(masks) if masks else np.zeros(0, np.bool_)
        with NpyWriter(args.out, all_masks.shape, np.bool_) as w:
            w.write(all_masks)
    if args.summary:
        _summary(total, solvable, goal is not None, time.perf_counter() - started)
    sys.stdout.flush()
    return 0


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _summary(total, solvable, with_goal, seconds):
    yes, no = ("reachable", "unreachable") if with_goal else ("solvable", "unsolvable")
    share = 100.0 * solvable / total if total else 0.0
    print(f"boards: {total}")
    print(f"{yes}: {solvable} ({share:.2f}%)")
    print(f"{no}: {total - solvable}")
    print(f"seconds: {seconds:.3f} ({total / seconds if seconds > 0 else 0:,.0f} boards/s)")


def _check_masks(args, goal):
    """The verdict mask of each chunk of the input: local streaming, or Dask
    tasks when --dask/--scheduler is given."""
    from ..errors import BoardError
    from ..io.errors import BoardFileError
    from ..io.npy import is_npy_name
    from ..io.read import iter_boards
    from ..solvability import is_solvable

    name = input_name(args.file)

    def same_shape(shape):
        if goal is not None and tuple(shape) != goal.shape:
            raise BoardFileError(name, f"holds {shape[0]}x{shape[1]} boards but the goal --goal {args.goal} is "
                                 f"{goal.shape[0]}x{goal.shape[1]}")

    if args.dask or args.scheduler:
        distributed = dask_module()
        zarr = args.file.rstrip("/").endswith(".zarr")
        if args.file == "-" or not (is_npy_name(args.file) or zarr):
            raise CLIError("--dask/--scheduler read a .npy file or a .zarr store")
        x = distributed.from_zarr(args.file) if zarr else distributed.from_npy(args.file)
        same_shape(x.shape[1:])
        try:
            for _, mask in distributed.iter_blocks(distributed.is_solvable(x, goal=goal),
                                                   scheduler=args.scheduler or "threads"):  # fmt: skip
                yield mask
        except BoardError as error:  # named by the file, as without --dask
            raise BoardError(name, error.index, error.reason) from None
        return
    for _, chunk in iter_boards(args.file, shape=args.shape, fmt=args.format):
        same_shape(chunk.shape[1:])
        yield is_solvable(chunk, goal=goal, check=False)
