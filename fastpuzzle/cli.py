"""The ``fastpuzzle`` command line.

Subcommands: ``check``, ``reach``, ``generate``, ``demo`` (and ``solve`` /
``bench`` when those modules are present).  Every bad input -- an unreadable
file, a malformed line, a wrong shape, a board that is not a permutation --
ends with one line on standard error naming the file, the line or board and
the problem, and exit status 2.  Output files are written to a temporary file
and renamed on success.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

EXIT_BAD_INPUT = 2

#: Optional subcommands: a module ``fastpuzzle.<name>`` exposing
#: ``add_parser(subparsers)`` and ``run(args)`` is registered when it exists.
OPTIONAL_SUBCOMMANDS = ("cli_solve", "cli_bench", "cli_pdb")


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _shape_arg(text):
    from .textio import parse_shape

    try:
        return parse_shape(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _nonneg_int(text):
    try:
        v = int(str(text).replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def _seed_arg(text):
    try:
        return _nonneg_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}") from None


def _progress(total, desc, enabled):
    """A tqdm bar on stderr, or a no-op object."""
    if enabled:
        try:
            from tqdm import tqdm

            return tqdm(total=total, desc=desc, unit=" boards", unit_scale=True, file=sys.stderr, leave=False)
        except ImportError:  # pragma: no cover - tqdm is a dependency
            pass

    class _Null:
        def update(self, k):
            pass

        def close(self):
            pass

    return _Null()


def _want_progress(args, work_cells):
    if getattr(args, "no_progress", False):
        return False
    if getattr(args, "progress", False):
        return True
    return sys.stderr.isatty() and work_cells >= (1 << 26)


def _load_one_board(text_or_path, shape, what):
    """A board given as a file name or inline numbers (``"1 2 3 4 5 6 7 8 0"``,
    rows may be separated by ``/`` or ``;``)."""
    from .textio import BoardFileError, load_boards, read_text_boards

    if text_or_path == "-" or os.path.exists(text_or_path):
        boards = load_boards(text_or_path, shape=shape)
        name = text_or_path
    else:
        if not any(ch.isdigit() for ch in text_or_path):
            raise BoardFileError(f"{text_or_path}: cannot open: no such file (and not a board written inline)")
        inline = text_or_path.replace("/", " ").replace(";", " ").replace(",", " ")
        name = f"{what} {text_or_path!r}"
        boards, _ = read_text_boards(inline.encode(), name, shape, "lines")
    return boards, name


# ---------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------


def _run_check(args):
    import numpy as np

    from .solvability import is_solvable
    from .textio import BoardFileError, NpyWriter, _is_npy_name, count_boards, iter_boards, load_boards

    source = args.file
    name = "<stdin>" if source == "-" else source
    goal = None
    if args.goal is not None:
        g = load_boards(args.goal, shape=args.shape)
        if g.shape[0] != 1:
            raise BoardFileError(f"{args.goal}: a goal file must hold one board, it holds {g.shape[0]}")
        goal = g[0]
    if source != "-" and not os.path.exists(source):
        raise BoardFileError(f"{source}: cannot open: no such file")
    words = np.array(["unreachable", "reachable"] if goal is not None else ["unsolvable", "solvable"])
    total = solvable = 0
    masks = []
    writer = None
    t0 = time.perf_counter()
    try:
        if args.out is not None and source != "-" and _is_npy_name(source):
            writer = NpyWriter(args.out, (count_boards(source)[0],), np.bool_).__enter__()
        out = sys.stdout
        for start, mask in _check_masks(args, source, name, goal):
            total += mask.shape[0]
            solvable += int(np.count_nonzero(mask))
            if writer is not None:
                writer.write(mask)
            elif args.out is not None:
                masks.append(mask)
            if not args.summary:
                out.write("\n".join(words[mask.astype(np.intp)].tolist()) + "\n" if mask.size else "")
        if writer is not None:
            writer.__exit__(None, None, None)
            writer = None
        elif args.out is not None:
            all_masks = np.concatenate(masks) if masks else np.zeros(0, np.bool_)
            with NpyWriter(args.out, all_masks.shape, np.bool_) as w:
                w.write(all_masks)
    except BaseException as e:
        if writer is not None:
            writer.__exit__(type(e), e, None)
        raise
    seconds = time.perf_counter() - t0
    if args.summary:
        yes, no = ("reachable", "unreachable") if goal is not None else ("solvable", "unsolvable")
        share = 100.0 * solvable / total if total else 0.0
        print(f"boards: {total}")
        print(f"{yes}: {solvable} ({share:.2f}%)")
        print(f"{no}: {total - solvable}")
        print(f"seconds: {seconds:.3f} ({total / seconds if seconds > 0 else 0:,.0f} boards/s)")
    return 0


def _check_masks(args, source, name, goal):
    """(start, verdict mask) per chunk of the input: local streaming, or Dask
    tasks when --dask/--scheduler is given."""
    from .solvability import is_solvable
    from .textio import BoardFileError, _is_npy_name, iter_boards

    def same_shape(shape):
        if goal is not None and shape != goal.shape:
            raise BoardFileError(
                f"{args.goal}: the goal is {goal.shape[0]}x{goal.shape[1]} but {name} holds "
                f"{shape[0]}x{shape[1]} boards"
            )

    if args.dask or args.scheduler:
        fd = _dask_module()
        if source == "-" or not (_is_npy_name(source) or source.rstrip("/").endswith(".zarr")):
            raise CLIError("--dask/--scheduler read a .npy file or a .zarr store")
        x = fd.from_zarr(source) if source.rstrip("/").endswith(".zarr") else fd.from_npy(source)
        same_shape(x.shape[1:])
        try:
            yield from fd.iter_blocks(fd.is_solvable(x, goal), scheduler=args.scheduler or "threads")
        except ValueError as error:
            raise BoardFileError(f"{name}: {error}") from None
        return
    for start, chunk in iter_boards(source, shape=args.shape, fmt=args.format, name=name):
        same_shape(chunk.shape[1:])
        yield start, is_solvable(chunk, goal, check=False)


def _dask_module():
    try:
        from . import distributed
    except ImportError as error:
        raise CLIError(f"{error}") from None
    return distributed


def _read_bytes_fast(src):
    """All bytes of a file or standard input; a regular file is memory-mapped
    (no copy), anything else (a pipe) is read."""
    import mmap
    import stat

    f = sys.stdin.buffer if src == "-" else open(src, "rb")
    try:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > 0 and f.tell() == 0:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return f.read()
    finally:
        if src != "-":
            f.close()


# ---------------------------------------------------------------------------
# reach
# ---------------------------------------------------------------------------


def _run_reach(args):
    from .solvability import reachable
    from .textio import BoardFileError, judge

    if args.judge:
        if args.a is not None and args.b is not None:
            raise CLIError("reach --judge reads one input (a file or '-' for standard input), not two boards")
        src = args.a or "-"
        name = "<stdin>" if src == "-" else src
        try:
            data = _read_bytes_fast(src)
        except OSError as e:
            raise BoardFileError(f"{name}: cannot open: {e.strerror or e}") from None
        answers = judge(data, name)
        sys.stdout.write("".join(a + "\n" for a in answers))
        return 0
    if args.a is None or args.b is None:
        raise CLIError("reach needs two boards (files or inline numbers), or --judge")
    a, name_a = _load_one_board(args.a, args.shape, "first board")
    b, name_b = _load_one_board(args.b, args.shape, "second board")
    if a.shape[1:] != b.shape[1:]:
        raise BoardFileError(
            f"{name_b}: holds {b.shape[1]}x{b.shape[2]} boards but {name_a} holds {a.shape[1]}x{a.shape[2]}"
        )
    if a.shape[0] != b.shape[0] and a.shape[0] != 1 and b.shape[0] != 1:
        raise BoardFileError(f"{name_b}: holds {b.shape[0]} boards, {name_a} holds {a.shape[0]}; give one board or as many")
    res = reachable(a, b, check=False)
    for r in res:
        print("reachable" if r else "unreachable")
    return 0


# ---------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------


def _run_generate(args):
    from .boards import board_dtype
    from .generate import generate_chunks
    from .textio import BoardFileError, load_boards, writer_for

    m, n = args.shape
    goal = None
    if args.goal is not None:
        g = load_boards(args.goal)
        if g.shape[0] != 1 or g.shape[1:] != (m, n):
            raise BoardFileError(f"{args.goal}: a goal file must hold one {m}x{n} board, it holds {g.shape[0]} of {g.shape[1]}x{g.shape[2]}")
        goal = g[0]
    if args.scramble is not None and args.permutations:
        raise CLIError("--scramble and --permutations exclude each other")
    fmt = args.format
    if fmt is None:
        fmt = "npy" if args.out.lower().endswith(".npy") else "lines"
    if args.out == "-" and fmt == "npy":
        raise CLIError("writing .npy to standard output is not supported; give --out FILE.npy or --format lines")
    count = args.count
    bar = _progress(count, "generate", _want_progress(args, count * m * n + count * (args.scramble or 0)))
    t0 = time.perf_counter()
    kind = "permutations" if args.permutations else "solvable"
    try:
        with writer_for(args.out, (count, m, n), board_dtype(m * n), fmt) as w:
            if args.dask or args.scheduler:
                if args.scramble is not None:
                    raise CLIError("--dask/--scheduler make random boards; --scramble runs locally")
                fd = _dask_module()
                lazy = fd.random_solvable(m, n, count, seed=args.seed, goal=goal, solvable=kind == "solvable")
                chunks = fd.iter_blocks(lazy, scheduler=args.scheduler or "threads")
            else:
                chunks = generate_chunks(m, n, count, seed=args.seed, goal=goal, scramble_moves=args.scramble, kind=kind)
            for _, chunk in chunks:
                w.write(chunk)
                bar.update(chunk.shape[0])
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    what = f"scrambled ({args.scramble} moves)" if args.scramble is not None else (
        "random (unchecked)" if args.permutations else "random solvable")
    if args.out != "-" or not sys.stdout.isatty():
        print(
            f"wrote {count} {what} {m}x{n} boards to {args.out} in {seconds:.2f} s "
            f"({count / seconds if seconds > 0 else 0:,.0f} boards/s)",
            file=sys.stderr,
        )
    return 0


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------


def _timed(fn, *a, **k):
    t = time.perf_counter()
    r = fn(*a, **k)
    return r, time.perf_counter() - t


def _run_demo(args):
    import numba
    import numpy as np

    from .generate import random_permutations, random_solvable
    from .solvability import is_solvable
    from .textio import judge

    m, n = args.shape
    count = args.count
    seed = args.seed
    rows = []
    print(f"fastpuzzle demo: {count:,} {m}x{n} boards, {numba.get_num_threads()} threads on {os.cpu_count()} CPUs")
    # warm the compiled kernels (loaded from the on-disk cache after the first run)
    _, warm = _timed(lambda: (is_solvable(random_solvable(m, n, count=64, seed=0)), is_solvable(random_permutations(m, n, count=64, seed=0))))
    good, t_gen = _timed(random_solvable, m, n, count, seed)
    perms, t_perm = _timed(random_permutations, m, n, count, seed + 1)
    ok_good, t_chk1 = _timed(is_solvable, good)
    ok_perm, t_chk2 = _timed(is_solvable, perms)
    t_chk = t_chk1 + t_chk2

    def rate(k, s):
        return f"{k / s / 1e6:8.1f} M boards/s" if s > 0 else "      -"

    print(f"  generate {count:>11,} solvable boards      {t_gen:7.3f} s  {rate(count, t_gen)}")
    print(f"  generate {count:>11,} random permutations  {t_perm:7.3f} s  {rate(count, t_perm)}")
    print(f"  check    {2 * count:>11,} boards (validated)   {t_chk:7.3f} s  {rate(2 * count, t_chk)}")
    print(f"  share solvable: generated {100 * ok_good.mean():.3f}%, random permutations {100 * ok_perm.mean():.3f}%")
    if not ok_good.all():
        raise CLIError("internal error: a generated board is not solvable")
    # the judge problem on one case of 499x499 boards (the largest it allows)
    big = random_permutations(499, 499, count=2, seed=seed)
    from .textio import format_boards

    text = b"499\n" + format_boards(big, "grids")
    answer, t_judge = _timed(judge, text)
    print(f"  judge    1 case of two 499x499 grids      {t_judge:7.3f} s  ({len(text) / 1e6:.1f} MB of text) -> {answer[0]}")
    # --- solver line ---------------------------------------------------------
    # The solver adds its report here through fastpuzzle.cli_solve.demo_lines
    # (a function taking the generated boards and returning printable lines).
    try:
        from .cli_solve import demo_lines  # type: ignore[attr-defined]
    except ImportError:
        demo_lines = None
    if demo_lines is not None:
        for line in demo_lines(good, seed=seed):
            print(f"  {line}")
    else:
        print("  solve    (no solver in this build)")
    return 0


# ---------------------------------------------------------------------------
# parser and entry point
# ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``fastpuzzle generate: error: ...``), exit 2;
    ``--help`` shows the full usage."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser():
    p = _Parser(
        prog="fastpuzzle",
        description="Sliding-tile puzzles at scale: check, generate and compare millions of boards.",
    )
    from . import __version__

    p.add_argument("--version", action="version", version=f"fastpuzzle {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser(
        "check",
        help="solvability (or reachability of --goal) of every board in a file",
        description="Print 'solvable' or 'unsolvable' for every board of FILE (one line per board, in order). "
        "FILE is .npy (streamed in chunks), text with one board per line, or text grids separated by blank lines; "
        "'-' reads standard input.",
    )
    c.add_argument("file", metavar="FILE|-")
    c.add_argument("--shape", type=_shape_arg, help="board shape MxN for one-board-per-line text (default: square)")
    c.add_argument("--format", choices=["auto", "lines", "grids"], default="auto", help="text layout (default: auto)")
    c.add_argument("--goal", metavar="FILE", help="check reachability of the board in FILE instead of the default goal")
    c.add_argument("--summary", action="store_true", help="print counts instead of a verdict per board")
    c.add_argument("--out", metavar="MASK.npy", help="write the verdicts as a .npy bool mask")
    c.add_argument("--dask", action="store_true", help="run the chunks as Dask tasks on local threads (needs the dask extra)")
    c.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:port)")
    c.set_defaults(run=_run_check)

    r = sub.add_parser(
        "reach",
        help="can board A be turned into board B? (or --judge: the judge format on stdin)",
        description="Print 'reachable' or 'unreachable'. A and B are files or boards written inline "
        "('1 2 3 4 5 6 7 8 0', rows may be separated by '/'). With --judge, read the judge format "
        "(repeated: n, then two n x n grids) from FILE or standard input and print TAK or NIE per case.",
    )
    r.add_argument("a", nargs="?", metavar="A")
    r.add_argument("b", nargs="?", metavar="B")
    r.add_argument("--judge", action="store_true", help="judge format on standard input (or file A)")
    r.add_argument("--shape", type=_shape_arg, help="board shape MxN (default: square)")
    r.set_defaults(run=_run_reach)

    g = sub.add_parser(
        "generate",
        help="write random boards that can reach the goal (or scrambles) to a file",
        description="Random boards drawn uniformly from those that can reach the goal, or random walks "
        "from it (--scramble K). The same --seed gives the same file on any machine and thread count.",
    )
    g.add_argument("--shape", type=_shape_arg, required=True, help="board shape MxN, e.g. 4x4")
    g.add_argument("--count", type=_nonneg_int, required=True, help="number of boards")
    g.add_argument("--seed", type=_seed_arg, default=None, help="seed (default: fresh randomness)")
    g.add_argument("--scramble", type=_nonneg_int, metavar="K", help="random walks of K moves from the goal instead")
    g.add_argument("--permutations", action="store_true", help="plain random permutations (about half unsolvable)")
    g.add_argument("--goal", metavar="FILE", help="goal board (default: 1..mn-1 row-major, blank last)")
    g.add_argument("--out", required=True, metavar="FILE", help="output: .npy, or text ('-' for standard output)")
    g.add_argument("--format", choices=["npy", "lines", "grids"], help="output format (default: from the name)")
    g.add_argument("--progress", action="store_true", help="always show the progress bar")
    g.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    g.add_argument("--dask", action="store_true", help="run the chunks as Dask tasks on local threads (needs the dask extra)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://host:port)")
    g.set_defaults(run=_run_generate)

    d = sub.add_parser(
        "demo",
        help="a short report on built-in data: generate, check, judge (a few seconds)",
        description="Generate random solvable boards and random permutations, check them all, and print "
        "throughput and the share solvable.",
    )
    d.add_argument("--count", type=_nonneg_int, default=1_000_000, help="boards of each kind (default 1,000,000)")
    d.add_argument("--shape", type=_shape_arg, default=(4, 4), help="board shape (default 4x4)")
    d.add_argument("--seed", type=_seed_arg, default=2024, help="seed (default 2024)")
    d.set_defaults(run=_run_demo)

    for mod_name in OPTIONAL_SUBCOMMANDS:
        try:
            mod = importlib.import_module(f".{mod_name}", __package__)
        except ImportError:  # not in this build (or its dependencies are missing)
            continue
        mod.add_parser(sub)  # run(args) is found by name if it sets no default
    return p


def _one_line(exc) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


_BLOCKED = ("scipy.linalg", "cffi")


def _quick_start(argv):
    """Trim start-up for the judge path, where start-up is part of the score.

    Numba's first compile or cache load imports its linear-algebra support,
    which probes ``scipy.linalg`` for BLAS, and its CFFI support (a few
    tenths of a second together).  The judge path uses neither, so those
    probes are made to fail fast in this process; the block is lifted before
    returning.  Returns the names blocked.
    """
    if "--judge" not in argv:
        return []
    blocked = [m for m in _BLOCKED if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None  # type: ignore[assignment]
    return blocked


def main(argv=None) -> int:
    """Entry point of the ``fastpuzzle`` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    blocked = _quick_start(argv)
    try:
        return _main(argv)
    finally:
        for m in blocked:
            if m in sys.modules and sys.modules[m] is None:
                del sys.modules[m]


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    run = getattr(args, "run", None)
    if run is None:  # an optional subcommand that set no default: its module's run()
        run = importlib.import_module(f".cli_{args.command}", __package__).run
    from .boards import BoardError
    from .textio import BoardFileError

    try:
        return int(run(args) or 0)
    except (CLIError, BoardFileError, BoardError, ValueError, TypeError) as e:
        print(f"fastpuzzle {args.command}: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            try:  # the reader went away (e.g. `| head`): stop quietly
                sys.stdout = open(os.devnull, "w")
            except OSError:
                pass
            return 0
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"fastpuzzle {args.command}: error: {where}{e.strerror or _one_line(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"fastpuzzle {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
