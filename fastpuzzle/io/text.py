"""Text board files: one board per line, or grids separated by blank lines.

Numbers are separated by spaces, tabs or commas; ``#`` starts a comment that
runs to the end of the line.  Text is tokenised by a compiled kernel over the
raw bytes (no Python loop per number), so tens of megabytes parse in a
fraction of a second; a stream is parsed in blocks cut at line ends (grids:
at blank lines), so a huge text needs bounded memory.  Every problem is a
:class:`~fastpuzzle.errors.BoardFileError` with the line and board.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._jit import jit
from ..boards import BoardError, as_boards
from ..errors import NoBoards, OptionError
from .errors import BoardFileError, check_file_allocation, parse_shape
from .source import NOT_BOARD_TEXT, strip_bom

__all__ = ["parse_text", "read_text_boards", "iter_text_boards", "validate_boards", "TEXT_BLOCK_BYTES",
           "scramble_layout", "looks_like_scramble"]


_ERR_NONE, _ERR_CHAR, _ERR_BIG, _ERR_NEGATIVE_ZERO = 0, 1, 2, 3


@jit
def _tokenize(buf, vals, line_counts):
    """Parse integers from the bytes ``buf``.

    Writes the numbers to ``vals`` and, per line, how many numbers it holds
    to ``line_counts`` (-1 for a line holding only a comment).  Returns
    ``(n_vals, n_lines, err, err_line, err_col)``; ``err`` is 0 (fine),
    1 (unexpected character), 2 (number too large) or 3 (``-0``: a sign on zero
    would read as the blank).
    """
    L = buf.shape[0]
    nv = 0
    line = 0
    cnt = 0
    comment = False
    line_start = 0
    i = 0
    while i < L:
        c = buf[i]
        if comment:
            if c == 10:
                line_counts[line] = cnt if cnt > 0 else -1
                line += 1
                cnt = 0
                comment = False
                line_start = i + 1
            i += 1
            continue
        if (c >= 48 and c <= 57) or c == 45:
            neg = c == 45
            if neg:
                i += 1
                if i >= L or buf[i] < 48 or buf[i] > 57:
                    return nv, line, _ERR_CHAR, line, i - 1 - line_start  # a lone '-'

            v = 0
            nd = 0
            while i < L:
                d = buf[i]
                if d < 48 or d > 57:
                    break
                v = v * 10 + (d - 48)
                nd += 1
                if nd > 18:
                    return nv, line, _ERR_BIG, line, i - line_start
                i += 1
            if i < L:
                d = buf[i]
                if not (d == 32 or d == 10 or d == 9 or d == 13 or d == 44 or d == 35):
                    return nv, line, _ERR_CHAR, line, i - line_start
            if neg and v == 0:
                return nv, line, _ERR_NEGATIVE_ZERO, line, i - nd - 1 - line_start
            vals[nv] = -v if neg else v
            nv += 1
            cnt += 1
            continue
        if c == 10:
            line_counts[line] = cnt
            line += 1
            cnt = 0
            line_start = i + 1
        elif c == 35:
            comment = True
        elif not (c == 32 or c == 9 or c == 13 or c == 44):
            return nv, line, _ERR_CHAR, line, i - line_start
        i += 1
    if L > 0 and buf[L - 1] != 10:
        line_counts[line] = cnt if (cnt > 0 or not comment) else -1
        line += 1
    return nv, line, _ERR_NONE, -1, -1


def _describe_byte(data, pos):
    b = data[pos] if pos < len(data) else None
    if b is None:
        return "end of input"
    ch = chr(b)
    if b >= 0x80:  # a character beyond ASCII (a digit of another script, say): named when UTF-8 spells one
        for size in (2, 3, 4):
            try:
                ch = bytes(data[pos : pos + size]).decode("utf-8")
            except UnicodeDecodeError:
                continue
            return f"{ch!r} (U+{ord(ch):04X})"
    return repr(ch) if 32 <= b < 127 else f"byte 0x{b:02x}"


def parse_text(data, name="<text>", line0=0):
    """Numbers and per-line counts of a text buffer (``line0``: lines before it,
    for error messages).

    Returns
    -------
    vals : ndarray of int64
        Every number, in order.
    counts : ndarray of int64
        Numbers on each physical line (-1: comment-only line).

    Examples
    --------
    >>> vals, counts = parse_text(b"# two lines\\n1 2, 3\\n\\n4\\n")
    >>> vals.tolist(), counts.tolist()
    ([1, 2, 3, 4], [-1, 3, 0, 1])
    """
    buf = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    n_lines = int(np.count_nonzero(buf == 10)) + 1
    # a number takes at least two bytes (a digit and a separator)
    check_file_allocation(8 * (buf.shape[0] // 2 + 1 + n_lines), "the numbers of this text", name)
    vals = np.empty(buf.shape[0] // 2 + 1, np.int64)  # untouched pages cost nothing
    counts = np.empty(n_lines, np.int64)
    nv, nl, err, eline, ecol = _tokenize(buf, vals, counts)
    if err != _ERR_NONE:
        line_start = 0 if eline == 0 else int(np.flatnonzero(buf == 10)[eline - 1]) + 1
        if err == _ERR_BIG:
            raise BoardFileError(name, "number too large", line=line0 + eline + 1, column=ecol + 1)
        if err == _ERR_NEGATIVE_ZERO:
            raise BoardFileError(name, "'-0' is not a tile (a signed zero is not the blank)", line=line0 + eline + 1,
                                 column=ecol + 1)  # fmt: skip
        signed = _signed_token(buf, line_start + ecol)
        if signed is not None:  # '+1': a tile carries no sign, and the token is what to fix
            raise BoardFileError(name, f"{signed!r} is not a tile (a tile is written without a sign)",
                                 line=line0 + eline + 1, column=ecol + 1)  # fmt: skip
        what = _describe_byte(buf, line_start + ecol)
        raise BoardFileError(
            name, f"unexpected {what} (expected integers separated by spaces)", line=line0 + eline + 1, column=ecol + 1
        )
    return vals[:nv], counts[:nl]


def _signed_token(buf, pos):
    """The text of ``+digits`` at ``pos`` (at most 24 characters), or ``None``."""
    if buf[pos] != ord("+") or pos + 1 >= buf.shape[0] or not 48 <= buf[pos + 1] <= 57:
        return None
    end = pos + 1
    while end < buf.shape[0] and end - pos < 24 and 48 <= buf[end] <= 57:
        end += 1
    return bytes(buf[pos:end]).decode("ascii")


def validate_boards(batch, name, start=0, lines=None, check=True):
    """``as_boards`` with errors that name the file, the board's index in it and its line."""
    try:
        out, _ = as_boards(batch, check=check, label=name)
        return out
    except BoardError as error:
        i = 0 if error.index is None else error.index
        line = None if lines is None else int(lines[i])
        raise BoardFileError(name, error.reason, line=line, index=start + i) from None
    except TypeError as error:
        raise BoardFileError(name, str(error).removeprefix(f"{name} ")) from None


def _lines_layout(vals, counts, name, shape, line0=0, board0=0):
    """Boards of the one-board-per-line format: (boards, line of each board)."""
    lineno = np.flatnonzero(counts > 0) + 1 + line0
    c = counts[counts > 0]
    if c.size == 0:
        if shape is not None:
            return vals.reshape(0, *shape), lineno
        raise NoBoards(name, "no boards found")
    if shape is None:
        N = int(c[0])
        side = math.isqrt(N)
        if side * side != N or side < 2:
            raise BoardFileError(
                name, f"{N} numbers is not a square board; give the shape (--shape MxN)", line=int(lineno[0])
            )
        m = n = side
    else:
        m, n = shape
        N = m * n
    bad = np.flatnonzero(c != N)
    if bad.size:
        i = int(bad[0])
        raise BoardFileError(name, f"{int(c[i])} numbers, expected {N} for a {m}x{n} board", line=int(lineno[i]))
    return vals.reshape(c.size, m, n), lineno


def _grids_layout(vals, counts, name, shape, line0=0, board0=0):
    """Boards of the grid format (rows of a board on consecutive lines)."""
    keep = counts >= 0  # drop comment-only lines
    lineno = np.flatnonzero(keep) + 1 + line0
    c = counts[keep]
    nonblank = c > 0
    if not nonblank.any():
        if shape is not None:
            return vals.reshape(0, *shape), lineno[:0]
        raise NoBoards(name, "no boards found")
    starts = nonblank & ~np.concatenate(([False], nonblank[:-1]))
    ends = nonblank & ~np.concatenate((nonblank[1:], [False]))
    s_idx = np.flatnonzero(starts)
    e_idx = np.flatnonzero(ends)
    rows = e_idx - s_idx + 1
    if shape is None:
        m, n = int(rows[0]), int(c[s_idx[0]])
    else:
        m, n = shape
    bad_line = np.flatnonzero(nonblank & (c != n))
    if bad_line.size:
        i = int(bad_line[0])
        raise BoardFileError(
            name, f"{int(c[i])} numbers, expected {n} per row of a {m}x{n} board", line=int(lineno[i])
        )
    bad_block = np.flatnonzero(rows != m)
    if bad_block.size:
        k = int(bad_block[0])
        raise BoardFileError(
            name, f"is a grid of {int(rows[k])} rows, expected {m} for a {m}x{n} board "
            "(boards are separated by blank lines)", line=int(lineno[s_idx[k]]), index=board0 + k,
        )
    return vals.reshape(s_idx.size, m, n), lineno[s_idx]


def _detect_text_format(vals, counts, shape):
    """``"lines"`` or ``"grids"`` for a text buffer."""
    nz = np.flatnonzero(counts > 0)
    if nz.size == 0:
        return "lines"
    first = int(counts[nz[0]])
    if shape is not None:
        m, n = shape
        return "grids" if (m > 1 and first == n) else "lines"
    # the first block of consecutive non-empty lines
    k = 1
    while nz[0] + k < counts.size and counts[nz[0] + k] > 0:
        k += 1
    if k > 1 and (counts[nz[0] : nz[0] + k] == first).all():
        block = vals[: k * first]
        # a grid holds 0..k*first-1; k boards of a line each hold only 0..first-1, so a larger
        # value means rows of a grid (one too large for this prefix to hold whole)
        if block.size and int(block.max()) >= first:
            return "grids"
    return "lines"


_SLASH, _NEWLINE = ord("/"), ord("\n")


_DIGIT = re.compile(rb"[0-9]")


def looks_like_scramble(data) -> bool:
    """True when the first line holding a number also holds a slash.

    Examples
    --------
    >>> looks_like_scramble(b"# a comment / here\\n1 2/3 0\\n"), looks_like_scramble(b"1 2 3 0\\n")
    (True, False)
    """
    size, window = len(data), 4096
    while True:  # a window that grows until it holds the first line with a number (one row may be long)
        lines = bytes(data[:window]).split(b"\n")
        for line in lines if window >= size else lines[:-1]:  # whole lines only
            body = line.split(b"#", 1)[0]
            if _DIGIT.search(body):
                return b"/" in body
        if window >= size:
            return False
        window *= 4


def scramble_layout(data, name="<text>", shape=None, line0=0):
    """``(boards, lines)`` of scramble text: boards ``(B, m, n)`` (not yet
    validated as permutations) and the 1-based line of each.

    A slash outside a comment ends a row; every row of a line holding one needs a number (a
    slash at either end of a line, or two with nothing between, is refused with its line and
    column).  Errors name the line and column of the text as written.

    Examples
    --------
    >>> boards, lines = scramble_layout(b"1 2/3 0\\n\\n0 1/3 2 # a/b\\n")
    >>> boards.tolist(), lines.tolist()
    ([[[1, 2], [3, 0]], [[0, 1], [3, 2]]], [1, 3])
    >>> scramble_layout(b"1 2/3 0/\\n")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.BoardFileError: <text>: line 1, column 8: row 3 is empty (a '/' ends the line, starts it, or follows another)
    """
    buf = np.array(np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data, np.uint8)
    idx = np.arange(buf.shape[0])
    newline = buf == _NEWLINE
    last_newline = np.maximum.accumulate(np.where(newline, idx, -1)) if buf.size else idx
    in_comment = np.maximum.accumulate(np.where(buf == ord("#"), idx, -1)) > last_newline if buf.size else newline
    ends = np.flatnonzero(((buf == _SLASH) & ~in_comment) | newline)
    slash_end = buf[ends] == _SLASH
    buf[ends[slash_end]] = _NEWLINE  # a slash ends a row: the tokeniser then counts numbers per row
    starts = np.concatenate([[0], ends + 1])  # byte where each segment (row) begins
    try:
        vals, counts = parse_text(buf, name, 0)
    except BoardFileError as error:  # its line and column count rows: say where in the text as written
        if error.line is None or error.column is None:
            raise
        raise _at(name, error.reason, buf, newline, int(starts[error.line - 1]) + error.column - 1, line0) from None
    if buf.size and slash_end.size and slash_end[-1] and ends[-1] == buf.size - 1:
        counts = np.append(counts, 0)  # the text ends with a slash: an empty last row
    # segment s ends at ends[s]; its physical line is the number of real line ends before it
    line_of = np.concatenate([[0], np.cumsum(~slash_end)])[: len(counts)]
    has_slash = np.bincount(line_of[:-1][slash_end[: len(counts) - 1]], minlength=int(line_of[-1]) + 1) > 0 \
        if len(counts) > 1 else np.zeros(1, bool)  # fmt: skip
    empty = np.flatnonzero((counts <= 0) & has_slash[line_of])
    if empty.size:
        s = int(empty[0])
        row = s - int(np.searchsorted(line_of, line_of[s]))
        slash = int(ends[s - 1] if s and slash_end[s - 1] else ends[s])  # the '/' that opens (or ends) the empty row
        raise _at(name, f"row {row + 1} is empty (a '/' ends the line, starts it, or follows another)", buf, newline,
                  slash, line0)  # fmt: skip
    rows_per_line = np.bincount(line_of, minlength=int(line_of[-1]) + 1 if len(line_of) else 1)
    has_numbers = np.bincount(line_of, weights=(counts > 0), minlength=len(rows_per_line)) > 0
    board_lines = np.flatnonzero(has_numbers)
    if board_lines.size == 0:
        raise NoBoards(name, "no boards found")
    want = parse_shape(shape) if shape is not None else None
    first = board_lines[0]
    m = int(rows_per_line[first]) if want is None else want[0]
    n = int(counts[line_of == first][0]) if want is None else want[1]
    seg_counts = counts[np.isin(line_of, board_lines)]
    seg_lines = line_of[np.isin(line_of, board_lines)]
    bad_rows = rows_per_line[board_lines] != m
    wrong = np.flatnonzero(seg_counts != n)
    if bad_rows.any() or wrong.size:
        line = int(board_lines[np.flatnonzero(bad_rows)[0]]) if bad_rows.any() else int(seg_lines[wrong[0]])
        if wrong.size and bad_rows.any():
            line = min(line, int(seg_lines[wrong[0]]))
        got = ", ".join(str(int(c)) for c in counts[line_of == line])
        raise BoardFileError(name, f"a scramble line must hold {m} rows of {n} numbers separated by '/' "
                             f"(its rows hold {got})", line=line0 + line + 1)  # fmt: skip
    if m * n < 2:
        raise BoardFileError(name, f"a board needs at least 2 cells, got {m}x{n}", line=line0 + int(first) + 1)
    return vals.reshape(-1, m, n), board_lines.astype(np.int64) + 1 + line0


def _at(name, reason, buf, newline, pos, line0):
    """The error ``reason`` at byte ``pos`` of the scramble text, as its line and column."""
    line = int(np.count_nonzero(newline[:pos]))
    start = int(np.flatnonzero(newline[:pos])[-1]) + 1 if line else 0
    return BoardFileError(name, reason, line=line0 + line + 1, column=pos - start + 1)


def read_text_boards(data, name="<text>", shape=None, fmt="auto", check=True):
    """Boards ``(B, m, n)`` and the line of each board, from text bytes.

    Examples
    --------
    >>> boards, lines = read_text_boards(b"# 2x2\\n1 2 3 0\\n\\n0 1 3 2\\n")
    >>> boards.shape, lines.tolist()
    ((2, 2, 2), [2, 4])
    """
    data = strip_bom(data)
    boards, lines, _, _ = _text_block(data, name, shape, fmt, check)
    return boards, lines


def _text_block(data, name, shape, fmt, check, line0=0, board0=0):
    """Boards of one block of text; also returns the layout and shape found,
    so later blocks of the same file are read the same way."""
    if fmt not in ("auto", "lines", "grids", "scramble"):
        raise OptionError("fmt", fmt, "must be 'auto', 'lines', 'grids' or 'scramble' (the text format)")
    if shape is not None:
        shape = parse_shape(shape)
    if fmt == "scramble" or (fmt == "auto" and looks_like_scramble(data)):
        boards, lines = scramble_layout(data, name, shape, line0)
        boards = validate_boards(boards, name, start=board0, lines=lines, check=check)
        return boards, lines, "scramble", boards.shape[1:]
    vals, counts = parse_text(data, name, line0)
    if fmt == "auto":
        fmt = _detect_text_format(vals, counts, shape)
    layout = _lines_layout if fmt == "lines" else _grids_layout
    boards, lines = layout(vals, counts, name, shape, line0, board0)
    boards = validate_boards(boards, name, start=board0, lines=lines, check=check)
    return boards, lines, fmt, boards.shape[1:]


#: Text is parsed in blocks of about this many bytes (cut at a line end, or
#: at a blank line for grids), so a huge text file needs bounded memory.
TEXT_BLOCK_BYTES = 1 << 26


def _read_more(f, size, name):
    try:
        return f.read(size)
    except OSError as error:
        raise BoardFileError(name, f"cannot read: {(error.strerror or str(error)).lower()}") from None


def iter_text_boards(f, head, name, shape, fmt, check, block_bytes=TEXT_BLOCK_BYTES):
    """``(start, boards)`` from a text stream whose first bytes ``head`` were
    already read, block by block."""
    if block_bytes is None or isinstance(block_bytes, bool) or not isinstance(block_bytes, int) or block_bytes < 1:
        raise OptionError("text_block_bytes", block_bytes, "must be a whole number >= 1")
    pending = bytearray(strip_bom(head))
    step = min(block_bytes, 1 << 20)  # a read of n bytes allocates n first, however short the file
    eof = False
    line0 = board0 = 0
    while True:
        while not eof and len(pending) < block_bytes:
            more = _read_more(f, step, name)
            if not more:
                eof = True
            pending += more
        if fmt == "auto" and not eof:
            # settle the layout on a prefix, so the first cut already knows it
            # on a prefix that holds the first group of lines whole (a 1000x1000 grid is 4.9 MB)
            lead = len(pending) - len(pending.lstrip())
            gap = [i for i in (pending.find(b"\n\n", lead), pending.find(b"\n\r\n", lead)) if i >= 0]
            prefix = pending[: max(1 << 20, block_bytes // 64, min(gap, default=-2) + 2)]
            prefix = prefix[: prefix.rfind(b"\n") + 1]
            if looks_like_scramble(prefix):
                fmt = "scramble"
            else:
                vals, counts = parse_text(prefix, name)
                fmt = _detect_text_format(vals, counts, parse_shape(shape) if shape is not None else None)
        if eof:
            block, pending = pending, bytearray()
        else:
            if fmt == "grids":  # cut after the last blank line
                cut = max(pending.rfind(b"\n\n"), pending.rfind(b"\n\r\n"))
                cut = pending.index(b"\n", cut + 1) + 1 if cut >= 0 else 0
            else:  # cut after the last line end
                cut = pending.rfind(b"\n") + 1
            if cut <= 0:  # no cut point yet (a very long board): read on, unless it is no board text at all
                bad = None if b"#" in pending else NOT_BOARD_TEXT.search(pending)
                if bad is not None:  # e.g. /dev/zero: refused at the byte, not buffered without end
                    _text_block(bytes(pending[: bad.end()]), name, shape, fmt, check, line0, board0)
                    raise BoardFileError(name, f"byte {bad.group()!r} is not part of board text", line=line0 + 1)
                more = _read_more(f, step, name)
                eof = not more
                pending += more
                continue
            block, pending = pending[:cut], pending[cut:]
        try:
            boards, _, fmt, shape = _text_block(block, name, shape, fmt, check, line0, board0)
        except NoBoards:
            if eof and board0 == 0:
                raise
            boards = None
        if boards is not None and boards.shape[0]:
            yield board0, boards
            board0 += boards.shape[0]
        line0 += block.count(b"\n")
        if eof:
            return
