"""The lazy twins on dask arrays: solvability, inversions, reachability, random boards, ``.npy``
and Zarr stores, and the schedulers (see :mod:`fastpuzzle.distributed`)."""

from __future__ import annotations

import math
import os
import shutil

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('fastpuzzle.distributed needs Dask: pip install -e ".[dask]"') from exc

from .. import options
from ..boards import BoardError, as_boards, as_goal, board_dtype
from ..errors import BoardFileError, OptionError, OptionTypeError, ShapeError
from ..generate import block_boards, seed_key
from ..generate import fill_random as _fill_random
from ..memory import check_allocation
from ..generate import prepare_shape_goal as _prepare
from ..solvability import inversions as _inversions
from ..solvability import is_solvable as _is_solvable
from ..solvability import reachable as _reachable

__all__ = [
    "as_dask_boards", "is_solvable", "reachable", "inversions", "random_solvable",
    "from_npy", "to_zarr", "from_zarr", "MAX_ZARR_CHUNK_BYTES", "compute", "iter_blocks", "client_for",
]

#: Default boards per chunk: about 64 MiB of 4x4 uint8 boards.
DEFAULT_CHUNK_CELLS = 1 << 26
#: What one task of a lazy graph costs the client before anything runs (measured
#: about 2 KB; rounded up): a graph of more chunks than memory can describe is refused.
TASK_BYTES = 4096


def default_chunks(m: int, n: int) -> int:
    """Boards per chunk for ``m x n`` boards (about 2^26 cells)."""
    return max(1, DEFAULT_CHUNK_CELLS // (m * n))


def _chunk_sizes(count: int, per_chunk: int) -> tuple:
    """Sizes of ``count`` boards cut into chunks of ``per_chunk``, refusing a graph
    too large to describe before it is built."""
    n_chunks = -(-count // per_chunk)
    check_allocation(n_chunks * TASK_BYTES, f"a graph of {n_chunks:,} chunks of {per_chunk:,} boards")
    return tuple(min(per_chunk, count - lo) for lo in range(0, count, per_chunk)) or (0,)


def as_dask_boards(boards, *, chunks=None) -> "da.Array":
    """A ``(B, m, n)`` dask array of boards chunked along the batch axis only.

    Checks dimensions, dtype and board shape eagerly (no task runs); the
    per-board checks run inside each chunk's task.

    Parameters
    ----------
    boards : dask.array.Array or array_like
        ``(B, m, n)`` boards; NumPy arrays and memory maps are wrapped.
    chunks : int, optional
        Boards per chunk (>= 1); default :func:`default_chunks`.  A dask array
        keeps its batch chunks unless ``chunks`` is given.

    Examples
    --------
    >>> import numpy as np
    >>> x = as_dask_boards(np.zeros((10, 2, 2), np.uint8), chunks=4)
    >>> x.chunks
    ((4, 4, 2), (2,), (2,))
    """
    chunks = options.positive(chunks, "chunks", none=True)
    if not isinstance(boards, da.Array):
        if not hasattr(boards, "shape") or getattr(boards, "dtype", None) == object:
            # a list or Python objects: read and checked here, as the local functions read them
            batch, single = as_boards(boards)
            if single:
                raise ShapeError(batch.shape[1:], "boards must be a batch (B, m, n), got one board (m, n)")
            boards = batch
        if getattr(boards, "ndim", None) == 3:
            m, n = boards.shape[1:]
            _check_board_shape(m, n)  # before the default chunk size divides by the cells
            boards = da.from_array(boards, chunks=(chunks or default_chunks(m, n), m, n))
    if boards.ndim != 3:
        raise ShapeError(boards.shape, f"boards must be a batch (B, m, n), got an array with {boards.ndim} dimension(s)")
    if any(math.isnan(c) for c in boards.chunks[0]):  # a filtered array: board indices would be unknown
        raise ShapeError((-1, *boards.shape[1:]), "boards has chunks of unknown size (a filtered dask array): call "
                         "boards.compute_chunk_sizes() first, so each board keeps its index")  # fmt: skip
    m, n = boards.shape[1:]
    _check_board_shape(m, n)
    if boards.dtype == np.bool_ or boards.dtype.kind not in "iuf":
        raise OptionTypeError("boards", boards.dtype, "must hold integers (0 = blank)")
    if chunks is not None or len(boards.chunks[1]) > 1 or len(boards.chunks[2]) > 1:
        boards = boards.rechunk({0: chunks or boards.chunks[0], 1: -1, 2: -1})
    # the twins add tasks per chunk: a graph the memory cannot describe is refused, as from_npy's
    check_allocation(len(boards.chunks[0]) * TASK_BYTES, f"a graph of {len(boards.chunks[0]):,} chunks of boards")
    return boards


def _check_board_shape(m, n):
    if m == 0 or n == 0 or m * n < 2:
        raise ShapeError((m, n), f"boards have shape {m}x{n}; a board needs sides >= 1 and at least 2 cells")


def _offset(block_info) -> int:
    return block_info[0]["array-location"][0][0] if block_info else 0


def _chunk_call(func, block, *args, block_info=None, **kwargs):
    try:
        return func(block, *args, **kwargs)
    except BoardError as error:
        raise error.renumbered(_offset(block_info)) from None


def _solvable_chunk(block, goal, check, block_info=None):
    if block.shape[0] == 0:
        return np.zeros(0, bool)
    return _chunk_call(_is_solvable, block, goal=goal, check=check, block_info=block_info)


def _inversions_chunk(block, method, check, block_info=None):
    if block.shape[0] == 0:
        return np.zeros(0, np.int64)
    return _chunk_call(_inversions, block, method=method, check=check, block_info=block_info)


def _reachable_chunk(block_a, block_b, check, block_info=None):
    if block_a.shape[0] == 0:
        return np.zeros(0, bool)
    return _chunk_call(_reachable, block_a, block_b, check=check, block_info=block_info)


def is_solvable(boards, *, goal=None, check: bool = True, chunks=None) -> "da.Array":
    """Lazy :func:`fastpuzzle.is_solvable` over a dask array of boards.

    Returns a ``(B,)`` bool dask array; call ``.compute()`` (or combine it
    with the rest of a graph) to run it.

    Examples
    --------
    >>> import numpy as np, fastpuzzle as fp
    >>> boards = np.stack([fp.goal_board(3, 3)] * 5)
    >>> is_solvable(boards, chunks=2).compute().tolist()
    [True, True, True, True, True]
    """
    check = options.flag(check, "check")
    x = as_dask_boards(boards, chunks=chunks)
    m, n = x.shape[1:]
    target = as_goal(goal, m, n)
    return x.map_blocks(_solvable_chunk, target, check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))


def inversions(boards, *, method: str = "auto", check: bool = True, chunks=None) -> "da.Array":
    """Lazy :func:`fastpuzzle.inversions`: a ``(B,)`` int64 dask array."""
    options.choice(method, "method", ("auto", "merge", "fenwick", "radix", "bitmask"))
    check = options.flag(check, "check")
    x = as_dask_boards(boards, chunks=chunks)
    if method == "bitmask" and x.shape[1] * x.shape[2] > 64:
        raise ShapeError(x.shape[1:], f"method 'bitmask' handles boards of at most 64 cells, got {x.shape[1] * x.shape[2]}",
                         expected=64)  # fmt: skip
    return x.map_blocks(_inversions_chunk, method, check, drop_axis=[1, 2], dtype=np.int64,
                        meta=np.array((), np.int64))


def reachable(a, b, *, check: bool = True, chunks=None) -> "da.Array":
    """Lazy :func:`fastpuzzle.reachable`; ``b`` is one board or a batch like ``a``."""
    check = options.flag(check, "check")
    x = as_dask_boards(a, chunks=chunks)
    m, n = x.shape[1:]
    if isinstance(b, da.Array) and b.ndim == 3:
        if b.shape != x.shape:
            raise ShapeError(b.shape, f"a holds {x.shape[0]} boards of {m}x{n} and b has shape {b.shape}", expected=x.shape)
        y = b.rechunk((x.chunks[0], m, n))
        return da.map_blocks(_reachable_chunk, x, y, check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))
    batch_b, single_b = as_boards(b, check=check, label="b")  # named and checked as the local function does
    if batch_b.shape[1:] != (m, n):
        raise ShapeError(batch_b.shape[1:], f"a and b hold boards of different shapes: {m}x{n} and "
                         f"{batch_b.shape[1]}x{batch_b.shape[2]}", expected=(m, n))  # fmt: skip
    if single_b:
        return x.map_blocks(_reachable_chunk, batch_b[0], check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))
    return reachable(x, as_dask_boards(batch_b, chunks=chunks), check=check)


def _random_chunk(goal_flat, m, n, key, solvable, block_info=None):
    (start, stop), _, _ = block_info[None]["array-location"]
    out = np.empty((stop - start, m * n), board_dtype(m * n))
    _fill_random(out, goal_flat, m, n, key, start // block_boards(m, n), solvable)
    return out.reshape(stop - start, m, n)


def _distance_chunk(goal, m, n, key, lo, hi, metric, block_info=None):
    from ..distances.sample import random_at_distance

    (start, stop), _, _ = block_info[None]["array-location"]
    # each chunk its own stream, derived from the key and the chunk's first board
    words = np.random.SeedSequence(list(key), spawn_key=(start,)).generate_state(2, np.uint64)
    out = random_at_distance(m, n, stop - start, (int(words[0]), int(words[1])), goal, lo, hi, metric=metric)
    return out.astype(board_dtype(m * n), copy=False)


def random_solvable(m, n, *, count=None, seed=None, goal=None, distance=None, metric="stm", chunks=None,
                    solvable: bool = True) -> "da.Array":  # fmt: skip
    """Lazy :func:`fastpuzzle.random_solvable`: ``count`` boards in chunks,
    each chunk generated by its own task.

    Every board comes from the random stream of its block (see
    :mod:`fastpuzzle.generate`), so chunks are reproducible on any worker and
    the result equals ``fastpuzzle.random_solvable(m, n, count=count,
    seed=seed, goal=goal)`` exactly.  ``chunks`` (boards per chunk) is rounded
    to whole stream blocks.  With ``solvable=False`` the boards are plain
    random permutations (:func:`fastpuzzle.random_permutations`).  With
    ``distance`` each chunk draws its boards from its own stream (derived
    from the seed and the chunk's start): reproducible for the same seed and
    ``chunks``, uniform as locally, but not the local function's boards;
    ``metric`` is the metric of ``distance``, as locally.

    ``count`` is required. A count whose graph alone would not fit in memory
    is refused (:class:`~fastpuzzle.errors.AllocationError`) before the graph
    is built.

    Examples
    --------
    >>> import fastpuzzle as fp
    >>> x = random_solvable(4, 4, count=10_000, seed=3, chunks=4096)
    >>> bool((x.compute() == fp.random_solvable(4, 4, count=10_000, seed=3)).all())
    True
    """
    count = options.count(count, none=True)
    if count is None:
        raise OptionError("count", None, "is required for a dask array of boards (a whole number >= 0)")
    chunks = options.positive(chunks, "chunks", none=True)
    solvable = options.flag(solvable, "solvable")
    m, n, goal_flat = _prepare(m, n, goal)
    if distance is not None:
        from ..distances.sample import check_distance

        if not solvable:
            raise OptionError("distance", distance, "needs solvable=True")
        lo, hi = check_distance(distance, m, n)
    from ..notation import check_metric

    metric = check_metric(metric)
    key = seed_key(seed)  # drawn once, here, so every task sees the same key
    bsize = block_boards(m, n)
    per_chunk = chunks or default_chunks(m, n)
    per_chunk = max(bsize, (per_chunk // bsize) * bsize)
    sizes = _chunk_sizes(count, per_chunk)
    dtype = board_dtype(m * n)
    # a task holds its chunk (and the generator a copy): refused here, not in a worker
    check_allocation(2 * max(sizes) * m * n * dtype.itemsize, f"a chunk of {max(sizes):,} {m}x{n} boards")
    meta = np.empty((0, m, n), dtype)
    if distance is not None:
        from ..distances import sample

        # one board drawn here: a distance with no board is refused now, as the local function refuses it
        sample.random_at_distance(m, n, 1, key, goal_flat.reshape(m, n), lo, hi, metric=metric)
        return da.map_blocks(_distance_chunk, goal_flat.reshape(m, n), m, n, key, lo, hi, metric,
                             chunks=(sizes, (m,), (n,)), dtype=dtype, meta=meta)  # fmt: skip
    return da.map_blocks(_random_chunk, goal_flat, m, n, key, solvable, chunks=(sizes, (m,), (n,)), dtype=dtype,
                         meta=meta)  # fmt: skip


def _read_header(path):
    from ..io.npy import read_npy_header, regular_file_size
    from ..io.source import open_input

    f, name, _ = open_input(path)  # the package's one reader checks the header against the file
    with f:
        return read_npy_header(f, name, regular_file_size(f)), name


def _npy_chunk(path, shape, dtype, block_info=None):
    (start, stop), _, _ = block_info[None]["array-location"]
    header, name = _read_header(path)  # the file may have changed since the graph was built
    if tuple(header.shape) != shape or np.dtype(header.dtype) != dtype:
        raise BoardFileError(name, f"changed since the graph was built: it holds {tuple(header.shape)} {header.dtype}, "
                                   f"the graph expects {shape} {dtype}")  # fmt: skip
    if stop == start:  # an empty file cannot be mapped
        return np.empty((0,) + shape[1:], dtype)
    # a view of the mapped file: the kernels read the pages directly, no copy
    return np.load(path, mmap_mode="r")[start:stop]


def _path(path) -> str:
    """A file name argument as a string (``OptionTypeError`` for anything else, NumPy's own
    ``TypeError`` naming no argument)."""
    if isinstance(path, (str, os.PathLike)):
        name = os.fspath(path)
        if isinstance(name, str):
            return name
    raise OptionTypeError("path", path, "must be a file name (str or path-like)")


def from_npy(path, *, chunks=None) -> "da.Array":
    """A dask array over a ``.npy`` file of boards.

    Only the header is read here; each task reads it again (a file rewritten
    since is refused, :class:`~fastpuzzle.errors.BoardFileError`), memory-maps
    the file and copies its own slice, so nothing but the path travels in the
    graph.  On a cluster, every worker must see ``path`` (a shared file system).
    """
    chunks = options.positive(chunks, "chunks", none=True)
    header, name = _read_header(_path(path))
    if header.single:
        raise BoardFileError(name, "holds one board (m, n); from_npy reads a batch (B, m, n)")
    path = os.path.abspath(os.fspath(path))
    shape, dtype = tuple(int(v) for v in header.shape), np.dtype(header.dtype)
    count, m, n = shape
    sizes = _chunk_sizes(count, chunks or default_chunks(m, n))
    x = da.map_blocks(_npy_chunk, path, shape, dtype, chunks=(sizes, (m,), (n,)), dtype=dtype,
                      meta=np.empty((0, m, n), dtype))  # fmt: skip
    return as_dask_boards(x)


def _validated_chunk(block, dtype, block_info=None):
    batch, _ = _chunk_call(as_boards, block, block_info=block_info)
    return batch.astype(dtype, copy=False)


def to_zarr(boards, path, *, chunks=None, overwrite: bool = False):
    """Write boards to a zarr store chunked along the batch axis (in parallel
    when ``boards`` is a dask array); returns the path.

    Every chunk is validated as every writer validates (``as_boards``: a bad
    board raises :class:`~fastpuzzle.errors.BoardError` with its index in the
    whole batch, a non-integer value a ``TypeError``).  The store is written
    beside ``path`` and renamed into place once every chunk is written, so a
    refused board (or a signal) leaves what was there as it was; an existing
    store is replaced only with ``overwrite=True``, and a path that is not a
    zarr store is never replaced.
    """
    overwrite = options.flag(overwrite, "overwrite")
    if not isinstance(path, (str, bytes, os.PathLike)) or not os.fspath(path) \
            or os.path.realpath(os.path.abspath(os.fspath(path))) == os.path.realpath(os.getcwd()):
        raise BoardFileError(os.fspath(path) if isinstance(path, (str, bytes, os.PathLike)) else repr(path),
                             "is no name for a new store (empty, or the working directory itself)")  # fmt: skip
    x = as_dask_boards(boards, chunks=chunks)
    dtype = board_dtype(x.shape[1] * x.shape[2])
    x = x.map_blocks(_validated_chunk, dtype, dtype=dtype, meta=np.empty((0,) + x.shape[1:], dtype))
    # absolute, links followed: the workers of a cluster need not share this process's working directory
    target = os.path.realpath(os.path.abspath(os.fspath(path)))
    if os.path.lexists(target):
        if not (os.path.isdir(target) and _is_zarr_store(target)):
            raise BoardFileError(os.fspath(path), "exists and is not a zarr store: it is not replaced")
        if not overwrite:
            raise OptionError("overwrite", overwrite, f"must be True to replace the zarr store {os.fspath(path)}")
    parent, base = os.path.split(target)
    if not os.path.isdir(parent):
        raise BoardFileError(os.fspath(path), f"has no directory {parent} (it is not created)")
    temp = os.path.join(parent, f".{base}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        da.to_zarr(x, temp)
        if os.path.lexists(target):
            old = temp + ".old"
            os.rename(target, old)
            os.rename(temp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(temp, target)
    except BaseException:
        _remove_tree(temp)
        raise
    return path


def _remove_tree(path, settle: float = 0.05, tries: int = 100):
    """Remove a failed store's parts: the chunks a refused board did not stop may still be written
    by the scheduler's other threads for a moment, so the removal is repeated until it holds."""
    import time

    gone = 0
    for _ in range(tries):
        shutil.rmtree(path, ignore_errors=True)
        gone = gone + 1 if not os.path.lexists(path) else 0
        if gone >= 3:
            return
        time.sleep(settle)


def _is_zarr_store(directory) -> bool:
    return any(os.path.exists(os.path.join(directory, f)) for f in (".zarray", ".zgroup", "zarr.json"))


#: Largest zarr chunk :func:`from_zarr` reads (bytes): every task reads its chunk whole.
MAX_ZARR_CHUNK_BYTES = 1 << 30


def from_zarr(path) -> "da.Array":
    """A dask array of boards from a zarr store written by :func:`to_zarr`.

    The store's header sizes the graph and every chunk a task reads whole
    (missing chunks are its fill value, so a store of a few bytes can claim
    any size): chunks of more than :data:`MAX_ZARR_CHUNK_BYTES` or more than
    the memory holds one a core, and graphs too large to describe, are
    refused before the graph is built."""
    import zarr

    name = _path(path)
    unreadable = tuple(t for t in (ValueError, KeyError, OSError, TypeError, RecursionError,
                                   getattr(zarr.errors, "BaseZarrError", None))
                       if isinstance(t, type))  # fmt: skip
    try:
        store = zarr.open_array(os.path.abspath(name), mode="r")
    except unreadable as error:
        raise BoardFileError(name, f"is not a readable zarr array ({type(error).__name__}: {error})") from None
    shape, chunks = tuple(int(v) for v in store.shape), tuple(int(v) for v in store.chunks)
    if len(shape) == 3 and all(shape):
        per_chunk = int(np.prod(chunks, dtype=object)) * np.dtype(store.dtype).itemsize
        if per_chunk > MAX_ZARR_CHUNK_BYTES:
            raise BoardFileError(name, f"has chunks of {per_chunk:,} bytes ({chunks[0]:,} boards), more than the "
                                       f"{MAX_ZARR_CHUNK_BYTES:,} a task reads; rechunk the store")  # fmt: skip
        what = f"{name}: chunks of {chunks[0]:,} boards of {shape[1]}x{shape[2]} ({store.dtype})"
        check_allocation(per_chunk * ((os.cpu_count() or 1) + 1), what + ", one a core")
        n_chunks = int(np.prod([-(-a // c) for a, c in zip(shape, chunks)], dtype=object))
        check_allocation(n_chunks * TASK_BYTES, f"a graph of {n_chunks:,} chunks of {name}")
    return as_dask_boards(da.from_zarr(store))


def iter_blocks(x, *, scheduler=None, window: int = 4):
    """Yield ``(start, block)`` of a dask array along axis 0, in order, with
    at most ``window`` blocks in flight (>= 1): the results stream to the caller
    (a file writer, a printer) without ever holding the whole array.

    ``scheduler`` is a ``distributed.Client``, a scheduler's address
    (``"tcp://host:port"``), or a local scheduler name (``"threads"``...).
    """
    window = options.positive(window, "window")
    if not isinstance(x, da.Array) or x.ndim < 1:
        raise OptionTypeError("x", type(x).__name__, "must be a dask array with a batch axis (as_dask_boards wraps a NumPy batch)")
    client, own = client_for(scheduler, "scheduler")
    return _iter_blocks(x, scheduler, window, client, own)


def _iter_blocks(x, scheduler, window, client, own):
    start = 0  # counted from the blocks themselves: a filtered array's chunk sizes are unknown (nan)
    n_blocks = len(x.chunks[0])  # each block's graph is cut when its turn comes: a header may claim millions
    try:
        if client is None:
            for lo in range(0, n_blocks, window):
                wanted = [x.blocks[i] for i in range(lo, min(lo + window, n_blocks))]
                for block in dask.compute(*wanted, scheduler=scheduler or "threads"):
                    yield start, block
                    start += len(block)
            return
        pending = {}
        next_submit = 0
        for i in range(n_blocks):
            while next_submit < n_blocks and next_submit < i + window:
                pending[next_submit] = client.compute(x.blocks[next_submit])
                next_submit += 1
            block = pending.pop(i).result()
            yield start, block
            start += len(block)
    finally:
        if own:
            client.close()


#: Dask's local schedulers, by name.
LOCAL_SCHEDULERS = ("threads", "threading", "processes", "multiprocessing", "sync", "synchronous", "single-threaded")


def client_for(scheduler, name, *, local=True):
    """``(client or None, whether it was opened here)`` for the one rule every
    twin follows: a ``distributed.Client``, an address ``"tcp://..."`` (connected
    here), ``None`` (local threads, or the current client when ``local`` is
    False), or, where ``local``, a local scheduler's name."""
    if scheduler is None:
        if local:
            return None, False
        from distributed import get_client

        try:
            return get_client(), False
        except ValueError:
            raise OptionError(name, None, "needs a distributed.Client or an address: no client is running") from None
    if isinstance(scheduler, str):
        if "://" in scheduler:
            from distributed import Client

            return Client(scheduler), True
        if local and scheduler in LOCAL_SCHEDULERS:
            return None, False
        rule = "must be a distributed.Client, an address 'tcp://host:port'" + (
            f" or one of {', '.join(map(repr, LOCAL_SCHEDULERS))}" if local else "")  # fmt: skip
        raise OptionError(name, scheduler, rule)
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - dask without distributed
        Client = ()
    if isinstance(scheduler, Client):
        return scheduler, False
    raise OptionTypeError(name, scheduler, "must be a distributed.Client or a scheduler's address or name")


def compute(*arrays, scheduler=None):
    """``dask.compute`` on the scheduler ``iter_blocks`` takes: a
    ``distributed.Client``, an address (``"tcp://..."``) or a local name
    (``"threads"``, ``"processes"``, ``"synchronous"``)."""
    client, own = client_for(scheduler, "scheduler")
    if client is None:
        return dask.compute(*arrays, scheduler=scheduler)
    try:
        return tuple(client.compute(list(arrays), sync=True))
    finally:
        if own:
            client.close()
