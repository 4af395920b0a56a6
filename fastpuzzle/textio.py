"""Board files: ``.npy`` and plain text, read fast and written safely.

Formats
-------
``.npy``
    A ``(B, m, n)`` (or one ``(m, n)``) integer array.  :func:`iter_boards`
    reads it in chunks into a reused buffer, so a file larger than memory
    streams with bounded resident memory; :func:`load_boards` memory-maps it.
lines
    One board per line, ``m*n`` numbers in row-major order.  The shape comes
    from ``shape=(m, n)`` or, without it, a square board is inferred.
grids
    Each board as ``m`` lines of ``n`` numbers; boards separated by blank
    lines.

Numbers are separated by spaces, tabs or commas; ``#`` starts a comment that
runs to the end of the line.  Text is tokenised by a compiled kernel over the
raw bytes (no Python loop per number), so tens of megabytes parse in a
fraction of a second.

The judge format (:func:`judge`) is the input of the classic reachability
problem: repeated until the end of input, ``n`` then two ``n x n`` grids; the
answer is one line ``TAK`` (the first grid can be turned into the second) or
``NIE`` per case.

Every problem raises :class:`BoardFileError` (a ``ValueError``) whose message
names the file, the line and/or board index, and what is wrong.  Writers
write to a temporary file beside the target and rename it on success, so an
interrupted or failed write never leaves a half-written file.
"""

from __future__ import annotations

import io
import math
import os
import sys
import tempfile

import numpy as np

from ._jit import CHUNK_CELLS, jit
from .inversion_kernels import _invariant_tree, _popcount64, tree_levels
from .boards import BoardError, as_boards

__all__ = [
    "BoardFileError",
    "parse_text",
    "read_boards",
    "load_boards",
    "iter_boards",
    "count_boards",
    "write_boards",
    "NpyWriter",
    "TextWriter",
    "format_boards",
        "judge",
    "parse_shape",
]


class BoardFileError(ValueError):
    """A board file cannot be read: the message names file, line/board and problem."""


class _NoBoards(BoardFileError):
    """A text holds no board at all."""


def parse_shape(text) -> tuple[int, int]:
    """``"4x4"`` -> ``(4, 4)``; also accepts ``"4"`` (square) and tuples.

    Examples
    --------
    >>> parse_shape("3x5"), parse_shape("4"), parse_shape((2, 3))
    ((3, 5), (4, 4), (2, 3))
    """
    if isinstance(text, (tuple, list)):
        m, n = (int(v) for v in text)
    else:
        parts = str(text).lower().replace("*", "x").split("x")
        try:
            if len(parts) == 1:
                m = n = int(parts[0])
            elif len(parts) == 2:
                m, n = int(parts[0]), int(parts[1])
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"shape must look like MxN (for example 4x4), got {text!r}") from None
    if m < 1 or n < 1 or m * n < 2:
        raise ValueError(f"shape {m}x{n} is not a board: sides must be >= 1 with at least 2 cells")
    return m, n


# ---------------------------------------------------------------------------
# tokenising text
# ---------------------------------------------------------------------------

_ERR_NONE, _ERR_CHAR, _ERR_BIG = 0, 1, 2


@jit
def _tokenize(buf, vals, line_counts):
    """Parse integers from the bytes ``buf``.

    Writes the numbers to ``vals`` and, per line, how many numbers it holds
    to ``line_counts`` (-1 for a line holding only a comment).  Returns
    ``(n_vals, n_lines, err, err_line, err_col)``; ``err`` is 0 (fine),
    1 (unexpected character) or 2 (number too large).
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
            if not (line == 0 and i < 3 and (c == 0xEF or c == 0xBB or c == 0xBF)):  # UTF-8 byte order mark
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
    vals = np.empty(buf.shape[0] // 2 + 1, np.int64)  # untouched pages cost nothing
    counts = np.empty(n_lines, np.int64)
    nv, nl, err, eline, ecol = _tokenize(buf, vals, counts)
    if err != _ERR_NONE:
        line_start = 0 if eline == 0 else int(np.flatnonzero(buf == 10)[eline - 1]) + 1
        if err == _ERR_BIG:
            raise BoardFileError(f"{name}: line {line0 + eline + 1}, column {ecol + 1}: number too large")
        what = _describe_byte(buf, line_start + ecol)
        raise BoardFileError(
            f"{name}: line {line0 + eline + 1}, column {ecol + 1}: unexpected {what} "
            "(expected integers separated by spaces)"
        )
    return vals[:nv], counts[:nl]


# ---------------------------------------------------------------------------
# validation with file positions
# ---------------------------------------------------------------------------


def _first_bad_board(batch: np.ndarray) -> int:
    """Index of the first board that is not a permutation (slow path, errors only)."""
    B = batch.shape[0]
    N = batch.shape[1] * batch.shape[2]
    flat = batch.reshape(B, N)
    out_of_range = ((flat < 0) | (flat > N - 1)).any(axis=1)
    step = max(1, (1 << 22) // N)
    for s in range(0, B, step):
        part = flat[s : s + step]
        bad = out_of_range[s : s + step] | (np.sort(part, axis=1) != np.arange(N)).any(axis=1)
        hits = np.flatnonzero(bad)
        if hits.size:
            return s + int(hits[0])
    return -1


def _board_problem(board: np.ndarray) -> str:
    try:
        as_boards(board, label="x")
    except (BoardError, ValueError, TypeError) as e:
        msg = str(e)
        return msg[len("x: board ") :] if msg.startswith("x: board ") else msg
    return "invalid board"


def _validate(batch, name, start=0, lines=None, check=True):
    """``as_boards`` with errors that name the file, board index and line."""
    try:
        out, _ = as_boards(batch, check=check, label=name)
        return out
    except BoardError:
        i = _first_bad_board(np.asarray(batch))
        if i < 0:
            raise
        where = f"board {start + i}"
        if lines is not None:
            where = f"line {int(lines[i])}: board {start + i}"
        raise BoardFileError(f"{name}: {where} {_board_problem(np.asarray(batch)[i])}") from None
    except TypeError as e:
        raise BoardFileError(f"{name}: {e}") from None


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------


def _lines_layout(vals, counts, name, shape, line0=0, board0=0):
    """Boards of the one-board-per-line format: (boards, line of each board)."""
    lineno = np.flatnonzero(counts > 0) + 1 + line0
    c = counts[counts > 0]
    if c.size == 0:
        if shape is not None:
            return vals.reshape(0, *shape), lineno
        raise _NoBoards(f"{name}: no boards found")
    if shape is None:
        N = int(c[0])
        side = math.isqrt(N)
        if side * side != N or side < 2:
            raise BoardFileError(
                f"{name}: line {int(lineno[0])}: {N} numbers is not a square board; give the shape (--shape MxN)"
            )
        m = n = side
    else:
        m, n = shape
        N = m * n
    bad = np.flatnonzero(c != N)
    if bad.size:
        i = int(bad[0])
        raise BoardFileError(
            f"{name}: line {int(lineno[i])}: {int(c[i])} numbers, expected {N} for a {m}x{n} board"
        )
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
        raise _NoBoards(f"{name}: no boards found")
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
        raise BoardFileError(f"{name}: line {int(lineno[i])}: {int(c[i])} numbers, expected {n} per row of a {m}x{n} board")
    bad_block = np.flatnonzero(rows != m)
    if bad_block.size:
        k = int(bad_block[0])
        raise BoardFileError(
            f"{name}: line {int(lineno[s_idx[k]])}: board {board0 + k} is a grid of {int(rows[k])} rows, expected {m} "
            f"for a {m}x{n} board (boards are separated by blank lines)"
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
        # a grid holds 0..k*first-1; k boards of a line each hold only 0..first-1
        if block.size and int(block.max()) == k * first - 1:
            return "grids"
    return "lines"


def read_text_boards(data, name="<text>", shape=None, fmt="auto", check=True):
    """Boards ``(B, m, n)`` and the line of each board, from text bytes."""
    boards, lines, _, _ = _text_block(data, name, shape, fmt, check)
    return boards, lines


def _text_block(data, name, shape, fmt, check, line0=0, board0=0):
    """Boards of one block of text; also returns the layout and shape found,
    so later blocks of the same file are read the same way."""
    if fmt not in ("auto", "lines", "grids"):
        raise ValueError(f"text format must be 'auto', 'lines' or 'grids', got {fmt!r}")
    if shape is not None:
        shape = parse_shape(shape)
    vals, counts = parse_text(data, name, line0)
    if fmt == "auto":
        fmt = _detect_text_format(vals, counts, shape)
    layout = _lines_layout if fmt == "lines" else _grids_layout
    boards, lines = layout(vals, counts, name, shape, line0, board0)
    boards = _validate(boards, name, start=board0, lines=lines, check=check)
    return boards, lines, fmt, boards.shape[1:]


#: Text is parsed in blocks of about this many bytes (cut at a line end, or
#: at a blank line for grids), so a huge text file needs bounded memory.
TEXT_BLOCK_BYTES = 1 << 26


def _iter_text(f, head, name, shape, fmt, check, block_bytes):
    """``(start, boards)`` from a text stream, block by block."""
    pending = head
    eof = False
    line0 = board0 = 0
    while True:
        while not eof and len(pending) < block_bytes:
            more = f.read(block_bytes)
            if not more:
                eof = True
            pending += more
        if fmt == "auto" and not eof:
            # settle the layout on a prefix, so the first cut already knows it
            prefix = pending[: max(1 << 20, block_bytes // 64)]
            prefix = prefix[: prefix.rfind(b"\n") + 1]
            vals, counts = parse_text(prefix, name)
            fmt = _detect_text_format(vals, counts, parse_shape(shape) if shape is not None else None)
        if eof:
            block, pending = pending, b""
        else:
            if fmt == "grids":  # cut after the last blank line
                cut = max(pending.rfind(b"\n\n"), pending.rfind(b"\n\r\n"))
                cut = pending.index(b"\n", cut + 1) + 1 if cut >= 0 else 0
            else:  # cut after the last line end
                cut = pending.rfind(b"\n") + 1
            if cut <= 0:  # no cut point yet (a very long board): read on
                more = f.read(block_bytes)
                eof = not more
                pending += more
                continue
            block, pending = pending[:cut], pending[cut:]
        try:
            boards, _, fmt, shape = _text_block(block, name, shape, fmt, check, line0, board0)
        except _NoBoards:
            if eof and board0 == 0:
                raise
            boards = None
        if boards is not None and boards.shape[0]:
            yield board0, boards
            board0 += boards.shape[0]
        line0 += block.count(b"\n")
        if eof:
            return


def _is_npy_name(path) -> bool:
    return str(path).lower().endswith(".npy")


def _read_all(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def load_boards(path, shape=None, fmt="auto", check=True):
    """All boards of a file as ``(B, m, n)``.

    ``.npy`` files are memory-mapped (nothing is read until used) and not
    validated unless ``check``; text is parsed and validated.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> from fastpuzzle.generate import random_solvable
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "b.txt")
    >>> write_boards(p, random_solvable(3, 3, count=4, seed=1))
    >>> load_boards(p).shape
    (4, 3, 3)
    """
    if path != "-" and _is_npy_name(path):
        try:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as e:
            raise BoardFileError(f"{path}: cannot read as .npy: {e}") from None
        if arr.ndim == 2:
            arr = arr[None]
        if arr.ndim != 3:
            raise BoardFileError(f"{path}: holds an array of shape {arr.shape}; expected (B, m, n) or (m, n)")
        return _validate(arr, str(path), check=check) if check else arr
    data = _read_all(path)
    if data[:6] == b"\x93NUMPY":
        return np.concatenate([b for _, b in iter_boards(io.BytesIO(data), name=str(path), check=check)] or [np.empty((0, 2, 2), np.uint8)])
    return read_text_boards(data, "<stdin>" if path == "-" else str(path), shape, fmt, check)[0]


read_boards = load_boards


def _npy_header(f, name):
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    except (OSError, ValueError) as e:
        raise BoardFileError(f"{name}: not a valid .npy file: {e}") from None
    if dtype.hasobject or dtype.kind not in "iuf" or dtype.itemsize > 8:
        raise BoardFileError(f"{name}: .npy holds dtype {dtype}; boards must be integers")
    if len(shape) == 2:
        shape = (1,) + tuple(shape)
    if len(shape) != 3:
        raise BoardFileError(f"{name}: .npy holds an array of shape {shape}; expected (B, m, n) or (m, n)")
    return tuple(int(s) for s in shape), fortran, dtype


def count_boards(path, shape=None, fmt="auto"):
    """``(B, m, n)`` of a file without reading the boards of a ``.npy`` file."""
    if path != "-" and _is_npy_name(path):
        with open(path, "rb") as f:
            return _npy_header(f, str(path))[0]
    return load_boards(path, shape, fmt, check=False).shape


def iter_boards(source, shape=None, fmt="auto", chunk_boards=None, check=True, name=None, text_block_bytes=None):
    """Yield ``(start, boards)`` chunks of validated boards from a file.

    ``source`` is a path, ``"-"`` (standard input) or a binary file object.
    A ``.npy`` stream is read chunk by chunk with plain reads (resident
    memory stays near one chunk, whatever the file size); text is parsed
    in blocks of :data:`TEXT_BLOCK_BYTES` cut at line ends (grids: at blank
    lines).  Errors name the file and the global board index (and line).

    Examples
    --------
    >>> import io, numpy as np
    >>> buf = io.BytesIO(); np.save(buf, np.array([[[1, 2], [3, 0]]] * 5)); _ = buf.seek(0)
    >>> [(s, b.shape) for s, b in iter_boards(buf, chunk_boards=2)]
    [(0, (2, 2, 2)), (2, (2, 2, 2)), (4, (1, 2, 2))]
    """
    own = False
    if isinstance(source, (str, os.PathLike)):
        name = name or ("<stdin>" if source == "-" else str(source))
        if source == "-":
            f = sys.stdin.buffer
        else:
            try:
                f = open(source, "rb")
            except OSError as e:
                raise BoardFileError(f"{name}: cannot open: {e.strerror or e}") from None
            own = True
    else:
        f = source
        name = name or getattr(source, "name", "<stream>")
    try:
        head = _peek(f, 6)
        if head != b"\x93NUMPY":
            for start, boards in _iter_text(f, head, name, shape, fmt, check, text_block_bytes or TEXT_BLOCK_BYTES):
                step = chunk_boards or max(1, CHUNK_CELLS // (boards.shape[1] * boards.shape[2]))
                for s in range(0, boards.shape[0], step):
                    yield start + s, boards[s : s + step]
            return
        f = _Prefixed(head, f)
        (B, m, n), fortran, dtype = _npy_header(f, name)
        if shape is not None and parse_shape(shape) != (m, n):
            raise BoardFileError(f"{name}: holds {m}x{n} boards, expected {parse_shape(shape)[0]}x{parse_shape(shape)[1]}")
        if fortran:
            raise BoardFileError(f"{name}: .npy in Fortran order is not supported; save it with np.save(np.ascontiguousarray(x))")
        step = chunk_boards or max(1, CHUNK_CELLS // (m * n))
        for s in range(0, B, step):
            k = min(step, B - s)
            part = np.empty(k * m * n, dtype)  # fresh per chunk: a kept chunk is never overwritten
            got = _readinto(f, part)
            if got < part.nbytes:
                raise BoardFileError(f"{name}: file ends early: board {s + got // (m * n * dtype.itemsize)} of {B} is cut short")
            yield s, _validate(part.reshape(k, m, n), name, start=s, check=check)
    finally:
        if own:
            f.close()


class _Prefixed(io.RawIOBase):
    """A binary stream with some bytes put back in front."""

    def __init__(self, head, f):
        self._head = head
        self._f = f

    def readable(self):
        return True

    def readinto(self, b):
        mv = memoryview(b).cast("B")
        if self._head:
            k = min(len(mv), len(self._head))
            mv[:k] = self._head[:k]
            self._head = self._head[k:]
            return k
        if hasattr(self._f, "readinto"):
            return self._f.readinto(mv)
        data = self._f.read(len(mv))
        mv[: len(data)] = data
        return len(data)

    def read(self, size=-1):
        if size is None or size < 0:
            rest = self._f.read()
            out, self._head = self._head + rest, b""
            return out
        out = bytearray(size)
        got = 0
        while got < size:
            k = self.readinto(memoryview(out)[got:])
            if not k:
                break
            got += k
        return bytes(out[:got])


def _peek(f, k):
    data = b""
    while len(data) < k:
        more = f.read(k - len(data))
        if not more:
            break
        data += more
    return data


def _readinto(f, arr):
    mv = memoryview(arr).cast("B")
    got = 0
    while got < len(mv):
        k = f.readinto(mv[got:])
        if not k:
            break
        got += k
    return got


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


def _digits(x: int) -> int:
    return max(1, len(str(int(x))))


@jit
def _format_kernel(flat, n, grid, out):
    """Decimal text of boards ``flat`` (B, N) into ``out``; returns bytes used."""
    B, N = flat.shape
    digits = np.empty(24, np.uint8)
    p = 0
    for b in range(B):
        if grid and b > 0:
            out[p] = 10
            p += 1
        for i in range(N):
            v = np.int64(flat[b, i])
            k = 0
            while True:
                digits[k] = 48 + v % 10
                v //= 10
                k += 1
                if v == 0:
                    break
            while k > 0:
                k -= 1
                out[p] = digits[k]
                p += 1
            last_in_row = (i % n) == n - 1
            if i == N - 1 or (grid and last_in_row):
                out[p] = 10
            else:
                out[p] = 32
            p += 1
    return p


def format_boards(boards, fmt="lines") -> bytes:
    """Text of a batch ``(B, m, n)``: one board per line or grids.

    Examples
    --------
    >>> format_boards(np.array([[[1, 2], [3, 0]]]), "grids")
    b'1 2\\n3 0\\n'
    """
    boards = np.asarray(boards)
    if boards.ndim == 2:
        boards = boards[None]
    B, m, n = boards.shape
    N = m * n
    flat = np.ascontiguousarray(boards.reshape(B, N))
    width = _digits(int(flat.max())) if flat.size else 1
    out = np.empty(B * (N * (width + 1) + 1), np.uint8)
    used = _format_kernel(flat, n, fmt == "grids", out)
    return out[:used].tobytes()


class _AtomicFile:
    """Write to a temporary file beside ``path``; rename on success, delete on failure."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.to_stdout = self.path == "-"
        self.f = None
        self.tmp = None

    def __enter__(self):
        if self.to_stdout:
            self.f = sys.stdout.buffer
            return self
        d = os.path.dirname(os.path.abspath(self.path))
        try:
            fd, self.tmp = tempfile.mkstemp(prefix="." + os.path.basename(self.path) + ".", suffix=".tmp", dir=d)
        except OSError as e:
            raise BoardFileError(f"{self.path}: cannot write: {e.strerror or e}") from None
        self.f = os.fdopen(fd, "wb")
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.to_stdout:
            self.f.flush()
            return False
        self.f.close()
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
        return False


class NpyWriter(_AtomicFile):
    """Stream a ``(total, m, n)`` (or ``(total,)``) array to ``.npy`` chunk by chunk.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.npy")
    >>> with NpyWriter(p, (3,), np.bool_) as w:
    ...     w.write(np.array([True, False])); w.write(np.array([True]))
    >>> np.load(p).tolist()
    [True, False, True]
    """

    def __init__(self, path, shape, dtype):
        super().__init__(path)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.written = 0

    def __enter__(self):
        super().__enter__()
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": self.shape}
        np.lib.format.write_array_header_1_0(self.f, header) if self._fits_v1(header) else np.lib.format.write_array_header_2_0(self.f, header)
        return self

    @staticmethod
    def _fits_v1(header):
        return len(repr(header)) < 60000

    def write(self, chunk):
        chunk = np.ascontiguousarray(chunk, self.dtype)
        self.f.write(memoryview(chunk).cast("B"))
        self.written += chunk.shape[0]

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.written != self.shape[0]:
            exc_type = RuntimeError
            super().__exit__(exc_type, None, None)
            raise RuntimeError(f"{self.path}: wrote {self.written} rows, header says {self.shape[0]}")
        return super().__exit__(exc_type, exc, tb)


class TextWriter(_AtomicFile):
    """Stream boards as text (``"lines"`` or ``"grids"``) chunk by chunk."""

    def __init__(self, path, fmt="lines"):
        super().__init__(path)
        self.fmt = fmt
        self.any = False

    def write(self, chunk):
        if chunk.shape[0] == 0:
            return
        if self.fmt == "grids" and self.any:
            self.f.write(b"\n")
        self.f.write(format_boards(chunk, self.fmt))
        self.any = True


def writer_for(path, total_shape, dtype, fmt=None):
    """An :class:`NpyWriter` for ``.npy`` paths (or ``fmt="npy"``), else a :class:`TextWriter`."""
    if fmt is None:
        fmt = "npy" if _is_npy_name(path) else "lines"
    if fmt == "npy":
        return NpyWriter(path, total_shape, dtype)
    if fmt not in ("lines", "grids"):
        raise ValueError(f"output format must be 'npy', 'lines' or 'grids', got {fmt!r}")
    return TextWriter(path, fmt)


def write_boards(path, boards, fmt=None):
    """Write boards ``(B, m, n)`` (or one board) to ``path`` atomically.

    ``fmt``: ``"npy"``, ``"lines"`` or ``"grids"``; default from the name
    (``.npy`` -> npy, else lines).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "two.txt")
    >>> write_boards(p, np.array([[[1, 2], [3, 0]], [[0, 1], [3, 2]]]), fmt="grids")
    >>> print(open(p).read())
    1 2
    3 0
    <BLANKLINE>
    0 1
    3 2
    <BLANKLINE>
    """
    boards = np.asarray(boards)
    if boards.ndim == 2:
        boards = boards[None]
    with writer_for(path, boards.shape, boards.dtype, fmt) as w:
        w.write(boards)


# ---------------------------------------------------------------------------
# the judge format
# ---------------------------------------------------------------------------


_J_OK, _J_CHAR, _J_SIDE, _J_EOF, _J_RANGE, _J_DUP, _J_BIG = 0, 1, 2, 3, 4, 5, 6

#: Largest judge board side (n*n cells must fit the uint32 grid buffer).
_JUDGE_MAX_SIDE = 46340


@jit
def _is_space(c):
    return c == 32 or c == 10 or c == 13 or c == 9


@jit
def _judge_case(buf, pos, case, scratch, err):
    """Parse and answer the case whose ``n`` starts at or after ``buf[pos]``.

    ``buf`` must end with white space (a sentinel: digit loops need no bounds
    check).  Each grid is parsed into the compact ``uint32`` buffer
    ``cells`` with a range check, then the core branch-free parity-tree kernel
    (:func:`fastpuzzle.inversion_kernels._invariant_tree`) gives its
    invariant: inversion parity XOR the colour (row + col) of the blank's
    cell, conserved by every move and different between the two components
    of the state graph (n >= 2; for n = 1 both grids are the lone blank).  The
    tree's bottom level is the set of values seen, so a grid is a permutation
    iff it has ``n*n`` bits set: duplicates cost one popcount pass over
    ``n*n/64`` words.

    ``scratch`` = (cells, colour, words, offsets, n of colour) is reused
    between cases of the same size.  Returns ``(answer, new_pos, scratch)``:
    1 = TAK, 0 = NIE, -1 = end of input, -2 = error, with ``err`` =
    [code, case, byte position, grid, value] (for a duplicate: the grid's
    first and last byte in ``err[2]``, ``err[4]``).
    """
    cells, colour, words, offsets, cur_n = scratch
    L = buf.shape[0]
    while pos < L and _is_space(buf[pos]):
        pos += 1
    if pos >= L:
        return -1, pos, scratch
    start = pos
    n = 0
    while True:
        e = np.int64(buf[pos]) - 48
        if e < 0 or e > 9:
            break
        if n <= _JUDGE_MAX_SIDE:
            n = n * 10 + e
        pos += 1
    if pos == start or not _is_space(buf[pos]):
        err[0], err[1], err[2] = _J_CHAR, case, pos
        return -2, pos, scratch
    if n < 1:
        err[0], err[1], err[2], err[4] = _J_SIDE, case, start, n
        return -2, pos, scratch
    if n > _JUDGE_MAX_SIDE:
        err[0], err[1], err[2] = _J_BIG, case, start
        return -2, pos, scratch
    N = n * n
    if n != cur_n:
        cur_n = n
        if cells.shape[0] < N:
            cells = np.empty(N, np.uint32)
        colour = np.empty(N, np.uint8)
        for i in range(N):
            colour[i] = ((i // n) + (i % n)) & 1
        offsets = tree_levels(N)
        words = np.empty(offsets[offsets.shape[0] - 1], np.uint64)
        scratch = (cells, colour, words, offsets, cur_n)
    grid = cells[:N]
    inv = 0
    for g in range(2):
        grid_start = pos
        for i in range(N):
            while pos < L and _is_space(buf[pos]):
                pos += 1
            if pos >= L:
                err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, g, g * N + i
                return -2, pos, scratch
            start = pos
            v = 0
            while True:
                e = np.int64(buf[pos]) - 48
                if e < 0 or e > 9:
                    break
                if v < N:
                    v = v * 10 + e
                pos += 1
            if pos == start or not _is_space(buf[pos]):
                err[0], err[1], err[2], err[3] = _J_CHAR, case, pos, g
                return -2, pos, scratch
            if v >= N:
                err[0], err[1], err[2], err[3], err[4] = _J_RANGE, case, start, g, v
                return -2, pos, scratch
            grid[i] = v
        inv ^= _invariant_tree(grid, colour, words, offsets)
        seen = 0
        for w in range(offsets[1]):
            seen += _popcount64(words[w])
        if seen != N:
            err[0], err[1], err[2], err[3], err[4] = _J_DUP, case, grid_start, g, pos
            return -2, pos, scratch
    return (1 if inv == 0 else 0), pos, scratch


@jit
def _judge_bytes(buf, out, err):
    """The judge format straight from raw bytes, one pass, case after case.
    Returns the number of cases; stops at the first error (``err[0] != 0``)."""
    pos = 0
    case = 0
    scratch = (np.empty(0, np.uint32), np.empty(0, np.uint8), np.empty(0, np.uint64), np.zeros(2, np.int64), -1)
    while True:
        ans, pos, scratch = _judge_case(buf, pos, case, scratch, err)
        if ans < 0:
            return case
        out[case] = ans
        case += 1


def _duplicate_message(buf, lo, hi):
    """(line, value) of the first repeated value in the grid text ``buf[lo:hi]``."""
    vals, counts = parse_text(buf[lo:hi])
    first = {}
    for k, v in enumerate(vals.tolist()):
        if v in first:
            tok_line = int(np.searchsorted(np.cumsum(np.maximum(counts, 0)), k, side="right"))
            return int(np.count_nonzero(buf[:lo] == 10)) + 1 + tok_line, v
        first[v] = k
    return int(np.count_nonzero(buf[:lo] == 10)) + 1, -1


def judge(data, name="<stdin>") -> list[str]:
    """Answers (``"TAK"``/``"NIE"``) of the judge format, one per case.

    The input is repeated until its end: ``n``, then two ``n x n`` grids
    (0 = blank).  A compiled kernel parses the raw bytes and answers each
    case in the same pass.  Each grid is validated (a permutation of
    ``0..n*n-1``); bad input raises :class:`BoardFileError` naming the line,
    the case and the problem.

    Examples
    --------
    >>> judge(b"3\\n1 2 3\\n4 5 6\\n7 8 0\\n1 2 3\\n4 5 6\\n8 7 0\\n2\\n1 2\\n3 0\\n0 1\\n3 2\\n")
    ['NIE', 'TAK']
    """
    buf = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    if buf.shape[0] and int(buf[-1]) not in (32, 10, 13, 9):
        buf = np.concatenate([buf, np.frombuffer(b"\n", np.uint8)])  # the kernel wants a trailing sentinel
    out = np.empty(buf.shape[0] // 5 + 1, np.uint8)  # a case takes at least 5 bytes ("1 0 0")
    err = np.zeros(5, np.int64)
    k = _judge_bytes(buf, out, err)
    if err[0] != _J_OK:
        code, case, pos, grid, value = (int(v) for v in err)
        line = int(np.count_nonzero(buf[:pos] == 10)) + 1
        which = "first" if grid == 0 else "second"
        if code == _J_DUP:
            line, value = _duplicate_message(buf, pos, value)
        where = f"{name}: line {line} (case {case + 1})"
        if code == _J_CHAR:
            raise BoardFileError(f"{where}: unexpected {_describe_byte(buf, pos)} (expected a non-negative integer)")
        if code == _J_BIG:
            raise BoardFileError(f"{where}: board side n is too large (at most {_JUDGE_MAX_SIDE})")
        if code == _J_SIDE:
            raise BoardFileError(f"{where}: board side n = {value}, expected n >= 1")
        if code == _J_EOF:
            raise BoardFileError(f"{where}: the input ends after {value} of the case's numbers (two grids of n*n)")
        if code == _J_RANGE:
            raise BoardFileError(f"{where}: {which} grid holds {value}, outside 0..n*n-1 (not a permutation)")
        raise BoardFileError(
            f"{where}: {which} grid holds {'the blank (0)' if value == 0 else f'tile {value}'} twice (not a permutation)"
        )
    return ["TAK" if v else "NIE" for v in out[:k]]
