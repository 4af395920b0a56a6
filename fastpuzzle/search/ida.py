"""Optimal search: iterative-deepening A* (IDA*) in one Numba kernel.

The kernel keeps the whole search in preallocated arrays: the board as a flat
``uint8``/``uint16`` array changed in place, and an explicit stack holding,
per depth, the blank's cell, ``h``, the previous move and the index of the
next successor to try.  No recursion, no Python objects, no allocation in the
loop.

* Moves are generated in Korf's order, blank Up, Left, Right, Down (codes
  0..3); the move that undoes the previous one is never generated (a table of
  legal successors per blank cell and previous move gives the list directly).
* ``h`` is updated incrementally: a table gives the Manhattan change of every
  (tile, cell, move); for linear conflict each row and column keeps a small
  integer code of its contents, and a table of all codes gives its penalty, so
  a move costs two lookups for the one line whose penalty can change (see
  :class:`fastpuzzle.search.heuristics.SearchTables`).  Boards with lines
  longer than ``LC_TABLE_MAX_LINE`` rescan that one line instead.

Node count (``Solution.nodes``): the number of nodes **generated**, summed over
all iterations: the root once plus every child generated in every iteration
(children pruned by the cost bound included), the last iteration stopping at
the first goal found.  With
``heuristic="manhattan"`` this reproduces the node counts Korf (1985)
published for his 100 15-puzzle instances.

Budgets: ``max_nodes`` is compared with the node count at every node;
``time_limit`` reads the clock every :data:`CLOCK_INTERVAL` nodes (about a
millisecond of search).  On Linux the kernel calls ``clock_gettime`` directly
(about 50 ns, no GIL); elsewhere it reads ``time.perf_counter`` in object mode.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from numba.core.errors import NumbaWarning

from .._jit import jit
from .heuristics import _col_removals, _manhattan_one, _row_removals, search_tables

# Off Linux the clock is read in object mode (the GIL is taken for well under a
# microsecond every CLOCK_INTERVAL nodes); Numba warns about that at compile time.
warnings.filterwarnings("ignore", message=".*Code running in object mode won't allow parallel", category=NumbaWarning)

__all__ = ["CLOCK_INTERVAL", "STATUS_FOUND", "STATUS_NODES", "STATUS_TIME", "STATUS_DEPTH", "STATUS_EXHAUSTED"]

#: Nodes between two reads of the clock when a time limit is set.
CLOCK_INTERVAL = 1 << 17

STATUS_FOUND = 0  #: a shortest solution was found
STATUS_NODES = 1  #: the node budget ran out
STATUS_TIME = 2  #: the time limit ran out
STATUS_DEPTH = 3  #: the threshold outgrew the stack: grow it and resume (internal)
STATUS_EXHAUSTED = 4  #: no node was pruned and none reached the goal (cannot happen on a solvable board)

LC_NONE = 0  # plain Manhattan distance
LC_TABLE = 1  # linear conflict with line codes and a penalty table
LC_SCAN = 2  # linear conflict, rescanning the changed line

_NO_LIMIT = np.int64(2**62)


if sys.platform.startswith("linux"):
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def _monotonic_ns(typingctx):
        """``clock_gettime(CLOCK_MONOTONIC)`` in ns, called from compiled code (no GIL)."""

        def codegen(context, builder, signature, args):
            i64, i32 = ir.IntType(64), ir.IntType(32)
            timespec = ir.LiteralStructType([i64, i64])
            fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
            ts = cgutils.alloca_once(builder, timespec)
            builder.call(fn, [ir.Constant(i32, 1), ts])  # CLOCK_MONOTONIC = 1 on Linux
            zero = ir.Constant(i32, 0)
            sec = builder.load(builder.gep(ts, [zero, zero]))
            nsec = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
            return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

        return types.int64(), codegen

    @jit
    def _clock():
        """Seconds on a monotonic clock (about 50 ns a call, GIL not needed)."""
        return _monotonic_ns() * 1e-9

else:
    from numba import objmode

    @jit
    def _clock():
        """Seconds on a monotonic clock (object mode: takes the GIL for a moment)."""
        with objmode(t="float64"):
            t = time.perf_counter()
        return t


@jit(inline="always")
def _u(i):
    """An index known to be >= 0 as unsigned: Numba then skips the negative-index wraparound."""
    return np.uintp(i)


@jit
def _line_penalty(cells, m, n, line, grow, gcol, seq):
    if line < m:
        return 2 * _row_removals(cells, m, n, line, grow, gcol, seq)
    return 2 * _col_removals(cells, m, n, line - m, grow, gcol, seq)


@jit
def _ida(
    start, m, n,
    succ_n, succ_op, succ_src, mv, ol, ow, line_table, col_offset, grow, gcol,
    lc_mode, threshold, nodes, max_nodes, deadline, path, info,
):  # fmt: skip
    """IDA* from the flat board ``start``; see the module docstring.

    ``threshold``: first cost bound to try (0 = start from ``h``); ``nodes``:
    nodes already counted (to resume).  ``max_nodes`` <= 0 means no node
    budget, ``deadline`` <= 0 no time limit (else a :func:`_clock` value).
    ``path`` receives the move codes; its length is the stack capacity.

    Returns the status; ``info`` = [nodes, solution length, threshold, h0].
    """
    N = m * n
    tshift = 0  # log2 of the tables' row stride (a power of two)
    while (1 << tshift) * N < mv.shape[0]:
        tshift += 1
    cap = path.shape[0]
    dummy = m + n
    cells = start.copy()
    blank0 = 0
    for i in range(N):
        if cells[i] == 0:
            blank0 = i
    h0 = _manhattan_one(cells, n, grow, gcol)
    codes = np.zeros(m + n + 1, np.int64)
    lcval = np.zeros(m + n + 1, np.int64)
    seq = np.empty(max(m, n), np.int64)
    if lc_mode == LC_TABLE:
        rb = n + 1
        cb = m + 1
        for r in range(m):
            code = 0
            w = 1
            for c in range(n):
                t = cells[r * n + c]
                if t != 0 and grow[t] == r:
                    code += (gcol[t] + 1) * w
                w *= rb
            codes[r] = code
        for c in range(n):
            code = col_offset
            w = 1
            for r in range(m):
                t = cells[r * n + c]
                if t != 0 and gcol[t] == c:
                    code += (grow[t] + 1) * w
                w *= cb
            codes[m + c] = code
        for line in range(m + n):
            h0 += line_table[codes[line]]
    elif lc_mode == LC_SCAN:
        for line in range(m + n):
            lcval[line] = _line_penalty(cells, m, n, line, grow, gcol, seq)
            h0 += lcval[line]
    info[3] = h0
    if threshold < h0:
        threshold = h0

    st_blank = np.empty(cap + 1, np.int64)
    st_h = np.empty(cap + 1, np.int64)
    st_k = np.empty(cap + 1, np.int64)
    saved = np.empty(cap + 1, np.int64)

    budget = max_nodes if max_nodes > 0 else _NO_LIMIT
    timed = deadline > 0.0
    limit = budget
    if timed and nodes + CLOCK_INTERVAL < limit:
        limit = nodes + CLOCK_INTERVAL

    while True:
        if threshold >= cap:
            info[0] = nodes
            info[2] = threshold
            return STATUS_DEPTH
        if nodes == 0:
            nodes = 1  # the root, counted once (Korf's convention)
        if h0 == 0:
            info[0] = nodes
            info[1] = 0
            info[2] = threshold
            return STATUS_FOUND
        next_thr = _NO_LIMIT
        d = 0
        st_k[0] = 0
        # The node being expanded lives in locals (registers); the stack is
        # touched only on push and pop.
        b = blank0
        b4 = 4 * b
        hd = h0
        room = threshold - 1  # largest h a child may have: threshold - (d + 1)
        s = (b * 5 + 4) * 4
        ns = succ_n[b * 5 + 4]
        k = 0
        while True:
            if k < ns:
                so = succ_src[_u(s + k)]  # src * 4 + op: one load for both
                k += 1
                op = so & 3
                src = so >> 2
                t = np.int64(cells[_u(src)])
                idx = (t << tshift) + b4 + op
                v = mv[_u(idx)]
                h = hd + (v & 3) - 1
                g = dummy
                dw = 0
                nv = 0
                if lc_mode == LC_TABLE:
                    g = (v >> 2) & 0x3FFF
                    dw = v >> 16
                    c0 = codes[_u(g)]
                    h += line_table[_u(c0 + dw)] - line_table[_u(c0)]
                elif lc_mode == LC_SCAN:
                    g = (v >> 2) & 0x3FFF
                    if g != dummy:
                        cells[_u(b)] = t
                        cells[_u(src)] = 0
                        nv = _line_penalty(cells, m, n, g, grow, gcol, seq)
                        cells[_u(src)] = t
                        cells[_u(b)] = 0
                        h += nv - lcval[_u(g)]
                nodes += 1
                if nodes >= limit:
                    if nodes >= budget:
                        info[0] = nodes
                        info[2] = threshold
                        return STATUS_NODES
                    if _clock() > deadline:
                        info[0] = nodes
                        info[2] = threshold
                        return STATUS_TIME
                    limit = min(budget, nodes + CLOCK_INTERVAL)
                if h > room:
                    f = d + 1 + h
                    if f < next_thr:
                        next_thr = f
                    continue
                path[_u(d)] = op
                if h == 0:
                    info[0] = nodes
                    info[1] = d + 1
                    info[2] = threshold
                    return STATUS_FOUND
                cells[_u(b)] = t
                cells[_u(src)] = 0
                if lc_mode == LC_TABLE:
                    codes[_u(g)] += dw
                    codes[_u(ol[_u(idx)])] += ow[_u(idx)]
                elif lc_mode == LC_SCAN:
                    if g != dummy:
                        saved[_u(d)] = lcval[_u(g)]
                        lcval[_u(g)] = nv
                st_blank[_u(d)] = b
                st_h[_u(d)] = hd
                st_k[_u(d)] = k
                d += 1
                room -= 1
                b = src
                b4 = 4 * b
                hd = h
                s = (src * 5 + op) * 4
                ns = succ_n[_u(src * 5 + op)]
                k = 0
            else:
                if d == 0:
                    break
                # undo the move that led here: the tile goes back from the
                # parent's blank cell to this node's blank cell
                src = b
                d -= 1
                room += 1
                op = path[_u(d)]
                b = st_blank[_u(d)]
                b4 = 4 * b
                hd = st_h[_u(d)]
                k = st_k[_u(d)]
                prev = path[d - 1] if d > 0 else 4
                s = (b * 5 + prev) * 4
                ns = succ_n[_u(b * 5 + prev)]
                t = np.int64(cells[_u(b)])
                cells[_u(src)] = t
                cells[_u(b)] = 0
                if lc_mode == LC_TABLE:
                    idx = (t << tshift) + 4 * b + op
                    v = mv[_u(idx)]
                    codes[_u((v >> 2) & 0x3FFF)] -= v >> 16
                    codes[_u(ol[_u(idx)])] -= ow[_u(idx)]
                elif lc_mode == LC_SCAN:
                    idx = (t << tshift) + 4 * b + op
                    g = (mv[_u(idx)] >> 2) & 0x3FFF
                    if g != dummy:
                        lcval[_u(g)] = saved[_u(d)]
        if next_thr == _NO_LIMIT:
            info[0] = nodes
            info[2] = threshold
            return STATUS_EXHAUSTED
        threshold = next_thr


def _kernel_args(tables, lc_mode):
    t = tables
    return (t.succ_n, t.succ_op, t.succ_src, t.mv, t.ol, t.ow, t.line_table, t.col_offset, t.grow, t.gcol,
            lc_mode)  # fmt: skip


def _lc_mode(heuristic: str, tables) -> int:
    if heuristic == "manhattan":
        return LC_NONE
    return LC_TABLE if tables.use_table else LC_SCAN


def _initial_capacity(m: int, n: int) -> int:
    # Enough for every optimal 15-puzzle (<= 80 moves); grown on demand.
    return max(96, 4 * m * n)


def ida_search(cells, m, n, goal, heuristic="linear_conflict", max_nodes=None, time_limit=None):
    """Run IDA* on one validated flat board; returns ``(status, codes, nodes, seconds)``.

    ``cells``: flat board (``m*n``,) in :func:`fastpuzzle.board_dtype`;
    ``goal``: validated ``(m, n)`` goal.  Private entry point of
    :func:`fastpuzzle.solve`, which validates and checks solvability first.
    """
    tables = search_tables(m, n, goal)
    args = _kernel_args(tables, _lc_mode(heuristic, tables))
    max_nodes = 0 if max_nodes is None else int(max_nodes)
    t0 = time.perf_counter()
    deadline = 0.0 if time_limit is None else _clock() + float(time_limit)
    cap = _initial_capacity(m, n)
    info = np.zeros(4, np.int64)
    threshold, nodes = 0, 0
    while True:
        path = np.zeros(cap, np.uint8)
        status = _ida(cells, m, n, *args, threshold, nodes, max_nodes, deadline, path, info)
        if status != STATUS_DEPTH:
            break
        threshold, nodes = int(info[2]), int(info[0])
        cap *= 2
    seconds = time.perf_counter() - t0
    codes = path[: info[1]].copy() if status == STATUS_FOUND else np.zeros(0, np.uint8)
    return status, codes, int(info[0]), seconds


@jit
def _ida_batch(
    flat, m, n,
    succ_n, succ_op, succ_src, mv, ol, ow, line_table, col_offset, grow, gcol,
    lc_mode, max_nodes, time_limit, out_codes, out_len, out_nodes, out_status, out_seconds,
):  # fmt: skip
    """IDA* on every row of ``flat`` in turn (serial; callers run chunks on threads).

    A board whose search outgrows ``out_codes.shape[1]`` gets status
    ``STATUS_DEPTH`` and is left to the caller.
    """
    info = np.zeros(4, np.int64)
    path = np.empty(out_codes.shape[1], np.uint8)
    for i in range(flat.shape[0]):
        t0 = _clock()
        deadline = t0 + time_limit if time_limit > 0.0 else 0.0
        status = _ida(
            flat[i], m, n, succ_n, succ_op, succ_src, mv, ol, ow, line_table, col_offset, grow, gcol,
            lc_mode, 0, 0, max_nodes, deadline, path, info,
        )  # fmt: skip
        out_status[i] = status
        out_nodes[i] = info[0]
        length = info[1] if status == STATUS_FOUND else 0
        out_len[i] = length
        for j in range(length):
            out_codes[i, j] = path[j]
        out_seconds[i] = _clock() - t0
