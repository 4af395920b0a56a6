"""Optimal IDA* with probes: a short capped search before each pass of the plain one.

Plain IDA* searches every cost bound ``t = h0, h0 + 2, ...`` in full until a
pass meets a solution; the passes below the optimum are what it takes to
prove there is no shorter one, and only the last pass depends on luck (the
move order).  On the 24-puzzle that last pass is often the largest: Korf's
#25 spends 111 M of its 167 M nodes there.

Before the pass at bound ``t`` this driver spends a share
(:data:`PROBE_SHARE`) of the previous pass's nodes on a **probe**: weighted
IDA* (:data:`PROBE_WEIGHT`) on the same engine, capped at ``t``
(``max_cost``: every child whose plain ``g + h`` exceeds ``t`` is pruned).
Every bound below ``t`` has been searched in full, and solution lengths share
one parity, so a solution the probe finds is exactly ``t`` moves: optimal.
A weighted search goes deep along the children with the smallest ``h`` first
and meets a solution sooner than the plain pass in most cases; when it does
not, the pass runs as before, and the probes below the optimum cost at most
the share of the passes before them.

Measured side by side (``python bench/bench_frontier.py``, the ``probes``
rows): on Korf-Felner's #25, #32, #40 and #44 the probes cut the nodes
1.4x to 3.7x; on #38, whose last pass is already short, they add about a
fifth.  The 15-puzzle's last pass is short next to a probe (Korf's 100 and
the 80-move positions: within a few per cent either way), so boards of fewer
than :data:`PROBE_MIN_CELLS` cells search as plain IDA*, and so does every search until a pass
has generated :data:`PROBE_MIN_NODES` nodes: a search that ends sooner is plain IDA*'s, node for node.
"""

from __future__ import annotations

import time

import numpy as np

from . import ida
from .clock import clock
from .parallel import split_pass

__all__ = ["PROBE_WEIGHT", "PROBE_SHARE", "PROBE_MIN_CELLS", "PROBE_MIN_NODES", "SPLIT_MIN_NODES", "uses_probes", "optimal_search"]

#: Weight of the probes (the engine's weighted IDA*, capped at the pass's bound).
PROBE_WEIGHT = 1.25
#: Nodes a probe may take, as a share of the plain pass before it.
PROBE_SHARE = 0.25
#: Smallest board (cells) searched with probes: on the 15-puzzle they do not pay.
PROBE_MIN_CELLS = 17
#: Smallest pass (its predecessor's nodes) split over the threads: below it one thread is as fast.
SPLIT_MIN_NODES = 20_000
#: Smallest pass after which a probe runs: below it a search is short, and plain IDA* as fast.
#: A search that ends within this many nodes is plain IDA*'s, node for node (``solve_many`` runs
#: such boards in the batch kernel first).
PROBE_MIN_NODES = 1_000_000


def uses_probes(heuristic: ida.Heuristic) -> bool:
    """Whether :func:`optimal_search` probes with this engine (single-tile moves, boards of
    at least :data:`PROBE_MIN_CELLS` cells)."""
    return heuristic.m * heuristic.n >= PROBE_MIN_CELLS and heuristic.mtm_tables is None


def _probe(cells, heuristic, cap, max_nodes, deadline, control=None):
    """Weighted IDA* capped at ``cap`` moves: ``(status, codes or None, nodes)``; ``control[0]`` set
    by another thread stops it (the pass it runs beside ended)."""
    info = np.zeros(4, np.int64)
    path = np.zeros(cap + 1, np.uint8)  # no path is longer than the cap: the stack never grows
    weight = np.int64(round(PROBE_WEIGHT * ida.WEIGHT_ONE))
    status = ida.ida_kernel(cells, heuristic.m, heuristic.n, *heuristic.kernel_args(), 0, 0, max_nodes, deadline,
                            path, info, weight, max_cost=cap, control=control)  # fmt: skip
    codes = path[: info[1]].copy() if status == ida.STATUS_FOUND else None
    return status, codes, int(info[0])


def _split(cells, heuristic, bound, deadline, threads, probe_nodes, active=None, stop=None):
    """The pass at ``bound`` on ``threads`` threads, with a probe of ``probe_nodes`` nodes beside it
    (0: none): ``(status, codes, nodes, the pass's own nodes, next bound)``, the status as
    ``ida_search``'s in its depth-bounded mode (``STATUS_BOUND``: none within the bound)."""
    side = side_control = None
    if probe_nodes:
        side_control = np.zeros(1, np.int64)
        if stop is not None:
            stop.watch(side_control)

        def probe():
            found = _probe(cells, heuristic, bound, max(int(probe_nodes), 2), deadline, side_control)
            return found[0] == ida.STATUS_FOUND, found

        side = probe

    try:
        r = split_pass(cells, heuristic, bound, deadline, threads, side, side_control, active, stop)
    finally:
        if side_control is not None and stop is not None:
            stop.unwatch(side_control)
    nodes = r.nodes + (r.side[2] if r.side is not None else 0)
    if r.side is not None and r.side[0] == ida.STATUS_FOUND:
        return ida.STATUS_FOUND, r.side[1], nodes, r.nodes, bound
    return r.status, r.codes, nodes, r.nodes, r.next_bound


def optimal_search(cells, heuristic: ida.Heuristic, max_nodes=None, time_limit=None, info=None, *,
                   max_length=None, share: float = PROBE_SHARE, last_pass=None, threads: int = 1, active=None,
                   stop=None, incumbent=None, on_pass=None):  # fmt: skip
    """IDA* with probes on one validated, solvable flat board: ``(status, codes, nodes, seconds)``
    as :func:`fastpuzzle.search.ida.ida_search` returns them (the nodes of the probes included).

    ``info`` receives ``[nodes, length, threshold, h0]``; every bound below ``info[2]`` has been
    searched in full, so the optimum is at least ``info[2]``.  ``max_length``: no bound above it
    is searched, and :data:`~fastpuzzle.search.ida.STATUS_BOUND` says that no solution is that short
    (a proof).  ``share`` (0: no probe) is :data:`PROBE_SHARE`; an engine :func:`uses_probes`
    refuses searches as plain IDA*.  ``last_pass``: ``(max_nodes, deadline)``, the budget once
    the pass at ``max_length`` is reached (nodes counted from the call, None: no limit; a
    :func:`~fastpuzzle.search.clock.clock` time, 0.0 or None: none): a caller that would run that
    pass next anyway (the anytime search's descent) lets this one finish instead of starting it
    again (without probes too: the passes are then plain IDA*'s, one call each).  ``threads`` > 1:
    each pass of at least :data:`SPLIT_MIN_NODES` nodes (its predecessor's) is split below the root
    over the threads (:func:`fastpuzzle.search.parallel.split_pass`; the nodes of a pass are one
    thread's, the last pass's solution may be another optimal one), its probe beside it as the
    first task: the probe's thread joins the pass when the probe ends, and the first to meet a
    solution stops the other.  Not with a node budget (a pass is then cut at an exact count).
    ``active()``: how many of the threads may go on (:func:`~fastpuzzle.search.chunks.run_chunks`);
    ``stop``: a :class:`~fastpuzzle.search.parallel.Stop` another thread sets (the search ends as
    out of time); ``incumbent()``: the length of the best answer another search holds now (no
    bound from its length less 1 up is searched: ``STATUS_BOUND`` then proves it optimal);
    ``on_pass(bound, nodes)``: called after each pass with the bound it proved and its nodes; a
    return value of False ends the search there (``STATUS_TIME``: stopped, the bound kept).

    Examples
    --------
    >>> from fastpuzzle.search.ida import Heuristic, STATUS_FOUND
    >>> goal = np.r_[np.arange(1, 20), 0].reshape(4, 5)
    >>> board = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 16, 17, 18, 19, 15], np.uint8)
    >>> status, codes, nodes, seconds = optimal_search(board, Heuristic(4, 5, goal, "linear_conflict"))
    >>> status == STATUS_FOUND, len(codes)
    (True, 1)
    """
    info = np.zeros(4, np.int64) if info is None else info
    probing = share > 0 and uses_probes(heuristic)
    threads = 1 if heuristic.mtm_tables is not None else int(threads)
    control = None if stop is None else stop.flag
    if not probing and last_pass is None and threads == 1 and incumbent is None and on_pass is None:
        return ida.ida_search(cells, heuristic, max_nodes, time_limit, info=info, max_length=max_length)
    t0 = time.perf_counter()
    deadline = 0.0 if time_limit is None else clock() + float(time_limit)

    def left():  # (nodes, seconds) the budget still allows: None = no limit; the kernel reads the clock itself
        nodes = None if max_nodes is None else max(int(max_nodes) - total, 0)
        seconds = None if deadline == 0.0 else max(deadline - clock(), 1e-9)
        return nodes, seconds

    # h0 (a pass at bound 0 only when the tables leave tiles out and h0 is 0 off the goal)
    status, codes, total, _ = ida.ida_search(cells, heuristic, max_nodes, time_limit, max_length=0, info=info,
                                             control=control)  # fmt: skip
    passes, previous, bound = int(total > 0), 0, int(info[2])
    while status == ida.STATUS_BOUND:
        if incumbent is not None:
            shorter = int(incumbent()) - 2
            max_length = shorter if max_length is None else min(max_length, shorter)
        if max_length is not None and bound > max_length:
            break  # every bound up to max_length searched: no solution that short (STATUS_BOUND)
        if last_pass is not None and max_length is not None and bound > max_length - 2:  # the last pass: its budget
            max_nodes, deadline, last_pass = last_pass[0], float(last_pass[1] or 0.0), None
        nodes_left, seconds_left = left()
        if nodes_left == 0:
            status = ida.STATUS_NODES
            break
        if threads > 1 and nodes_left is None and previous >= SPLIT_MIN_NODES:  # the pass on every thread
            status, codes, spent, pass_nodes, bound = _split(
                cells, heuristic, bound, deadline, threads, share * previous if probing and previous >= PROBE_MIN_NODES else 0,
                active, stop)  # fmt: skip
            total += spent - (passes > 0)
            passes, previous = passes + 1, pass_nodes
            if status == ida.STATUS_BOUND and on_pass is not None and on_pass(bound, pass_nodes) is False:
                status = ida.STATUS_TIME
            continue
        if probing and previous >= PROBE_MIN_NODES and (nodes_left is None or nodes_left >= 2):  # a probe
            allowed = max(int(share * previous), 2)  # (the root and one child at least; 0 would mean no limit)
            mine = nodes_left is None or allowed < nodes_left  # else the caller's budget stops the probe
            status, codes, spent = _probe(cells, heuristic, bound, allowed if mine else nodes_left, deadline, control)
            total += spent
            if status in (ida.STATUS_FOUND, ida.STATUS_TIME) or (status == ida.STATUS_NODES and not mine):
                break  # found (optimal), or the caller's budget or a signal stopped it
            nodes_left, seconds_left = left()
            if nodes_left == 0:  # (a zero would mean no limit to the kernel)
                status = ida.STATUS_NODES
                break
        if nodes_left is not None:
            nodes_left += passes > 0  # the pass counts the root again (see below)
        status, codes, spent, _ = ida.ida_search(cells, heuristic, nodes_left, seconds_left, info=info,
                                                 max_length=bound, threshold=bound, control=control)  # fmt: skip
        total += spent - (passes > 0)  # each pass counts the root again: the plain search counts it once
        passes, previous = passes + 1, spent
        if status == ida.STATUS_BOUND:
            bound = int(info[2])  # the smallest f the pass pruned: the next bound
            if on_pass is not None and on_pass(bound, spent) is False:
                status = ida.STATUS_TIME
    codes = codes if status == ida.STATUS_FOUND and codes is not None else np.zeros(0, np.uint8)
    info[0], info[1], info[2] = total, len(codes), len(codes) if status == ida.STATUS_FOUND else bound
    return status, codes, total, time.perf_counter() - t0
