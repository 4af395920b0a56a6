"""The scramble format of speedsolvers: one board per line, rows separated by slashes.

``1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0`` is the solved 15-puzzle.  The
shape is read from the line itself (rows = slashes + 1), so a file needs no
``--shape``.  The reader (:func:`~fastpuzzle.io.text.scramble_layout`, reached from every reader
of :mod:`fastpuzzle.io` with ``fmt="scramble"``, or ``"auto"`` when the first
board line holds a slash) uses the compiled tokeniser with
the slashes read as row ends; the writer is :func:`format_scramble`, behind
``write_boards(..., fmt="scramble")``.
"""

from __future__ import annotations

import numpy as np

from .. import options
from ..boards import as_boards
from ..errors import OptionTypeError
from .text import scramble_layout, validate_boards

__all__ = ["parse_scramble", "format_scramble"]

def parse_scramble(text, *, check=True) -> np.ndarray:
    """A board (one line) or a batch (several lines) from the slash-separated scramble format.

    Parameters
    ----------
    text : str
        ``"1 2 3/4 5 6/7 8 0"``: rows separated by ``/``, numbers by spaces
        (or tabs, commas); one board per line (``#`` starts a comment, whose
        slashes end no row).  Every row holds a number: a slash at either end
        of a line, or two with nothing between, is refused, as are ``-0``,
        signs, and digits beyond ASCII, each with its line and column, as the
        file reader (``fmt="scramble"``) refuses them.
    check : bool
        Validate the boards (permutations of ``0 .. mn-1``).

    Returns
    -------
    ndarray, shape (m, n) for one line, else (B, m, n)

    Examples
    --------
    >>> parse_scramble("1 2 3/4 5 6/7 8 0")
    array([[1, 2, 3],
           [4, 5, 6],
           [7, 8, 0]], dtype=uint8)
    >>> parse_scramble("1 2 3/4 5/6 7 8 0")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.BoardFileError: scramble: line 1: a scramble line must hold 3 rows of 3 numbers separated by '/' (its rows hold 3, 2, 4)
    >>> parse_scramble("1 2/3 0/")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.BoardFileError: scramble: line 1, column 8: row 3 is empty (a '/' ends the line, starts it, or follows another)
    """
    check = options.flag(check, "check")
    if not isinstance(text, str):
        raise OptionTypeError("text", type(text).__name__, "must be a scramble as text (str)")
    # the reader's own bytes: a character beyond ASCII is refused there, with its line and column;
    # a leading byte order mark is taken, as by every reader
    boards, lines = scramble_layout(text.removeprefix("\ufeff").encode("utf-8", "surrogatepass"), "scramble")
    boards = validate_boards(boards, "scramble", lines=lines, check=check) if check else boards
    return boards[0] if boards.shape[0] == 1 else boards


def format_scramble(board) -> str:
    """The scramble text of one board, or of a batch (one line each).

    Examples
    --------
    >>> format_scramble([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
    '1 2 3/4 5 6/7 8 0'
    >>> print(format_scramble([[[1, 2], [3, 0]], [[0, 1], [3, 2]]]))
    1 2/3 0
    0 1/3 2
    """
    batch, _ = as_boards(board, label="board")
    return "\n".join("/".join(" ".join(map(str, row)) for row in b) for b in batch.tolist())
