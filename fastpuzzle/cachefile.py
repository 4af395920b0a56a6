"""The on-disk caches' common ground: where they live, checksums, safe opening.

Two stores use it: the pattern databases (:mod:`fastpuzzle.search.pdb.store`)
and the 12-cell distance tables (:mod:`fastpuzzle.distances.table`).  Each
cached array is a ``.npy`` file with a JSON sidecar that names what it holds
(kind, shape, goal or blank cell, format version), its byte count and a
CRC-32 of its data.  :func:`open_array` refuses anything that is not a
regular file (a FIFO would block), a file with trailing bytes, a header that
disagrees with the sidecar, and data whose checksum differs; it raises
:class:`CorruptCacheError`, and each store decides what follows (a rebuild or
an error naming the rebuild command).  The checksum is computed once per
file and process (about 0.2 CPU seconds for the 577 MB ``7-8`` database).

The location is ``$FASTPUZZLE_CACHE`` (``~`` expanded; a relative path is
taken from the working directory of the call) or ``~/.cache/fastpuzzle``.
:func:`usable_directory` checks, before long work, that a file can be made
there.

Examples
--------
>>> import os, tempfile, numpy as np
>>> d = tempfile.mkdtemp()
>>> meta = save_checked(os.path.join(d, "t.npy"), np.arange(5, dtype=np.uint8), {"kind": "demo"})
>>> open_array(os.path.join(d, "t.npy"), {"kind": "demo"}).tolist()
[0, 1, 2, 3, 4]
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import threading
import tokenize
import zlib
from pathlib import Path

import numpy as np

from .atomic import save_array, write_text
from .errors import CorruptCacheError

__all__ = ["CorruptCacheError", "cache_root", "usable_directory", "checksum", "describe_array", "save_checked",
           "open_array", "read_sidecar", "regular_file", "remove_cached", "sidecar"]  # fmt: skip

_CHUNK = 1 << 24


def cache_root() -> Path:
    """``$FASTPUZZLE_CACHE`` (``~`` expanded, made absolute) or ``~/.cache/fastpuzzle`` (:func:`fastpuzzle.options.cache_dir`)."""
    from .options import cache_dir

    return cache_dir()


def usable_directory(directory) -> str | None:
    """None if files can be made in ``directory`` (made if missing), else why not."""
    directory = os.fspath(directory)
    try:
        os.makedirs(directory, exist_ok=True)
        probe = os.path.join(directory, f".probe.{os.getpid()}.{os.urandom(4).hex()}")
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
    except OSError as error:
        return f"{error.strerror or error} ({directory})"
    return None


def _check_header_length(path: Path, size: int) -> None:
    """Refuse a ``.npy`` file whose header claims more bytes than the file holds (or a header
    takes), before NumPy reads (and allocates) that many (:func:`fastpuzzle.io.npy.header_length`)."""
    from .io.npy import header_length

    with open(path, "rb") as f:
        version = tuple(f.read(8)[6:8])
        problem = header_length(f, version, size)[0]
    if problem:
        raise CorruptCacheError(path, f"is unreadable ({problem})")


def checksum(array) -> int:
    """CRC-32 of an array's bytes, read in 16 MiB slices (a memory map is paged in once)."""
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    crc = 0
    for lo in range(0, flat.size, _CHUNK):
        crc = zlib.crc32(memoryview(flat[lo : lo + _CHUNK]), crc)
    return crc


def sidecar(path) -> Path:
    """The JSON file that describes the cached array ``path``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def describe_array(array) -> dict:
    """The entries :func:`open_array` checks: dtype, shape, bytes, CRC-32."""
    return dict(dtype=array.dtype.str, shape=list(array.shape), nbytes=int(array.nbytes), crc32=checksum(array))


def save_checked(path, array, meta: dict) -> dict:
    """Write ``array`` to ``path`` and its sidecar (``meta`` plus :func:`describe_array`)."""
    array = np.ascontiguousarray(array)
    full = dict(meta, **describe_array(array))
    save_array(path, array)
    write_text(sidecar(path), json.dumps(full, indent=1) + "\n")  # last: its presence means the data is whole
    return full


_VERIFIED: dict = {}
_VERIFIED_LOCK = threading.Lock()


def regular_file(path) -> os.stat_result:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except NotADirectoryError as error:  # a file where a directory of the path should be: nothing cached there
        raise FileNotFoundError(error.errno, error.strerror, str(path)) from None
    except OSError as error:
        raise CorruptCacheError(path, f"cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(st.st_mode):
        raise CorruptCacheError(path, "is not a regular file (a FIFO, device or directory); delete it")
    return st


def read_sidecar(path) -> dict:
    """The sidecar of ``path`` as a dict (``FileNotFoundError`` when missing)."""
    side = sidecar(path)
    st = regular_file(side)
    if st.st_size > 1 << 20:
        raise CorruptCacheError(side, "is too large to be a cache description")
    try:
        meta = json.loads(side.read_bytes())
    except (ValueError, UnicodeDecodeError, RecursionError) as error:  # nested past the parser's depth too
        raise CorruptCacheError(side, f"is not valid JSON ({error})") from None
    if not isinstance(meta, dict):
        raise CorruptCacheError(side, "is not a cache description")
    return meta


def open_array(path, expect: dict, meta: dict | None = None):
    """The cached array at ``path``, memory-mapped read-only, after every check.

    ``expect`` holds the sidecar entries that must match (kind, shape, goal,
    format...); ``meta`` is the description when the store keeps it elsewhere
    (default: the sidecar).  Raises ``FileNotFoundError`` when the array or
    its description is missing, :class:`CorruptCacheError` for everything else.
    """
    path = Path(path)
    st = regular_file(path)
    meta = read_sidecar(path) if meta is None else meta
    for key, value in expect.items():
        if meta.get(key) != value:
            raise CorruptCacheError(path, f"is foreign or stale: its {key} is {meta.get(key)!r}, expected {value!r}")
    _check_header_length(path, st.st_size)
    try:
        data = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError, SyntaxError, tokenize.TokenError) as error:  # a header's dict spoiled too
        raise CorruptCacheError(path, f"is unreadable ({' '.join(str(error).split())[:200]})") from None
    if data.dtype.str != meta.get("dtype") or list(data.shape) != meta.get("shape"):
        raise CorruptCacheError(path, f"holds {data.dtype} {data.shape}, its description says {meta.get('dtype')} "
                                      f"{tuple(meta.get('shape') or ())}")  # fmt: skip
    offset = getattr(data, "offset", None)
    if offset is None or offset + data.nbytes != st.st_size or data.nbytes != meta.get("nbytes"):
        raise CorruptCacheError(path, f"has {st.st_size:,} bytes, not the header and {data.nbytes:,} bytes of data "
                                      "(trailing bytes or truncated)")  # fmt: skip
    stamp = (str(path.resolve()), st.st_ino, st.st_mtime_ns, st.st_size, meta.get("crc32"), st.st_ctime_ns, st.st_dev)
    again = os.stat(path)  # the file mapped is the one stamped (not replaced since the first look)
    same = (again.st_ino, again.st_mtime_ns, again.st_size) == (st.st_ino, st.st_mtime_ns, st.st_size)
    with _VERIFIED_LOCK:
        known = same and stamp in _VERIFIED
    if not known and not (same and _stamped(path, stamp)):
        if checksum(data) != meta.get("crc32"):
            raise CorruptCacheError(path, "is corrupted: its CRC-32 differs from the one recorded when it was written")
        _stamp(path, stamp)
    with _VERIFIED_LOCK:
        _VERIFIED[stamp] = True
    return data


def stamp_path(path) -> Path:
    """Where :func:`open_array` records that ``path`` passed its checksum (file identity and time)."""
    path = Path(path)
    return path.with_name(path.name + ".verified")


def _stamp_text(stamp) -> str:
    return json.dumps(dict(inode=stamp[1], mtime_ns=stamp[2], size=stamp[3], crc32=stamp[4], ctime_ns=stamp[5],
                           device=stamp[6])) + "\n"


def _stamped(path, stamp) -> bool:
    """Whether an earlier process verified this very file (same device, inode, size, modification and
    change times, recorded CRC): a later write, a copy or a restored time changes one of them, so a
    1 GB table is not read again before its first use."""
    try:
        side = stamp_path(path)
        st = os.lstat(side)
        return stat.S_ISREG(st.st_mode) and st.st_size < 4096 and side.read_text() == _stamp_text(stamp)
    except (OSError, UnicodeDecodeError):
        return False


def _stamp(path, stamp) -> None:
    try:
        write_text(stamp_path(path), _stamp_text(stamp))
    except OSError:  # a read-only cache: verified again by the next process
        pass


def remove_cached(path) -> None:
    """Delete a cached array and its sidecar (missing ones ignored)."""
    for p in (Path(path), sidecar(path), stamp_path(path)):
        try:
            if p.is_dir() and not p.is_symlink():  # a directory in a cached file's place, inside the cache
                shutil.rmtree(p)
                continue
            os.unlink(p)
        except FileNotFoundError:
            pass
        except OSError as error:
            if error.errno not in (errno.ENOENT,):
                raise
