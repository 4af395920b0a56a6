"""Scale-out on Dask: the same kernels, one chunk of boards per task.

Batches that outgrow one machine live in a ``dask.array`` of shape
``(B, m, n)`` chunked along the batch axis only.  Each function here checks
what it can before any task is scheduled (dimensions, dtype, board shape,
the goal), builds a lazy graph whose tasks call the local functions of
fastpuzzle on their chunk, and returns a dask array.  A bad board found inside
a chunk is reported with its index in the whole batch.

Install with ``pip install -e ".[dask]"``.
"""

from __future__ import annotations

import os

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('fastpuzzle.distributed needs Dask: pip install -e ".[dask]"') from exc

from .boards import BoardError, as_goal, board_dtype
from .generate import block_boards, seed_key
from .generate import check_count as _check_count
from .generate import fill_random as _fill_random
from .generate import prepare_shape_goal as _prepare
from .solvability import inversions as _inversions
from .solvability import is_solvable as _is_solvable
from .solvability import reachable as _reachable

__all__ = [
    "as_dask_boards", "is_solvable", "reachable", "inversions", "random_solvable",
    "from_npy", "to_zarr", "from_zarr", "compute", "iter_blocks", "solve_many",
]

#: Default boards per chunk: about 64 MiB of 4x4 uint8 boards.
DEFAULT_CHUNK_CELLS = 1 << 26


def default_chunks(m: int, n: int) -> int:
    """Boards per chunk for ``m x n`` boards (about 2^26 cells)."""
    return max(1, DEFAULT_CHUNK_CELLS // (m * n))


def as_dask_boards(boards, chunks=None) -> "da.Array":
    """A ``(B, m, n)`` dask array of boards chunked along the batch axis only.

    Checks dimensions, dtype and board shape eagerly (no task runs); the
    per-board checks run inside each chunk's task.

    Parameters
    ----------
    boards : dask.array.Array or array_like
        ``(B, m, n)`` boards; NumPy arrays and memory maps are wrapped.
    chunks : int, optional
        Boards per chunk; default :func:`default_chunks`.  A dask array keeps
        its batch chunks unless ``chunks`` is given.

    Examples
    --------
    >>> import numpy as np
    >>> x = as_dask_boards(np.zeros((10, 2, 2), np.uint8), chunks=4)
    >>> x.chunks
    ((4, 4, 2), (2,), (2,))
    """
    if not isinstance(boards, da.Array):
        boards = np.asarray(boards) if not hasattr(boards, "shape") else boards
        if getattr(boards, "ndim", None) == 3:
            m, n = boards.shape[1:]
            boards = da.from_array(boards, chunks=(chunks or default_chunks(m, n), m, n))
    if boards.ndim != 3:
        raise ValueError(f"boards must be a batch (B, m, n), got an array with {boards.ndim} dimension(s)")
    m, n = boards.shape[1:]
    if m == 0 or n == 0 or m * n < 2:
        raise ValueError(f"boards have shape {m}x{n}; a board needs sides >= 1 and at least 2 cells")
    if boards.dtype == np.bool_ or boards.dtype.kind not in "iuf":
        raise TypeError(f"boards must hold integers (0 = blank), got dtype {boards.dtype}")
    if chunks is not None or len(boards.chunks[1]) > 1 or len(boards.chunks[2]) > 1:
        boards = boards.rechunk({0: chunks or boards.chunks[0], 1: -1, 2: -1})
    return boards


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
    return _chunk_call(_is_solvable, block, goal, check=check, block_info=block_info)


def _inversions_chunk(block, method, check, block_info=None):
    if block.shape[0] == 0:
        return np.zeros(0, np.int64)
    return _chunk_call(_inversions, block, method, check=check, block_info=block_info)


def _reachable_chunk(block_a, block_b, check, block_info=None):
    if block_a.shape[0] == 0:
        return np.zeros(0, bool)
    return _chunk_call(_reachable, block_a, block_b, check=check, block_info=block_info)


def is_solvable(boards, goal=None, *, check: bool = True, chunks=None) -> "da.Array":
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
    x = as_dask_boards(boards, chunks)
    m, n = x.shape[1:]
    target = as_goal(goal, m, n)
    return x.map_blocks(_solvable_chunk, target, check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))


def inversions(boards, method: str = "auto", *, check: bool = True, chunks=None) -> "da.Array":
    """Lazy :func:`fastpuzzle.inversions`: a ``(B,)`` int64 dask array."""
    if method not in ("auto", "merge", "fenwick", "radix", "bitmask"):
        raise ValueError(f"unknown method {method!r}; choose 'auto', 'merge', 'fenwick', 'radix' or 'bitmask'")
    x = as_dask_boards(boards, chunks)
    if method == "bitmask" and x.shape[1] * x.shape[2] > 64:
        raise ValueError(f"method 'bitmask' handles boards of at most 64 cells, got {x.shape[1] * x.shape[2]}")
    return x.map_blocks(_inversions_chunk, method, check, drop_axis=[1, 2], dtype=np.int64,
                        meta=np.array((), np.int64))


def reachable(a, b, *, check: bool = True, chunks=None) -> "da.Array":
    """Lazy :func:`fastpuzzle.reachable`; ``b`` is one board or a batch like ``a``."""
    x = as_dask_boards(a, chunks)
    m, n = x.shape[1:]
    if isinstance(b, da.Array) and b.ndim == 3:
        if b.shape != x.shape:
            raise ValueError(f"a holds {x.shape[0]} boards of {m}x{n} and b has shape {b.shape}")
        y = b.rechunk((x.chunks[0], m, n))
        return da.map_blocks(_reachable_chunk, x, y, check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))
    b = np.asarray(b)
    if b.ndim == 2:
        target = as_goal(b, m, n)  # validates one board eagerly
        return x.map_blocks(_reachable_chunk, target, check, drop_axis=[1, 2], dtype=bool, meta=np.array((), bool))
    return reachable(x, as_dask_boards(b, chunks), check=check)


def _random_chunk(goal_flat, m, n, key, solvable, block_info=None):
    (start, stop), _, _ = block_info[None]["array-location"]
    out = np.empty((stop - start, m * n), board_dtype(m * n))
    _fill_random(out, goal_flat, m, n, key, start // block_boards(m, n), solvable)
    return out.reshape(stop - start, m, n)


def random_solvable(m, n, count, seed=None, goal=None, *, chunks=None, solvable: bool = True) -> "da.Array":
    """Lazy :func:`fastpuzzle.random_solvable`: ``count`` boards in chunks,
    each chunk generated by its own task.

    Every board comes from the random stream of its block (see
    :mod:`fastpuzzle.generate`), so chunks are reproducible on any worker and
    the result equals ``fastpuzzle.random_solvable(m, n, count, seed, goal)``
    exactly.  ``chunks`` (boards per chunk) is rounded to whole stream blocks.
    With ``solvable=False`` the boards are plain random permutations
    (:func:`fastpuzzle.random_permutations`).

    Examples
    --------
    >>> import fastpuzzle as fp
    >>> x = random_solvable(4, 4, 10_000, seed=3, chunks=4096)
    >>> bool((x.compute() == fp.random_solvable(4, 4, 10_000, seed=3)).all())
    True
    """
    count = _check_count(count)
    if count is None:
        raise ValueError("count is required for a dask array of boards")
    m, n, goal_flat = _prepare(m, n, goal)
    key = seed_key(seed)  # drawn once, here, so every task sees the same key
    bsize = block_boards(m, n)
    per_chunk = chunks or default_chunks(m, n)
    per_chunk = max(bsize, (per_chunk // bsize) * bsize)
    sizes = tuple(min(per_chunk, count - lo) for lo in range(0, count, per_chunk)) or (0,)
    return da.map_blocks(
        _random_chunk, goal_flat, m, n, key, solvable,
        chunks=(sizes, (m,), (n,)), dtype=board_dtype(m * n), meta=np.empty((0, m, n), board_dtype(m * n)),
    )


def _npy_chunk(path, block_info=None):
    (start, stop), _, _ = block_info[None]["array-location"]
    # a view of the mapped file: the kernels read the pages directly, no copy
    return np.load(path, mmap_mode="r")[start:stop]


def from_npy(path, chunks=None) -> "da.Array":
    """A dask array over a ``.npy`` file of boards.

    Only the header is read here; each task memory-maps the file and copies
    its own slice, so nothing but the path travels in the graph.  On a
    cluster, every worker must see ``path`` (a shared file system).
    """
    from .io.npy import read_npy_header, regular_file_size
    from .io.source import open_input

    if chunks is not None and (isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer))):
        raise TypeError(f"chunks must be a whole number of boards >= 1 or None, got {chunks!r}")
    if chunks is not None and chunks < 1:
        raise ValueError(f"chunks must be >= 1 boards, got {chunks}")
    f, name, _ = open_input(os.fspath(path))  # the package's one reader checks the header against the file
    with f:
        header = read_npy_header(f, name, regular_file_size(f))
    if header.single:
        raise ValueError(f"{name}: holds one board (m, n); from_npy reads a batch (B, m, n)")
    path = os.path.abspath(os.fspath(path))
    data = np.load(path, mmap_mode="r") if header.shape[0] else np.empty(header.shape, header.dtype)
    count, m, n = data.shape
    per_chunk = chunks or default_chunks(m, n)
    sizes = tuple(min(per_chunk, count - lo) for lo in range(0, count, per_chunk)) or (0,)
    x = da.map_blocks(_npy_chunk, path, chunks=(sizes, (m,), (n,)), dtype=data.dtype,
                      meta=np.empty((0, m, n), data.dtype))
    return as_dask_boards(x)


def to_zarr(boards, path, chunks=None, overwrite: bool = False):
    """Write boards to a zarr store chunked along the batch axis (in parallel
    when ``boards`` is a dask array); returns the path."""
    x = as_dask_boards(boards, chunks)
    x = x.astype(board_dtype(x.shape[1] * x.shape[2]))
    da.to_zarr(x, str(path), overwrite=overwrite)
    return path


def from_zarr(path) -> "da.Array":
    """A dask array of boards from a zarr store written by :func:`to_zarr`."""
    return as_dask_boards(da.from_zarr(str(path)))


def _solve_chunk(boards, goal, heuristic, max_nodes, time_limit, method, threads):
    from .search.solve import solve_many as _solve_many

    result = _solve_many(boards, goal=goal, heuristic=heuristic, max_nodes=max_nodes, time_limit=time_limit,
                         method=method, threads=threads)
    return result.lengths, result.nodes, result.status, result.seconds, result.moves, result.lower_bounds


def solve_many(boards, client=None, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None,
               method="auto", chunk_boards: int = 64, threads=None):
    """:func:`fastpuzzle.solve_many` over a ``distributed.Client``: one task
    per chunk of boards, results gathered in order.

    Parameters
    ----------
    boards : array_like (B, m, n) or dask array
        Start boards.  A NumPy batch is validated (and checked solvable) here,
        before any task is scheduled; a dask array is validated in its tasks.
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    goal, heuristic, max_nodes, time_limit, method
        As in :func:`fastpuzzle.solve_many`; budgets are per board.
    chunk_boards : int
        Boards per task: small enough to balance hard boards across workers.
    threads : int, optional
        Threads per task inside a worker.

    Returns
    -------
    SolveManyResult
        As from :func:`fastpuzzle.solve_many`, in the order of ``boards``.
    """
    from distributed import get_client

    from .search.solve import SolveManyResult, check_options

    check_options(heuristic, method, max_nodes, time_limit)
    client = client or get_client()
    if isinstance(boards, da.Array):
        x = as_dask_boards(boards, chunk_boards)
        parts = [x.blocks[i] for i in range(len(x.chunks[0]))]
        m, n = x.shape[1:]
        target = as_goal(goal, m, n)
        futures = [client.compute(p) for p in parts]
        futures = [client.submit(_solve_chunk, f, target, heuristic, max_nodes, time_limit, method, threads)
                   for f in futures]
    else:
        from .boards import as_boards
        from .search.solution import require_reachable

        batch, _ = as_boards(boards)
        m, n = batch.shape[1:]
        target = as_goal(goal, m, n)
        require_reachable(batch, target)
        scattered = client.scatter(target, broadcast=True)
        futures = [
            client.submit(_solve_chunk, batch[lo:lo + chunk_boards], scattered, heuristic, max_nodes, time_limit,
                          method, threads, pure=False)
            for lo in range(0, batch.shape[0], chunk_boards)
        ]
    parts = client.gather(futures)
    if not parts:
        empty = np.zeros(0, np.int64)
        return SolveManyResult(empty, empty.copy(), np.zeros(0, "<U8"), np.zeros(0), [], method, heuristic)
    return SolveManyResult(
        np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]),
        [mv for p in parts for mv in p[4]], method, heuristic, np.concatenate([p[5] for p in parts]),
    )


def iter_blocks(x, scheduler=None, window: int = 4):
    """Yield ``(start, block)`` of a dask array along axis 0, in order, with
    at most ``window`` blocks in flight: the results stream to the caller
    (a file writer, a printer) without ever holding the whole array.

    ``scheduler`` is a ``distributed`` address (``"tcp://host:port"``), a
    ``distributed.Client``, or a local scheduler name (``"threads"``...).
    """
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64)
    blocks = [x.blocks[i] for i in range(len(x.chunks[0]))]
    client, own = _client_for(scheduler)
    try:
        if client is None:
            for lo in range(0, len(blocks), window):
                results = dask.compute(*blocks[lo:lo + window], scheduler=scheduler or "threads")
                for k, block in enumerate(results):
                    yield int(starts[lo + k]), block
            return
        pending = {}
        next_submit = 0
        for i in range(len(blocks)):
            while next_submit < len(blocks) and next_submit < i + window:
                pending[next_submit] = client.compute(blocks[next_submit])
                next_submit += 1
            yield int(starts[i]), pending.pop(i).result()
    finally:
        if own:
            client.close()


def _client_for(scheduler):
    """(client or None, whether we opened it)."""
    if scheduler is None or isinstance(scheduler, str) and "://" not in scheduler:
        return None, False
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    return Client(scheduler), True


def compute(*arrays, scheduler=None):
    """``dask.compute`` with an optional scheduler address (``"tcp://..."``)
    or name (``"threads"``, ``"processes"``, ``"synchronous"``)."""
    if scheduler and "://" in str(scheduler):
        from distributed import Client

        with Client(scheduler) as client:
            return client.compute(list(arrays), sync=True)
    return dask.compute(*arrays, scheduler=scheduler)
