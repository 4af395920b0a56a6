"""One pass of IDA* on every thread: the tree split below the root.

A pass of plain IDA* at cost bound ``t`` searches the same nodes whichever thread walks
which subtree.  So a pass here:

1. expands the first layers breadth-first (:func:`expand_layer`) by the engine's own rules: the
   successor tables (no move undoes the last), the move automaton, the bound ``g + h <= t``
   and the goal test.  Each child generated counts one node (Korf's count, as in the engine), and
   each child pruned offers its ``f`` as the next bound;
2. hands the boards of the last layer (at least :data:`FRONTIER_PER_THREAD` per thread) out to the
   threads one at a time, each searched by the engine (:func:`fastpuzzle.search.ida.ida_rows`) as
   the root of a subtree: bound ``t - d``, the automaton's state and the previous move of
   the layer, so it prunes what one thread would prune there;
3. adds up: the root, the layers' children and each subtree's nodes less its root (already
   counted) are the nodes of the pass on one thread, node for node, and the next bound is the
   smallest of the pruned ``f``.

A solution found stops the subtrees after it in depth-first order (a flag a subtree, which the
engine reads with its clock, every :data:`~fastpuzzle.search.ida.CLOCK_INTERVAL` nodes); those
before it run to their end.  So the last pass too is one thread's: the first solution in
depth-first order, and the nodes one thread generates up to it (:func:`_one_thread_nodes`), whatever
the thread count.  A side task (the probe of :mod:`fastpuzzle.search.probes`) can run as the first task of
the pass: a solution it finds stops the pass, and a pass that ends stops it.

Examples
--------
>>> import numpy as np
>>> from fastpuzzle.search.ida import Heuristic, STATUS_BOUND, STATUS_FOUND
>>> goal = np.r_[np.arange(1, 16), 0].astype(np.uint8)
>>> h = Heuristic(4, 4, goal.reshape(4, 4), "manhattan")
>>> board = np.array([5, 1, 2, 3, 9, 6, 7, 4, 13, 10, 11, 8, 0, 14, 15, 12], np.uint8)
>>> r = split_pass(board, h, 8, threads=2)
>>> r.status == STATUS_BOUND, r.next_bound  # none within 8: the smallest f pruned is 9
(True, 9)
>>> r = split_pass(board, h, 9, threads=2)
>>> r.status == STATUS_FOUND, len(r.codes)
(True, 9)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from .._jit import jit
from ..errors import OptionError
from ..interrupt import pending
from ..moves import AUTOMATON_START, NO_PREVIOUS
from . import ida
from .chunks import run_chunks
from .clock import clock

__all__ = ["FRONTIER_PER_THREAD", "MAX_SPLIT_DEPTH", "PassResult", "Stop", "expand_layer", "split_pass"]

#: Subtrees handed out per thread (at least): the last one to finish holds the others up.
FRONTIER_PER_THREAD = 128
#: Deepest layer the split expands (on a narrow tree the layer stays small).
MAX_SPLIT_DEPTH = 24


class Stop:
    """A flag one thread raises to stop another's search at once: ``flag`` is the control array of
    the kernels that take one, and the arrays :meth:`watch` was given (a split pass's subtrees)
    are set with it.

    Examples
    --------
    >>> stop = Stop(); subtrees = np.zeros(3, np.int64); stop.watch(subtrees)
    >>> stop.set(); bool(stop), subtrees.tolist()
    (True, [1, 1, 1])
    """

    def __init__(self):
        self.flag = np.zeros(1, np.int64)
        self._watched: list = []
        self._lock = threading.Lock()
        self._event = threading.Event()

    def __bool__(self) -> bool:
        return bool(self.flag[0])

    def set(self) -> None:
        with self._lock:
            self.flag[0] = 1
            for array in self._watched:
                array[:] = 1
        self._event.set()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the flag; whether it was set."""
        return self._event.wait(max(0.0, seconds))

    def watch(self, array) -> None:
        with self._lock:
            self._watched.append(array)
            if self.flag[0]:
                array[:] = 1

    def unwatch(self, array) -> None:
        with self._lock:
            self._watched = [a for a in self._watched if a is not array]


@dataclass
class PassResult:
    """What one pass found: the engine's status (``STATUS_FOUND``, ``STATUS_BOUND``: no solution within
    the bound, ``STATUS_EXHAUSTED``: nothing pruned, ``STATUS_TIME``), the codes, the nodes, the next
    bound (the smallest ``f`` pruned) and the side task's result."""

    status: int
    codes: np.ndarray
    nodes: int
    next_bound: int
    side: object = None


@jit
def expand_layer(boards, states, lasts, paths, g, threshold, m, n, successors, kind, lc_tables, pdb_tables, goal,
                 out_boards, out_states, out_lasts, out_paths, out_parent, out_position, generated_by, result):  # fmt: skip
    """The children of the layer at depth ``g`` (``boards`` and their automaton ``states``, previous
    moves ``lasts``, ``paths`` from the root) that ``g + 1 + h <= threshold`` keeps, written to the
    ``out_*`` arrays (room for 4 a board) in the engine's order (so a layer is in depth-first order):
    ``out_parent`` the index of the child's board, ``out_position`` its rank (from 1) among the
    children its board generated; ``generated_by[i]``: the children board ``i`` generated.
    ``result`` = ``[kept, generated, next bound, found]``: ``found`` is the index in ``out_*`` of
    a goal child (-1: none; the expansion stops there).

    Examples
    --------
    >>> from fastpuzzle.search.ida import Heuristic
    >>> goal = np.array([1, 2, 3, 4, 5, 0], np.uint8)
    >>> h = Heuristic(2, 3, goal.reshape(2, 3), "manhattan")
    >>> root = np.array([[1, 2, 3, 0, 4, 5]], np.uint8)  # two moves from the goal
    >>> out = (np.empty((4, 6), np.uint8), np.empty(4, np.int64), np.empty(4, np.int64),
    ...        np.zeros((4, 1), np.uint8), np.empty(4, np.int64), np.empty(4, np.int64))
    >>> result = np.zeros(4, np.int64)
    >>> expand_layer(root, np.zeros(1, np.int64), np.full(1, 4, np.int64), np.zeros((1, 0), np.uint8), 0, 2, 2, 3,
    ...              *h.kernel_args()[:5], *out, np.zeros(1, np.int64), result)
    >>> result.tolist()  # one child kept (the blank steps right), one pruned (its f is 4), no goal yet
    [1, 2, 4, -1]
    """
    succ_count, succ_packed, automaton = successors
    n_cells = m * n
    order = 0
    goal_distance = np.zeros(0, np.int64)
    if pdb_tables is not None:
        goal_distance = pdb_tables[7]
        order = np.int64(goal_distance.shape[0] > 0)
    kept, generated, next_bound = 0, 0, ida.NO_LIMIT
    result[3] = -1
    for i in range(boards.shape[0]):
        cells = boards[i].copy()
        blank = 0
        for c in range(cells.shape[0]):
            if cells[c] == 0:
                blank = c
        first = (blank * 5 + lasts[i]) * 4
        count = succ_count[blank * 5 + lasts[i]]
        generated_by[i] = 0
        for k in range(count << order):  # with order, as the engine: the moves toward the goal first
            j = k if k < count else k - count
            packed = succ_packed[first + j]
            op = packed & 3
            child_state = automaton[states[i], op]
            if child_state < 0:
                continue  # a duplicate move sequence: not generated (as in the engine)
            src = packed >> 2
            tile = cells[src]
            if order and (goal_distance[tile * n_cells + blank] < goal_distance[tile * n_cells + src]) != (k < count):
                continue  # not this round's
            goal_child = ida.is_goal_after(cells, goal, blank, src, tile)
            cells[blank] = tile
            cells[src] = 0
            h = ida.board_h(cells, m, n, kind, lc_tables, pdb_tables)
            generated += 1
            generated_by[i] += 1
            if g + 1 + h > threshold:
                next_bound = min(next_bound, g + 1 + h)
            else:
                out_boards[kept] = cells
                out_states[kept] = child_state
                out_lasts[kept] = op
                out_paths[kept, :g] = paths[i, :g]
                out_paths[kept, g] = op
                out_parent[kept] = i
                out_position[kept] = generated_by[i]
                kept += 1
                if h == 0 and goal_child:
                    result[0], result[1], result[2], result[3] = kept, generated, next_bound, kept - 1
                    return
            cells[src] = tile
            cells[blank] = 0
    result[0], result[1], result[2] = kept, generated, next_bound


def _frontier(cells, heuristic, threshold, threads):
    """The layers above the subtrees: ``(boards, states, lasts, paths, nodes, next_bound, found, layers)``;
    ``found``: the index in the last layer of a goal met there, else None; ``layers``: per expansion,
    ``(parent, position, generated_by)`` of :func:`expand_layer` (see :func:`_one_thread_nodes`)."""
    m, n = heuristic.m, heuristic.n
    boards = np.ascontiguousarray(cells, dtype=heuristic.goal.dtype).reshape(1, -1).copy()
    states = np.full(1, AUTOMATON_START, np.int64)
    lasts = np.full(1, NO_PREVIOUS, np.int64)
    paths = np.zeros((1, 0), np.uint8)
    nodes, next_bound, layers = 1, int(ida.NO_LIMIT), []  # the root, counted once
    result = np.zeros(4, np.int64)
    args = heuristic.kernel_args()
    while 0 < len(boards) < FRONTIER_PER_THREAD * threads and len(layers) < min(threshold, MAX_SPLIT_DEPTH):
        k, depth = 4 * len(boards), len(layers)
        out = (np.empty((k, boards.shape[1]), boards.dtype), np.empty(k, np.int64), np.empty(k, np.int64),
               np.zeros((k, depth + 1), np.uint8), np.empty(k, np.int64), np.empty(k, np.int64))  # fmt: skip
        generated_by = np.zeros(len(boards), np.int64)
        expand_layer(boards, states, lasts, paths, np.int64(depth), np.int64(threshold), m, n, args[0], args[1],
                     args[2], args[3], args[4], *out, generated_by, result)  # fmt: skip
        kept = int(result[0])
        nodes += int(result[1])
        next_bound = min(next_bound, int(result[2]))
        layers.append((out[4][:kept], out[5][:kept], generated_by))
        boards, states, lasts, paths = (a[:kept] for a in out[:4])
        if result[3] >= 0:
            return boards, states, lasts, paths, nodes, next_bound, int(result[3]), layers
    return boards, states, lasts, paths, nodes, next_bound, None, layers


def _one_thread_nodes(layers, index) -> int:
    """Nodes one thread generates in the layers before it reaches board ``index`` of the last layer
    (the root included): every child of the boards before the path to it, and the children of the
    boards on the path up to the path's next board (a layer is in depth-first order)."""
    nodes = 1
    for parent, position, generated_by in reversed(layers):
        up = int(parent[index])
        nodes += int(generated_by[:up].sum()) + int(position[index])
        index = up
    return nodes


def split_pass(cells, heuristic: ida.Heuristic, threshold: int, deadline: float = 0.0, threads: int = 2,
               side=None, side_control=None, active=None, stop=None) -> PassResult:  # fmt: skip
    """The pass of plain IDA* at ``threshold`` on ``threads`` threads (single-tile moves).

    ``cells``: the flat board as the engine sees it, not at the goal; ``deadline``: a
    :func:`~fastpuzzle.search.clock.clock` time (0: none).  ``side()``: run first, on one
    of the threads; it returns ``(found, result)``, and ``found`` stops the pass; ``side_control``
    (an int64 array the side task's kernel reads) is set when the pass ends, which stops it.
    ``active()``: how many threads may go on taking subtrees (:func:`~fastpuzzle.search.chunks.run_chunks`);
    ``stop``: a :class:`Stop` another thread sets: the subtrees stop (the pass ends as if out of time).
    Returns a :class:`PassResult` (no node budget: the pass is not cut by a node count): without a
    side task, the status, codes, nodes and next bound of the pass on one thread.
    """
    if heuristic.mtm_tables is not None:
        raise OptionError("metric", "mtm", "a split pass searches single-tile moves only")
    threads = max(1, int(threads))
    boards, states, lasts, paths, nodes, next_bound, found, layers = _frontier(cells, heuristic, threshold, threads)
    if found is not None:
        return PassResult(ida.STATUS_FOUND, paths[found].copy(), _one_thread_nodes(layers, found), threshold)
    if len(boards) == 0:  # every child pruned, or none (a finite tree: nothing pruned is EXHAUSTED)
        status = ida.STATUS_EXHAUSTED if next_bound >= int(ida.NO_LIMIT) else ida.STATUS_BOUND
        return PassResult(status, np.zeros(0, np.uint8), nodes, next_bound)
    k, depth = len(boards), len(layers)
    below = np.int64(threshold - depth)
    sub_paths = np.zeros((k, int(below) + 1), np.uint8)  # one pass each: the next bound outgrows the stack
    infos = np.zeros((k, 4), np.int64)
    status = np.full(k, -1, np.int64)
    seconds = np.zeros(k, np.float64)
    controls = np.zeros(k, np.int64)  # one flag a subtree: a solution stops only the subtrees after it
    first_found = [k]  # the first subtree (in depth-first order) known to hold a solution
    side_out, side_found, done = [], [], [0]
    lock = threading.Lock()
    args = heuristic.kernel_args()
    offset = int(side is not None)

    def work(lo, hi):
        if offset and lo == 0:
            found_there, out = side()
            side_out.append(out)
            if found_there:
                side_found.append(True)
                controls[:] = 1
            return
        j = lo - offset
        if j < first_found[0] and not controls[j] and not (deadline and clock() > deadline):
            ida.ida_rows(boards[j : j + 1], heuristic.m, heuristic.n, *args, below, np.int64(0), np.int64(0),
                         float(deadline), 0.0, np.int64(ida.WEIGHT_ONE), np.int64(0), sub_paths[j : j + 1],
                         infos[j : j + 1], status[j : j + 1], seconds[j : j + 1], states[j : j + 1],
                         lasts[j : j + 1], controls[j : j + 1])  # fmt: skip
        with lock:
            if status[j] == ida.STATUS_FOUND and j < first_found[0]:
                first_found[0] = j
                controls[j + 1 :] = 1
            done[0] += 1
            if done[0] == k and side_control is not None:  # the pass is over: the side task is of no more use
                side_control[0] = 1

    if stop is not None:
        stop.watch(controls)
    try:
        run_chunks(k + offset, 1, threads, work, active=active)
    finally:
        if stop is not None:
            stop.unwatch(controls)
    if side_control is not None:
        side_control[0] = 1
    side_result = side_out[0] if side_out else None
    ran = status >= 0
    every = nodes + int((infos[ran, 0] - 1).sum())  # each subtree's root was counted in its layer
    i = first_found[0]
    if i < k:
        codes = np.concatenate([paths[i], sub_paths[i, : infos[i, 1]]]).astype(np.uint8)
        if (status[:i] == ida.STATUS_DEPTH).sum() + (status[:i] == ida.STATUS_EXHAUSTED).sum() == i:
            # every subtree before it searched in full: the nodes one thread generates up to that solution
            every = _one_thread_nodes(layers, i) + int((infos[: i + 1, 0] - 1).sum())
        return PassResult(ida.STATUS_FOUND, codes, every, len(codes), side_result)
    if side_found:  # the side task found it
        return PassResult(ida.STATUS_FOUND, np.zeros(0, np.uint8), every, threshold, side_result)
    if (status == ida.STATUS_TIME).any() or not ran.all() or pending():
        return PassResult(ida.STATUS_TIME, np.zeros(0, np.uint8), every, threshold, side_result)
    deeper = status == ida.STATUS_DEPTH
    if deeper.any():
        next_bound = min(next_bound, int(infos[deeper, 2].min()) + depth)
    status_out = ida.STATUS_EXHAUSTED if next_bound >= int(ida.NO_LIMIT) else ida.STATUS_BOUND
    return PassResult(status_out, np.zeros(0, np.uint8), every, next_bound, side_result)
