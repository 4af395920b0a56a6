"""Board arrays: validation with clear errors, dtype choice and goal boards.

A board is an integer array of shape ``(m, n)`` holding ``0`` (the blank) and
the tiles ``1 .. m*n-1`` once each; a batch is ``(B, m, n)``.  Every public
function of fastpuzzle passes its input through :func:`as_boards` (or
:func:`as_goal`) before any computing kernel runs, so a bad board becomes a
``ValueError``/``TypeError`` naming the board and the problem, never a crash or
a silent wrong answer.

Checks that touch every cell are vectorised (global min/max in NumPy) and the
per-board permutation test is a small bounds-safe kernel, so validating ten
million boards costs a few tens of milliseconds.  Pass ``check=False`` to skip
it for data that is already known to be valid.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_inner
from .errors import BoardError, OptionError, OptionTypeError, ShapeError
from .memory import check_allocation
from .options import flag, whole

__all__ = [
    "goal_board", "board_dtype", "as_boards", "as_goal", "check_shape", "cell_colour", "cell_colours",
    "goal_cells", "relabel_table", "relabel_for_goal",
]  # fmt: skip


def board_dtype(n_cells: int) -> np.dtype:
    """Smallest unsigned dtype that holds the values ``0 .. n_cells-1``.

    Examples
    --------
    >>> board_dtype(16), board_dtype(1000), board_dtype(10**6)
    (dtype('uint8'), dtype('uint16'), dtype('uint32'))
    >>> board_dtype(0)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: n_cells must be a whole number >= 1, got 0
    """
    n_cells = whole(n_cells, "n_cells", least=1, most=1 << 64)  # values up to 2**64 - 1 fit uint64
    if n_cells <= 1 << 8:
        return np.dtype(np.uint8)
    if n_cells <= 1 << 16:
        return np.dtype(np.uint16)
    if n_cells <= 1 << 32:
        return np.dtype(np.uint32)
    return np.dtype(np.uint64)


def check_shape(m: int, n: int) -> tuple:
    """The sides as Python ``int``; refuse sides that are not integers
    (``TypeError``; ``bool`` is not a side) or make no board (``ValueError``).

    Examples
    --------
    >>> check_shape(np.uint8(16), 16)
    (16, 16)
    >>> check_shape(1, 1)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.ShapeError: a board needs at least 2 cells, got 1x1
    """
    if isinstance(m, bool) or isinstance(n, bool) or not (isinstance(m, (int, np.integer)) and isinstance(n, (int, np.integer))):
        raise OptionTypeError("board sides m, n", (m, n), "must be integers")
    m, n = int(m), int(n)  # np.uint8(16) * np.uint8(16) would wrap to 0
    if m < 1 or n < 1:
        raise ShapeError((m, n), f"a board needs sides >= 1, got {m}x{n}")
    if m * n < 2:
        raise ShapeError((m, n), f"a board needs at least 2 cells, got {m}x{n}")
    return m, n


def goal_board(m: int, n: int, *, dtype=None) -> np.ndarray:
    """The default goal: tiles ``1 .. m*n-1`` in row-major order, blank last.

    Parameters
    ----------
    m, n : int
        Rows and columns (``m, n >= 1``, ``m*n >= 2``).
    dtype : dtype, optional
        Defaults to the smallest unsigned dtype that holds ``m*n - 1``.

    Examples
    --------
    >>> goal_board(2, 3)
    array([[1, 2, 3],
           [4, 5, 0]], dtype=uint8)
    """
    from .memory import check_allocation

    m, n = check_shape(m, n)
    if dtype is None:
        dtype = board_dtype(m * n)
    else:
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise OptionTypeError("dtype", dtype, "must be an integer dtype") from None
        if dtype.kind not in "ui":
            raise OptionTypeError("dtype", dtype, "must be an integer dtype")
        if m * n - 1 > np.iinfo(dtype).max:
            raise OptionError("dtype", dtype, f"holds values up to {np.iinfo(dtype).max}, a {m}x{n} board needs "
                              f"{m * n - 1}; use {board_dtype(m * n)} or wider")  # fmt: skip
    check_allocation(m * n * (8 + dtype.itemsize), f"a {m}x{n} goal board")  # before the int64 range
    g = np.arange(1, m * n + 1, dtype=np.int64)
    g[-1] = 0
    return g.astype(dtype).reshape(m, n)


@jit
def _first_non_permutation(flat, n_cells):
    """Index of the first row of ``flat`` (B, N) that is not a permutation of
    ``0..N-1``, or -1.  Values are already known to lie in ``0..N-1``."""
    seen = np.zeros(n_cells, np.uint32)
    for b in range(flat.shape[0]):
        stamp = np.uint32(b + 1)  # a fresh stamp per board: no clearing
        for j in range(n_cells):
            v = flat[b, j]
            if seen[v] == stamp:
                return b
            seen[v] = stamp
    return -1


@jit
def _first_non_permutation_small(flat, n_cells):
    """As :func:`_first_non_permutation` for ``N <= 64``: a bitmask per board."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - n_cells)
    for b in range(flat.shape[0]):
        mask = np.uint64(0)
        for j in range(n_cells):
            mask |= np.uint64(1) << np.uint64(flat[b, j])
        if mask != full:
            return b
    return -1


def _describe_non_permutation(board: np.ndarray) -> str:
    n_cells = board.size
    counts = np.bincount(board.ravel().astype(np.int64), minlength=n_cells)
    parts = []
    dup = np.flatnonzero(counts > 1)
    if dup.size:
        v = int(dup[0])
        parts.append(f"{'the blank (0)' if v == 0 else f'tile {v}'} appears {counts[v]} times")
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        v = int(missing[0])
        parts.append("the blank (0) is missing" if v == 0 else f"tile {v} is missing")
    return "; ".join(parts)


def _to_integer_array(arr: np.ndarray, label: str) -> np.ndarray:
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise OptionTypeError(label, arr.dtype, "must hold integers (0 = blank); convert with np.asarray(x, dtype=np.int64)")
    if arr.dtype.kind == "f":
        if arr.size and not (np.isfinite(arr).all() and (np.mod(arr, 1) == 0).all()):
            raise OptionTypeError(label, arr.dtype, "has non-integer values; tiles must be whole numbers")
    return arr


def as_boards(boards, *, check: bool = True, label: str = "boards"):
    """Validate and convert one board or a batch.

    Parameters
    ----------
    boards : array_like
        ``(m, n)`` or ``(B, m, n)`` integer array (floats holding whole numbers
        are accepted).
    check : bool
        Verify that every board is a permutation of ``0 .. m*n-1``.  Shape and
        dtype are always checked.
    label : str
        Name used in error messages (``"boards"``, ``"goal"``, ``"b"``...).

    Returns
    -------
    batch : ndarray, shape (B, m, n)
        C-contiguous, in :func:`board_dtype` of ``m*n``.  A view of the input
        when it already has that dtype and layout.
    single : bool
        True when the input was one ``(m, n)`` board.

    Examples
    --------
    >>> batch, single = as_boards([[1, 2], [3, 0]])
    >>> batch.shape, batch.dtype, single
    ((1, 2, 2), dtype('uint8'), True)
    """
    check = flag(check, "check")
    if isinstance(boards, np.ma.MaskedArray) and np.ma.getmaskarray(boards).any():  # asarray would read the hidden values
        raise BoardError(label, None, "has masked cells: a board has a tile (or the blank) in every cell")
    try:
        arr = np.asarray(boards)
    except (ValueError, TypeError) as error:
        raise BoardError(label, None, f"could not be read as an array of boards: {error}") from None
    if arr.dtype == object:
        # only whole numbers: astype would truncate 1.5 and parse '1'
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in arr.flat):
            raise OptionTypeError(label, arr.dtype, "must hold integers (0 = blank), not Python objects that are not integers")
        try:
            arr = arr.astype(np.int64)
        except OverflowError:
            raise BoardError(label, None, "holds an integer past 64 bits: no board has a tile that large") from None
        except (ValueError, TypeError):
            raise OptionTypeError(label, arr.dtype, "must hold integers (0 = blank), not Python objects that are not integers") from None
    if arr.ndim not in (2, 3):
        raise ShapeError(
            arr.shape,
            f"{label} must be one board (m, n) or a batch (B, m, n), got an array with {arr.ndim} dimension(s) "
            f"and shape {arr.shape}"
        )
    single = arr.ndim == 2
    m, n = arr.shape[-2:]
    if m == 0 or n == 0:
        raise ShapeError((m, n), f"{label}: the boards have an empty side: board shape {m}x{n}")
    if m * n < 2:
        raise ShapeError((m, n), f"{label}: the boards are {m}x{n} = 1 cell; a board needs at least 2 cells")
    arr = _to_integer_array(arr, label)
    n_cells = m * n
    batch = arr.reshape(1, m, n) if single else arr
    dtype = board_dtype(n_cells)
    copy_bytes = batch.shape[0] * n_cells * np.dtype(dtype).itemsize
    if copy_bytes > 1 << 26 and not (batch.flags.c_contiguous and batch.dtype == dtype):  # a broadcast view holds none
        check_allocation(copy_bytes, f"{label}: a contiguous copy of the boards")
    if batch.shape[0] and (check or arr.dtype.kind == "f" or arr.dtype.itemsize > 8):
        _check_range(batch, n_cells, single, label)
    batch = np.ascontiguousarray(batch, dtype=dtype)
    if check and batch.shape[0]:
        flat = batch.reshape(batch.shape[0], n_cells)
        finder = _first_non_permutation_small if n_cells <= 64 else _first_non_permutation
        bad = finder(flat, n_cells)
        if bad >= 0:
            raise BoardError(
                label,
                None if single else bad,
                f"is not a permutation of 0..{n_cells - 1}: {_describe_non_permutation(flat[bad])}",
            )
    return batch, single


def _check_range(batch: np.ndarray, n_cells: int, single: bool, label: str) -> None:
    lo, hi = batch.min(), batch.max()
    if lo >= 0 and hi <= n_cells - 1:
        return
    bad_cells = (batch < 0) | (batch > n_cells - 1)
    index = int(np.flatnonzero(bad_cells.reshape(batch.shape[0], -1).any(axis=1))[0])
    value = batch[index][bad_cells[index]][0]
    value = int(value) if batch.dtype.kind != "f" else value
    raise BoardError(
        label,
        None if single else index,
        f"holds {value}, outside 0..{n_cells - 1} "
        f"(0 is the blank, tiles are 1..{n_cells - 1} for a {batch.shape[1]}x{batch.shape[2]} board)",
    )


def as_goal(goal, m: int, n: int, *, check: bool = True) -> np.ndarray:
    """Validate a goal board for ``m x n`` boards (``None`` gives the default).

    Returns a C-contiguous ``(m, n)`` array in :func:`board_dtype`.
    """
    if goal is None:
        return goal_board(m, n)
    g, single = as_boards(goal, check=check, label="goal")
    if not single:
        raise ShapeError(g.shape, f"goal must be one board (m, n), got a batch of shape {g.shape}", expected=(m, n))
    if g.shape[1:] != (m, n):
        raise ShapeError(g.shape[1:], f"goal has shape {g.shape[1]}x{g.shape[2]} but the boards are {m}x{n}", expected=(m, n))
    return g[0]


# ------------------------------------------------------------------ cell colours


@jit_inner
def cell_colour(cell, n):
    """Checkerboard colour ``(row + col) % 2`` of row-major ``cell`` on a board of width ``n``."""
    return ((cell // n) + (cell % n)) & 1


@jit
def cell_colours(m, n):
    """Checkerboard colour ``(row + col) % 2`` of every cell, row-major
    (``uint8``): a move of the blank changes its colour, which is why the
    colour of the blank's cell enters the solvability invariant.

    Examples
    --------
    >>> cell_colours(2, 3).tolist()
    [0, 1, 0, 1, 0, 1]
    """
    out = np.empty(m * n, np.uint8)
    for i in range(m * n):
        out[i] = cell_colour(i, n)
    return out


# ------------------------------------------------------------------ relabelling for a custom goal
#
# Every solver and heuristic is written for the default goal.  A custom goal
# is handled by renaming tiles: the tile that sits at cell p of the goal
# takes the name of the tile at cell p of the default goal.  Renaming is a
# bijection that commutes with moves, so distances and solutions carry over.


def goal_cells(goal) -> np.ndarray:
    """Flat cell of every tile in ``goal``: ``cells[tile]`` (``int64``, the
    inverse permutation; ``divmod(cells, n)`` gives rows and columns).

    Examples
    --------
    >>> goal_cells([[3, 1], [0, 2]]).tolist()
    [2, 1, 3, 0]
    """
    goal = np.asarray(goal)
    flat = goal.ravel().astype(np.int64)
    cells = np.empty(flat.size, np.int64)
    cells[flat] = np.arange(flat.size)
    return cells


def relabel_table(goal, target=None) -> np.ndarray:
    """The renaming of tiles that turns ``goal`` into ``target``.

    Parameters
    ----------
    goal : array_like, shape (m, n)
        A valid board (checked by the caller, e.g. with :func:`as_goal`).
    target : array_like, shape (m, n), optional
        Default: :func:`goal_board`.  Its blank must be at the goal's blank
        cell, so that the renaming keeps the blank (``table[0] == 0``).

    Returns
    -------
    table : ndarray of int64, shape (m*n,)
        ``table[goal[p]] == target[p]`` for every cell ``p``; apply it to a
        board as ``table[board]``.

    Examples
    --------
    >>> relabel_table([[2, 1, 3], [4, 5, 0]]).tolist()
    [0, 2, 1, 3, 4, 5]
    """
    goal = np.asarray(goal)
    m, n = goal.shape
    target = goal_board(m, n) if target is None else np.asarray(target)
    if target.shape != goal.shape:
        raise ShapeError(target.shape, f"target has shape {target.shape} but the goal has {goal.shape}", expected=goal.shape)
    blank_goal = int(np.flatnonzero(goal.ravel() == 0)[0])
    blank_target = int(np.flatnonzero(target.ravel() == 0)[0])
    if blank_goal != blank_target:
        raise BoardError(
            "target", None,
            f"has its blank at cell {divmod(blank_target, n)} but the goal's is at {divmod(blank_goal, n)}; "
            "a renaming of tiles cannot move the blank",
        )  # fmt: skip
    table = np.empty(m * n, np.int64)
    table[goal.ravel().astype(np.int64)] = target.ravel().astype(np.int64)
    return table


def relabel_for_goal(boards, goal, target=None) -> np.ndarray:
    """Boards with their tiles renamed so that ``goal`` becomes ``target``
    (default: the default goal, which needs the goal's blank in the last cell).

    Parameters
    ----------
    boards : ndarray, shape (m, n) or (B, m, n)
        Valid boards (checked by the caller).
    goal, target : array_like, shape (m, n)
        As for :func:`relabel_table`.

    Returns
    -------
    ndarray
        Same shape, in :func:`board_dtype`; a board reaches ``goal`` by a move
        sequence iff its renamed twin reaches ``target`` by the same sequence.

    Examples
    --------
    >>> relabel_for_goal([[1, 2, 3], [4, 5, 0]], [[2, 1, 3], [4, 5, 0]])
    array([[2, 1, 3],
           [4, 5, 0]], dtype=uint8)
    """
    boards = np.asarray(boards)
    table = relabel_table(goal, target)
    return table.astype(board_dtype(table.size))[boards.astype(np.intp, copy=False)]
