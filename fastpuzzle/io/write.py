"""The one output layer: every file fastpuzzle writes goes through :class:`AtomicOutput`.

Semantics, as standard tools have them:

* a regular file, or a new path, is written to a temporary file beside it
  and renamed over it on success -- a reader never sees half a file, and a
  failure leaves the old content in place;
* a symbolic link is followed: its target is replaced, the link stays;
* an existing file keeps its permission bits; a new file gets
  ``0666 & ~umask``;
* a file with other hard links, a character or block device and a FIFO are
  written in place (no rename: the other names, the device and the reader
  keep working); a socket and a directory are refused;
* the temporary file is removed on every exit path, including SIGTERM and
  SIGHUP (handlers raise :class:`OutputInterrupted` for the duration of the
  write and are restored after it);
* errors name the user's path, never the temporary name; missing parent
  directories are not created; ``"-"`` is standard output.

The board writers (:class:`NpyWriter`, :class:`TextWriter`,
:func:`write_boards`) validate what they write with ``as_boards``.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
import threading

import numpy as np

from .._jit import jit
from ..boards import as_boards
from .npy import is_npy_name

__all__ = [
    "AtomicOutput", "OutputInterrupted", "NpyWriter", "TextWriter", "format_boards",
    "write_boards", "writer_for", "write_text",
]

_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class OutputInterrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while a file was being written; the partial file was removed."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


def _raise_interrupted(signum, frame):
    raise OutputInterrupted(signum)


def _output_error(error: OSError, path: str) -> OSError:
    """The same error naming the user's path."""
    return type(error)(error.errno, (error.strerror or str(error)), path)


class AtomicOutput:
    """A binary file to write ``path`` through (a context manager, see the module notes).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with AtomicOutput(p) as f:
    ...     _ = f.write(b"hello\\n")
    >>> open(p).read(), sorted(os.listdir(os.path.dirname(p)))
    ('hello\\n', ['out.txt'])
    """

    def __init__(self, path):
        if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"an output path must be a str or os.PathLike, got {type(path).__name__}")
        self.path = os.fspath(path)
        if self.path == "":
            raise ValueError("the output path is empty; give a file name or '-' for standard output")
        self.file = self._tmp = self._target = None
        self._old_handlers = {}

    # -- opening ---------------------------------------------------------------

    def __enter__(self):
        if self.path == "-":
            stream = getattr(sys.stdout, "buffer", None)
            if stream is None or sys.stdout.closed:
                raise OSError(errno.EBADF, "standard output is closed", "<stdout>")
            self.file = stream
            return self.file
        self._target = os.path.realpath(self.path)  # through every symbolic link
        try:
            st = os.stat(self._target)
        except FileNotFoundError:
            st = None
        except OSError as error:
            raise _output_error(error, self.path) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name", self.path)
        if st is not None and stat.S_ISSOCK(st.st_mode):
            raise OSError(errno.ENXIO, "is a socket; outputs are files, devices or FIFOs", self.path)
        in_place = st is not None and (not stat.S_ISREG(st.st_mode) or st.st_nlink > 1)
        try:
            if in_place:  # devices, FIFOs, files with other names: no rename
                flags = os.O_WRONLY | (os.O_TRUNC if stat.S_ISREG(st.st_mode) else 0)
                self.file = os.fdopen(os.open(self._target, flags), "wb")
                return self.file
            parent = os.path.dirname(self._target) or "."
            if not os.path.isdir(parent):
                raise FileNotFoundError(errno.ENOENT, f"no such directory {parent} (it is not created)", self.path)
            self._install_handlers()
            self._tmp = self._temp_name(parent)
            fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
                _keep_owner(fd, st)
            self.file = os.fdopen(fd, "wb")
        except OSError as error:
            self._cleanup()
            raise _output_error(error, self.path) from None
        except BaseException:
            self._cleanup()
            raise
        return self.file

    def _temp_name(self, parent):
        return os.path.join(parent, f".{os.path.basename(self._target)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")

    def _install_handlers(self):
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers belong to the main thread; the caller's own handlers stay
        for signum in _SIGNALS:
            old = signal.getsignal(signum)
            if old is signal.SIG_IGN:  # e.g. under nohup: the user asked to ignore it
                continue
            self._old_handlers[signum] = old
            signal.signal(signum, _raise_interrupted)

    def _restore_handlers(self):
        while self._old_handlers:
            signum, old = self._old_handlers.popitem()
            signal.signal(signum, old if old is not None else signal.SIG_DFL)

    # -- closing ---------------------------------------------------------------

    def __exit__(self, exc_type, exc, tb):
        if self.path == "-":
            if exc_type is None:
                try:
                    self.file.flush()
                except OSError as error:
                    raise _output_error(error, "<stdout>") from None
            return False
        try:
            if exc_type is None:
                self.file.close()
                if self._tmp is not None:
                    os.replace(self._tmp, self._target)
                    self._tmp = None
        except OSError as error:
            self._cleanup()
            raise _output_error(error, self.path) from None
        except BaseException:
            self._cleanup()
            raise
        self._cleanup()
        if isinstance(exc, OSError) and exc.filename is None:
            raise _output_error(exc, self.path) from None
        return False

    def _cleanup(self):
        try:
            if self.file is not None and not self.file.closed:
                try:
                    self.file.close()
                except OSError:
                    pass
            if self._tmp is not None:
                try:
                    os.unlink(self._tmp)
                except FileNotFoundError:
                    pass
                self._tmp = None
        finally:
            self._restore_handlers()


def _keep_owner(fd, st):
    if hasattr(os, "geteuid") and os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except OSError:
            pass


def write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :class:`AtomicOutput`.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.json"); write_text(p, "{}\\n"); open(p).read()
    '{}\\n'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    with AtomicOutput(path) as f:
        f.write(text.encode("utf-8"))


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




def format_boards(boards, fmt="lines") -> bytes:
    """Text of one board or a batch ``(B, m, n)``: one board per line, or grids.

    The boards are validated first (``as_boards``): the text holds permutations only.

    Examples
    --------
    >>> format_boards(np.array([[[1, 2], [3, 0]]]), "grids")
    b'1 2\\n3 0\\n'
    """
    if fmt not in ("lines", "grids"):
        raise ValueError(f"text format must be 'lines' or 'grids', got {fmt!r}")
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

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            try:
                self._finish()
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
            raise ValueError(f"an .npy output holds (count,) or (count, m, n) with whole sides >= 0, got {shape}")
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        if self.dtype.hasobject:
            raise TypeError("an .npy output cannot hold Python objects")
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
                raise ValueError(f"{self.path}: boards of {batch.shape[1]}x{batch.shape[2]}, the file holds "
                                 f"{self.shape[1]}x{self.shape[2]}")
        else:
            batch = np.asarray(chunk)
            if batch.ndim != 1 or not np.can_cast(batch.dtype, self.dtype, "same_kind"):
                raise TypeError(f"{self.path}: expected a one-dimensional {self.dtype} chunk, got {batch.dtype} {batch.shape}")
        if self.written + batch.shape[0] > self.shape[0]:
            raise ValueError(f"{self.path}: more rows than the {self.shape[0]} the header promises")
        self.f.write(memoryview(np.ascontiguousarray(batch, self.dtype)).cast("B"))
        self.written += batch.shape[0]

    def _finish(self):
        if self.written != self.shape[0]:
            raise ValueError(f"{self.path}: wrote {self.written} rows, the header promises {self.shape[0]}")


class TextWriter(_Writer):
    """Stream boards (validated) as text, ``"lines"`` or ``"grids"``, chunk by chunk."""

    def __init__(self, path, fmt="lines"):
        if fmt not in ("lines", "grids"):
            raise ValueError(f"text format must be 'lines' or 'grids', got {fmt!r}")
        super().__init__(path)
        self.fmt = fmt
        self.any = False

    def write(self, chunk):
        """Append boards."""
        text = format_boards(chunk, self.fmt)
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
    if fmt not in ("lines", "grids"):
        raise ValueError(f"output format must be 'npy', 'lines' or 'grids', got {fmt!r}")
    return TextWriter(path, fmt)


def write_boards(path, boards, fmt=None):
    """Write one board or a batch ``(B, m, n)`` to ``path`` atomically (see the module notes).

    ``fmt``: ``"npy"``, ``"lines"`` or ``"grids"``; default from the name
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
