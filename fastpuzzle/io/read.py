"""The one reader of board files: ``.npy``, text lines, text grids, standard input.

:func:`load_boards` returns every board of a file (a ``.npy`` file is
memory-mapped); :func:`iter_boards` streams ``(start, boards)`` chunks with
bounded memory.  Both take a path, ``"-"`` (standard input) or a binary
stream, recognise ``.npy`` by its magic bytes (and a ``.npz`` archive by
its own), and raise :class:`~fastpuzzle.errors.BoardFileError` (a
``ValueError``) for every problem, naming the file, the line and the board.
"""

from __future__ import annotations

import io

import numpy as np

from .. import options
from .._jit import CHUNK_CELLS
from ..errors import OptionTypeError
from .errors import BoardFileError, parse_shape
from .npy import NPY_MAGIC, ZIP_MAGIC, iter_npy_chunks, load_npy, read_npy_header, regular_file_size
from .source import open_input, read_input, read_stream, strip_bom
from .text import NoBoards, TEXT_BLOCK_BYTES, iter_text_boards, read_text_boards, validate_boards

__all__ = ["load_boards", "load_boards_and_lines", "read_boards", "iter_boards", "count_boards"]

_FORMATS = ("auto", "lines", "grids", "scramble")


def _check_options(shape, fmt, check):
    options.choice(fmt, "fmt", _FORMATS)
    options.flag(check, "check")
    return None if shape is None else parse_shape(shape)


def _same_shape(name, shape, m, n):
    if shape is not None and shape != (m, n):
        raise BoardFileError(name, f"holds {m}x{n} boards, expected {shape[0]}x{shape[1]}")


def load_boards(path, *, shape=None, fmt="auto", check=True):
    """All boards of a file as ``(B, m, n)``.

    ``.npy`` files are memory-mapped (nothing is read until used) and not
    validated unless ``check``; text is parsed and validated.

    Examples
    --------
    >>> import tempfile, os
    >>> from fastpuzzle.generate import random_solvable
    >>> from fastpuzzle.io.write import write_boards
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "b.txt")
    >>> write_boards(p, random_solvable(3, 3, count=4, seed=1))
    >>> load_boards(p).shape
    (4, 3, 3)
    """
    return load_boards_and_lines(path, shape=shape, fmt=fmt, check=check)[0]


def load_boards_and_lines(path, *, shape=None, fmt="auto", check=True, name=None):
    """``(boards, lines, name)``: :func:`load_boards` with the text line of each
    board (``None`` for ``.npy``) and the name errors use for the input."""
    shape = _check_options(shape, fmt, check)
    f, name, owned = open_input(path, name)
    try:
        start = f.tell() if f.seekable() else None
        head = _peek(f, name)
        if head[:6] == NPY_MAGIC or head[:4] == ZIP_MAGIC:
            if start == 0:
                f.seek(0)
            else:
                f = _Prefixed(head, f)
            boards = load_npy(f, name)
            _same_shape(name, shape, *boards.shape[1:])
            return (validate_boards(boards, name, check=True) if check else boards), None, name
        if owned and regular_file_size(f) is not None:
            data, _ = read_input(path)  # memory-mapped, no copy
        else:
            data = strip_bom(np.frombuffer(_read_rest(f, name, head), np.uint8))
    finally:
        if owned:
            f.close()
    boards, lines = read_text_boards(data, name, shape, fmt, check)
    return boards, lines, name


read_boards = load_boards


def count_boards(path, *, shape=None, fmt="auto"):
    """``(B, m, n)`` of a file, reading only the header of a ``.npy`` file.

    >>> import io
    >>> buf = io.BytesIO(); np.save(buf, np.zeros((5, 3, 3), np.uint8)); _ = buf.seek(0)
    >>> count_boards(buf)
    (5, 3, 3)
    """
    shape = _check_options(shape, fmt, True)
    f, name, owned = open_input(path)
    try:
        head = _peek(f, name)
        if head[:6] == NPY_MAGIC or head[:4] == ZIP_MAGIC:
            header = read_npy_header(_Prefixed(head, f), name, regular_file_size(f) if owned else None)
            _same_shape(name, shape, *header.shape[1:])
            return header.shape
        total, board_shape = 0, None
        for _, boards in iter_text_boards(f, head, name, shape, fmt, False):
            total, board_shape = total + boards.shape[0], boards.shape[1:]
        return (total, *board_shape)
    finally:
        if owned:
            f.close()


def iter_boards(source, *, shape=None, fmt="auto", chunk_boards=None, check=True, name=None, text_block_bytes=None):
    """Yield ``(start, boards)`` chunks of validated boards from a file.

    ``source`` is a path, ``"-"`` (standard input) or a binary file object.
    A ``.npy`` stream is read chunk by chunk with plain reads (resident
    memory stays near one chunk, whatever the file size); text is parsed
    in blocks of ``TEXT_BLOCK_BYTES`` cut at line ends (grids: at blank
    lines).  Errors name the file and the global board index (and line).

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO(); np.save(buf, np.array([[[1, 2], [3, 0]]] * 5)); _ = buf.seek(0)
    >>> [(s, b.shape) for s, b in iter_boards(buf, chunk_boards=2)]
    [(0, (2, 2, 2)), (2, (2, 2, 2)), (4, (1, 2, 2))]
    """
    shape = _check_options(shape, fmt, check)
    chunk_boards = options.positive(chunk_boards, "chunk_boards", none=True)
    block_bytes = TEXT_BLOCK_BYTES if text_block_bytes is None else text_block_bytes
    return _iter_boards(source, shape, fmt, chunk_boards, check, name, block_bytes)


def _iter_boards(source, shape, fmt, chunk_boards, check, name, block_bytes):
    f, name, owned = open_input(source, name)
    try:
        head = _peek(f, name)
        if head[:6] != NPY_MAGIC and head[:4] != ZIP_MAGIC:
            for start, boards in iter_text_boards(f, head, name, shape, fmt, check, block_bytes):
                step = chunk_boards or max(1, CHUNK_CELLS // (boards.shape[1] * boards.shape[2]))
                for s in range(0, boards.shape[0], step):
                    yield start + s, boards[s : s + step]
            return
        size = regular_file_size(f) if owned else None  # a path opened here: the data starts at 0
        header = read_npy_header(_Prefixed(head, f), name, size)
        _same_shape(name, shape, *header.shape[1:])
        step = chunk_boards or max(1, CHUNK_CELLS // (header.shape[1] * header.shape[2]))
        for start, part in iter_npy_chunks(f, name, header, step, sized=size is not None):
            yield start, validate_boards(part, name, start=start, check=check)
    finally:
        if owned:
            f.close()


def _read_rest(f, name, head=b""):
    try:
        return read_stream(f, name, head)
    except OSError as error:
        raise BoardFileError(name, f"cannot read: {(error.strerror or str(error)).lower()}") from None


class _Prefixed(io.RawIOBase):
    """A binary stream with its first bytes put back in front."""

    def __init__(self, head, f):
        self._head = head
        self._f = f
        self.consumed = 0

    def readable(self):
        return True

    def seekable(self):
        return False

    def tell(self):  # bytes read so far: the header's length once it is read
        return self.consumed

    def readinto(self, b):
        got = self._readinto(b)
        self.consumed += got
        return got

    def _readinto(self, b):
        view = memoryview(b).cast("B")
        if self._head:
            k = min(len(view), len(self._head))
            view[:k] = self._head[:k]
            self._head = self._head[k:]
            return k
        if hasattr(self._f, "readinto"):
            return self._f.readinto(view)
        data = self._f.read(len(view))
        view[: len(data)] = data
        return len(data)


def _peek(f, name, k=6):
    data = b""
    try:
        while len(data) < k:
            more = f.read(k - len(data))
            if not more:
                break
            data += more
    except OSError as error:
        raise BoardFileError(name, f"cannot read: {(error.strerror or str(error)).lower()}") from None
    if isinstance(data, str):
        raise OptionTypeError("source", name, "must be a stream opened in binary mode ('rb')")
    return data
