"""``solve`` and ``solve_many``: the front door of the solvers.

Validation, the reachability check and the choice of method happen here; the
work is done by the one IDA* engine (:mod:`fastpuzzle.search.ida`) with the
heuristic asked for (Manhattan, linear conflict or pattern databases, see
:mod:`fastpuzzle.search.pdb`), or by the constructive solver
(:mod:`fastpuzzle.search.constructive`).
"""

from __future__ import annotations

import sys
import time

import numba
import numpy as np

from .. import options
from ..boards import as_boards, as_goal
from ..errors import OptionError, ShapeError
from ..interrupt import interruptible
from ..moves import round_up_to_parity, slide_codes, solution_parity
from ..notation import check_metric, count_moves, decode_moves
from . import ida
from .batch import ida_batch
from .chunks import run_chunks
from .anytime import DEFAULT_TIME_LIMIT, anytime_search
from .checks import PRUNE, check_options, check_prune, refuse_node_budget
from .clock import clock
from .constructive import solve_constructive
from .engines import make_search as _make_search, search_setup
from .portfolio import compile_ladder, portfolio_search
from .probes import PROBE_MIN_NODES, optimal_search, uses_probes
from .solution import Solution, SolveManyResult, require_reachable

__all__ = [
    "solve", "solve_many", "SolveManyResult",
    "check_options", "check_prune", "method_and_metric", "refuse_node_budget", "HEURISTICS", "METHODS", "PRUNE",
    "search_setup",
]  # fmt: skip

HEURISTICS, METHODS = options.HEURISTICS, options.METHODS
#: ``method="auto"`` without a budget uses plain IDA* up to this many cells
#: (proved optimal in seconds), the anytime search beyond (with a budget: always).
AUTO_IDA_MAX_CELLS = 16
#: A budgeted search of up to this many cells starts with the proof (:mod:`fastpuzzle.search.portfolio`);
#: beyond, no proof finishes in a budget, and the anytime search looks for short answers only.
PORTFOLIO_MAX_CELLS = 25
#: Most threads one proof is split over (more than the machine has only adds overhead).
MAX_PROOF_THREADS = 64
#: IDA*'s move tables grow as cells**2; beyond this many cells they would take
#: hundreds of MB for a search that could never finish anyway.
IDA_MAX_CELLS = 400

_STATUS = {
    ida.STATUS_FOUND: "optimal",
    ida.STATUS_NODES: "budget",
    ida.STATUS_TIME: "budget",
}


#: Seconds a search still gets when setting it up (reading its database) took the whole time limit:
#: enough for the fallback answer, which ``method="auto"`` always returns.
MIN_SEARCH_SECONDS = 1e-3
#: Seconds of compiling before the clock past which the answer says so (loading the kernels from
#: Numba's cache takes a tenth of a second).
COMPILE_NOTED = 0.5
#: The note of a first call that compiled the search's kernels before its budget's clock started.
COMPILED_NOTE = "first call in this process: {:.1f} s compiling the search kernels, outside the budget"
#: Share of a time limit past which setting a search up (reading its database; on a first run,
#: compiling) is named in the answer's note.
SETUP_SHARE = 0.25
#: That note.
SETUP_NOTE = ("{:.2f} s of the {:g} s time limit went to setting the search up (reading its database; on a first run "
              "in a fresh cache, compiling kernels) before it started")
#: The note of an answer that ran under :data:`~fastpuzzle.search.anytime.DEFAULT_TIME_LIMIT`.
DEFAULT_NOTE = f"no budget given: the default time limit of {DEFAULT_TIME_LIMIT:g} s applied"


def _resolve_method(method: str, heuristic: str, m: int, n: int, budget: bool = False) -> str:
    """The solver to run: ``"slide"``, ``"ida"``, ``"anytime"`` or ``"constructive"``."""
    if m == 1 or n == 1:
        return "slide"
    if method == "auto":
        if m * n > IDA_MAX_CELLS:
            method = "constructive"
        elif m * n <= AUTO_IDA_MAX_CELLS and not budget:
            method = "ida"
        else:
            method = "anytime"
    if method in ("ida", "anytime") and heuristic != "pdb" and m * n > IDA_MAX_CELLS:
        raise ShapeError(
            (m, n),
            f"IDA* handles boards of at most {IDA_MAX_CELLS} cells, got {m}x{n}; "
            "use method='constructive' (fastpuzzle.search.constructive)",
            expected=IDA_MAX_CELLS,
        )
    return method


def method_and_metric(method, heuristic, m, n, max_nodes, time_limit, metric):
    """The solver for the request; the multi-tile metric is searched by IDA* only."""
    metric = check_metric(metric)
    if metric == "mtm":
        if method not in ("auto", "ida"):
            raise OptionError("method", method, "must be 'ida' or 'auto' with metric='mtm' (the multi-tile metric is solved by IDA*)")
        if min(m, n) == 1:
            return "slide", metric
        if m * n > IDA_MAX_CELLS:  # past the search's tables: auto folds the constructive answer
            if method == "ida":
                raise ShapeError((m, n), f"the multi-tile IDA* handles boards of at most {IDA_MAX_CELLS} cells, got "
                                 f"{m}x{n}; method='auto' answers with the constructive solution, its slides folded",
                                 expected=IDA_MAX_CELLS)  # fmt: skip
            return "folded", metric
        return "ida", metric
    return _resolve_method(method, heuristic, m, n, budget=max_nodes is not None or time_limit is not None), metric



# ------------------------------------------------------------------ one board


def _slide(cells: np.ndarray, target: np.ndarray, m: int, n: int, metric: str) -> Solution:
    """One row or one column: the blank slides straight to its goal cell (one slide of the
    multi-tile metric, or one move a cell)."""
    t0 = time.perf_counter()
    codes = slide_codes(m, n, int(np.flatnonzero(cells == 0)[0]), int(np.flatnonzero(target == 0)[0]))
    sol = Solution(codes, status="optimal", nodes=len(codes) + 1, seconds=time.perf_counter() - t0, method="slide",
                   metric=metric)  # fmt: skip
    sol.lower_bound = sol.length
    return sol


def _solve_one(cells, target, m, n, search, max_nodes, time_limit, which, metric="stm", threads=1) -> Solution:
    """Solve a validated, reachable flat board (not yet at the goal); ``threads`` for one proof."""
    if which == "slide":
        return _slide(cells, target.ravel(), m, n, metric)
    if which == "constructive":
        sol = solve_constructive(cells.reshape(m, n), goal=target, time_limit=time_limit)
        sol.lower_bound = root_lower_bound(cells, target, m, n)
        return sol
    if which == "anytime":
        return _solve_anytime(cells, target, m, n, search, max_nodes, time_limit, threads)
    if which == "folded":
        return folded_fallback(cells, target, m, n, None)
    mapped = search.map_boards(cells[None, :])[0]
    info = np.zeros(4, np.int64)
    with interruptible(m * n > 9):  # SIGINT/SIGTERM stop the kernel (8-puzzles take milliseconds)
        status, codes, nodes, seconds = optimal_search(mapped, search.engine, max_nodes, time_limit, info=info,
                                                       threads=threads)  # fmt: skip
    _check_not_exhausted(status, 0)
    sol = Solution(search.unmap_codes(codes), status=_STATUS[status], nodes=nodes, seconds=seconds,
                   method="ida", heuristic=search.label, metric=search.metric)  # fmt: skip
    # every bound below info[2] searched in full; single-tile solutions share one parity
    stopped = int(info[2]) if search.metric == "mtm" else round_up_to_parity(
        int(info[2]), solution_parity(mapped, search.engine.goal, n))
    sol.lower_bound = sol.length if status == ida.STATUS_FOUND else stopped
    sol.note = search.engine.slides_note
    return sol


def root_lower_bound(cells, target, m, n) -> int:
    """Manhattan distance plus linear conflicts of a flat board: admissible, computed in one pass."""
    from .heuristics import linear_conflict

    return int(linear_conflict(cells.reshape(m, n), goal=target))


def _solve_anytime(cells, target, m, n, search, max_nodes, time_limit, threads=1) -> Solution:
    """The ladder of a budget: the proof first up to :data:`PORTFOLIO_MAX_CELLS` cells
    (:mod:`fastpuzzle.search.portfolio`), the anytime search beyond (:mod:`fastpuzzle.search.anytime`);
    a default time limit when no budget is given."""
    t0 = time.perf_counter()
    note = ""
    if max_nodes is None and time_limit is None:
        time_limit = DEFAULT_TIME_LIMIT
        note = DEFAULT_NOTE
    mapped = search.map_boards(cells[None, :])[0]
    forward = None if search.plan is None else np.argsort(search.plan.code_back).astype(np.uint8)

    def fallback(board=None):  # the start (in the caller's frame), or a board of the engine's frame
        if board is not None:
            return solve_constructive(board.reshape(m, n), goal=search.engine.goal.reshape(m, n)).codes
        codes = solve_constructive(cells.reshape(m, n), goal=target).codes
        return codes if forward is None else forward[codes.astype(np.int64)]

    with interruptible(m * n > 9):  # SIGINT/SIGTERM stop every kernel of the run
        if m * n <= PORTFOLIO_MAX_CELLS:
            r = portfolio_search(mapped, search.engine, goal=search.engine.goal, time_limit=time_limit,
                                 max_nodes=max_nodes, threads=threads, fallback=fallback,
                                 improver=search.improver)  # fmt: skip
        else:
            r = anytime_search(mapped, search.engine, goal=search.engine.goal, time_limit=time_limit,
                               max_nodes=max_nodes, fallback=fallback)  # fmt: skip
    if not r.optimal and r.stats:
        note = "; ".join(filter(None, (note, spent_note(r.stats))))
    return Solution(search.unmap_codes(r.codes), status="optimal" if r.optimal else "bounded", nodes=r.nodes,
                    seconds=time.perf_counter() - t0, method="anytime", heuristic=search.label,
                    lower_bound=r.lower_bound, note=note, stats=r.stats)  # fmt: skip


def spent_note(stats: dict) -> str:
    """How a ladder that did not prove its answer spent the budget (:attr:`Solution.stats`)."""
    proof, improve = stats["proof"], stats["improve"]
    where = f"every bound below {proof['bound']} searched, " if "bound" in proof else ""
    return (f"not proved optimal: the proof ran {proof['seconds']:.2f} s on {proof['threads']} thread"
            f"{'s' if proof['threads'] != 1 else ''} ({where}{proof['nodes']:,} nodes); shorter answers "
            f"{stats['answer']['seconds'] + improve['seconds']:.2f} s on 1 thread")


def _check_not_exhausted(status, index):
    if status == ida.STATUS_EXHAUSTED:  # only possible if the reachability rule were wrong
        raise RuntimeError(f"IDA* exhausted the search space of board {index} without reaching the goal")


def solve(board, *, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None, method="auto",
          database=None, prune="automaton", metric="stm", threads=None):  # fmt: skip
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
        (:mod:`fastpuzzle.pdb`; the database is ``database``).
    max_nodes : int, optional
        Stop after generating this many nodes (status ``"budget"``).
        Refused (``ValueError``) with ``method="constructive"``, which
        searches no nodes; with ``"auto"`` it bounds the search only.
    time_limit : float, optional
        Stop after about this many seconds (status ``"budget"``), counted
        from the call: reading a pattern database from disk spends it too.  The
        constructive solver checks it after each row or column it places
        and, out of time, returns status ``"budget"`` with no moves.
    method : {"auto", "ida", "anytime", "constructive"}
        ``"ida"``: optimal IDA* (with probes from 17 cells:
        :mod:`fastpuzzle.search.probes`).  ``"anytime"``: the best solution
        the budget finds, with a proved lower bound
        (:mod:`fastpuzzle.search.anytime`).  ``"constructive"``: a fast, not
        optimal, solver (:mod:`fastpuzzle.search.constructive`).  ``"auto"``:
        IDA* up to 16 cells with no budget, the anytime search otherwise up
        to 400 cells (a default time limit when no budget is given),
        constructive beyond (see ``docs/solving.md``).
    database : str or PatternDatabase, optional
        With ``heuristic="pdb"``: a named database (``"7-8"``, ``"6-6-3"``,
        ``"5-5-5"``, ``"4-4"``, ``"6-6-6-6"``, and ``"7-8x2"``,
        ``"6-6-6-6x2"`` of two partitions: fewer nodes, each slower) or a
        built one (:mod:`fastpuzzle.pdb`); default the fastest cached one for
        the board size (``4-4`` and ``6-6-3`` are built on first use).  Any goal
        whose blank a board symmetry brings to the database goal's blank
        cell (for the named databases: any corner) is handled by
        relabelling.  Refused with any other heuristic.
    prune : {"automaton", "undo"}
        Move sequences IDA* leaves out: ``"automaton"`` (default) every
        duplicate sequence of up to 14 moves
        (:func:`fastpuzzle.moves.move_automaton`; fewer nodes), ``"undo"``
        only the move that undoes the previous one (the node counts Korf
        published).  Solutions are optimal either way.
    metric : {"stm", "mtm"}
        Single-tile moves (default), or multi-tile moves (a row or column
        segment slid at once counts one move), searched by IDA*.  With
        ``method="auto"``, a multi-tile search its budget stops answers the
        constructive solution with its slides folded (status ``"bounded"``,
        ``lower_bound`` the bound the search proved; method
        ``"ida+constructive"``).
    threads : int, optional
        Threads of the optimal search (default: Numba's thread count, every
        core): each large pass of IDA* is split below the root over them
        (:mod:`fastpuzzle.search.parallel`; the nodes of a pass are those of
        one thread).  A node budget searches on one thread (its count is
        exact), and so does the multi-tile metric.

    Returns
    -------
    Solution
        ``moves`` (the blank's directions ``U D L R``), ``length``, ``status``
        (``"optimal"``; ``"bounded"`` or ``"found"`` for an answer not proved
        shortest, with ``lower_bound`` and ``bound_factor``; ``"budget"``
        with no moves when a budget stopped a search that has no answer),
        ``nodes``: nodes generated (the root once, then every
        child generated in every IDA* iteration, pruned ones included; Korf's
        count), ``seconds``, ``method`` (``"ida"``, ``"constructive"`` or
        ``"slide"``), ``heuristic`` (``"pdb:<name>"`` for a pattern
        database).  One-row/column boards are solved directly (method
        ``"slide"``); a board already at the goal gives an empty optimal
        solution with ``nodes == 0``.

    Raises
    ------
    ValueError
        The board cannot reach the goal (checked first, in microseconds), a
        malformed board, goal or option, or IDA* asked for a board of more
        than 400 cells.
    TypeError
        Non-integer boards or options of the wrong type.
    FileNotFoundError
        With ``heuristic="pdb"``: the database named (or needed) is not built.

    Examples
    --------
    >>> s = solve([[1, 2, 3], [4, 0, 6], [7, 5, 8]])
    >>> s.moves, s.length, s.status
    ('DR', 2, 'optimal')
    >>> s.verify([[1, 2, 3], [4, 0, 6], [7, 5, 8]])
    True
    """
    started = clock()  # the time limit counts from here: reading a database from disk is part of the call
    max_nodes, time_limit = check_options(heuristic=heuristic, method=method, max_nodes=max_nodes,
                                          time_limit=time_limit, database=database)  # fmt: skip
    refuse_node_budget(method, max_nodes)
    prune_length = check_prune(prune)
    threads = options.threads(threads)
    threads = min(numba.get_num_threads() if threads is None else threads, MAX_PROOF_THREADS)
    batch, single = as_boards(board, label="board")
    if not single:
        raise ShapeError(batch.shape, f"solve takes one board (m, n), got a batch of shape {batch.shape}; use solve_many")
    m, n = batch.shape[1:]
    target = as_goal(goal, m, n)
    require_reachable(batch, target, single=True)
    which, metric = method_and_metric(method, heuristic, m, n, max_nodes, time_limit, metric)
    search = _make_search(m, n, target, heuristic, database, prune_length, which, method, metric,
                          budget=max_nodes is not None or time_limit is not None)  # fmt: skip
    label = search.label if search is not None else heuristic
    cells = batch[0].ravel()
    if np.array_equal(cells, target.ravel()):
        return Solution(np.zeros(0, np.uint8), status="optimal", nodes=0, seconds=0.0, method=which, heuristic=label,
                        lower_bound=0, metric=metric)  # fmt: skip
    time_limit, default = _multi_tile_default(time_limit, max_nodes, method, m, n, metric)
    compiled = ""
    if which == "anytime":  # a first call compiles before its clock runs
        seconds = compile_ladder(search.engine, beams=m * n > PORTFOLIO_MAX_CELLS)
        started += seconds
        compiled = COMPILED_NOTE.format(seconds) if seconds > COMPILE_NOTED else ""
    if time_limit is not None:
        setup = clock() - started
        if setup > SETUP_SHARE * time_limit:  # the answer says where the budget went
            compiled = "; ".join(filter(None, (compiled, SETUP_NOTE.format(setup, time_limit))))
        time_limit = max(MIN_SEARCH_SECONDS, time_limit - setup)
    sol = _solve_one(cells, target, m, n, search, max_nodes, time_limit, which, metric, threads)
    if metric == "mtm" and method == "auto" and not sol.solved:
        sol = folded_fallback(cells, target, m, n, sol)
    sol.note = "; ".join(filter(None, (compiled, default, sol.note)))
    return sol


def _multi_tile_default(time_limit, max_nodes, method, m, n, metric):
    """``(time_limit, note)``: a multi-tile ``method="auto"`` search of more than 16 cells with no
    budget gets the anytime search's default time limit (then the folded constructive answer)."""
    if metric != "mtm" or method != "auto" or max_nodes is not None or time_limit is not None \
            or not AUTO_IDA_MAX_CELLS < m * n <= IDA_MAX_CELLS:  # beyond, no search runs (folded_fallback)
        return time_limit, ""
    return DEFAULT_TIME_LIMIT, DEFAULT_NOTE


#: The note of :func:`folded_fallback`'s answers.
FOLDED_NOTE = "the multi-tile search ran out of budget: the constructive solution, its slides folded"


def folded_fallback(cells, target, m, n, stopped: Solution | None) -> Solution:
    """A multi-tile search its budget stopped: the constructive solver's single-tile moves, each run
    of slides one way folded into one move, with the bound the search proved (``stopped``'s);
    ``None`` for a board past the search's tables (no search, no bound)."""
    sol = solve_constructive(cells.reshape(m, n), goal=target)
    if stopped is None:
        return Solution(sol.codes, status="found", nodes=0, seconds=sol.seconds, method="constructive", metric="mtm",
                        note=f"more than {IDA_MAX_CELLS} cells, past the multi-tile search: the constructive "
                             "solution, its slides folded")  # fmt: skip
    bound = stopped.lower_bound
    return Solution(sol.codes, status="found" if bound is None else "bounded", nodes=stopped.nodes,
                    seconds=stopped.seconds + sol.seconds, method="ida+constructive", heuristic=stopped.heuristic,
                    lower_bound=bound, metric="mtm", note="; ".join(filter(None, (stopped.note, FOLDED_NOTE))))


# ------------------------------------------------------------------ many boards


def solve_many(boards, *, goal=None, heuristic="linear_conflict", max_nodes=None, time_limit=None,
               method="auto", threads=None, progress=False, database=None, prune="automaton", metric="stm"):  # fmt: skip
    """Solve a batch of boards across threads.

    Parameters
    ----------
    boards : array_like, shape (B, m, n) (or one board (m, n))
        Start boards, ``0`` = blank.
    goal, heuristic, method, database, prune, metric
        As in :func:`solve`; one goal for the whole batch (a pattern
        database is loaded once for the batch).  A multi-tile board its
        budget stops gets the folded constructive solution with the bound
        the search proved (status ``"bounded"``, as :func:`solve` answers).
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
    max_nodes, time_limit = check_options(heuristic=heuristic, method=method, max_nodes=max_nodes,
                                          time_limit=time_limit, database=database)  # fmt: skip
    refuse_node_budget(method, max_nodes)
    prune_length = check_prune(prune)
    threads = options.threads(threads)
    if threads is None:
        threads = numba.get_num_threads()
    progress = options.flag(progress, "progress")
    batch, single = as_boards(boards, label="boards")
    B, m, n = batch.shape
    target = as_goal(goal, m, n)
    require_reachable(batch, target, single=single)
    which, metric = method_and_metric(method, heuristic, m, n, max_nodes, time_limit, metric)
    time_limit, _ = _multi_tile_default(time_limit, max_nodes, method, m, n, metric)  # per board, as in solve
    # budgets are per board: a batch builds the multi-tile databases once, whatever its budget
    search = _make_search(m, n, target, heuristic, database, prune_length, which, method, metric)
    label = search.label if search is not None else heuristic
    if which == "anytime":  # compiled before the first board's clock runs (budgets are per board)
        compile_ladder(search.engine, beams=m * n > PORTFOLIO_MAX_CELLS)
    threads = int(min(threads, MAX_PROOF_THREADS))
    flat = batch.reshape(B, m * n)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=B, file=sys.stderr, unit="board", desc="solving")
    try:
        if which == "ida" and B < threads and max_nodes is None and metric == "stm":  # each proof on threads
            with interruptible():
                columns = _solve_many_each(flat, target, m, n, which, threads, bar, search, max_nodes, time_limit)
        elif which == "ida" and uses_probes(search.engine):
            columns = _solve_many_probed(flat, target, m, n, search, max_nodes, time_limit, threads, bar)
        elif which == "ida":
            columns = _solve_many_ida(flat, search, max_nodes, time_limit, min(threads, B), bar)
        else:
            with interruptible(which == "anytime"):  # one guard for the batch: a signal between boards stops it too
                columns = _solve_many_each(flat, target, m, n, which, threads, bar, search, max_nodes, time_limit,
                                           metric)  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    at_goal = (flat == target.ravel()).all(axis=1)
    if metric == "mtm" and method == "auto":
        _fill_folded(columns, flat, target, m, n, at_goal)
    columns[1][at_goal] = 0  # nodes: no search from the goal itself
    *columns, bounds = columns
    bounds[at_goal] = 0
    return SolveManyResult(*columns, method=which, heuristic=label, lower_bounds=bounds, metric=metric)


def _fill_folded(columns, flat, target, m, n, at_goal):
    """The boards of a multi-tile batch its budget stopped get :func:`folded_fallback`'s answers,
    with the bound the batch search proved (status ``"bounded"``, as :func:`solve` answers)."""
    lengths, _, status, seconds, moves, bounds = columns
    for i in np.flatnonzero((lengths < 0) & ~at_goal):
        stopped = Solution(np.zeros(0, np.uint8), status="budget", seconds=float(seconds[i]),
                           lower_bound=int(bounds[i]) if bounds[i] >= 0 else None)  # fmt: skip
        sol = folded_fallback(flat[i], target, m, n, stopped)
        lengths[i], status[i], seconds[i], moves[i] = sol.length, sol.status, sol.seconds, sol.moves


def _solve_many_ida(flat, search, max_nodes, time_limit, threads, bar):
    mapped = search.map_boards(flat)
    n = search.engine.n
    with interruptible():
        status, codes, lengths, nodes, seconds, reached = ida_batch(mapped, search.engine, max_nodes, time_limit,
                                                                        threads, bar)  # fmt: skip
    for i in np.flatnonzero(status == ida.STATUS_EXHAUSTED)[:1]:
        _check_not_exhausted(ida.STATUS_EXHAUSTED, int(i))
    found = status == ida.STATUS_FOUND
    lengths[~found] = -1
    fold = search.metric == "mtm"  # folded slides, each one move
    moves = [decode_moves(search.unmap_codes(c), fold=fold) if ok else "" for c, ok in zip(codes, found)]
    if fold:
        lengths[found] = [count_moves(mv, metric="mtm") for mv, ok in zip(moves, found) if ok]
    labels = np.array([_STATUS[int(s)] for s in status], dtype="<U7")
    stopped = reached if fold else round_up_to_parity(reached, solution_parity(mapped, search.engine.goal, n))
    return lengths, nodes, labels, seconds, moves, np.where(found, lengths, stopped)


def _solve_many_probed(flat, target, m, n, search, max_nodes, time_limit, threads, bar):
    """``method="ida"`` where the search probes (:mod:`fastpuzzle.search.probes`): every board first
    in the batch kernel within :data:`PROBE_MIN_NODES` nodes (a search that ends there is the same,
    node for node, as :func:`solve`'s), the boards that need more again one at a time with probes
    (the node budget whole, as :func:`solve` has it; the time limit less what the first try took);
    ``seconds`` counts both tries."""
    first = PROBE_MIN_NODES if max_nodes is None else min(int(max_nodes), PROBE_MIN_NODES)
    with interruptible():  # one guard for both tries: a signal between boards stops the batch too
        columns = _solve_many_ida(flat, search, first, time_limit, min(threads, len(flat)), None)
        lengths, nodes, labels, seconds, moves, bounds = columns
        again = np.flatnonzero((labels == "budget") & (nodes >= first) & (max_nodes is None or first < max_nodes))
        if bar is not None:
            bar.update(len(flat) - len(again))
        if len(again):
            left = None if time_limit is None else max(time_limit - float(seconds[again].max()), MIN_SEARCH_SECONDS)
            redo = _solve_many_each(flat[again], target, m, n, "ida", threads, bar, search, max_nodes, left)
            for column, values in zip(columns, redo):
                if column is seconds:
                    column[again] += values
                elif isinstance(column, list):
                    for i, v in zip(again.tolist(), values):
                        column[i] = v
                else:
                    column[again] = values
    return columns


def _solve_many_each(flat, target, m, n, which, threads, bar, search=None, max_nodes=None, time_limit=None,
                     metric="stm"):
    """The solvers that take one board at a time (slide, constructive, anytime); fewer boards than
    threads share them out, each proof on its share (:mod:`fastpuzzle.search.parallel`)."""
    B = flat.shape[0]
    inner = max(1, threads // max(B, 1)) if max_nodes is None else 1
    lengths = np.full(B, -1, np.int64)
    bounds = np.full(B, -1, np.int64)
    nodes = np.zeros(B, np.int64)
    seconds = np.zeros(B, np.float64)
    status = np.empty(B, dtype="<U8")
    moves = [""] * B

    def work(lo, hi):
        for i in range(lo, hi):
            if np.array_equal(flat[i], target.ravel()):
                sol = Solution(np.zeros(0, np.uint8), nodes=0, method=which)
            else:
                sol = _solve_one(flat[i], target, m, n, search, max_nodes, time_limit, which, metric, inner)
            lengths[i] = sol.length if sol.solved else -1
            bounds[i] = -1 if sol.lower_bound is None else sol.lower_bound
            nodes[i], status[i], seconds[i], moves[i] = sol.nodes, sol.status, sol.seconds, sol.moves

    run_chunks(B, 1 if m * n >= 16 else 16, min(threads, max(B, 1)), work, bar)
    return lengths, nodes, status, seconds, moves, bounds
