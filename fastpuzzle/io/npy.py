"""``.npy`` board files: a header checked against the file before anything is allocated.

A ``(B, m, n)`` (or one ``(m, n)``) integer array.  The header is validated
first -- sides >= 1, at least 2 cells, an integer dtype, C order, no pickled
objects, no ``.npz`` archive renamed -- and the size it promises is compared
with the bytes the file really holds, so a truncated file or a header that
asks for terabytes is refused with the numbers, never allocated.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize

import numpy as np

from .errors import BoardFileError, check_file_allocation

__all__ = ["NPY_MAGIC", "ZIP_MAGIC", "NpyHeader", "read_npy_header", "header_length", "regular_file_size", "load_npy", "iter_npy_chunks", "is_npy_name"]

NPY_MAGIC = b"\x93NUMPY"
#: Longest header read (a board file's header takes about a hundred bytes; NumPy's own reader
#: refuses more than 10,000 unless told otherwise).
MAX_NPY_HEADER = 1 << 16
ZIP_MAGIC = b"PK\x03\x04"


def is_npy_name(path) -> bool:
    """True when ``path`` names a ``.npy`` file (by its suffix).

    >>> is_npy_name("a.NPY"), is_npy_name("a.txt"), is_npy_name("-")
    (True, False, False)
    """
    return isinstance(path, (str, os.PathLike)) and os.fspath(path).lower().endswith(".npy")


class NpyHeader:
    """What a ``.npy`` header promises: ``shape`` (B, m, n), ``dtype``, ``single``
    (the file held one ``(m, n)`` board), ``offset`` (bytes before the data)."""

    def __init__(self, shape, dtype, single, offset):
        self.shape, self.dtype, self.single, self.offset = shape, dtype, single, offset

    @property
    def nbytes(self) -> int:
        count, m, n = self.shape
        return count * m * n * self.dtype.itemsize


def read_npy_header(f, name, size=None) -> NpyHeader:
    """Read and validate the header of the binary stream ``f`` (at its start).

    ``size``: the file's length in bytes when known (a regular file), checked
    against what the header promises.
    """
    head = f.read(len(NPY_MAGIC))
    if head[:4] == ZIP_MAGIC:
        raise BoardFileError(name, "is a zip archive (.npz), not a .npy file; save one array with np.save")
    if head != NPY_MAGIC:
        raise BoardFileError(name, "is not a .npy file (no NumPy header)")
    try:
        version = (f.read(1) or b"\0")[0], (f.read(1) or b"\0")[0]
        reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        if version not in reader:
            raise BoardFileError(name, f"is not a valid .npy file: unknown format version {version[0]}.{version[1]}")
        problem, length, claimed = header_length(f, version, size)
        if problem:
            raise BoardFileError(name, f"is not a valid .npy file: {problem}")
        shape, fortran, dtype = reader[version](io.BytesIO(length + f.read(claimed)))
        try:
            offset = f.tell()
        except (OSError, AttributeError):
            offset = None
    except BoardFileError:  # a ValueError already naming the file
        raise
    except (ValueError, SyntaxError, TypeError, OSError, UnicodeDecodeError, EOFError, OverflowError,
            tokenize.TokenError) as error:  # fmt: skip
        raise BoardFileError(name, f"is not a valid .npy file: {' '.join(str(error).split())[:200]}") from None
    return _check_header(name, tuple(shape), fortran, dtype, offset, size)


def header_length(f, version, size=None):
    """``(problem, length bytes, claimed)``: the header length a ``.npy`` stream ``f`` claims, read
    after its magic and ``version``, and why it cannot be read (None when it can): past the file
    (``size`` bytes, when known) or over :data:`MAX_NPY_HEADER`.  Checked before NumPy reads (and
    allocates) that many bytes.

    Examples
    --------
    >>> header_length(io.BytesIO(b"\\xff\\xff\\xff\\xff"), (2, 0), 13)[0]
    'its header claims 4,294,967,295 bytes, more than the file holds'
    """
    width = 2 if tuple(version) == (1, 0) else 4
    length = f.read(width)
    claimed = int.from_bytes(length, "little")
    past_file = size is not None and claimed > size - len(NPY_MAGIC) - 2 - width
    if len(length) < width:
        return "its header length is cut short", length, claimed
    if past_file or claimed > MAX_NPY_HEADER:
        limit = "the file holds" if past_file else f"a header takes (at most {MAX_NPY_HEADER:,})"
        return f"its header claims {claimed:,} bytes, more than {limit}", length, claimed
    return None, length, claimed


def _check_header(name, shape, fortran, dtype, offset, size) -> NpyHeader:
    if dtype.hasobject:
        raise BoardFileError(name, "holds pickled Python objects; boards must be an integer array")
    if dtype.kind not in "iuf" or dtype.itemsize > 8:
        raise BoardFileError(name, f"holds dtype {dtype}; boards must be integers")
    if len(shape) not in (2, 3):
        raise BoardFileError(name, f"holds an array of shape {shape}; expected boards (B, m, n) or one board (m, n)")
    single = len(shape) == 2
    count, m, n = (1,) + shape if single else shape
    if count < 0 or m < 1 or n < 1:
        raise BoardFileError(name, f"header has shape {shape}: every side must be >= 1 and the count >= 0")
    if m * n < 2:
        raise BoardFileError(name, f"header has shape {shape}: a board needs at least 2 cells")
    if fortran and sum(side > 1 for side in (count, m, n)) > 1:  # else both orders are the same bytes
        raise BoardFileError(name, "is in Fortran order; save it with np.save(path, np.ascontiguousarray(x))")
    header = NpyHeader((count, m, n), dtype, single, offset)
    if size is not None and offset is not None:
        holds = size - offset
        if holds < header.nbytes:
            raise BoardFileError(
                name, f"is truncated (the file ends early): its header promises {count} boards of {m}x{n} {dtype} ({header.nbytes:,} bytes), "
                f"the file holds {holds:,} bytes of data"
            )
        if holds > header.nbytes:
            raise BoardFileError(name, f"holds {holds - header.nbytes:,} bytes after the data its header describes")
    return header


def regular_file_size(f):
    """Length of ``f`` when it is a regular file, else ``None`` (a pipe, a stream)."""
    try:
        st = os.fstat(f.fileno())
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def load_npy(f, name) -> np.ndarray:
    """All boards ``(B, m, n)`` of the open ``.npy`` file ``f``, memory-mapped
    (nothing is read until used)."""
    header = read_npy_header(f, name, regular_file_size(f))
    count, m, n = header.shape
    if count == 0:
        return np.empty((0, m, n), header.dtype)
    if header.offset is None or regular_file_size(f) is None:  # a pipe: memory grows with the data read
        step = max(1, (1 << 24) // (m * n))
        return np.concatenate([part for _, part in iter_npy_chunks(f, name, header, step)])  # not sized
    try:
        arr = np.memmap(f, dtype=header.dtype, mode="r", offset=header.offset, shape=header.shape)
    except (OSError, ValueError) as error:
        raise BoardFileError(name, f"cannot map: {error}") from None
    return arr


def iter_npy_chunks(f, name, header, step, sized=False):
    """``(start, raw chunk)`` of ``step`` boards from ``f`` positioned after the header.

    ``sized``: the header was checked against the file's length, so a chunk
    may be allocated whole; from a stream of unknown length, memory grows
    with the bytes that really arrive.
    """
    count, m, n = header.shape
    itemsize = header.dtype.itemsize
    check_file_allocation(min(step, max(count, 1)) * m * n * itemsize, f"chunks of {min(step, count)} {m}x{n} boards", name)
    for start in range(0, count, step):
        k = min(step, count - start)
        if sized:
            part = np.empty(k * m * n, header.dtype)  # fresh per chunk: a kept chunk is never overwritten
            got = _readinto(f, part, name)
        else:
            raw = _read_progressively(f, k * m * n * itemsize, name)
            got = len(raw)
            part = np.frombuffer(raw, header.dtype, count=got // itemsize) if got == k * m * n * itemsize else None
        if part is None or got < part.nbytes:
            raise BoardFileError(
                name, f"is cut short: the file ends early (its header promises {count} boards)",
                index=start + got // (m * n * itemsize),
            )
        yield start, part.reshape(k, m, n)
    if not sized and _read_progressively(f, 1, name):  # a stream: bytes past the data, as a file's size shows
        raise BoardFileError(name, "holds bytes after the data its header describes")


def _read_progressively(f, nbytes, name, piece=1 << 24):
    """Up to ``nbytes`` from ``f``, in pieces, so a false promise costs no memory."""
    out = bytearray()
    try:
        while len(out) < nbytes:
            more = f.read(min(piece, nbytes - len(out)))
            if not more:
                break
            out += more
    except OSError as error:
        raise BoardFileError(name, f"cannot read: {(error.strerror or str(error)).lower()}") from None
    return out


def _readinto(f, arr, name):
    view = memoryview(arr).cast("B")
    got = 0
    try:
        while got < len(view):
            k = f.readinto(view[got:]) if hasattr(f, "readinto") else _read_copy(f, view[got:])
            if not k:
                break
            got += k
    except OSError as error:
        raise BoardFileError(name, f"cannot read: {(error.strerror or str(error)).lower()}") from None
    return got


def _read_copy(f, view):
    data = f.read(len(view))
    view[: len(data)] = data
    return len(data)
