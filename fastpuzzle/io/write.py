"""The one output layer for boards: every file goes through :class:`fastpuzzle.atomic.AtomicOutput`.

Its semantics (links followed, modes kept, devices and FIFOs written through,
temporary files removed on every exit including signals) are described in
:mod:`fastpuzzle.atomic`; ``AtomicOutput``, ``OutputInterrupted`` and
``write_text`` are re-exported here.

The board writers (:class:`NpyWriter`, :class:`TextWriter`,
:func:`write_boards`) validate what they write with ``as_boards``.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..atomic import AtomicOutput, OutputInterrupted, write_text
from ..boards import as_boards
from ..errors import OptionError, OptionTypeError, ShapeError
from .npy import is_npy_name

__all__ = [
    "AtomicOutput", "OutputInterrupted", "NpyWriter", "TextWriter", "format_boards",
    "write_boards", "writer_for", "write_text",
]

# ---------------------------------------------------------------------------
# boards
# ---------------------------------------------------------------------------


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




def format_boards(boards, *, fmt="lines") -> bytes:
    """Text of one board or a batch ``(B, m, n)``: one board per line, or grids.

    The boards are validated first (``as_boards``): the text holds permutations only.

    Examples
    --------
    >>> format_boards(np.array([[[1, 2], [3, 0]]]), fmt="grids")
    b'1 2\\n3 0\\n'
    """
    if fmt not in ("lines", "grids", "scramble"):
        raise OptionError("fmt", fmt, "must be 'lines', 'grids' or 'scramble' (the text format)")
    if fmt == "scramble":
        from .scramble import format_scramble

        text = format_scramble(boards)
        return (text + "\n").encode() if text else b""
    batch, _ = as_boards(boards, label="boards")
    count, m, n = batch.shape
    flat = batch.reshape(count, m * n)
    width = len(str(m * n - 1))
    out = np.empty(count * (m * n * (width + 1) + 1), np.uint8)
    used = _format_kernel(flat, n, fmt == "grids", out)
    return out[:used].tobytes()


class _Writer:
    """A stream of chunks into an :class:`AtomicOutput`."""

    def __init__(self, path):
        self._output = AtomicOutput(path)
        self.path = self._output.path
        self.f = None
        self._closed = False  # _finish has run (close_file)

    def __enter__(self):
        self.f = self._output.__enter__()
        try:
            self._start()
        except BaseException as error:
            self._output.__exit__(type(error), error, None)
            raise
        return self

    def _start(self):
        pass

    def _finish(self):
        pass

    def close_file(self):
        """Write out what is left and close the file, without putting it in place yet (the ``with``
        block's end does that): outputs written together are all written before any replaces
        its target, so an error in one replaces none.  Raises the write's error."""
        if not self._closed:
            self._finish()
            self._closed = True
        self._output.close_file()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            try:
                self.close_file()
            except BaseException as error:
                self._output.__exit__(type(error), error, None)
                raise
        return self._output.__exit__(exc_type, exc, tb)


class NpyWriter(_Writer):
    """Stream a ``(total, m, n)`` batch of boards (validated) or a ``(total,)`` array to ``.npy``.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.npy")
    >>> with NpyWriter(p, (3,), np.bool_) as w:
    ...     w.write(np.array([True, False])); w.write(np.array([True]))
    >>> np.load(p).tolist()
    [True, False, True]
    """

    def __init__(self, path, shape, dtype):
        shape = tuple(shape)
        if len(shape) not in (1, 3) or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in shape):
            raise OptionError("shape", shape, "must be (count,) or (count, m, n) with whole sides >= 0 (an .npy output)")
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        if self.dtype.hasobject:
            raise OptionTypeError("dtype", self.dtype, "must not hold Python objects (an .npy output)")
        super().__init__(path)
        self.written = 0

    def _start(self):
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": self.shape}
        np.lib.format.write_array_header_2_0(self.f, header) if len(repr(header)) >= 60000 else \
            np.lib.format.write_array_header_1_0(self.f, header)

    def write(self, chunk):
        """Append rows (boards are validated and must have the header's shape)."""
        if len(self.shape) == 3:
            batch, _ = as_boards(chunk, label="boards")
            if batch.shape[1:] != self.shape[1:]:
                raise ShapeError(batch.shape[1:], f"{self.path}: boards of {batch.shape[1]}x{batch.shape[2]}, the file "
                                 f"holds {self.shape[1]}x{self.shape[2]}", expected=self.shape[1:])  # fmt: skip
        else:
            batch = np.asarray(chunk)
            if batch.ndim != 1 or not np.can_cast(batch.dtype, self.dtype, "same_kind"):
                raise OptionTypeError("chunk", f"{batch.dtype} {batch.shape}", f"must be one-dimensional {self.dtype} ({self.path})")
        if self.written + batch.shape[0] > self.shape[0]:
            raise ShapeError(
                (self.written + batch.shape[0],), f"{self.path}: more rows than the {self.shape[0]} the header promises",
                expected=self.shape[0],
            )  # fmt: skip
        if batch.size:  # an empty batch has no bytes (and a zero in its shape no byte view)
            self.f.write(memoryview(np.ascontiguousarray(batch, self.dtype)).cast("B"))
        self.written += batch.shape[0]

    def _finish(self):
        if self.written != self.shape[0]:
            raise ShapeError((self.written,), f"{self.path}: wrote {self.written} rows, the header promises {self.shape[0]}",
                             expected=self.shape[0])  # fmt: skip


class TextWriter(_Writer):
    """Stream boards (validated) as text, ``"lines"`` or ``"grids"``, chunk by chunk."""

    def __init__(self, path, fmt="lines"):
        if fmt not in ("lines", "grids", "scramble"):
            raise OptionError("fmt", fmt, "must be 'lines', 'grids' or 'scramble' (the text format)")
        super().__init__(path)
        self.fmt = fmt
        self.any = False

    def write(self, chunk):
        """Append boards."""
        text = format_boards(chunk, fmt=self.fmt)
        if not text:
            return
        if self.fmt == "grids" and self.any:
            self.f.write(b"\n")
        self.f.write(text)
        self.any = True


def writer_for(path, total_shape, dtype, fmt=None):
    """An :class:`NpyWriter` for ``.npy`` paths (or ``fmt="npy"``), else a :class:`TextWriter`."""
    if fmt is None:
        fmt = "npy" if is_npy_name(path) else "lines"
    if fmt == "npy":
        return NpyWriter(path, total_shape, dtype)
    if fmt not in ("lines", "grids", "scramble"):
        raise OptionError("fmt", fmt, "must be 'npy', 'lines', 'grids' or 'scramble' (the output format)")
    return TextWriter(path, fmt)


def write_boards(path, boards, *, fmt=None):
    """Write one board or a batch ``(B, m, n)`` to ``path`` atomically (see the module notes).

    ``fmt``: ``"npy"``, ``"lines"``, ``"grids"`` or ``"scramble"`` (rows split by ``/``); default from the name
    (``.npy`` -> npy, else lines).  The boards are validated first.

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
    batch, _ = as_boards(boards, label="boards")
    with writer_for(path, batch.shape, batch.dtype, fmt) as w:
        w.write(batch)
