"""What every subcommand shares: the one error class, argument types, the
one way to read a board argument and to check an output path.

Stdlib only at import time: building the parser loads no kernel.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import options

__all__ = [
    "CLIError", "EXIT_BAD_INPUT", "shape_arg", "count_arg", "positive_arg", "seed_arg", "seconds_arg",
    "output_arg", "refuse_overwrite", "same_file", "progress_bar", "want_progress", "load_board_arg", "one_board", "input_name", "dask_module",
]

EXIT_BAD_INPUT = 2

#: Largest count, node budget or seed the command line takes (the kernels count in int64).
MAX_WHOLE = options.MAX_WHOLE


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def shape_arg(text):
    """``--shape MxN`` through the package's one shape parser."""
    from ..io.errors import parse_shape

    try:
        return parse_shape(text)
    except (ValueError, TypeError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _whole(text, least):
    cleaned = str(text).strip().replace("_", "").replace(",", "")
    if not (cleaned.lstrip("-").isascii() and cleaned.lstrip("-").isdigit()) or len(cleaned) > 30:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return _checked(options.whole, int(cleaned), least=least)


def notice(message: str) -> None:
    """A line of news on standard error (what was written, how fast): a closed or full standard
    error does not turn finished work into a failure."""
    try:
        print(message, file=sys.stderr)
    except (OSError, ValueError):
        pass


def _checked(check, value, **rule):
    """``check(value, ...)`` from :mod:`fastpuzzle.options`, its refusal in argparse's words."""
    try:
        return check(value, "value", **rule)
    except (ValueError, TypeError) as error:
        raise argparse.ArgumentTypeError(f"expected {error.reason.removeprefix('must be ')}, got {value}") from None


def count_arg(text):
    """A whole number >= 0 (``1_000`` and ``1,000`` allowed)."""
    return _whole(text, 0)


def positive_arg(text):
    """A whole number >= 1."""
    return _whole(text, 1)


def seed_arg(text):
    """A seed: a whole number >= 0."""
    return _whole(text, 0)


def seconds_arg(text):
    """A finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    return _checked(options.seconds, value)


def output_arg(text):
    """An output path: refused at once when empty or a directory (the writer refuses the rest)."""
    if text == "":
        raise argparse.ArgumentTypeError("the output path is empty; give a file name or '-' for standard output")
    if text != "-" and os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name")
    return text


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file: through symbolic or hard links when both
    exist, by their resolved names when one is still to be made."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet), or is no path at all (a board written inline)
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_overwrite(option, out, *inputs):
    """Refuse an output ``out`` (given as ``option``) that names one of ``inputs`` (through any
    link, hard or symbolic): writing it would destroy what the command reads.  ``None``, ``-``
    (standard streams) and outputs that are no regular file (devices, FIFOs) are skipped.

    Examples
    --------
    >>> refuse_overwrite("--out", "-", "boards.txt")
    >>> try:
    ...     refuse_overwrite("--out", "a.txt", "./a.txt")
    ... except CLIError as error:
    ...     print(error)
    --out a.txt is also the input ./a.txt: writing it would destroy what is read; give another name
    """
    if out is None or out == "-" or (os.path.exists(out) and not os.path.isfile(out)):
        return  # a device or FIFO is written through: it holds no file to destroy (/dev/stdin and /dev/stdout may be one tty)
    for source in inputs:
        if source is not None and source != "-" and same_file(out, source):
            raise CLIError(f"{option} {out} is also the input {source}: writing it would destroy what is read; "
                           "give another name")  # fmt: skip


def refuse_stdin_twice(*inputs) -> None:
    """Standard input can be read once: two of the ``(what, value)`` inputs given as ``-`` are
    refused, naming both.

    >>> refuse_stdin_twice(("FILE", "-"), ("--goal", "a.txt"))
    """
    named = [what for what, value in inputs if value == "-"]
    if len(named) > 1:
        raise CLIError(f"{' and '.join(named)} both read standard input (-), which can be read once; "
                       "give all but one as a file")  # fmt: skip


def input_name(source) -> str:
    return "<stdin>" if source == "-" else source


def want_progress(args, work_cells):
    """A progress bar when asked (``--progress``), or for long work on a terminal."""
    if getattr(args, "no_progress", False) or getattr(args, "quiet", False):
        return False
    if getattr(args, "progress", False):
        return True
    return sys.stderr is not None and sys.stderr.isatty() and work_cells >= (1 << 26)


class _NoBar:
    def update(self, k):
        pass

    def close(self):
        pass


def progress_bar(total, desc, enabled, unit=" boards"):
    """A tqdm bar on standard error, or an object that does nothing (tqdm is imported only when shown)."""
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr, leave=False)


def load_board_arg(text, shape, what, shape_from="--shape"):
    """``(boards, lines, name)`` of a board argument: a file, ``-`` or numbers written
    inline (``"1 2 3 4 5 6 7 8 0"``, rows may be separated by ``/``, ``;`` or ``,``);
    ``shape_from`` says where ``shape`` came from, for the messages."""
    from ..io.read import load_boards_and_lines
    from ..io.text import read_text_boards

    written_inline = any(ch.isdigit() for ch in text) and set(text) <= set("0123456789 \t/;,-+")
    if text == "-" or os.path.lexists(text) or not written_inline:
        return load_boards_and_lines(text, shape=shape, name=f"{what} {input_name(text)}")
    name = f"{what} {text!r}"
    rows = [r.replace(",", " ").split() for r in text.replace(";", "/").split("/")]
    if len(rows) > 1:  # rows separated by '/' or ';': they give the shape
        if any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
            raise CLIError(f"{name}: rows of {', '.join(str(len(r)) for r in rows)} numbers; every row must "
                           "have the same length")  # fmt: skip
        row_shape = (len(rows), len(rows[0]))
        if shape is not None and tuple(shape) != row_shape:
            raise CLIError(f"{name}: its rows make a {row_shape[0]}x{row_shape[1]} board, {shape_from} says "
                           f"{shape[0]}x{shape[1]}")  # fmt: skip
        shape = row_shape
    inline = " ".join(" ".join(r) for r in rows)
    boards, lines = read_text_boards(inline.encode(), name, shape, "lines")
    return boards, lines, name


def one_board(boards, name, shape=None):
    """The one board of ``boards`` (a file or inline argument that must hold exactly one)."""
    if boards.shape[0] != 1:
        raise CLIError(f"{name}: must hold one board, it holds {boards.shape[0]}")
    if shape is not None and boards.shape[1:] != tuple(shape):
        raise CLIError(f"{name}: holds a {boards.shape[1]}x{boards.shape[2]} board, expected {shape[0]}x{shape[1]}")
    return boards[0]


def dask_module():
    """:mod:`fastpuzzle.distributed`, or a one-line error when Dask (an optional extra) is missing."""
    try:
        from .. import distributed
    except ImportError as error:
        raise CLIError(f"--dask/--scheduler need the dask extra (pip install 'fastpuzzle[dask]'): {error}") from None
    return distributed
