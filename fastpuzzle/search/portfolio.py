"""The solving ladder of a budgeted ``solve`` on boards of up to 25 cells: the proof is the main line.

On these boards the optimal search (IDA* with probes, :mod:`fastpuzzle.search.probes`, on every
thread: :mod:`fastpuzzle.search.parallel`) proves most boards within seconds, so a budget is
spent on it first, and finding and improving an answer takes a small share only:

1. **answer** -- weighted IDA* at the weights :data:`ANSWER_WEIGHTS`, each with its share
   (:data:`ANSWER_SHARES`) of what is left and each looking for a shorter answer than the last
   (milliseconds on the 24-puzzle); the constructive solver where none finishes;
2. **proof** -- the optimal search from the root's bound up, its passes bounded by the answer's
   length less 2 (solution lengths share one parity): a solution it meets is optimal, and a
   pass at that bound that ends without one proves the answer optimal;
3. **improve** -- windows of the answer re-solved optimally and weighted searches in other move
   orders, each looking only for a shorter answer (:mod:`fastpuzzle.search.anytime`'s helpers).

With a time limit and two threads or more, the proof has every thread up to
:data:`HANDOFF_SHARE` of the budget; then one thread goes to the improving searches and the
proof goes on with the others to the end, side by side (a split pass lets a thread go between
two subtrees).  A board the proof settles on one thread within about 80 % of the budget is
settled here too (the first 30 % on two threads do about half of it, the next 30 % on one the rest).  On one
thread, or with a node budget, the steps run one after the other: the proof up to
:data:`PROOF_SHARE` of the budget (all of it once it has reached its last pass), then the
improving searches.

The search stops the moment the proved bound meets the answer, whichever side moved.  The answer's ``lower_bound``
is the last bound the proof searched in full (or the root's), rounded up to the parity; the
result's ``stats`` says how the budget was spent.
"""

from __future__ import annotations

import threading

import numpy as np

from ..interrupt import interruptible
from . import ida
from .anytime import (
    ORDERS, STRONG_WIDTHS, WEIGHTS, WIDTHS, AnytimeResult, Budget, reordered, shorter, window_rounds,
)  # fmt: skip
from .clock import clock
from .beam import compile_beam
from .parallel import Stop, split_pass
from .probes import optimal_search
from .windows import WindowSolver, cut_loops
from ..moves import round_up_to_parity, solution_parity

__all__ = ["ANSWER_WEIGHTS", "ANSWER_SHARES", "PROOF_SHARE", "HANDOFF_SHARE", "compile_ladder", "portfolio_search"]

#: Weights of the first answers, in the order tried (each looks for a shorter answer).
ANSWER_WEIGHTS = (3.0, 2.0, 1.5)
#: Share of what is left each of the first answers may take (the first more: it must answer).
ANSWER_SHARES = (0.1, 0.08, 0.08)
#: Share of the budget the proof has on one thread (the whole budget once at its last pass): what
#: is left goes to shorter answers.
PROOF_SHARE = 0.75
#: Share of the budget the proof has on every thread: then one of them goes to shorter answers
#: and the proof goes on with the others, to the end (on the DeepCubeA 5x5 boards 0-23 at 10 s,
#: 0.3 proved the same boards as 0.5 and found shorter answers for the rest: docs/solving.md).
HANDOFF_SHARE = 0.3
#: How much larger a pass is than the one before, where the proof has not seen two yet.
GROWTH = 6.0
#: Share of what is left each weighted search of the improving step's descent may take.
DESCENT_SHARE = 0.12


_COMPILED: set = set()
_COMPILED_LOCK = threading.Lock()


def _type_key(value):
    """What Numba's type of the engine's arguments depends on (dtype, dimensions, layout, writable),
    in a tenth of the time of ``numba.typeof``: a budgeted call computes it every time."""
    if isinstance(value, tuple):
        return tuple(_type_key(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.ndim, value.flags.c_contiguous, value.flags.writeable
    return type(value).__name__


def compile_ladder(engine, beams: bool = False) -> float:
    """Compile (or load from Numba's cache) the kernels a budgeted search runs with ``engine``'s
    tables, once a process: the seconds it took (0.0 when they were ready).  A caller runs it before
    its budget's clock starts, so a first call's budget goes to the search, not to the compiler.

    The searches run on a board one move from the goal: the engine's entry (plain, weighted and
    capped), the split pass and its layer expansion, the windows; with ``beams`` also what the
    anytime search runs above 25 cells (a beam, the constructive solver).

    Examples
    --------
    >>> from fastpuzzle.search.ida import Heuristic
    >>> engine = Heuristic(2, 3, np.array([[1, 2, 3], [4, 5, 0]]), "manhattan")
    >>> compile_ladder(engine) >= 0.0, compile_ladder(engine)  # the second time: nothing to do
    (True, 0.0)
    """
    key = (bool(beams), _type_key(engine.kernel_args()))
    with _COMPILED_LOCK:
        if key in _COMPILED:
            return 0.0
        t0 = clock()
        m, n, goal = engine.m, engine.n, engine.goal
        near = goal.copy()
        blank = int(np.flatnonzero(goal == 0)[0])
        step = 1 if n > 1 else n  # a neighbour in the row, or in the column of an m x 1 board
        other = blank + step if (blank % n < n - 1 if n > 1 else blank + n < m * n) else blank - step
        near[blank], near[other] = near[other], 0
        info = np.zeros(4, np.int64)
        with interruptible():  # its signal handler is compiled code too
            pass
        codes = shorter(near, engine, 2.0, np.zeros(3, np.uint8), 0, 0.0, info)[0]
        split_pass(near, engine, 1, 0.0, 1)
        codes = cut_loops(near, m, n, np.r_[codes, 3 - codes, codes].astype(np.uint8))  # a move, undone (UNDO), again
        windows = WindowSolver(m, n, strong=engine if engine.pdb_tables is not None else None)
        windows.shorter_path(near, goal, 3, 0, 0.0)
        windows.improve(near, codes, 8, 0, 0.0)
        if engine.pdb_tables is not None:
            windows.improve_strong(near, codes, STRONG_WIDTHS[:1], 0, 0.0)
        if beams:
            from .constructive import solve_constructive

            compile_beam(near, m, n, goal)
            solve_constructive(near.reshape(m, n), goal=goal.reshape(m, n))
        _COMPILED.add(key)
        return clock() - t0


def _phase(seconds=0.0, nodes=0, threads=1) -> dict:
    return dict(seconds=seconds, nodes=nodes, threads=threads)


class _Ladder:
    """The state the three steps share: the budget, the best answer, the proved bound, the stats."""

    def __init__(self, cells, engine, goal, time_limit, max_nodes):
        self.cells, self.engine = cells, engine
        self.start = clock()
        self.budget = Budget(time_limit, max_nodes)
        self.parity = solution_parity(cells, goal, engine.n)
        self.info = np.zeros(4, np.int64)
        self.best, self.lower, self.total = None, 0, 0
        self.proof_end = 0.0  # the clock time the proof stops at (0.0: the budget's end or none)
        self.lock = threading.Lock()  # the proof and the improving searches share the answer and the counts
        self.stats = dict(answer=_phase(), proof=_phase(), improve=_phase())

    def result(self, optimal=False) -> AnytimeResult:
        optimal = optimal or len(self.best) <= self.lower
        bound = len(self.best) if optimal else self.lower
        return AnytimeResult(self.best, bound, optimal, self.total, stats=self.stats)

    def charge(self, phase: str, nodes: int, since: float, budget: bool = True):
        """``nodes`` searched by ``phase`` since ``since`` (and charged to the budget); either thread."""
        with self.lock:
            if budget:
                self.budget.charge(nodes)
            self.total += int(nodes)
            self.stats[phase]["nodes"] += int(nodes)
            self.stats[phase]["seconds"] += clock() - since

    def offer(self, codes, optimal: bool = False) -> None:
        """``codes`` become the answer if shorter (or proved optimal); either thread."""
        with self.lock:
            if self.best is None or len(codes) < len(self.best) or (optimal and len(codes) <= len(self.best)):
                self.best = codes


def _answer(ladder, fallback):
    """Step 1: the first answers; True when one of them is proved optimal."""
    found = []
    for weight, share in zip(ANSWER_WEIGHTS, ANSWER_SHARES):
        since = clock()
        nodes, deadline = ladder.budget.share(share)
        codes, proved = shorter(ladder.cells, ladder.engine, weight, ladder.best, nodes, deadline, ladder.info)
        ladder.charge("answer", int(ladder.info[0]), since)
        ladder.lower = max(ladder.lower, round_up_to_parity(int(ladder.info[3]), ladder.parity))
        if proved:
            return found, True
        if codes is None:
            break
        found.append(weight)
        ladder.best = codes
        if len(codes) <= ladder.lower or ladder.budget.spent():
            break
    if ladder.best is None:  # no weighted search finished in its share: the constructive answer
        since = clock()
        if fallback is not None:
            ladder.best = fallback()
            ladder.charge("answer", 0, since)
        else:  # weighted IDA* at the largest weight, until it answers (milliseconds where the others ran out)
            ladder.best = shorter(ladder.cells, ladder.engine, WEIGHTS[0], None, 0, 0.0, ladder.info)[0]
            ladder.charge("answer", int(ladder.info[0]), since, budget=False)
    return found, len(ladder.best) <= ladder.lower


def _next_pass_too_large(ladder, passes, since, nodes_cap) -> bool:
    """Whether the proof's next pass, estimated from the growth of the last two (:data:`GROWTH`
    before there are two), cannot end within what the proof has left: then the rest goes to
    shorter answers (a pass cut short proves nothing more)."""
    nodes, at = passes[-1]
    growth = GROWTH if len(passes) < 2 else max(1.0, nodes / max(passes[-2][0], 1))
    if nodes_cap is not None:
        return nodes_cap - sum(p[0] for p in passes) < nodes * growth
    if not ladder.proof_end:
        return False
    took = at - (passes[-2][1] if len(passes) > 1 else since)
    return clock() + took * growth > ladder.proof_end


def _prove(ladder, threads, seconds, hopeless=False, **hooks):
    """Step 2: the optimal search below the answer's length, ``seconds`` at most (None: the
    budget's); True when it settled the answer.  ``hopeless``: stop at a pass that cannot end in
    time (:func:`_next_pass_too_large`).  ``hooks``: ``active`` and ``stop`` of
    :func:`~fastpuzzle.search.probes.optimal_search` (the hand-off to the improving searches)."""
    budget, since = ladder.budget, clock()
    nodes = None if budget.nodes_left is None else max(1, int(budget.nodes_left * PROOF_SHARE))
    nodes_cap = nodes
    ladder.proof_end = 0.0 if seconds is None else since + seconds
    if seconds is None and budget.end:
        seconds = max(budget.end - since, 1e-9)

    passes = []  # (nodes, seconds) of each pass

    def proved_below(bound, nodes):  # each pass the proof ends raises the bound the answer carries
        ladder.lower = max(ladder.lower, round_up_to_parity(int(bound), ladder.parity))
        passes.append((nodes, clock()))
        if bound >= len(ladder.best) - 2:  # the last pass: the whole budget (optimal_search's last_pass)
            return True
        return not (hopeless and _next_pass_too_large(ladder, passes, since, nodes_cap))

    status, codes, spent, _ = optimal_search(ladder.cells, ladder.engine, nodes, seconds, ladder.info,
                                             max_length=len(ladder.best) - 2, threads=threads,
                                             last_pass=(budget.nodes_left, budget.end),
                                             incumbent=lambda: len(ladder.best), on_pass=proved_below,
                                             **hooks)  # fmt: skip
    ladder.charge("proof", spent, since)
    ladder.stats["proof"]["threads"] = threads if budget.nodes_left is None else 1
    if status == ida.STATUS_FOUND:
        ladder.offer(codes, optimal=True)
        return True
    if status == ida.STATUS_BOUND:  # no solution shorter than the answer: it is optimal
        return True
    ladder.lower = max(ladder.lower, round_up_to_parity(int(ladder.info[2]), ladder.parity))
    ladder.stats["proof"]["bound"] = ladder.lower
    return len(ladder.best) <= ladder.lower


def _improve(ladder, found, stop=None):
    """Step 3: shorter answers with what is left; True when one is proved optimal.  ``stop``: a
    :class:`~fastpuzzle.search.parallel.Stop` the proof sets when it ends.  Its searches have their
    own ``info`` (the proof's thread writes the ladder's)."""
    if callable(ladder.improver):
        ladder.improver = ladder.improver()
    cells, engine, budget = ladder.cells, ladder.improver, ladder.budget
    control = None if stop is None else stop.flag
    info = np.zeros(4, np.int64)
    m, n = engine.m, engine.n

    def halted():
        return budget.spent() or len(ladder.best) <= ladder.lower or (stop is not None and bool(stop))

    if halted():  # (making the engine read its tables: the proof may have ended meanwhile)
        return len(ladder.best) <= ladder.lower
    since = clock()
    best = cut_loops(cells, m, n, ladder.best)
    strong = engine.pdb_tables is not None
    windows = WindowSolver(m, n, strong=engine if strong else None)
    windows.control = control
    # with databases the windows that end where the blank is home; otherwise wider and wider ones
    best = window_rounds(windows, cells, best, budget, budget.share(0.5)[1], strong_share=0.3,
                         widths=() if strong else WIDTHS)  # fmt: skip
    ladder.offer(best)
    ladder.charge("improve", windows.nodes, since, budget=False)  # charged above as the windows' work
    weights = [w for w in WEIGHTS if w <= found[-1]][:2] if found else list(WEIGHTS[:2])
    for weight in [w for w in WEIGHTS if w < weights[-1]]:  # lower weights, while each finishes its share
        if halted():
            break
        since = clock()
        nodes, deadline = budget.share(DESCENT_SHARE)
        codes, proved = shorter(cells, engine, weight, ladder.best, nodes, deadline, info, control)
        ladder.charge("improve", int(info[0]), since)
        if proved:
            return True
        if codes is None:
            break
        ladder.offer(codes)
        weights = [weights[-1], weight]
    while weights and not halted():
        since = clock()
        best, spent, proved = reordered(cells, engine, weights, budget, ladder.best, 0.25, info,
                                        ((0, 1, 2, 3),) + ORDERS, control)  # fmt: skip
        ladder.offer(best)
        ladder.charge("improve", spent, since, budget=False)  # reordered charges the budget itself
        if proved:
            return True
        weights = [w for w in WEIGHTS if w < weights[-1]][:2]
    return len(ladder.best) <= ladder.lower


def _side_by_side(ladder, found, threads, time_limit) -> bool:
    """Steps 2 and 3 on ``threads`` threads: the proof on all of them up to :data:`HANDOFF_SHARE` of
    the budget, then one goes to the improving searches and the proof goes on with the others, to
    the end.  Each stops the other when it settles the answer; True when the answer is proved."""
    to_proof, to_improver = Stop(), Stop()
    active = [threads]
    handoff = ladder.start + HANDOFF_SHARE * time_limit
    improved = []

    failed = []

    def improver():
        if to_improver.wait(handoff - clock()):
            return  # the proof ended first
        active[0] = threads - 1
        ladder.stats["improve"]["from"] = clock() - ladder.start
        try:
            improved.append(_improve(ladder, found, to_improver))
        except BaseException as error:  # re-raised in the caller's thread, once the proof has stopped
            failed.append(error)
            to_proof.set()
            return
        if improved[-1] or len(ladder.best) <= ladder.lower:
            to_proof.set()

    helper = threading.Thread(target=improver, name="fastpuzzle-improve", daemon=True)
    helper.start()
    try:
        proved = _prove(ladder, threads, None, active=lambda: active[0], stop=to_proof)
    finally:
        to_improver.set()
        helper.join()
    if failed:
        raise failed[0]
    return proved or bool(improved and improved[-1]) or len(ladder.best) <= ladder.lower


def portfolio_search(cells, engine, *, goal, time_limit=None, max_nodes=None, threads=1, fallback=None,
                     improver=None) -> AnytimeResult:  # fmt: skip
    """Best answer and proved lower bound for one board within a budget, the proof first.

    Parameters
    ----------
    cells : ndarray
        The flat board as ``engine`` sees it (validated, reachable, not at the goal).
    engine : fastpuzzle.search.ida.Heuristic
        The heuristic of every search (single-tile moves).
    goal : ndarray
        The flat goal of ``engine``.
    time_limit, max_nodes : optional
        The budget (None: no limit of that kind; with neither, the proof runs to the end).
    threads : int
        Threads of the proof; with a time limit and two or more, one of them goes to the
        improving searches from :data:`HANDOFF_SHARE` of the budget on.  A node budget searches on
        one thread, the proof first and then the improving searches (its count is exact).
    fallback : callable, optional
        ``fallback() -> codes``: an answer when no weighted search finishes in its share.
    improver : fastpuzzle.search.ida.Heuristic or callable, optional
        The heuristic of the improving searches, on the same board and goal (a stronger database
        whose larger bounds steer weighted searches to shorter answers), or a function that makes
        it, called when the improving searches start (its tables read in their time, not before
        the proof's first node); default ``engine``.

    Returns
    -------
    AnytimeResult
        With ``stats``: seconds, nodes and threads of each step (``answer``, ``proof``,
        ``improve``), the proof's bound where it stopped short, and when the improving searches
        started (``improve["from"]``, seconds into the budget) where they ran beside the proof.

    Examples
    --------
    >>> from fastpuzzle.search.ida import Heuristic
    >>> goal = np.array([1, 2, 3, 4, 5, 6, 7, 8, 0])
    >>> h = Heuristic(3, 3, goal.reshape(3, 3), "linear_conflict")
    >>> r = portfolio_search(np.array([8, 6, 7, 2, 5, 4, 3, 0, 1]), h, goal=goal, max_nodes=10**6)
    >>> len(r.codes), r.lower_bound, r.optimal
    (31, 31, True)
    """
    ladder = _Ladder(cells, engine, goal, time_limit, max_nodes)
    ladder.improver = improver or engine
    found, done = _answer(ladder, fallback)
    if done or ladder.budget.spent():
        return ladder.result(done)
    threads = int(threads)
    if threads >= 2 and max_nodes is None and time_limit is not None:
        return ladder.result(_side_by_side(ladder, found, threads, time_limit))
    seconds = None if time_limit is None else max(ladder.start + time_limit * PROOF_SHARE - clock(), 1e-9)
    if _prove(ladder, threads, seconds, hopeless=max_nodes is not None or time_limit is not None):
        return ladder.result(True)
    if not ladder.budget.spent():
        _improve(ladder, found)
    return ladder.result()
