"""``solve_many`` over a ``distributed`` cluster: one task per chunk of boards (see
:mod:`fastpuzzle.distributed`)."""

from __future__ import annotations

import sys

import numpy as np

try:
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('fastpuzzle.distributed needs Dask: pip install -e ".[dask]"') from exc

from .. import options
from ..boards import BoardError, as_boards, as_goal
from .arrays import as_dask_boards, client_for

__all__ = ["solve_many"]


def _solve_chunk(boards, goal, settings, start=0):
    from ..errors import UnreachableError
    from ..search.solve import solve_many as _solve_many

    try:
        result = _solve_many(boards, goal=goal, **settings)
    except BoardError as error:  # the index in the whole batch, not in the chunk
        raise error.renumbered(start) from None
    except UnreachableError as error:
        raise UnreachableError(None if error.index is None else error.index + start) from None
    return (result.lengths, result.nodes, result.status, result.seconds, result.moves, result.method, result.heuristic,
            result.lower_bounds)


def solve_many(boards, *, client=None, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None,
               method="auto", threads=None, progress=False, database=None, prune="automaton",
               chunk_boards: int = 64, metric="stm"):  # fmt: skip
    """:func:`fastpuzzle.solve_many` over a ``distributed`` cluster: one task
    per chunk of boards, results gathered in order.

    Parameters
    ----------
    boards : array_like (B, m, n) or dask array
        Start boards.  A NumPy batch is validated (and checked solvable) here,
        before any task is scheduled; a dask array is validated in its tasks.
    client : distributed.Client or str, optional
        A client, or a scheduler's address (``"tcp://host:port"``, connected
        for this call).  Default: the current client (``distributed.get_client()``).
    goal, heuristic, max_nodes, time_limit, method, threads, database, prune, metric
        As in :func:`fastpuzzle.solve_many` (all checked here, before any task
        is scheduled); budgets are per board, ``threads`` per task.
    progress : bool
        A progress bar (tqdm) on stderr, advanced as chunks finish.
    chunk_boards : int
        Boards per task (>= 1): small enough to balance hard boards across workers.

    Returns
    -------
    SolveManyResult
        As from :func:`fastpuzzle.solve_many`, in the order of ``boards``.
    """
    from ..notation import check_metric
    from ..search.checks import check_options, check_prune, refuse_node_budget
    from ..search.solve import SolveManyResult

    max_nodes, time_limit = check_options(heuristic=heuristic, method=method, max_nodes=max_nodes,
                                          time_limit=time_limit, database=database)  # fmt: skip
    refuse_node_budget(method, max_nodes)
    check_prune(prune)
    settings = dict(heuristic=heuristic, max_nodes=max_nodes, time_limit=time_limit, method=method,
                    threads=options.threads(threads), database=database, prune=prune,
                    metric=check_metric(metric))  # fmt: skip
    progress = options.flag(progress, "progress")
    chunk_boards = options.positive(chunk_boards, "chunk_boards")
    local = _checked_locally(boards, goal, settings)
    if local is not None:  # no board to send: the local function's own answer (its labels too)
        return local
    client, own = client_for(client, "client", local=False)
    try:
        futures = _submit_solves(client, boards, goal, settings, chunk_boards)
        parts = _gather(client, futures, progress)
    finally:
        if own:
            client.close()
    if not parts:
        empty = np.zeros(0, np.int64)
        return SolveManyResult(empty, empty.copy(), np.zeros(0, "<U8"), np.zeros(0), [], method, heuristic,
                               metric=settings["metric"])  # fmt: skip
    return SolveManyResult(
        np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]),
        [mv for p in parts for mv in p[4]], parts[0][5], parts[0][6],  # the method and heuristic run
        np.concatenate([p[7] for p in parts]), metric=settings["metric"],
    )


def _checked_locally(boards, goal, settings):
    """Check, before any task, what the local :func:`fastpuzzle.solve_many` checks once it knows the
    boards' shape (the method for the metric); an empty batch is answered here, by that function."""
    from ..search.solve import method_and_metric, solve_many as local_solve_many

    if isinstance(boards, da.Array):
        shape = as_dask_boards(boards).shape
    else:
        batch, _ = as_boards(boards)
        if batch.shape[0] == 0:
            return local_solve_many(batch, goal=goal, **settings)
        shape = batch.shape
    method_and_metric(settings["method"], settings["heuristic"], shape[1], shape[2], settings["max_nodes"],
                       settings["time_limit"], settings["metric"])  # fmt: skip
    return None


def _submit_solves(client, boards, goal, settings, chunk_boards):
    if isinstance(boards, da.Array):
        x = as_dask_boards(boards, chunks=chunk_boards)
        target = as_goal(goal, *x.shape[1:])
        futures = [client.compute(x.blocks[i]) for i in range(len(x.chunks[0]))]
        starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64).tolist()
        return [client.submit(_solve_chunk, f, target, settings, start) for f, start in zip(futures, starts)]
    from ..search.solution import require_reachable

    batch, _ = as_boards(boards)
    target = as_goal(goal, *batch.shape[1:])
    require_reachable(batch, target)
    # hash=False: a key of its own; a content key is shared with an earlier call's goal, whose release
    # (that call refused in a task) would take this call's dependency with it
    scattered = client.scatter(target, broadcast=True, hash=False)
    return [client.submit(_solve_chunk, batch[lo:lo + chunk_boards], scattered, settings, lo, pure=False)
            for lo in range(0, batch.shape[0], chunk_boards)]  # fmt: skip


def _gather(client, futures, progress):
    if not progress or not futures:
        return client.gather(futures)
    from distributed import as_completed
    from tqdm import tqdm

    with tqdm(total=len(futures), file=sys.stderr, unit="chunk", desc="solving") as bar:
        for _ in as_completed(futures):
            bar.update(1)
    return client.gather(futures)
