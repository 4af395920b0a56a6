"""The one way fastpuzzle writes a file: :class:`AtomicOutput`.

Semantics, as standard tools have them:

* a regular file, or a new path, is written to a temporary file beside it
  and renamed over it on success -- a reader never sees half a file, and a
  failure leaves the old content in place;
* a symbolic link is followed: its target is replaced, the link stays;
* an existing file keeps its permission bits; a new file gets
  ``0666 & ~umask``;
* a file with other hard links is replaced by the rename too: its other
  names keep the old content, so an input read through one of them (or
  memory-mapped, or the output itself) is never truncated under its reader;
* a character or block device, a FIFO and a pipe (``/dev/stdout``,
  ``/proc/self/fd/1``, ``>(gzip > x.gz)``) are written in place, by the name
  given (no rename: the device and the reader keep working); a name for this
  process's standard output that a shell redirected to a file writes there;
* a socket, a directory and a path ending in ``/`` are refused;
* the temporary file is removed on every exit path, including SIGTERM and
  SIGHUP (handlers raise :class:`OutputInterrupted` for the duration of the
  write and are restored after it);
* errors name the user's path, never the temporary name; missing parent
  directories are not created (:func:`save_array` makes them, for caches);
  ``"-"`` is standard output.

It sits on the ground floor (stdlib only at import) so that the board files
(:mod:`fastpuzzle.io.write`) and the on-disk caches of the pattern databases
and distance tables share it.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import sys
import threading
import time

from .errors import OptionError, OptionTypeError

__all__ = ["AtomicOutput", "OutputInterrupted", "FIFO_READER_WAIT", "names_a_descriptor", "write_text", "save_array"]

#: Seconds an output FIFO is waited on for a reader before it is refused (an open with no reader
#: would block for ever).
FIFO_READER_WAIT = 10.0
#: Errors of a write itself: those, raised without a file name inside an output's block, are the
#: output's (a timeout or a refused connection raised there is not).
_WRITE_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EIO", "EFBIG", "EDQUOT", "EPIPE", "EROFS",
                                                            "EACCES", "EPERM", "EBADF", "ENXIO")
                          if hasattr(errno, name))

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
            raise OptionTypeError("path", type(path).__name__, "must be a str or os.PathLike (an output path)")
        self.path = os.fspath(path)
        if self.path == "":
            raise OptionError("path", "", "is empty; give a file name or '-' for standard output")
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
        try:
            st = os.stat(self.path)  # through every link, /proc/self/fd/1 and /dev/stdout included
        except FileNotFoundError:
            st = None
        except OSError as error:
            raise _output_error(error, self.path) from None
        if st is None and names_a_descriptor(self.path):
            raise OSError(errno.EBADF, "names a descriptor that is not open (standard output closed?)", self.path)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name", self.path)
        if st is not None and stat.S_ISSOCK(st.st_mode):
            raise OSError(errno.ENXIO, "is a socket; outputs are files, devices or FIFOs", self.path)
        if self.path.endswith(os.sep) or (os.altsep and self.path.endswith(os.altsep)):
            raise NotADirectoryError(errno.ENOTDIR, "ends with a slash but is not a directory; give a file name",
                                     self.path)  # fmt: skip
        try:
            if st is not None and stat.S_ISFIFO(st.st_mode):
                self.file = os.fdopen(_open_fifo(self.path), "wb")
                return self.file
            if st is not None and not stat.S_ISREG(st.st_mode):  # a pipe or device: no rename
                self.file = os.fdopen(os.open(self.path, os.O_WRONLY), "wb")
                return self.file
            if st is not None and names_a_descriptor(self.path):  # e.g. /dev/stdout redirected to a file
                fd = _own_descriptor(self.path, st)
                if fd == 1:
                    self.path = "-"
                    return self.__enter__()
                if fd is not None:  # written through as the shell opened it (so ``3>>log`` appends)
                    self.file = os.fdopen(os.dup(fd), "wb")
                    return self.file
                self.file = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_TRUNC), "wb")
                return self.file
            self._target = os.path.realpath(self.path)  # the rename replaces the link's target
            parent = os.path.dirname(self._target) or "."
            if not os.path.isdir(parent):
                raise FileNotFoundError(errno.ENOENT, f"no such directory {parent} (it is not created)", self.path)
            self._install_handlers()
            tmp = self._temp_name(parent)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
            except OSError as error:  # the target may well exist: say it is the file beside it that failed
                raise type(error)(error.errno, f"cannot create a file beside it in {parent} "
                                  f"({error.strerror or error})", self.path) from None  # fmt: skip
            self._tmp = tmp  # only once it exists: a failed open leaves nothing to remove
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
        name = os.path.basename(self._target)
        if len(os.fsencode(name)) > 200:  # the suffix must not push a long valid name past NAME_MAX
            name = name[:60]
        return os.path.join(parent, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")

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

    def close_file(self):
        """Flush and close the file now (its write errors raised here, named); the ``with`` block's
        end then only renames it into place.  Standard output is flushed, not closed."""
        if self.file is None:
            return
        try:
            if self.path == "-":
                self.file.flush()
            elif not self.file.closed:
                self.file.close()
        except OSError as error:
            raise _output_error(error, "<stdout>" if self.path == "-" else self.path) from None

    def __exit__(self, exc_type, exc, tb):
        if self.path == "-":
            if exc_type is None:
                try:
                    self.file.flush()
                except OSError as error:
                    raise _output_error(error, "<stdout>") from None
            elif _is_write_error(exc):
                raise _output_error(exc, "<stdout>") from None
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
        if _is_write_error(exc):
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
                except OSError:  # already gone: the error being reported is the output's own
                    pass
                self._tmp = None
        finally:
            self._restore_handlers()


_DESCRIPTOR_NAME = re.compile(r"/dev/(stdin|stdout|stderr)|/dev/fd/(\d+)|/proc/(self|\d+)/fd/(\d+)")


def names_a_descriptor(path: str) -> bool:
    """``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``: a name for an open descriptor."""
    return _DESCRIPTOR_NAME.fullmatch(path) is not None


def _own_descriptor(path: str, st):
    """The descriptor of this process that ``path`` names, when it is open on the file ``st``
    (the shell's redirection, written through as opened); else ``None``."""
    found = _DESCRIPTOR_NAME.fullmatch(path)
    if found is None or (found[3] not in (None, "self") and int(found[3]) != os.getpid()):
        return None
    fd = {"stdin": 0, "stdout": 1, "stderr": 2}[found[1]] if found[1] else int(found[2] or found[4])
    if fd == 1:
        return 1 if _is_own_stdout(st) else None
    try:
        own = os.fstat(fd)
    except OSError:
        return None
    return fd if (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino) else None


def _is_write_error(exc) -> bool:
    """An error of a write (no file name, a write's errno): the output's to name."""
    return isinstance(exc, OSError) and exc.filename is None and exc.errno in _WRITE_ERRNOS


def _open_fifo(path: str) -> int:
    """A descriptor writing into the FIFO ``path``, once a process reads it, waiting at most
    :data:`FIFO_READER_WAIT` seconds (a blocking open with no reader never returns); then
    ``ENXIO``.  The descriptor blocks on writes as a plain open's does."""
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            if time.monotonic() >= deadline:
                raise OSError(errno.ENXIO, f"is a FIFO that no process read within {FIFO_READER_WAIT:g} s",
                              path) from None
            time.sleep(0.05)
    os.set_blocking(fd, True)
    return fd


def _is_own_stdout(st) -> bool:
    try:
        own = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


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
        raise OptionTypeError("text", type(text).__name__, "must be a str")
    with AtomicOutput(path) as f:
        f.write(text.encode("utf-8"))


def save_array(path, array, *, make_parents: bool = True) -> str:
    """Write ``array`` as ``.npy`` to ``path`` through :class:`AtomicOutput`
    (the caches' writer: parent directories are made unless told otherwise).

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> p = save_array(os.path.join(tempfile.mkdtemp(), "a", "x.npy"), np.arange(3))
    >>> np.load(p).tolist()
    [0, 1, 2]
    """
    import numpy as np  # only the callers that save arrays pay for NumPy here

    path = os.fspath(path)
    if make_parents and path != "-":
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with AtomicOutput(path) as f:
        np.save(f, np.asarray(array))
    return path
