"""Shortening a solution: loops cut, and windows re-solved optimally between their end boards.

A solution of length ``L`` passes through boards ``b_0 .. b_L``.  Two cheap
rewrites never lengthen it:

* **loops**: a board visited twice (``b_i == b_j``, ``i < j``): the moves
  between are dropped (a move followed by its undo is the shortest loop);
* **windows**: for ``i < j``, the one IDA* engine (:mod:`fastpuzzle.search.ida`)
  searches from ``b_i`` to the goal ``b_j`` for a path shorter than ``j - i``
  (the stack is sized ``j - i``, so the engine stops as soon as no shorter path
  exists below its threshold: see ``STATUS_DEPTH``); a shorter path is spliced in.

The goal ``b_j`` is arbitrary, so each window is renamed through the one
goal-relabelling helper (:func:`fastpuzzle.boards.relabel_for_goal`) onto a
*canonical* goal with the same blank cell, whose linear-conflict tables are
built once per blank cell and reused by every window.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..boards import relabel_for_goal
from ..interrupt import pending
from ..moves import step_offset
from . import ida
from .clock import clock

__all__ = ["trajectory", "cut_loops", "WindowSolver", "canonical_goal"]


@jit
def _trajectory(cells, m, n, codes, out):
    """Boards before each move and after the last: ``out[k]`` after ``k`` moves."""
    board = cells.copy()
    blank = 0
    for i in range(m * n):
        if board[i] == 0:
            blank = i
    # rows copied cell by cell: an array assignment pulls in Numba's
    # shape-mismatch message (string formatting, a second of compiling)
    for i in range(m * n):
        out[0, i] = board[i]
    for k in range(codes.shape[0]):
        target = blank + step_offset(codes[k], n)
        board[blank] = board[target]
        board[target] = 0
        blank = target
        for i in range(m * n):
            out[k + 1, i] = board[i]


def trajectory(cells: np.ndarray, m: int, n: int, codes: np.ndarray) -> np.ndarray:
    """The boards a (legal) move sequence passes through, shape ``(len(codes) + 1, m*n)``.

    Examples
    --------
    >>> trajectory(np.array([1, 2, 0, 3], np.uint8), 2, 2, np.array([2], np.uint8)).tolist()
    [[1, 2, 0, 3], [1, 2, 3, 0]]
    """
    out = np.empty((len(codes) + 1, m * n), cells.dtype)
    _trajectory(np.ascontiguousarray(cells), m, n, np.ascontiguousarray(codes, np.uint8), out)
    return out


def cut_loops(cells: np.ndarray, m: int, n: int, codes: np.ndarray) -> np.ndarray:
    """The move sequence with every revisit of a board cut out (never longer).

    Examples
    --------
    >>> cut_loops(np.array([1, 2, 0, 3], np.uint8), 2, 2, np.array([2, 1, 2], np.uint8)).tolist()
    [2]
    """
    boards = trajectory(cells, m, n, codes)
    kept: list[int] = []  # move indices kept
    seen = {boards[0].tobytes(): 0}  # board -> its position in the kept path
    for k in range(len(codes)):
        key = boards[k + 1].tobytes()
        back = seen.get(key)
        if back is None:
            kept.append(k)
            seen[key] = len(kept)
        else:  # a loop: forget the boards of the kept path after ``back``
            for j in kept[back:]:
                del seen[boards[j + 1].tobytes()]
            del kept[back:]
            seen[key] = back
    return np.ascontiguousarray(codes[np.array(kept, np.int64)], np.uint8) if kept else np.zeros(0, np.uint8)


def canonical_goal(m: int, n: int, blank: int) -> np.ndarray:
    """The goal with the blank at ``blank`` and tiles ``1..mn-1`` row-major in the other cells.

    Examples
    --------
    >>> canonical_goal(2, 2, 1).tolist()
    [[1, 0], [2, 3]]
    """
    flat = np.arange(m * n, dtype=np.int64)
    flat[:blank] += 1
    flat[blank] = 0
    return flat.reshape(m, n)


def _strong_windows(home, width):
    """``(i, j, backward)`` windows of at most ``width`` moves with the blank home at one end (``home[k]``:
    after ``k`` moves): ending there (searched forwards), else starting there (searched backwards),
    latest first."""
    last = len(home) - 1
    for k in range(last, 0, -1):
        if home[k] and k >= 2:
            yield max(0, k - width), k, False
        if home[k - 1] and k - 1 < last - 1:
            yield k - 1, min(last, k - 1 + width), True


class WindowSolver:
    """Optimal searches between two boards of one shape, the tables of each blank cell built once.

    Examples
    --------
    >>> w = WindowSolver(2, 3)
    >>> start, goal = np.array([1, 2, 3, 4, 5, 0]), np.array([1, 2, 3, 4, 0, 5])
    >>> w.shorter_path(start, goal, 3, 1000, 0.0).tolist()
    [1]
    """

    def __init__(self, m: int, n: int, strong=None):
        self.m, self.n = m, n
        self._engines: dict = {}
        # an engine of the caller (pattern databases) for the windows whose end has the blank where
        # its goal has it: renamed onto that goal, they are searched with its stronger heuristic
        if strong is not None:
            self.strong_blank = int(np.flatnonzero(strong.goal == 0)[0])
            self._engines[self.strong_blank] = (strong.goal.reshape(m, n), strong)
        self.strong = strong
        self._info = np.zeros(4, np.int64)
        self.nodes = 0  # nodes generated by the windows' searches
        # what a budget is charged: the nodes, one more a window, and the entries of each engine's
        # tables (4 per tile and cell), so that a node budget bounds the windows of a huge board too
        self.work = 0
        #: An int64 array whose first entry, set by another thread, stops the windows' searches (None: none).
        self.control = None

    def _engine(self, blank: int):
        engine = self._engines.get(blank)
        if engine is None:
            goal = canonical_goal(self.m, self.n, blank)
            engine = self._engines[blank] = (goal, ida.Heuristic(self.m, self.n, goal, "linear_conflict"))
            self.work += 4 * (self.m * self.n) ** 2
        return engine

    def stopped(self) -> bool:
        """A signal (SIGINT, SIGTERM) or another thread (:attr:`control`) asked the windows to stop."""
        return bool(pending()) or (self.control is not None and bool(self.control[0]))

    def shorter_path(self, start, goal, length: int, max_nodes: int, deadline: float):
        """Moves from ``start`` to ``goal`` (flat boards) shorter than ``length``, or None.

        None when no shorter path exists (proved) or when ``max_nodes`` or the
        :func:`fastpuzzle.search.clock.clock` ``deadline`` (0 = none) stopped the search.
        """
        m, n = self.m, self.n
        blank = int(np.flatnonzero(goal == 0)[0])
        target, engine = self._engine(blank)
        renamed = relabel_for_goal(np.asarray(start).reshape(m, n), np.asarray(goal).reshape(m, n), target).ravel()
        path = np.zeros(length, np.uint8)  # thresholds below ``length`` only: shorter paths
        status = ida.ida_kernel(renamed, m, n, *engine.kernel_args(), 0, 0, int(max_nodes), float(deadline),
                                path, self._info, ida.WEIGHT_ONE, control=self.control)  # fmt: skip
        self.nodes += int(self._info[0])
        self.work += int(self._info[0]) + 1
        if status == ida.STATUS_FOUND and self._info[1] < length:
            return path[: self._info[1]].copy()
        return None

    def improve_strong(self, cells, codes, widths, max_nodes: int, deadline: float):
        """Windows that end where the blank reaches the strong engine's blank cell (the goal at least),
        ``widths`` wide, all of them within ``max_nodes`` of :attr:`work` (0 = no limit) and the
        :func:`fastpuzzle.search.clock.clock` ``deadline`` (0 = none); returns the new codes.

        Examples
        --------
        >>> from fastpuzzle.search.ida import Heuristic
        >>> goal = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]])
        >>> w = WindowSolver(3, 3, strong=Heuristic(3, 3, goal, "linear_conflict"))
        >>> detour = np.array([0, 2, 3, 1] * 2 + [0, 2, 3, 2], np.uint8)  # the blank circles a square three times
        >>> w.improve_strong(np.array([1, 2, 3, 4, 5, 6, 0, 7, 8]), detour, (12,), 0, 0.0).tolist()
        [2, 2]
        """
        if self.strong is None:
            return codes
        m, n = self.m, self.n
        start_work = self.work

        def out_of_budget():
            return (deadline > 0.0 and clock() >= deadline) or (max_nodes > 0 and self.work - start_work >= max_nodes) \
                or self.stopped()

        for width in widths:
            if out_of_budget():
                break
            improved = True
            while improved and not out_of_budget():
                improved = False
                codes = cut_loops(cells, m, n, codes)
                boards = trajectory(cells, m, n, codes)
                for i, j, backward in _strong_windows(boards[:, self.strong_blank] == 0, width):
                    left = max_nodes - (self.work - start_work) if max_nodes > 0 else 0
                    if backward:  # searched from its end back to its start, where the blank is home
                        better = self.shorter_path(boards[j], boards[i], j - i, left, deadline)
                        if better is not None:
                            better = (3 - better[::-1]).astype(np.uint8)  # undo_code of each move, last first
                    else:
                        better = self.shorter_path(boards[i], boards[j], j - i, left, deadline)
                    if better is not None:
                        codes = np.concatenate([codes[:i], better, codes[j:]]).astype(np.uint8)
                        improved = True
                        break
                    if out_of_budget():
                        break
        return cut_loops(cells, m, n, codes)

    def improve(self, cells, codes, width: int, max_nodes: int, deadline: float, total: int = 0):
        """One pass of windows of ``width`` moves (half overlapping) over the solution; returns the new codes.

        Each window may generate ``max_nodes`` nodes, the pass ``total`` of :attr:`work` (0 = no
        limit); it stops at the deadline (a :func:`fastpuzzle.search.clock.clock` value, 0 = none).
        """
        m, n = self.m, self.n
        codes = cut_loops(cells, m, n, codes)
        boards = trajectory(cells, m, n, codes)
        i = 0
        step = max(1, width // 2)
        start = self.work
        while i < len(codes) and (deadline <= 0.0 or clock() < deadline) and not self.stopped():
            j = min(len(codes), i + width)
            left = total - (self.work - start)
            if j - i < 2 or (total and left <= 0):
                break
            better = self.shorter_path(boards[i], boards[j], j - i, min(max_nodes, left) if total else max_nodes,
                                       deadline)  # fmt: skip
            if better is not None:
                codes = cut_loops(cells, m, n, np.concatenate([codes[:i], better, codes[j:]]).astype(np.uint8))
                boards = trajectory(cells, m, n, codes)
                continue  # the same start: the window now reaches further
            i += step
        return codes
