"""``fastpuzzle reach``: can board A be turned into board B?  Or the judge format (``--judge``)."""

from __future__ import annotations

import sys

from .common import CLIError, input_name, load_board_arg, refuse_stdin_twice, shape_arg

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``reach``."""
    r = subparsers.add_parser(
        "reach",
        help="can board A be turned into board B? (or --judge: the judge format on stdin)",
        description="Print 'reachable' or 'unreachable' per board. A and B are files (one board, or as many "
        "boards as the other holds) or boards written inline ('1 2 3 4 5 6 7 8 0', rows may be separated "
        "by '/'). With --judge, read the judge format (repeated: n, then two n x n grids) from FILE or "
        "standard input and print TAK or NIE per case.",
    )
    r.add_argument("a", nargs="?", metavar="A")
    r.add_argument("b", nargs="?", metavar="B")
    r.add_argument("--judge", action="store_true", help="judge format on standard input (or file A)")
    r.add_argument("--shape", type=shape_arg, help="board shape MxN (default: square)")
    r.set_defaults(run=run)


def run(args) -> int:
    """Run ``reach``."""
    if args.judge:
        return _judge(args)
    if args.a is None or args.b is None:
        raise CLIError("reach needs two boards (files or inline numbers), or --judge")
    from ..io.errors import BoardFileError
    from ..solvability import reachable

    refuse_stdin_twice(("the first board", args.a), ("the second board", args.b))
    a, _, name_a = load_board_arg(args.a, args.shape, "first board")
    b, _, name_b = load_board_arg(args.b, args.shape, "second board")
    if a.shape[1:] != b.shape[1:]:
        raise BoardFileError(name_b, f"holds {b.shape[1]}x{b.shape[2]} boards but {name_a} holds {a.shape[1]}x{a.shape[2]}")
    if a.shape[0] != b.shape[0] and 1 not in (a.shape[0], b.shape[0]):
        raise BoardFileError(name_b, f"holds {b.shape[0]} boards and {name_a} holds {a.shape[0]}; give one board or as many")
    # reachable() compares a batch with one board or with a batch of the same length
    first = a[0] if a.shape[0] == 1 and b.shape[0] != 1 else a
    second = b[0] if b.shape[0] == 1 else b
    verdicts = reachable(first, second, check=False) if first.ndim == 3 else reachable(second, first, check=False)
    sys.stdout.write("".join("reachable\n" if v else "unreachable\n" for v in verdicts))
    sys.stdout.flush()
    return 0


def _judge(args):
    # only the judge's own modules: start-up is part of every judged run
    from ..io.judging import judge_prefix, judge_verdicts
    from ..io.source import read_input

    if args.a is not None and args.b is not None:
        raise CLIError("reach --judge reads one input (a file or '-' for standard input), not two boards")
    source = args.a or "-"
    name = input_name(source)
    # a regular file is memory-mapped, not copied; a stream is judged as it grows, so one that goes
    # wrong early is refused there, not read to its end
    data, name = read_input(source, name, probe=lambda head: judge_prefix(head, name=name))
    verdicts = judge_verdicts(data, name=name)
    sys.stdout.write("".join(("NIE\n", "TAK\n")[v] for v in verdicts.tolist()))
    sys.stdout.flush()
    return 0
