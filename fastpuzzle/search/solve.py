"""``solve`` and ``solve_many``: the front door of the solvers.

Validation, the solvability check and the choice of method happen here; the
work is done by the IDA* kernel (:mod:`fastpuzzle.search.ida`) or, when
present, by the constructive solver (``fastpuzzle.search.constructive``) and
the pattern-database solver (``fastpuzzle.pdb``), imported only when asked for.
"""

from __future__ import annotations

import itertools
import numbers
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from ..boards import as_boards, as_goal
from ..moves import slide_codes
from ..solvability import is_solvable
from . import ida as _ida
from .solution import Solution

__all__ = ["solve", "solve_many", "SolveManyResult", "HEURISTICS", "METHODS"]

HEURISTICS = ("linear_conflict", "manhattan", "pdb")
METHODS = ("auto", "ida", "constructive")

#: ``method="auto"`` uses IDA* up to this many cells, the constructive solver beyond.
AUTO_IDA_MAX_CELLS = 16
#: IDA*'s move tables grow as cells**2; beyond this many cells they would take
#: hundreds of MB for a search that could never finish anyway.
IDA_MAX_CELLS = 400

_STATUS = {
    _ida.STATUS_FOUND: "optimal",
    _ida.STATUS_NODES: "budget",
    _ida.STATUS_TIME: "budget",
}


# ------------------------------------------------------------------ validation


def _check_options(heuristic, method, max_nodes, time_limit):
    if not isinstance(heuristic, str):
        raise TypeError(f"heuristic must be a string, one of {', '.join(map(repr, HEURISTICS))}; got {heuristic!r}")
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; choose one of {', '.join(map(repr, HEURISTICS))}")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, one of {', '.join(map(repr, METHODS))}; got {method!r}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))}")
    if max_nodes is not None:
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, numbers.Integral):
            raise TypeError(f"max_nodes must be a positive integer or None, got {max_nodes!r}")
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
        max_nodes = int(min(max_nodes, 2**62))  # the kernel counts in int64
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
            raise TypeError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        if not (time_limit > 0 and np.isfinite(time_limit)):
            raise ValueError(f"time_limit must be a positive, finite number of seconds, got {time_limit!r}")
        time_limit = float(time_limit)
    return max_nodes, time_limit


def _resolve_method(method: str, heuristic: str, m: int, n: int) -> str:
    """The solver to run: ``"ida"``, ``"constructive"`` or ``"pdb"``."""
    if heuristic == "pdb" and method != "constructive":
        return "pdb"
    if method == "auto":
        if m * n <= AUTO_IDA_MAX_CELLS:
            return "ida"
        method = "constructive" if _constructive() is not None else "ida"
    if method == "ida" and m * n > IDA_MAX_CELLS:
        raise ValueError(
            f"IDA* handles boards of at most {IDA_MAX_CELLS} cells, got {m}x{n}; "
            "use method='constructive' (fastpuzzle.search.constructive)"
        )
    return method


def _constructive():
    """``solve_constructive`` when that module is installed, else None."""
    try:
        from .constructive import solve_constructive
    except ImportError:
        return None
    return solve_constructive


def _pdb():
    try:
        from ..pdb import solve_with_pdb
    except ImportError:
        return None
    return solve_with_pdb


def _unsolvable_message(index, single: bool) -> str:
    who = "board" if single else f"board {index}"
    return (
        f"{who} cannot reach the goal: it lies in the other half of the state space "
        "(an odd permutation away; for one-row/column boards, its tiles are in another order)"
    )


# ------------------------------------------------------------------ one board


def _slide(cells: np.ndarray, target: np.ndarray, m: int, n: int) -> Solution:
    """One row or one column: the blank slides straight to its goal cell."""
    t0 = time.perf_counter()
    codes = slide_codes(m, n, int(np.flatnonzero(cells == 0)[0]), int(np.flatnonzero(target == 0)[0]))
    return Solution(codes, status="optimal", nodes=len(codes) + 1, seconds=time.perf_counter() - t0, method="slide")


def _solve_one(cells, target, m, n, heuristic, max_nodes, time_limit, method) -> Solution:
    """Solve a validated, solvable flat board (not yet at the goal)."""
    if m == 1 or n == 1:
        return _slide(cells, target.ravel(), m, n)
    which = _resolve_method(method, heuristic, m, n)
    board = cells.reshape(m, n)
    if which == "constructive":
        fn = _constructive()
        if fn is None:
            raise ValueError("method 'constructive' needs fastpuzzle.search.constructive, which is not installed")
        return fn(board, target)
    if which == "pdb":
        fn = _pdb()
        if fn is None:
            raise ValueError("heuristic 'pdb' needs fastpuzzle.pdb, which is not installed")
        return fn(board, target, max_nodes=max_nodes, time_limit=time_limit)
    status, codes, nodes, seconds = _ida.ida_search(cells, m, n, target, heuristic, max_nodes, time_limit)
    if status == _ida.STATUS_EXHAUSTED:  # only possible if the solvability rule were wrong
        raise RuntimeError("IDA* exhausted the search space without reaching the goal")
    return Solution(codes, status=_STATUS[status], nodes=nodes, seconds=seconds, method="ida", heuristic=heuristic)


def solve(board, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None, method="auto"):
    """Shortest move sequence from ``board`` to ``goal``.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board, ``0`` = blank; any ``m x n`` with ``m*n >= 2``.
    goal : array_like, shape (m, n), optional
        Target board; default tiles ``1..mn-1`` row-major, blank last.
    heuristic : {"linear_conflict", "manhattan", "pdb"}
        Lower bound guiding IDA*: Manhattan distance plus linear conflicts
        (default), plain Manhattan distance, or additive pattern databases
        (``fastpuzzle.pdb``, when installed).
    max_nodes : int, optional
        Stop after generating this many nodes (status ``"budget"``).
    time_limit : float, optional
        Stop after about this many seconds (status ``"budget"``).
    method : {"auto", "ida", "constructive"}
        ``"ida"``: optimal IDA*.  ``"constructive"``: a fast, not optimal,
        solver (``fastpuzzle.search.constructive``, when installed).
        ``"auto"``: IDA* up to 16 cells, constructive beyond (IDA* if that
        module is missing).

    Returns
    -------
    Solution
        ``moves`` (the blank's directions ``U D L R``), ``length``, ``status``
        (``"optimal"``, or ``"budget"`` with no moves when a budget stopped
        the search), ``nodes``: nodes generated (the root once, then every
        child generated in every IDA* iteration, pruned ones included; Korf's
        count), ``seconds``.  One-row/column boards are solved directly
        (method ``"slide"``); a board already at the goal gives an empty
        optimal solution with ``nodes == 0``.

    Raises
    ------
    ValueError
        The board cannot reach the goal (checked first, in microseconds), a
        malformed board, goal or option, or IDA* asked for a board of more
        than 400 cells.
    TypeError
        Non-integer boards or options of the wrong type.

    Examples
    --------
    >>> s = solve([[1, 2, 3], [4, 0, 6], [7, 5, 8]])
    >>> s.moves, s.length, s.status
    ('DR', 2, 'optimal')
    >>> s.verify([[1, 2, 3], [4, 0, 6], [7, 5, 8]])
    True
    """
    max_nodes, time_limit = _check_options(heuristic, method, max_nodes, time_limit)
    batch, single = as_boards(board, label="board")
    if not single:
        raise ValueError(f"solve takes one board (m, n), got a batch of shape {batch.shape}; use solve_many")
    m, n = batch.shape[1:]
    target = as_goal(goal, m, n)
    if not is_solvable(batch[0], target, check=False):
        raise ValueError(_unsolvable_message(0, True))
    cells = batch[0].ravel()
    if np.array_equal(cells, target.ravel()):
        return Solution(np.zeros(0, np.uint8), status="optimal", nodes=0, seconds=0.0,
                        method="ida", heuristic=heuristic)  # fmt: skip
    return _solve_one(cells, target, m, n, heuristic, max_nodes, time_limit, method)


# ------------------------------------------------------------------ many boards


@dataclass(eq=False)
class SolveManyResult:
    """Results of :func:`solve_many`, one entry per board.

    Attributes
    ----------
    lengths : ndarray of int64
        Solution length; ``-1`` where a budget stopped the search.
    nodes : ndarray of int64
        Nodes generated per board (see :func:`solve`).
    status : ndarray of str
        ``"optimal"``, ``"found"`` (valid, not proven shortest) or ``"budget"``.
    seconds : ndarray of float64
        Time spent on each board.
    moves : list of str
        Move strings (``""`` where a budget stopped the search).
    method, heuristic : str
        As passed to :func:`solve_many`.
    """

    lengths: np.ndarray
    nodes: np.ndarray
    status: np.ndarray
    seconds: np.ndarray
    moves: list
    method: str = "ida"
    heuristic: str = "linear_conflict"

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def solved(self) -> np.ndarray:
        """Boolean mask of the boards that got a solution."""
        return self.status != "budget"

    def solutions(self) -> list:
        """One :class:`Solution` per board."""
        from ..moves import encode_moves

        return [
            Solution(encode_moves(mv), status=str(st), nodes=int(nd), seconds=float(sec),
                     method=self.method, heuristic=self.heuristic)  # fmt: skip
            for mv, st, nd, sec in zip(self.moves, self.status, self.nodes, self.seconds)
        ]

    def __repr__(self) -> str:
        ok = int(self.solved.sum())
        return f"SolveManyResult({len(self)} boards, {ok} solved, nodes={int(self.nodes.sum())})"


def _chunk_size(n_boards: int, n_cells: int, threads: int) -> int:
    if n_cells >= 16:
        return 1  # hard boards: hand them out one at a time for balance
    return max(1, min(256, n_boards // (8 * threads)))


def _run_chunks(n_items, chunk, threads, work, bar):
    """Run ``work(lo, hi)`` over ``range(n_items)`` in chunks on ``threads`` threads."""
    starts = itertools.count(0, chunk)
    lock = threading.Lock()
    errors = []

    def worker():
        while True:
            with lock:
                lo = next(starts)
            if lo >= n_items or errors:
                return
            hi = min(n_items, lo + chunk)
            try:
                work(lo, hi)
            except BaseException as exc:  # re-raised in the caller's thread
                errors.append(exc)
                return
            if bar is not None:
                with lock:
                    bar.update(hi - lo)

    if threads == 1:
        worker()
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for f in [pool.submit(worker) for _ in range(threads)]:
                f.result()
    if errors:
        raise errors[0]


def solve_many(boards, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None,
               method="auto", threads=None, progress=False):  # fmt: skip
    """Solve a batch of boards across threads.

    Parameters
    ----------
    boards : array_like, shape (B, m, n) (or one board (m, n))
        Start boards, ``0`` = blank.
    goal, heuristic, method
        As in :func:`solve`; one goal for the whole batch.
    max_nodes, time_limit : optional
        Budgets **per board**.
    threads : int, optional
        Worker threads (default: Numba's thread count).  The IDA* kernel
        releases the GIL; boards are handed out in small chunks so that a hard
        board does not hold up the rest.
    progress : bool
        Show a progress bar (tqdm) on stderr.

    Returns
    -------
    SolveManyResult
        Arrays ``lengths``, ``nodes``, ``status``, ``seconds`` and the list
        ``moves``; ``.solutions()`` gives :class:`Solution` objects.

    Raises
    ------
    ValueError
        If any board cannot reach the goal (the message names the first one),
        before any search starts.

    Examples
    --------
    >>> r = solve_many([[[1, 2, 3], [4, 0, 6], [7, 5, 8]], [[1, 2, 3], [4, 5, 6], [7, 8, 0]]])
    >>> r.lengths.tolist(), r.moves, r.status.tolist()
    ([2, 0], ['DR', ''], ['optimal', 'optimal'])
    """
    max_nodes, time_limit = _check_options(heuristic, method, max_nodes, time_limit)
    if threads is None:
        threads = numba.get_num_threads()
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be a positive integer or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    batch, single = as_boards(boards, label="boards")
    B, m, n = batch.shape
    target = as_goal(goal, m, n)
    ok = np.asarray(is_solvable(batch, target, check=False)).reshape(B)
    if not ok.all():
        raise ValueError(_unsolvable_message(int(np.flatnonzero(~ok)[0]), single))
    threads = int(min(threads, max(B, 1)))
    flat = batch.reshape(B, m * n)
    lengths = np.full(B, -1, np.int64)
    nodes = np.zeros(B, np.int64)
    seconds = np.zeros(B, np.float64)
    status = np.empty(B, dtype="<U7")
    moves = [""] * B
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=B, file=sys.stderr, unit="board", desc="solving")
    which = "slide" if (m == 1 or n == 1) else _resolve_method(method, heuristic, m, n)
    try:
        if which == "ida":
            _solve_many_ida(flat, m, n, target, heuristic, max_nodes, time_limit, threads, bar,
                            lengths, nodes, status, seconds, moves)  # fmt: skip
        else:

            def work(lo, hi):
                for i in range(lo, hi):
                    if np.array_equal(flat[i], target.ravel()):
                        sol = Solution(np.zeros(0, np.uint8), nodes=0, method=which, heuristic=heuristic)
                    else:
                        sol = _solve_one(flat[i], target, m, n, heuristic, max_nodes, time_limit, method)
                    lengths[i] = sol.length if sol.solved else -1
                    nodes[i], status[i], seconds[i], moves[i] = sol.nodes, sol.status, sol.seconds, sol.moves

            _run_chunks(B, 1 if m * n >= 16 else 16, threads, work, bar)
    finally:
        if bar is not None:
            bar.close()
    return SolveManyResult(lengths, nodes, status, seconds, moves, method=which, heuristic=heuristic)


def _solve_many_ida(flat, m, n, target, heuristic, max_nodes, time_limit, threads, bar,
                    lengths, nodes, status, seconds, moves):  # fmt: skip
    from ..moves import decode_moves

    B = flat.shape[0]
    tables = _ida.search_tables(m, n, target)
    args = _ida._kernel_args(tables, _ida._lc_mode(heuristic, tables))
    cap = _ida._initial_capacity(m, n)
    codes = np.zeros((B, cap), np.uint8)
    st = np.zeros(B, np.int64)
    goal_flat = np.ascontiguousarray(target.ravel())

    def work(lo, hi):
        _ida._ida_batch(flat[lo:hi], m, n, *args, 0 if max_nodes is None else max_nodes,
                        0.0 if time_limit is None else time_limit,
                        codes[lo:hi], lengths[lo:hi], nodes[lo:hi], st[lo:hi], seconds[lo:hi])  # fmt: skip
        for i in range(lo, hi):
            if st[i] == _ida.STATUS_DEPTH:  # deeper than the preallocated rows: solve alone
                s, c, nd, sec = _ida.ida_search(flat[i], m, n, target, heuristic, max_nodes, time_limit)
                st[i], nodes[i], seconds[i] = s, nd, sec
                lengths[i] = len(c)
                moves[i] = decode_moves(c)
            elif st[i] == _ida.STATUS_FOUND:
                moves[i] = decode_moves(codes[i, : lengths[i]])
            if st[i] == _ida.STATUS_EXHAUSTED:
                raise RuntimeError(f"IDA* exhausted the search space of board {i} without reaching the goal")
            if st[i] != _ida.STATUS_FOUND:
                lengths[i] = -1
            status[i] = _STATUS[int(st[i])]

    _run_chunks(B, _chunk_size(B, m * n, threads), threads, work, bar)
    at_goal = (flat == goal_flat).all(axis=1)
    nodes[at_goal] = 0
