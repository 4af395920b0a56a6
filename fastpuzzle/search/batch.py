"""IDA* on every board of a batch, across threads: the engine's one compiled entry, rows handed out in chunks."""

from __future__ import annotations

import numpy as np

from ..memory import check_allocation
from ..moves import AUTOMATON_START, NO_PREVIOUS
from . import ida
from .chunks import run_chunks

__all__ = ["ida_batch"]


def _chunk_size(n_boards: int, n_cells: int, threads: int) -> int:
    if n_cells >= 16:
        return 1  # hard boards: hand them out one at a time for balance
    return max(1, min(256, n_boards // (8 * threads)))


def ida_batch(flat, heuristic: ida.Heuristic, max_nodes, time_limit, threads, bar=None):
    """IDA* on every row of ``flat`` (validated, solvable boards) across threads.

    Returns ``(status, codes, lengths, nodes, seconds, bounds)``: status codes, a list
    of move-code arrays (empty unless found), and arrays per board; ``bounds``: the
    threshold each search reached (every bound below it searched in full).
    """
    m, n = heuristic.m, heuristic.n
    args = heuristic.kernel_args()
    B = flat.shape[0]
    capacity = ida.initial_capacity(m, n)
    check_allocation(B * (capacity + 32) + threads * capacity * ida.STACK_BYTES, f"the IDA* moves and stacks of {B:,} boards")
    out_codes = np.zeros((B, capacity), np.uint8)
    status = np.zeros(B, np.int64)
    lengths = np.zeros(B, np.int64)
    nodes = np.zeros(B, np.int64)
    infos = np.zeros((B, 4), np.int64)
    seconds = np.zeros(B, np.float64)
    codes = [np.zeros(0, np.uint8)] * B
    root_states, root_lasts = np.full(B, AUTOMATON_START, np.int64), np.full(B, NO_PREVIOUS, np.int64)

    def work(lo, hi):
        ida.ida_rows(flat[lo:hi], m, n, *args, np.int64(0), np.int64(0), np.int64(0 if max_nodes is None else max_nodes),
                 0.0, 0.0 if time_limit is None else float(time_limit), np.int64(ida.WEIGHT_ONE), np.int64(0),
                 out_codes[lo:hi], infos[lo:hi], status[lo:hi], seconds[lo:hi], root_states[lo:hi], root_lasts[lo:hi],
                 ida.NO_CONTROL)  # fmt: skip
        nodes[lo:hi] = infos[lo:hi, 0]
        lengths[lo:hi] = np.where(status[lo:hi] == ida.STATUS_FOUND, infos[lo:hi, 1], 0)
        for i in range(lo, hi):
            if status[i] == ida.STATUS_DEPTH:  # deeper than the preallocated rows: solve alone
                status[i], codes[i], nodes[i], seconds[i] = ida.ida_search(flat[i], heuristic, max_nodes, time_limit,
                                                                       info=infos[i])  # fmt: skip
                lengths[i] = len(codes[i])
            elif status[i] == ida.STATUS_FOUND:
                codes[i] = out_codes[i, : lengths[i]].copy()

    run_chunks(B, _chunk_size(B, m * n, threads), threads, work, bar)
    return status, codes, lengths, nodes, seconds, infos[:, 2].copy()
