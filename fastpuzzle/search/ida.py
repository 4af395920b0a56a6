"""Optimal search: the one iterative-deepening A* (IDA*) engine, for every heuristic.

The engine keeps the whole search in preallocated arrays: the board as a flat
``uint8``/``uint16`` array changed in place, and an explicit stack holding,
per depth, the blank's cell, ``h`` and the index of the next successor to
try.  No recursion, no Python objects, no allocation in the loop.  See
``docs/search.md`` for the whole story.

* **Moves** come from :func:`fastpuzzle.moves.successor_tables`, in Korf's
  order (blank Up, Left, Right, Down; codes 0..3), without the move that
  undoes the previous one, and pass the move automaton
  (:func:`fastpuzzle.moves.move_automaton`), whose state is kept per depth
  on the stack: a move it rejects would repeat a position a smaller move
  sequence reaches, and is not generated.  With pattern databases the moves
  that bring their tile closer to its goal cell go first (two passes over the
  successors): the last pass meets a solution sooner, the passes before
  generate the same nodes in another order.
* **Heuristics** plug in by a kind code and their tables: ``KIND_MANHATTAN``,
  ``KIND_LC_TABLE``, ``KIND_LC_SCAN`` (:mod:`fastpuzzle.search.heuristics`)
  and ``KIND_PDB`` (:mod:`fastpuzzle.search.pdb.heuristic`).  Each module
  builds its tables and the ``h`` of the root (``lc_start``, ``pdb_start``);
  the per-node steps (the child's ``h``, making and undoing the move in the
  heuristic's state) are written out in the engine's loop, where Numba needs
  them (see "heuristic dispatch" below).  :class:`Heuristic` bundles a kind
  with its tables; the engine compiles one loop per family of tables.
* **Node count** (``Solution.nodes``): the nodes **generated**, summed over
  all iterations: the root once plus every child generated in every iteration
  (children pruned by the cost bound included), the last iteration stopping at
  the first goal found.  With ``KIND_MANHATTAN`` this reproduces the node
  counts Korf (1985) published for his 100 15-puzzle instances.
* **Budgets**: ``max_nodes`` is compared with the node count at every node;
  ``time_limit`` reads the clock every :data:`CLOCK_INTERVAL` nodes (about a
  millisecond of search).  On Linux the kernel calls ``clock_gettime``
  directly (about 50 ns, no GIL); elsewhere it reads ``time.perf_counter`` in
  object mode.
* **Depth**: the stack starts at :func:`initial_capacity` moves; a threshold
  beyond it returns ``STATUS_DEPTH`` and the caller resumes with a stack twice
  as deep (nodes and threshold carried over), so no depth is ever too deep.
"""

from __future__ import annotations

import copy
import time

import numpy as np

from .. import options
from .._jit import jit
from ..boards import board_dtype
from ..errors import OptionError
from ..interrupt import shared_flag, stop_requested
from ..memory import check_allocation
from ..moves import AUTOMATON_START, NO_PREVIOUS, PRUNE_LENGTH, move_automaton, successor_tables
from .clock import clock
from .heuristics import (
    KIND_LC_SCAN, KIND_LC_TABLE, KIND_MANHATTAN, as_unsigned,
    lc_new_state, lc_pop, lc_push, lc_start, line_conflict_penalty, search_tables,
)  # fmt: skip
from .pdb.heuristic import (
    MAX_VIEWS, pdb_child, pdb_children, pdb_kernel_tables, pdb_new_state, pdb_pop, pdb_push, pdb_start,
)
from .pdb.slides import (
    SLIDE_MAX_CELLS, SLIDE_MIN_CELLS, SLIDES_NOT_BUILT, no_slide_tables, root_slide_bound, slide_cost, slide_tables,
    slide_tables_built,
)  # fmt: skip


__all__ = [
    "CLOCK_INTERVAL", "WEIGHT_ONE", "WEIGHT_SHIFT", "STATUS_FOUND", "STATUS_NODES", "STATUS_TIME", "STATUS_DEPTH", "STATUS_EXHAUSTED", "STATUS_BOUND",
    "KIND_MANHATTAN", "KIND_LC_TABLE", "KIND_LC_SCAN", "KIND_PDB",
    "Heuristic", "ida_search", "initial_capacity", "board_h", "is_goal_after", "STACK_BYTES",
    "ida_rows", "ROOT_STATES", "ROOT_LASTS", "NO_CONTROL", "NO_LIMIT",
]  # fmt: skip

#: Nodes between two reads of the clock when a time limit is set.
CLOCK_INTERVAL = 1 << 17

STATUS_FOUND = 0  #: a shortest solution was found
STATUS_NODES = 1  #: the node budget ran out
STATUS_TIME = 2  #: the time limit ran out
STATUS_DEPTH = 3  #: the threshold outgrew the stack: grow it and resume (internal)
STATUS_EXHAUSTED = 4  #: nothing pruned, no goal: with ``max_cost`` a proof that none is that short, else a bug
STATUS_BOUND = 5  #: depth-bounded mode: no solution of at most ``max_length`` moves (proved)

#: Weights are fixed-point numbers: ``weight = w * WEIGHT_ONE``.  The engine
#: bounds ``g + (h * weight >> WEIGHT_SHIFT)``; ``WEIGHT_ONE`` is plain
#: (optimal) IDA*, a larger weight weighted IDA* (shorter searches, solutions
#: within ``w`` times the optimum, nothing proved).
WEIGHT_SHIFT = 10
WEIGHT_ONE = 1 << WEIGHT_SHIFT

KIND_PDB = 3  #: additive pattern databases

NO_LIMIT = np.int64(2**62)
#: A search from the board itself: the move automaton's start, no previous move (one row).
ROOT_STATES = np.full(1, AUTOMATON_START, np.int64)
ROOT_LASTS = np.full(1, NO_PREVIOUS, np.int64)
#: The control flag of a search no other thread stops (never set: the kernels only read it).
NO_CONTROL = np.zeros(1, np.int64)  # (writable: a read-only array would be another compiled signature)


# ------------------------------------------------------------------ heuristic dispatch
# The heuristic's tables pick the compiled code: a search with pattern
# databases passes ``lc_tables=None``, any other ``pdb_tables=None``, and
# each family's steps sit under ``if <its tables> is not None``, a branch Numba
# removes at compile time when that argument is None.  So one engine compiles
# into one loop per family, with no test of the family per node.
# Tables and states arrive as tuples and are unpacked once per pass: the node
# loop sees plain arrays only (taking an array out of a tuple costs an atomic
# reference count, which inside the loop made the search many times slower).


@jit
def _lc_state(m, n, lc_tables):
    if lc_tables is None:
        return None
    return lc_new_state(m, n)


@jit
def _pdb_state(n_cells, pdb_tables):
    if pdb_tables is None:
        return None
    return pdb_new_state(pdb_tables[1], n_cells, pdb_tables[6].shape[0])


@jit
def _start_h(cells, m, n, kind, lc_tables, pdb_tables, lc_state, pdb_state):
    if pdb_tables is not None:
        data, tiles, sizes, weights, offsets, maps, views, goal_distance = pdb_tables
        where, values, sums, buf, at, child_value = pdb_state
        return pdb_start(cells, data, tiles, sizes, weights, offsets, maps, views, where, values, sums, buf, at)
    if lc_tables is not None:
        move_word, along_line, along_delta, line_table, goal_row, goal_col, col_offset, tile_shift = lc_tables
        line_codes, line_penalty, seq = lc_state
        return lc_start(cells, m, n, kind, line_table, goal_row, goal_col, col_offset, line_codes, line_penalty, seq)
    return 0  # not reached: one of the two is given


@jit
def board_h(cells, m, n, kind, lc_tables, pdb_tables):
    """``h`` of the flat board ``cells`` computed from scratch (the engine's root ``h``; a node of a
    tree split below the root, :mod:`fastpuzzle.search.parallel`)."""
    lc_state = _lc_state(m, n, lc_tables)
    pdb_state = _pdb_state(m * n, pdb_tables)
    return _start_h(cells, m, n, kind, lc_tables, pdb_tables, lc_state, pdb_state)


@jit
def is_goal_after(cells, goal, blank, src, tile):
    """Whether ``cells`` with ``tile`` slid from ``src`` into ``blank`` equals ``goal``."""
    for c in range(cells.shape[0]):
        v = tile if c == blank else (0 if c == src else cells[c])
        if v != goal[c]:
            return False
    return True


# ------------------------------------------------------------------ the engine


# The pass compiles without Numba's reference counts (``_nrt=False``; it allocates nothing): with
# them, every array handed to an inlined helper took and gave back an atomic count per call, a
# quarter of a 24-puzzle search's time.  The linear-conflict child step stays written out here
# (as an inline function returning a tuple it ran 3x slower, before this).  Each step mirrors its
# reference kernel (``lc_*``, ``pdb_*``), with which the tests compare it.
@jit(_nrt=False)
def _iteration(cells, m, n, blank0, h0, threshold, nodes, budget, deadline, successors, kind, lc_tables, pdb_tables,
               goal, lc_state, pdb_state, stack, path, weight, mtm_tables, max_cost, start_state, start_last,
               control):  # fmt: skip
    """One pass bounded by ``threshold`` (on ``g + h * weight``, :data:`WEIGHT_ONE`) and ``max_cost`` (on ``g + h``):
    ``(status, nodes, next_threshold, length)``, status -1 with no goal (then the smallest ``f`` the threshold pruned).

    ``start_state``, ``start_last``: the move automaton's state and the move that led to the root (a
    subtree's root, :mod:`fastpuzzle.search.parallel`); ``control[0]`` nonzero stops the pass as the
    clock does (another thread found or proved the answer)."""
    # Unpacked once here: the loop below sees plain arrays only.
    succ_count, succ_packed, automaton = successors
    stack_blank, stack_h, stack_next, stack_state, undo, child_at, tile_cell = stack
    if pdb_tables is not None:
        data, tiles, sizes, weights, offsets, maps, views, goal_distance = pdb_tables
        where, values, sums, buf, at, child_value = pdb_state
        n_views = views.shape[0]
        order = np.int64(goal_distance.shape[0] > 0 and mtm_tables is None)  # two passes: toward the goal first
    if lc_tables is not None:
        move_word, along_line, along_delta, line_table, goal_row, goal_col, col_offset, tile_shift = lc_tables
        line_codes, line_penalty, seq = lc_state
        order = np.int64(0)
    if mtm_tables is not None:
        reach, longest, slide_data, slide_tiles, slide_cells, slide_offsets, slide_weights = mtm_tables
        for c in range(cells.shape[0]):  # where each tile is, for the slide databases
            tile_cell[cells[c]] = c
    no_line = m + n  # the dummy line a move that changes no conflict points at
    limit = min(budget, nodes + CLOCK_INTERVAL)  # the stop flag (and the clock, if set) read every CLOCK_INTERVAL nodes
    next_threshold, depth = NO_LIMIT, 0
    # The node being expanded lives in locals (registers); the stack is touched only on push and pop.
    blank, h_node = blank0, h0
    room = threshold - 1  # largest h a child may have: threshold - (depth + 1), or threshold - (cost + 1)
    cap_slack = max_cost - threshold  # largest plain h a child may have under max_cost: room + cap_slack
    last, step = start_last, 1  # the move that led here: a multi-tile step's cost depends on it
    first = (blank * 5 + start_last) * 4
    count = succ_count[blank * 5 + start_last]
    state = start_state  # the move automaton's state at this node
    if pdb_tables is not None:
        pdb_children(cells, blank, first, count, state, depth, succ_packed, automaton, data, maps, views, at,
                     goal_distance, child_at)  # fmt: skip
    k = 0
    while True:
        if k < count << order:
            j = k if k < count else k - count  # the successor; with order, pass 2 goes over them again
            packed = succ_packed[as_unsigned(first + j)]  # target * 4 + op: one load for both
            k += 1
            op = packed & 3
            child_state = automaton[as_unsigned(state), as_unsigned(op)]
            if child_state < 0 or (order and child_at[as_unsigned(depth), as_unsigned(4 * MAX_VIEWS + j)] != (k <= count)):
                continue  # a duplicate move sequence: not generated; or not this pass's (toward the goal first)
            src = packed >> 2
            tile = np.int64(cells[as_unsigned(src)])
            # --- child: h after the move, and what push needs (linear conflict: aux1, aux2; pdb: child_value)
            if pdb_tables is not None:  # the entries pdb_children asked for on entering the node
                h = pdb_child(tile, j, depth, weight, WEIGHT_SHIFT, room, next_threshold, mtm_tables is not None,
                              data, maps, n_views, values, sums, child_at, child_value)  # fmt: skip
            if lc_tables is not None:  # lc_child
                word = move_word[as_unsigned((tile << tile_shift) + 4 * blank + op)]
                h = h_node + (word & 3) - 1
                aux1 = (word >> 2) & 0x3FFF  # the line whose conflicts may change
                aux2 = 0  # its code change (table) or new penalty (scan)
                if kind == KIND_LC_TABLE:
                    aux2 = word >> 16
                    code = line_codes[as_unsigned(aux1)]
                    h += line_table[as_unsigned(code + aux2)] - line_table[as_unsigned(code)]
                elif kind == KIND_LC_SCAN and aux1 != no_line:
                    cells[as_unsigned(blank)] = tile  # rescanned with the move made, then put back
                    cells[as_unsigned(src)] = 0
                    aux2 = line_conflict_penalty(cells, m, n, aux1, goal_row, goal_col, seq)
                    cells[as_unsigned(src)] = tile
                    cells[as_unsigned(blank)] = 0
                    h += aux2 - line_penalty[as_unsigned(aux1)]
            if nodes >= limit:  # checked before the child counts: a budget of N generates N nodes, never N + 1
                if nodes >= budget:
                    return STATUS_NODES, nodes, next_threshold, 0
                if stop_requested() or shared_flag(control) or (deadline > 0.0 and clock() > deadline):  # as the clock
                    return STATUS_TIME, nodes, next_threshold, 0
                limit = min(budget, nodes + CLOCK_INTERVAL)
            nodes += 1
            h_weighted = (h * weight) >> WEIGHT_SHIFT
            if mtm_tables is not None:  # the multi-tile metric (see Heuristic)
                step, h_weighted = slide_cost(h, op, last, src, tile, blank, tile_cell, room, reach, longest, slide_data,
                                              slide_tiles, slide_cells, slide_offsets, slide_weights)  # fmt: skip
            if h_weighted > room or h > room + cap_slack:  # over the threshold, or no path of at most max_cost
                if h_weighted > room and threshold - room + h_weighted < next_threshold:  # the cap's never lower it
                    next_threshold = threshold - room + h_weighted
                continue
            path[as_unsigned(depth)] = op
            # a partition may leave tiles out: h == 0 off the goal
            if h == 0 and (pdb_tables is None or is_goal_after(cells, goal, blank, src, tile)):
                return STATUS_FOUND, nodes, next_threshold, depth + 1
            cells[as_unsigned(blank)] = tile
            cells[as_unsigned(src)] = 0
            if mtm_tables is not None:
                tile_cell[as_unsigned(tile)], tile_cell[0] = blank, src
            # --- push: make the move in the heuristic's state
            if pdb_tables is not None:
                pdb_push(tile, depth, j, child_value, child_at, maps, n_views, values, sums, at, undo)
            if lc_tables is not None and kind != KIND_MANHATTAN:
                lc_push(tile, blank, op, depth, aux1, aux2, kind, no_line, tile_shift, along_line, along_delta,
                        line_codes, line_penalty, undo)  # fmt: skip
            stack_blank[as_unsigned(depth)] = blank
            stack_h[as_unsigned(depth)] = h_node
            stack_next[as_unsigned(depth)] = k
            stack_state[as_unsigned(depth)] = state
            state = child_state
            depth += 1
            room, last = room - step, op
            blank = src
            h_node = h
            first = (src * 5 + op) * 4
            count = succ_count[as_unsigned(src * 5 + op)]
            if pdb_tables is not None:
                pdb_children(cells, blank, first, count, state, depth, succ_packed, automaton, data, maps, views, at,
                             goal_distance, child_at)  # fmt: skip
            k = 0
        else:
            if depth == 0:
                return -1, nodes, next_threshold, 0
            # undo the move that led here: the tile goes back from the parent's blank cell to this node's
            src = blank
            depth -= 1
            op = path[as_unsigned(depth)]
            blank = stack_blank[as_unsigned(depth)]
            h_node = stack_h[as_unsigned(depth)]
            k = stack_next[as_unsigned(depth)]
            state = stack_state[as_unsigned(depth)]
            previous = path[depth - 1] if depth > 0 else start_last
            room, last = room + (1 if mtm_tables is None or op != previous else 0), previous
            first = (blank * 5 + previous) * 4
            count = succ_count[as_unsigned(blank * 5 + previous)]
            tile = np.int64(cells[as_unsigned(blank)])
            cells[as_unsigned(src)] = tile
            cells[as_unsigned(blank)] = 0
            if mtm_tables is not None:
                tile_cell[as_unsigned(tile)], tile_cell[0] = src, blank
            # --- pop: undo the move in the heuristic's state
            if pdb_tables is not None:
                pdb_pop(tile, depth, maps, n_views, values, sums, at, undo)
            if lc_tables is not None and kind != KIND_MANHATTAN:
                lc_pop(tile, blank, op, depth, kind, no_line, tile_shift, move_word, along_line, along_delta,
                       line_codes, line_penalty, undo)  # fmt: skip


@jit(inline="always")  # written into ida_rows, the engine's one compiled entry: one compile, one optimisation
def _search_board(start, m, n, successors, kind, lc_tables, pdb_tables, goal, mtm_tables,
                  threshold, nodes, max_nodes, deadline, path, info, weight, max_cost, start_state, start_last,
                  control):  # fmt: skip
    """IDA* from the flat board ``start`` (see :func:`ida_kernel`); returns the status."""
    capacity = path.shape[0]
    cells = start.copy()
    blank0 = np.int64(0)  # not the literal 0: Numba would compile _iteration for it too
    for i in range(m * n):
        if cells[i] == 0:
            blank0 = i
    lc_state = _lc_state(m, n, lc_tables)
    pdb_state = _pdb_state(m * n, pdb_tables)
    h0 = _start_h(cells, m, n, kind, lc_tables, pdb_tables, lc_state, pdb_state)
    info[3] = h0
    h0_weighted = (h0 * weight) >> WEIGHT_SHIFT
    span = 1  # most moves per unit of cost: the stack must hold threshold * span moves
    if mtm_tables is not None:
        span = mtm_tables[1]
        h0_weighted = max((h0 + span - 1) // span, root_slide_bound(cells, mtm_tables))
    if threshold < h0_weighted:
        threshold = h0_weighted
    stack = (np.empty(capacity + 1, np.int64), np.empty(capacity + 1, np.int64), np.empty(capacity + 1, np.int64),
             np.empty(capacity + 1, np.int64), np.zeros((capacity + 1, 2 * MAX_VIEWS), np.int64),
             np.empty((capacity + 1, 5 * MAX_VIEWS), np.int64), np.empty(m * n, np.int64))  # fmt: skip
    budget = max_nodes if max_nodes > 0 else NO_LIMIT
    cost_cap = max_cost if max_cost > 0 else NO_LIMIT
    while True:
        info[2] = threshold
        if min(threshold * span, cost_cap) >= capacity:  # no path is deeper than the cap: the stack holds it
            info[0] = nodes
            return STATUS_DEPTH
        if nodes == 0:
            nodes = 1  # the root, counted once (Korf's convention)
        if h0 == 0 and (pdb_tables is None or is_goal_after(cells, goal, blank0, blank0, 0)):
            info[0] = nodes
            info[1] = 0
            return STATUS_FOUND
        status, nodes, next_threshold, length = _iteration(
            cells, m, n, blank0, h0, threshold, nodes, budget, deadline,
            successors, kind, lc_tables, pdb_tables, goal, lc_state, pdb_state, stack, path, weight, mtm_tables,
            cost_cap, start_state, start_last, control,
        )  # fmt: skip
        info[0] = nodes
        if status >= 0:
            info[1] = length
            return status
        if next_threshold == NO_LIMIT:
            return STATUS_EXHAUSTED
        if weight > WEIGHT_ONE:  # weighted: the bound grows by 1/64 at least, or long paths take ~h iterations
            next_threshold = max(next_threshold, threshold + (threshold >> 6))
        threshold = next_threshold


@jit
def ida_rows(flat, m, n, successors, kind, lc_tables, pdb_tables, goal, mtm_tables, threshold, nodes, max_nodes,
             deadline, time_limit, weight, max_cost, paths, infos, out_status, out_seconds, start_states, start_lasts,
             control):  # fmt: skip
    """IDA* on every row of ``flat`` (serial; callers run chunks on threads): the engine's one
    compiled entry, for one board (:func:`ida_kernel`) and a batch alike.  Row ``i`` searches with the
    stack ``paths[i]`` (its length the capacity: the codes are left at its start) and writes ``infos[i]``
    (``[nodes, length, threshold, h0]``), ``out_status[i]`` and ``out_seconds[i]``.  A row stops at the
    ``deadline`` or ``time_limit`` seconds after it started, whichever comes first (<= 0: none), or when
    ``control[0]`` is set.  ``start_states[i]``, ``start_lasts[i]``: the move automaton's state and the
    previous move at row ``i``'s root (``AUTOMATON_START`` and ``NO_PREVIOUS`` for a whole search)."""
    for i in range(flat.shape[0]):
        t0 = clock()
        row_deadline = deadline
        if time_limit > 0.0 and (row_deadline <= 0.0 or t0 + time_limit < row_deadline):
            row_deadline = t0 + time_limit
        out_status[i] = _search_board(flat[i], m, n, successors, kind, lc_tables, pdb_tables, goal, mtm_tables,
                                      threshold, nodes, max_nodes, row_deadline, paths[i], infos[i], weight,
                                      max_cost, start_states[i], start_lasts[i], control)
        out_seconds[i] = clock() - t0


def ida_kernel(start, m, n, successors, kind, lc_tables, pdb_tables, goal, mtm_tables,
               threshold, nodes, max_nodes, deadline, path, info, weight, max_cost=0, control=None):  # fmt: skip
    """IDA* from the flat board ``start``; see the module docstring.

    ``successors``: :func:`fastpuzzle.moves.successor_tables`; ``kind`` and
    ``lc_tables`` / ``pdb_tables``: the heuristic (:class:`Heuristic`);
    ``goal``: the flat goal.  ``threshold``: first cost bound to try (0 =
    start from ``h``); ``nodes``: nodes already counted (to resume).
    ``max_nodes`` <= 0 means no node budget, ``deadline`` <= 0 no time limit
    (else a :func:`fastpuzzle.search.clock.clock` value).  ``path`` receives the move codes; its
    length is the stack capacity.  ``weight``: :data:`WEIGHT_ONE` for optimal
    IDA*, more for weighted IDA* (the cost bound is on ``g + h * weight``).
    ``max_cost`` > 0 (single-tile moves only): children whose plain ``g + h``
    exceeds it are pruned, so a solution found is at most that long, and
    :data:`STATUS_EXHAUSTED` proves there is none (an incumbent's length
    less 2 makes a weighted search look only for shorter solutions).  ``control``: an int64 array
    whose first entry, set by another thread, stops the search (:data:`STATUS_TIME`).

    Returns the status; ``info`` = [nodes, solution length, threshold, h0].
    A batch of one for :func:`ida_rows` (views of ``path`` and ``info``).
    """
    if max_cost and mtm_tables is not None:
        raise OptionError("max_cost", max_cost, "bounds single-tile moves only (metric='stm')")
    status = np.zeros(1, np.int64)
    ida_rows(np.ascontiguousarray(start).reshape(1, -1), m, n, successors, kind, lc_tables, pdb_tables, goal,
             mtm_tables, np.int64(threshold), np.int64(nodes), np.int64(max_nodes), float(deadline), 0.0,
             np.int64(weight), np.int64(max_cost), path.reshape(1, -1), info.reshape(1, -1), status,
             np.zeros(1, np.float64), ROOT_STATES, ROOT_LASTS, NO_CONTROL if control is None else control)  # fmt: skip
    return int(status[0])


# ------------------------------------------------------------------ Python side


class Heuristic:
    """A heuristic as the engine takes it: a kind code and its tables.

    Parameters
    ----------
    m, n : int
        Board shape.
    goal : ndarray, shape (m, n)
        Validated goal (for ``"pdb"``: the database's goal; callers map
        boards onto it, see :class:`fastpuzzle.search.pdb.GoalPlan`).
    name : {"manhattan", "linear_conflict", "pdb"}
    database : PatternDatabase, optional
        The tables for ``"pdb"``.
    prune_length : int
        Longest duplicate move sequence the search prunes
        (:func:`fastpuzzle.moves.move_automaton`); 2 prunes only the move
        that undoes the previous one (Korf's node counts).
    order : tuple of the 4 move codes, optional
        For a search on the image of the user's board under a symmetry: the
        codes the user's U, L, R, D become there.  The moves are tried in
        that order (:func:`fastpuzzle.moves.successor_tables`) and the move
        automaton reads the user's codes, so the search meets the nodes, and
        the solution, it would meet on the board itself.
    metric : {"stm", "mtm"}
        Multi-tile: single steps, one going on in the last one's direction costs 0 (a path costs its
        slides); ``h`` becomes ``ceil(max(0, h - r) / L)`` (``r`` cells still free to slide, ``L``
        the longest slide), or the slide databases' bound where larger; only undoing the last step
        is pruned (docs/pictures.md).
    slides : tuple, optional
        With ``metric="mtm"``: the slide databases (:func:`fastpuzzle.search.pdb.slides.slide_tables`,
        for this engine's goal). Default: built or loaded for boards of 10 to 16 cells, none otherwise;
        with ``build_slides=False`` only loaded (when not built, ``slides_note`` says so).
    toward_first : bool
        With ``"pdb"`` (single-tile moves): the moves that bring their tile closer to its goal cell
        are tried first, then the others, each group in the order above; the last pass meets a
        solution sooner (False: the order above only, for side-by-side figures).

    Examples
    --------
    >>> h = Heuristic(3, 3, np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), "linear_conflict")
    >>> h.kind == KIND_LC_TABLE
    True
    """

    def __init__(self, m: int, n: int, goal: np.ndarray, name: str, database=None, prune_length: int = PRUNE_LENGTH,
                 order=None, metric="stm", slides=None, build_slides=True, toward_first=True):  # fmt: skip
        self.m, self.n, self.name = m, n, name
        # the dtype of the boards the engine gets, whatever the caller's:
        # one compiled engine, not one per goal dtype (seconds on a first run)
        self.goal = np.ascontiguousarray(goal.ravel(), dtype=board_dtype(m * n))
        self.mtm_tables, self.slides_note = None, ""
        if metric == "mtm":
            prune_length = 2
            r, c = np.divmod(np.arange(m * n), n)
            reach = np.stack([r, c, n - 1 - c, m - 1 - r], axis=1).astype(np.int64).ravel()  # cells left per U L R D
            if slides is None:
                use = SLIDE_MIN_CELLS <= m * n <= SLIDE_MAX_CELLS and min(m, n) >= 2
                if use and not build_slides and not slide_tables_built(self.goal.reshape(m, n)):
                    use, self.slides_note = False, SLIDES_NOT_BUILT
                slides = slide_tables(self.goal.reshape(m, n)) if use else no_slide_tables(m * n)
            self.mtm_tables = (reach, np.int64(max(m, n) - 1), *slides)
        automaton = move_automaton(prune_length)
        if order is None:
            tables = successor_tables(m, n)
        else:  # moves tried, and sequences pruned, as on the user's board
            tables = successor_tables(m, n, tuple(order))
            automaton = np.ascontiguousarray(automaton[:, np.argsort(order)])
        self.successors = (*tables, automaton)
        # The family's tables, None for the other family: the engine compiles
        # one loop per family from that (see "heuristic dispatch" in the source).
        self.lc_tables = self.pdb_tables = None
        if name == "pdb":
            self.kind = KIND_PDB
            self.pdb_tables = pdb_kernel_tables(database, options.flag(toward_first, "toward_first"))
        else:
            tables = search_tables(m, n, np.asarray(goal).reshape(m, n))
            self.lc_tables = tables.kernel_tables()
            if name == "manhattan":
                self.kind = KIND_MANHATTAN
            else:
                self.kind = KIND_LC_TABLE if tables.use_table else KIND_LC_SCAN

    def reordered(self, order) -> "Heuristic":
        """A copy that tries the moves in ``order`` (codes on this engine's board), pruning the same sequences.

        Weighted searches from the same board meet other solutions first: a cheap source of
        different incumbents (:mod:`fastpuzzle.search.anytime`).
        """
        twin = copy.copy(self)
        twin.successors = (*successor_tables(self.m, self.n, tuple(order)), self.successors[2])
        return twin

    def kernel_args(self) -> tuple:
        """``(successors, kind, lc_tables, pdb_tables, goal, mtm_tables)`` for :func:`ida_kernel`."""
        return self.successors, self.kind, self.lc_tables, self.pdb_tables, self.goal, self.mtm_tables


#: Bytes per move of the search's depth: the path (one byte) and the kernel's stack (four int64,
#: two undo slots per view, the table indexes of four children in each view and their four
#: move-order flags per level).
STACK_BYTES = 1 + (4 + 7 * MAX_VIEWS) * 8


def initial_capacity(m: int, n: int) -> int:
    """First stack depth: enough for every optimal 15-puzzle (<= 80 moves); grown on demand."""
    return max(96, 4 * m * n)


def ida_search(cells, heuristic: Heuristic, max_nodes=None, time_limit=None, weight: int = WEIGHT_ONE, info=None,
               max_length=None, threshold=0, control=None):  # fmt: skip
    """IDA* on one validated, solvable flat board; returns ``(status, codes, nodes, seconds)``.

    ``max_nodes``/``time_limit`` as checked by
    :func:`fastpuzzle.search.checks.check_options` (None = no budget).
    ``weight``: see :data:`WEIGHT_ONE`.  ``info``: an int64 array of 4 that
    receives the kernel's ``[nodes, length, threshold, h0]``; with
    ``weight == WEIGHT_ONE`` every threshold below ``info[2]`` has been
    searched in full, so the optimum is at least ``info[2]`` (the bound the
    search proved).

    Depth-bounded mode: ``max_length`` stops after the bound ``max_length`` (the stack is made just
    that deep) with :data:`STATUS_BOUND` when no solution is that short, a proof; ``threshold``: the
    first bound tried (a known lower bound skips the passes below it; 0 = start from ``h``).
    ``control``: see :func:`ida_kernel`.
    """
    m, n = heuristic.m, heuristic.n
    args = heuristic.kernel_args()
    max_nodes = 0 if max_nodes is None else int(max_nodes)
    t0 = time.perf_counter()
    deadline = 0.0 if time_limit is None else clock() + float(time_limit)
    span = 1 if heuristic.mtm_tables is None else int(heuristic.mtm_tables[1])  # most steps per unit of cost
    capacity = initial_capacity(m, n) if max_length is None else int(max_length) * span + 1
    info = np.zeros(4, np.int64) if info is None else info
    threshold, nodes = int(threshold), 0
    while True:
        check_allocation(capacity * STACK_BYTES, f"the IDA* stack of {capacity:,} moves")
        path = np.zeros(capacity, np.uint8)
        status = ida_kernel(cells, m, n, *args, threshold, nodes, max_nodes, deadline, path, info, np.int64(weight),
                            control=control)  # fmt: skip
        if status == STATUS_DEPTH and max_length is not None:
            status = STATUS_BOUND
        if status != STATUS_DEPTH:
            break
        threshold, nodes = int(info[2]), int(info[0])
        capacity *= 2
    seconds = time.perf_counter() - t0
    codes = path[: info[1]].copy() if status == STATUS_FOUND else np.zeros(0, np.uint8)
    return status, codes, int(info[0]), seconds
