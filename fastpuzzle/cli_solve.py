"""The ``fastpuzzle solve`` subcommand: optimal solutions for boards read from a file.

Input: one board per line, its cells row-major as whitespace-separated
integers (0 = blank); blank lines and lines starting with ``#`` are skipped.
The shape is ``--shape MxN`` or, without it, the square whose area matches.

Output: one line per board, in input order::

    length moves nodes seconds status

(``moves`` is ``-`` for an empty solution or when a budget stopped the search,
``length`` is then ``-1``.)  Errors: one line naming the file, line and
problem on stderr, exit status 2.

Wired into :mod:`fastpuzzle.cli` with :func:`add_parser` and :func:`run`;
``python -m fastpuzzle.cli_solve`` runs it alone.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

__all__ = ["add_parser", "run", "main", "demo_lines"]


class InputError(Exception):
    """A problem with the input, reported as one line."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``solve`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "solve",
        help="optimal solutions (IDA*) for boards read from a file",
        description="Solve boards optimally; one board per input line (cells row-major, 0 = blank).",
    )
    configure(p)
    return p


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="input file, or - for standard input")
    p.add_argument("--shape", help="board shape MxN (default: the square matching the line length)")
    p.add_argument("--goal", help="goal board as whitespace- or comma-separated cells (default: blank last)")
    p.add_argument("--heuristic", default="linear_conflict", choices=["linear_conflict", "manhattan", "pdb"])
    p.add_argument("--method", default="auto", choices=["auto", "ida", "constructive"])
    p.add_argument("--max-nodes", type=int, default=None, help="node budget per board")
    p.add_argument("--time-limit", type=float, default=None, help="time budget per board, seconds")
    p.add_argument("--threads", type=int, default=None, help="worker threads (default: all)")
    p.add_argument("--count-only", action="store_true",
                   help="constructive method: count the moves without keeping them (boards too large for the moves)")
    p.add_argument("--out", metavar="FILE", help="write the result lines to FILE (written whole, then renamed)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run, func=run)


def _parse_shape(text: str):
    parts = text.lower().replace("*", "x").split("x")
    try:
        m, n = (int(v) for v in parts)
    except ValueError:
        raise InputError(f"--shape {text!r}: expected MxN, e.g. 4x4") from None
    if m < 1 or n < 1 or m * n < 2:
        raise InputError(f"--shape {text!r}: a board needs sides >= 1 and at least 2 cells")
    return m, n


def _read(args, shape):
    """Boards, their text line numbers (or None for .npy) and the goal, read
    with the project's file readers (text lines, grids, .npy, standard input)."""
    from .cli import _load_one_board
    from .textio import load_boards, read_text_boards

    name = "<stdin>" if args.file == "-" else args.file
    if args.file == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        data = stdin.read() if stdin is not None else sys.stdin.read().encode()
        batch, lines = read_text_boards(data, name, shape)
    else:
        if not os.path.exists(args.file):
            raise InputError(f"{name}: cannot open: no such file")
        if args.file.lower().endswith(".npy"):
            batch, lines = load_boards(args.file), None
        else:
            with open(args.file, "rb") as fh:
                batch, lines = read_text_boards(fh.read(), name, shape)
    if batch.shape[0] == 0:
        raise InputError(f"{name}: no boards found")
    goal = None
    if args.goal:
        goal_boards, goal_name = _load_one_board(args.goal, batch.shape[1:], "--goal")
        if goal_boards.shape[0] != 1 or goal_boards.shape[1:] != batch.shape[1:]:
            raise InputError(f"{goal_name}: the goal must be one {batch.shape[1]}x{batch.shape[2]} board")
        goal = goal_boards[0]
    return name, batch, lines, goal


def _check_solvable(batch, goal, lines, name):
    from .boards import as_goal
    from .solvability import is_solvable

    target = as_goal(goal, *batch.shape[1:])
    ok = np.asarray(is_solvable(batch, target, check=False)).reshape(-1)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        where = f"{name}:{lines[i]}" if lines is not None else name
        raise InputError(f"{where}: board {i} cannot reach the goal (it is in the unsolvable half)")
    return target


def run(args) -> int:
    """Run ``fastpuzzle solve`` with parsed ``args``; returns the exit status."""
    from .search.solve import solve_many

    from .textio import BoardFileError

    try:
        shape = _parse_shape(args.shape) if args.shape else None
        try:
            name, batch, lines, goal = _read(args, shape)
        except BoardFileError as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"{args.file}: cannot read: {exc.strerror or exc}") from None
        target = _check_solvable(batch, goal, lines, "<stdin>" if args.file == "-" else args.file)
        if args.max_nodes is not None and args.max_nodes < 1:
            raise InputError(f"--max-nodes must be at least 1, got {args.max_nodes}")
        if args.time_limit is not None and not args.time_limit > 0:
            raise InputError(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
        if args.threads is not None and args.threads < 1:
            raise InputError(f"--threads must be at least 1, got {args.threads}")
        if args.count_only and args.method != "constructive":
            raise InputError("--count-only needs --method constructive")
    except InputError as exc:
        print(f"fastpuzzle solve: {exc}", file=sys.stderr)
        return 2

    B, m, n = batch.shape
    # Print as results come in: blocks of a few hard boards or many easy ones.
    block = 1024 if m * n < 16 else max(1, args.threads or 2)
    bar = None
    if B > 1 and not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=B, file=sys.stderr, unit="board", desc="solving")
    if args.out:
        import tempfile

        fd, tmp_path = tempfile.mkstemp(prefix=".fastpuzzle-", dir=os.path.dirname(os.path.abspath(args.out)))
        out = os.fdopen(fd, "w")
    else:
        out = sys.stdout
    try:
        for lo in range(0, B, block):
            if args.count_only:
                from .search.constructive import solve_constructive

                for board in batch[lo : lo + block]:
                    sol = solve_constructive(board, target, count_only=True)
                    out.write(f"{sol.length} - {sol.nodes} {sol.seconds:.6f} {sol.status}\n")
                if bar is not None:
                    bar.update(len(batch[lo : lo + block]))
                continue
            try:
                res = solve_many(batch[lo : lo + block], target, heuristic=args.heuristic, method=args.method,
                                 max_nodes=args.max_nodes, time_limit=args.time_limit, threads=args.threads)  # fmt: skip
            except (ValueError, TypeError) as exc:
                print(f"fastpuzzle solve: {name}: {exc}", file=sys.stderr)
                return 2
            for i in range(len(res)):
                mv = res.moves[i] or "-"
                out.write(f"{res.lengths[i]} {mv} {res.nodes[i]} {res.seconds[i]:.6f} {res.status[i]}\n")
            out.flush()
            if bar is not None:
                bar.update(len(res))
        if args.out:
            out.close()
            os.replace(tmp_path, args.out)
    except BrokenPipeError:
        return 0
    finally:
        if bar is not None:
            bar.close()
        if args.out and not out.closed:
            out.close()
            os.unlink(tmp_path)
    return 0


def demo_lines(boards, seed=2024):
    """Lines for ``fastpuzzle demo``: 1,000 random 8-puzzles solved optimally, and
    the first two of the demo's ``boards`` with a time limit of 2 s each."""
    import time

    from .generate import random_solvable
    from .search.solve import solve_many

    eights = random_solvable(3, 3, count=1000, seed=seed)
    solve_many(eights[:4])  # load the compiled kernels
    t = time.perf_counter()
    res = solve_many(eights)
    dt = time.perf_counter() - t
    lines = [
        f"solve    {len(eights):>11,} 3x3 boards, optimal     {dt:7.3f} s  {len(eights) / dt / 1e3:8.1f} K boards/s"
        f"  (mean {res.lengths.mean():.2f} moves)"
    ]
    boards = np.asarray(boards)
    if boards.ndim == 3 and boards.shape[0] and boards.shape[1] * boards.shape[2] <= 16:
        m, n = boards.shape[1:]
        res = solve_many(boards[:2], time_limit=2.0, threads=2)
        for i in range(len(res)):
            what = f"{res.lengths[i]} moves" if res.status[i] != "budget" else "stopped by the 2 s limit"
            lines.append(
                f"solve    one random {m}x{n} board: {what}, {res.nodes[i]:,} nodes, {res.seconds[i]:.3f} s ({res.status[i]})"
            )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="fastpuzzle solve")
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
