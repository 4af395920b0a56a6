"""The public face of the constructive solver: checks, relabelling, buffers.

Any goal board is handled by relabelling: the goal with its blank slid to the
bottom-right corner (right along its row, then down) becomes the default
goal (:func:`fastpuzzle.boards.relabel_for_goal`); the kernel reaches it,
then the blank slides back (up, then left).  One-row and one-column boards
just slide the blank (:func:`fastpuzzle.moves.slide_codes`).

Moves are written into a ``uint8`` code buffer sized from the Manhattan
distance; if it overflows, the kernel keeps counting and the run is repeated
once with the exact size.  ``count_only=True`` keeps no codes at all (a
1000 x 1000 solution has billions of moves) and reports the count in
:attr:`Solution.move_count`.
"""

from __future__ import annotations

import time

import numpy as np

from ... import options
from ...atomic import AtomicOutput
from ...boards import as_boards, as_goal, goal_board, relabel_for_goal
from ...errors import OptionError, OptionTypeError, ShapeError, UnreachableError
from ...memory import check_allocation
from ...manhattan import tile_distances
from ...moves import LEFT_CODE, MOVE_BYTES, UP_CODE, slide_codes
from ...solvability import is_solvable
from ..solution import Solution
from .lines import solve_kernel
from .state import ERR_BUDGET

#: First guess of the code buffer, in units of the start's Manhattan distance.
CAPACITY_FACTOR = 4.0


def relabelled_manhattan(cells, m, n):
    """Sum of Manhattan distances of a flat board to the default goal (blank
    skipped): a lower bound on any solution's length.

    Examples
    --------
    >>> relabelled_manhattan(np.array([1, 2, 0, 3]), 2, 2)
    1
    """
    return int(tile_distances(np.asarray(cells).ravel(), goal_board(m, n)).sum())


def blank_to_corner(goal: np.ndarray):
    """The goal with its blank slid right along its row, then down the last
    column, to the bottom-right corner; and the codes that slide it back (up,
    then left)."""
    m, n = goal.shape
    gr, gc = (int(v) for v in np.argwhere(goal == 0)[0])
    shifted = goal.copy()
    row = shifted[gr]
    row[gc:-1] = row[gc + 1 :].copy()
    row[-1] = 0
    col = shifted[:, n - 1]
    col[gr:-1] = col[gr + 1 :].copy()
    col[-1] = 0
    back = np.concatenate([np.full(m - 1 - gr, UP_CODE, np.int64), np.full(n - 1 - gc, LEFT_CODE, np.int64)])
    return shifted, back


def _found(codes, t0, count_only, count):
    return Solution(
        codes[:0] if count_only else codes,
        status="found",
        method="constructive",
        seconds=time.perf_counter() - t0,
        move_count=count if count_only else None,
    )


def _check_max_moves(max_moves):
    if max_moves is None:
        return -1
    return options.whole(max_moves, "max_moves", none=True)


def _budget(t0, count):
    return Solution(np.empty(0, np.uint8), status="budget", nodes=int(count), method="constructive",
                    seconds=time.perf_counter() - t0)


def solve_constructive(board, *, goal=None, count_only: bool = False, max_moves: int | None = None,
                       time_limit: float | None = None) -> Solution:
    """A valid (not shortest) solution of any solvable board, any size.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (0 = blank); any m, n >= 1 with m*n >= 2.
    goal : array_like, shape (m, n), optional
        Target board, blank anywhere; default :func:`fastpuzzle.goal_board`.
    count_only : bool
        Do not keep the moves, only count them: for boards whose solution
        would not fit in memory (1000 x 1000 takes billions of moves).  The
        result then has empty ``codes`` and the count in ``move_count``.
    max_moves : int, optional
        Budget: stop once more moves than this have been made (checked after
        each row or column placed, so a few more may be made).  The result
        then has ``status="budget"``, empty ``codes``, and the moves made so
        far in ``nodes``.  Work grows as (m n)^1.5: a 1000 x 1000 board
        takes about 2.4e9 moves and 20-40 s.
    time_limit : float, optional
        Budget in seconds (wall clock, from the call): checked before the
        work starts and after each row or column placed (a 300 x 300 board
        places 600 lines in about 2 s, so the overshoot is a few
        milliseconds).  When it runs out the result is as for ``max_moves``:
        ``status="budget"``, empty ``codes`` (a constructive solution is
        all or nothing), the moves made so far in ``nodes``.  The first call
        in a process may also compile the kernels (seconds, once); that
        counts against the limit.

    Returns
    -------
    Solution
        ``status="found"``, ``method="constructive"``, ``nodes=0``.
        With ``count_only``, ``codes`` is empty and ``move_count`` (and
        ``length``) hold the number of moves (:meth:`Solution.verify` needs
        the codes: solve again without ``count_only`` to check them).

    Raises
    ------
    ValueError
        If the board is malformed, or cannot reach the goal
        (:class:`~fastpuzzle.errors.UnreachableError`).
    TypeError
        If ``count_only`` is not a bool, ``max_moves`` not an integer or
        ``time_limit`` not a number.

    Examples
    --------
    >>> board = [[4, 1, 3], [7, 2, 6], [0, 5, 8]]
    >>> sol = solve_constructive(board)
    >>> sol.status, sol.method, sol.verify(board)
    ('found', 'constructive', True)
    >>> solve_constructive(board, count_only=True).length == sol.length
    True
    """
    t0 = time.perf_counter()
    count_only = options.flag(count_only, "count_only")
    limit = _check_max_moves(max_moves)
    seconds = options.seconds(time_limit)
    deadline = None if seconds is None else t0 + seconds
    batch, single = as_boards(board, label="board")
    if not single:
        raise ShapeError(batch.shape, f"solve_constructive takes one board (m, n), got a batch of shape {batch.shape}")
    start = batch[0]
    m, n = start.shape
    target = as_goal(goal, m, n)
    if not is_solvable(start, goal=target, check=False):
        raise UnreachableError(None)
    if np.array_equal(start, target):
        return _found(np.empty(0, np.uint8), t0, count_only, 0)
    if m == 1 or n == 1:
        # No tile can pass another: the blank just slides to its goal cell.
        blank_from = int(np.flatnonzero(start.ravel() == 0)[0])
        blank_to = int(np.flatnonzero(target.ravel() == 0)[0])
        codes = slide_codes(m, n, blank_from, blank_to)
        return _found(codes, t0, count_only, len(codes))
    shifted, back = blank_to_corner(target)
    cells = relabel_for_goal(start, shifted).ravel().astype(np.int32)
    if count_only:
        capacity = 0
    else:
        # Solutions run at about 3-4x the Manhattan bound (CAPACITY_FACTOR);
        # the kernel counts past the end of the buffer, so a miss costs one
        # rerun of exactly the right size.
        capacity = int(CAPACITY_FACTOR * relabelled_manhattan(cells, m, n)) + 16 * (m + n) * min(m, n) + 64
    # the moves, and the solver's per-cell arrays (lines.solve_kernel: about 50 bytes a cell)
    check_allocation(capacity + 56 * m * n, f"the constructive solver's arrays for a {m}x{n} board")
    if deadline is not None and time.perf_counter() > deadline:
        return _budget(t0, 0)
    work = cells.copy()
    buf = np.empty(capacity, np.uint8)
    stats = np.zeros(2, np.int64)
    count, err = solve_kernel(work, m, n, buf, back, stats, limit, 1, 1, deadline)
    if not err and not count_only and count > capacity:
        work = cells.copy()
        check_allocation(int(count), f"a solution of {int(count):,} moves")
        buf = np.empty(count, np.uint8)
        count, err = solve_kernel(work, m, n, buf, back, stats, limit, 1, 1, deadline)
    if err == ERR_BUDGET:
        return _budget(t0, count)
    if err:  # pragma: no cover - would be a bug
        raise RuntimeError(f"constructive solver failed on a {m}x{n} board (error {err}); please report it")
    total = int(count)
    if count_only:
        codes = buf[:0]
    else:  # trim, unless that would copy a large buffer to save little
        codes = buf[:total] if total * 4 >= buf.size * 3 else buf[:total].copy()
    return _found(codes, t0, count_only, total)


def write_solution(sol: Solution, path, *, newline: bool = True, chunk: int = 1 << 24) -> int:
    """Write a solution's moves (``U D L R`` letters) to a file, in chunks.

    Parameters
    ----------
    sol : Solution
        A solution that kept its codes (not ``count_only``).
    path : str or path-like or binary file object
        Destination; a file object is written to and left open; ``"-"``
        is standard output.
    newline : bool
        End the text with a newline.
    chunk : int
        Moves converted per write (bounds the extra memory).

    Returns
    -------
    int
        Number of moves written.

    Examples
    --------
    >>> import io
    >>> f = io.BytesIO()
    >>> write_solution(Solution(np.array([0, 1, 2, 3], np.uint8)), f)
    4
    >>> f.getvalue()
    b'ULRD\\n'
    """
    if not isinstance(sol, Solution):
        raise OptionTypeError("sol", sol, "must be a Solution (from fastpuzzle.solve)")
    newline = options.flag(newline, "newline")
    chunk = options.whole(chunk, "chunk", least=1)
    codes = np.asarray(sol.codes, np.uint8)
    if codes.size == 0 and sol.length > 0:
        raise OptionError("solution", f"{sol.length} moves, none kept",
                          "kept only its move count (count_only=True); solve again without it to write moves")  # fmt: skip

    def _write(f):
        for i in range(0, codes.size, chunk):
            f.write(MOVE_BYTES[codes[i : i + chunk]].tobytes())
        if newline:
            f.write(b"\n")

    if hasattr(path, "write"):
        _write(path)
    else:  # the one writer: a temporary file renamed on success, "-" for standard output
        with AtomicOutput(path) as f:
            _write(f)
    return int(codes.size)
