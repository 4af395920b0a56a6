"""``fastpuzzle solve``: optimal (or constructive) solutions for boards read from a file.

Input: any board file the package reads (one board per line, grids, ``.npy``,
``-`` for standard input).  Output, the same whatever the heuristic (``pdb
solve`` is an alias of ``solve --heuristic pdb``): one line per board, in
input order::

    length moves nodes seconds status lower_bound gap

(``moves`` is ``-`` for an empty solution, when a budget stopped the search
or with ``--count-only``; ``length`` is then ``-1`` unless counted.
``lower_bound`` is the admissible bound the solver proved and ``gap`` the
length minus it (0: optimal); both ``-`` when none is known, the gap alone
when a budget stopped the search.)
"""

from __future__ import annotations

import sys

from ..options import HEURISTICS, METHODS, PRUNE_RULES
from .common import (
    CLIError, load_board_arg, one_board, output_arg, positive_arg, refuse_overwrite, refuse_stdin_twice,
    seconds_arg, shape_arg,
)

__all__ = ["add_parser", "configure", "run", "main", "demo_lines", "solution_line"]


def add_parser(subparsers):
    """Register ``solve``."""
    p = subparsers.add_parser(
        "solve",
        help="optimal solutions (IDA*) for boards read from a file",
        description="Solve boards (optimally where the budget allows); prints "
        "'length moves nodes seconds status lower_bound gap' per board.",
    )
    configure(p)
    return p


def configure(p, heuristic="linear_conflict") -> None:
    """The options of ``solve`` (shared by its alias ``pdb solve``)."""
    p.add_argument("file", help="input file (lines, grids or .npy), or - for standard input")
    p.add_argument("--shape", type=shape_arg, help="board shape MxN (default: the square matching the line length)")
    p.add_argument("--goal", help="goal board: a file or cells written inline (default: blank last)")
    p.add_argument("--goal-blank-first", action="store_true", help="goal 0 1 2 ... (blank top-left)")
    p.add_argument("--heuristic", default=heuristic, choices=HEURISTICS)
    p.add_argument("--database", help="pattern database name for --heuristic pdb (default: best cached for the size)")
    p.add_argument("--method", default="auto", choices=METHODS)
    p.add_argument("--metric", default="stm", choices=("stm", "mtm"),
                   help="stm: one tile per move; mtm: a slide of several tiles is one move (solved by IDA*)")
    p.add_argument("--prune", default="automaton", choices=PRUNE_RULES,
                   help="duplicate move sequences IDA* leaves out: up to 14 moves (default), or only undoing moves "
                        "(Korf's node counts)")
    p.add_argument("--max-nodes", type=positive_arg, default=None, help="node budget per board")
    p.add_argument("--time-limit", type=seconds_arg, default=None, help="time budget per board, seconds")
    p.add_argument("--threads", type=positive_arg, default=None, help="worker threads (default: all)")
    p.add_argument("--count-only", action="store_true",
                   help="constructive method: count the moves without keeping them (boards too large for the moves)")
    p.add_argument("--out", metavar="FILE", type=output_arg, help="write the result lines to FILE (written whole, then renamed)")
    p.add_argument("--no-progress", "--quiet", dest="no_progress", action="store_true", help="never show the progress bar")
    p.add_argument("--progress", action="store_true", help="always show the progress bar")
    p.set_defaults(run=run)


def solution_line(length, moves, nodes, seconds, status, lower_bound=None) -> str:
    """The one output line of a solution (``lower_bound`` None or negative: none known; a budget
    that stopped the search leaves no length, and so no gap, but the bound it proved)."""
    known = lower_bound is not None and lower_bound >= 0
    bound = f"{lower_bound} {length - lower_bound if length >= 0 else '-'}" if known else "- -"
    return f"{length} {moves or '-'} {nodes} {seconds:.6f} {status} {bound}\n"


def _read(args):
    """Boards, their text lines (``None`` for .npy), the input's name and the goal."""
    import numpy as np

    from ..io.read import load_boards_and_lines

    batch, lines, name = load_boards_and_lines(args.file, shape=args.shape)
    if batch.shape[0] == 0:
        raise CLIError(f"{name}: no boards found")
    shape = batch.shape[1:]
    if args.goal and args.goal_blank_first:
        raise CLIError("--goal and --goal-blank-first exclude each other")
    goal = None
    if args.goal:
        boards, _, goal_name = load_board_arg(args.goal, shape, "--goal",
                                              "--shape" if args.shape is not None else f"{name} (its boards)")
        goal = one_board(boards, goal_name, shape)
    elif args.goal_blank_first:
        goal = np.arange(shape[0] * shape[1]).reshape(shape)
    return batch, lines, name, goal


def _check_reachable(batch, goal, lines, name):
    from ..boards import as_goal
    from ..io.errors import BoardFileError
    from ..search.solution import UnreachableError, require_reachable

    target = as_goal(goal, *batch.shape[1:])
    try:
        require_reachable(batch, target)
    except UnreachableError as exc:
        i = exc.index
        raise BoardFileError(name, exc.reason, line=None if lines is None else int(lines[i]), index=i) from None
    return target


def _check_options(args):
    if args.count_only and args.method != "constructive":
        raise CLIError("--count-only needs --method constructive")
    if args.count_only:  # the constructive solver counts its moves: no search option applies
        given = [flag for flag, value in (("--max-nodes", args.max_nodes is not None),
                                          ("--metric mtm", args.metric == "mtm")) if value]
        if given:
            raise CLIError(f"{', '.join(given)} does not apply to --count-only (the constructive solver counts its moves)")
    if args.database is not None and args.heuristic != "pdb":
        raise CLIError("--database needs --heuristic pdb")
    if args.database is not None and args.method == "constructive":
        raise CLIError("--database does not apply to --method constructive (it reads no database)")


def run(args) -> int:
    """Run ``solve`` with parsed ``args``; returns the exit status."""
    from ..io.write import AtomicOutput
    from .common import progress_bar, want_progress

    _check_options(args)
    refuse_stdin_twice(("FILE", args.file), ("--goal", args.goal))
    refuse_overwrite("--out", args.out, args.file, args.goal)
    batch, lines, name, goal = _read(args)
    target = _check_reachable(batch, goal, lines, name)
    count, m, n = batch.shape
    block = 1024 if m * n < 16 else max(1, args.threads or 2)  # print as results come in
    bar = progress_bar(count, "solving", count > 1 and want_progress(args, 1 << 30), unit=" boards")
    try:
        with AtomicOutput(args.out) if args.out else _Stdout() as out:
            for lo in range(0, count, block):
                for line in _solve_block(args, batch[lo : lo + block], target):
                    out.write(line.encode())
                out.flush()
                bar.update(min(block, count - lo))
    finally:
        bar.close()
    return 0


class _Stdout:
    def __enter__(self):
        return sys.stdout.buffer if hasattr(sys.stdout, "buffer") else _TextAdapter(sys.stdout)

    def __exit__(self, *exc):
        return False


class _TextAdapter:
    def __init__(self, stream):
        self.stream = stream

    def write(self, data):
        self.stream.write(data.decode())

    def flush(self):
        self.stream.flush()


def _solve_block(args, boards, target):
    if args.count_only:
        from ..search.constructive import solve_constructive

        for board in boards:
            s = solve_constructive(board, goal=target, count_only=True, time_limit=args.time_limit)
            yield solution_line(s.length, "", s.nodes, s.seconds, s.status, s.lower_bound)
        return
    from ..search.solve import solve_many

    # a named database: optimal IDA* on its tables, unless --method names another search
    method = "ida" if args.database is not None and args.method == "auto" else args.method
    res = solve_many(boards, goal=target, heuristic=args.heuristic, method=method, database=args.database,
                     metric=args.metric,
                     max_nodes=args.max_nodes, time_limit=args.time_limit, threads=args.threads, prune=args.prune)
    for i in range(len(res)):
        yield solution_line(res.lengths[i], res.moves[i], res.nodes[i], res.seconds[i], res.status[i],
                            res.lower_bounds[i])  # fmt: skip


def demo_lines(boards, seed=2024):
    """Lines for ``fastpuzzle demo``: 1,000 random 8-puzzles solved optimally, and
    the first two of the demo's ``boards`` with a time limit of 2 s each."""
    import time

    import numpy as np

    from ..generate import random_solvable
    from ..search.solve import solve_many

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
    """``fastpuzzle solve ARGS`` (for scripts and tests)."""
    from . import main as cli_main

    return cli_main(["solve", *(argv or [])])
