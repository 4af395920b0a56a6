"""Opening what a reader reads: a path, ``"-"`` (standard input) or a binary stream.

Every problem of getting at the bytes -- a missing file, a directory, a
closed standard input, no permission -- becomes a :class:`BoardFileError`
naming the input as the user gave it.  A UTF-8 byte order mark at the start
of a text input is accepted and skipped, by every reader alike.
"""

from __future__ import annotations

import errno
import io
import mmap
import os
import re
import stat
import sys

import numpy as np

from ..errors import OptionTypeError
from .errors import BoardFileError

__all__ = ["input_name", "open_input", "read_input", "strip_bom", "BOM"]

BOM = b"\xef\xbb\xbf"


def input_name(source, name=None) -> str:
    """The name errors use for ``source``."""
    if name:
        return str(name)
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def _stdin(name):
    if sys.stdin is None or getattr(sys.stdin, "closed", True):
        raise BoardFileError(name, "standard input is closed")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream put in place of standard input (a test, a notebook)
        return io.BytesIO(sys.stdin.read().encode("utf-8"))
    try:
        os.fstat(stream.fileno())
    except (io.UnsupportedOperation, AttributeError):  # a stream without a descriptor (a test, a notebook)
        pass
    except (OSError, ValueError):
        raise BoardFileError(name, "standard input is closed") from None
    return stream


def open_input(source, name=None):
    """``(binary file, name, owned)`` for a path, ``"-"`` or an open binary stream.

    ``owned`` tells the caller to close the file when done.
    """
    name = input_name(source, name)
    if not isinstance(source, (str, os.PathLike)):
        if not hasattr(source, "read"):
            raise OptionTypeError("source", type(source).__name__, "must be a path, '-' or a binary file object")
        return source, name, False
    path = os.fspath(source)
    if path == "":
        raise BoardFileError("''", "an empty file name")
    if path == "-":
        return _stdin(name), name, False
    try:
        f = open(path, "rb")
    except OSError as error:
        raise BoardFileError(name, f"cannot open: {_why(error)}") from None
    try:
        if stat.S_ISDIR(os.fstat(f.fileno()).st_mode):
            raise BoardFileError(name, "cannot open: is a directory")
    except BaseException:
        f.close()
        raise
    return f, name, True


def _why(error: OSError) -> str:
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno == errno.EISDIR:
        return "is a directory"
    return (error.strerror or str(error)).lower()


def read_input(source, name=None, *, probe=None):
    """All bytes of an input as a ``uint8`` array, byte order mark removed.

    A regular file is memory-mapped (no copy); a pipe or a stream is read, and ``probe(bytes so
    far)``, when given, looks at what was read each time it doubles from a mebibyte on, up to
    :data:`PROBE_MAX_BYTES` (it raises to stop a stream that already went wrong).
    """
    f, name, owned = open_input(source, name)
    try:
        try:
            st = os.fstat(f.fileno())
            regular = stat.S_ISREG(st.st_mode) and st.st_size > 0 and f.tell() == 0
        except (OSError, AttributeError, ValueError):
            regular = False
        try:
            if regular:
                data = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), np.uint8)
            else:
                data = np.frombuffer(read_stream(f, name, probe=probe), np.uint8)
        except OSError as error:
            raise BoardFileError(name, f"cannot read: {_why(error)}") from None
    finally:
        if owned:
            f.close()
    return strip_bom(data), name


#: A byte no line of boards holds outside a comment (digits, blanks, separators, signs).
NOT_BOARD_TEXT = re.compile(rb"[^0-9 \t\r\n\x0b\x0c,/+\-]")


#: Largest prefix of a stream a ``probe`` looks at (:func:`read_input`): a stream that goes wrong
#: early does so in its first mebibytes, and a long valid one is judged once more at most this much.
PROBE_MAX_BYTES = 1 << 22


def read_stream(f, name, head=b"", chunk=1 << 20, probe=None) -> bytes:
    """The rest of a stream, after ``head``.  Its first line must look like boards (or a comment):
    a stream that cannot hold boards (``/dev/zero``, random bytes) stops at the first byte of that
    line that no board has, and the parser refuses it there, instead of reading to the end of memory."""
    parts = [bytes(head)]
    read, next_probe = len(parts[0]), 1 << 20
    unjudged = None if parts[0].startswith(b"\x93NUMPY") else parts[0]  # first-line bytes not yet looked at
    started = in_comment = False
    while True:
        if unjudged is not None and (started or len(unjudged) >= len(BOM)):  # a mark split across reads is whole
            if not started:
                unjudged, started = strip_bom(unjudged), True
            end = unjudged.find(b"\n")
            line = unjudged if end < 0 else unjudged[:end]
            if not in_comment:
                mark = line.find(b"#")
                if NOT_BOARD_TEXT.search(line if mark < 0 else line[:mark]):
                    return b"".join(parts)
                in_comment = mark >= 0
            unjudged = b"" if end < 0 else None  # None: the first line ended, the parser takes it from here
        more = f.read(chunk)
        if not more:
            return b"".join(parts)
        parts.append(more)
        read += len(more)
        if probe is not None and next_probe <= read <= PROBE_MAX_BYTES:
            parts = [b"".join(parts)]
            probe(parts[0])
            next_probe = 2 * read
        if unjudged is not None:
            unjudged += more


def strip_bom(data):
    """``data`` without a leading UTF-8 byte order mark (bytes or a uint8 array)."""
    if len(data) >= 3 and bytes(data[:3]) == BOM:
        return data[3:]
    return data
