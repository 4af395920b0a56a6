"""Batched steps over the move model: successors, legal moves, one move per board, inverses.

The move model (:mod:`fastpuzzle.moves`) names the moves and their steps;
this module applies them to whole batches in one compiled call, for users'
own searches and for the environments of :mod:`fastpuzzle.env`:

* :func:`legal_moves` — the mask ``(B, 4)`` of the moves the blank can make;
* :func:`neighbours` — every board's four successors ``(B, 4, m, n)`` and that mask;
* :func:`step_boards` — one move per board, out of place or in place;
* :func:`random_legal_moves` — one move per board, uniform among its legal ones;
* :func:`inverse_moves` — the sequence that undoes a sequence.

Moves are the codes of the move model (``0 1 2 3`` = ``U L R D``, the
blank's direction); the cell a move takes the blank to comes from
:func:`fastpuzzle.moves.neighbour_cells`, so no step is defined twice.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from ._jit import jit, pjit, use_threads
from .boards import as_boards, board_dtype
from . import options
from .errors import MoveError, OptionError, OptionTypeError, ShapeError
from .moves import UNDO, move_letters, neighbour_cells
from .notation import invert

__all__ = ["legal_moves", "neighbours", "step_boards", "random_legal_moves", "inverse_moves", "move_tables"]


@functools.lru_cache(maxsize=64)
def move_tables(m: int, n: int):
    """``(targets, legal)`` of every blank cell: the cell each code takes the
    blank to (-1 off the board, ``int64 (N, 4)``) and its mask (``bool (N, 4)``).

    Read-only, shared by the batch kernels and the environments.

    Examples
    --------
    >>> targets, legal = move_tables(2, 2)
    >>> targets[0].tolist(), legal[0].tolist()
    ([-1, -1, 1, 2], [False, False, True, True])
    """
    targets = neighbour_cells(m, n)
    legal = targets >= 0
    targets.setflags(write=False)
    legal.setflags(write=False)
    return targets, legal


@jit(inline="always")
def _blank_of(flat, b):
    for i in range(flat.shape[1]):
        if flat[b, i] == 0:
            return i
    return 0


@jit
def _legal_serial(flat, legal_of_cell, out):
    for b in range(flat.shape[0]):
        z = _blank_of(flat, b)
        for k in range(4):
            out[b, k] = legal_of_cell[z, k]


@pjit
def _legal_parallel(flat, legal_of_cell, out):
    for b in prange(flat.shape[0]):
        z = _blank_of(flat, b)
        for k in range(4):
            out[b, k] = legal_of_cell[z, k]


@jit(inline="always")
def _neighbours_one(flat, targets, out, mask, b):
    z = _blank_of(flat, b)
    N = flat.shape[1]
    for k in range(4):
        for i in range(N):
            out[b, k, i] = flat[b, i]
        t = targets[z, k]
        mask[b, k] = t >= 0
        if t >= 0:
            out[b, k, z] = flat[b, t]
            out[b, k, t] = 0


@jit
def _neighbours_serial(flat, targets, out, mask):
    for b in range(flat.shape[0]):
        _neighbours_one(flat, targets, out, mask, b)


@pjit
def _neighbours_parallel(flat, targets, out, mask):
    for b in prange(flat.shape[0]):
        _neighbours_one(flat, targets, out, mask, b)


@jit(inline="always")
def _step_one(src, dst, codes, targets, b, copy):
    """Move ``codes[b]`` on board ``b`` from ``src`` into ``dst`` (``copy`` False: the same array); False if illegal."""
    N = src.shape[1]
    z = _blank_of(src, b)
    if copy:
        for i in range(N):
            dst[b, i] = src[b, i]
    t = targets[z, codes[b]]
    if t < 0:
        return False
    dst[b, z] = src[b, t]
    dst[b, t] = 0
    return True


@jit
def _step_serial(src, dst, codes, targets, legal, copy):
    bad = -1
    for b in range(src.shape[0]):
        legal[b] = _step_one(src, dst, codes, targets, b, copy)
        if not legal[b] and bad < 0:
            bad = b
    return bad


@pjit
def _step_parallel(src, dst, codes, targets, legal, copy):
    for b in prange(src.shape[0]):
        legal[b] = _step_one(src, dst, codes, targets, b, copy)
    return -1


@jit(inline="always")
def legal_count(targets, z):
    """How many moves a blank on cell ``z`` has (``targets[z, k] >= 0`` for a legal code ``k``)."""
    count = 0
    for k in range(4):
        count += targets[z, k] >= 0
    return count


@jit(inline="always")
def kth_legal(targets, z, pick):
    """The ``pick``-th legal code (U L R D order) of a blank on cell ``z``; -1 past the last."""
    left = np.int64(pick)
    for k in range(4):
        if targets[z, k] >= 0:
            if left == 0:
                return k
            left -= 1
    return -1


@jit
def _random_legal(flat, targets, draws, out):
    """``out[b]``: the ``draws[b] % count``-th legal code of board ``b`` (U L R D order)."""
    for b in range(flat.shape[0]):
        z = _blank_of(flat, b)
        out[b] = kth_legal(targets, z, draws[b] % legal_count(targets, z))


def _flat_batch(boards, check, label="boards"):
    batch, single = as_boards(boards, check=options.flag(check, "check"), label=label)
    B, m, n = batch.shape
    return batch.reshape(B, m * n), single, m, n


def legal_moves(boards, *, check: bool = True) -> np.ndarray:
    """Mask of the moves the blank can make on each board.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
    check : bool
        Validate the boards (every cell checked; pass False for known-good data).

    Returns
    -------
    ndarray of bool, shape (4,) or (B, 4)
        ``mask[..., code]`` for the codes ``0 1 2 3`` = ``U L R D``.

    Examples
    --------
    >>> legal_moves([[1, 2], [3, 0]]).tolist()
    [True, True, False, False]
    """
    flat, single, m, n = _flat_batch(boards, check)
    _, legal_of_cell = move_tables(m, n)
    out = np.empty((flat.shape[0], 4), np.bool_)
    (_legal_parallel if use_threads(flat.size) else _legal_serial)(flat, legal_of_cell, out)
    return out[0] if single else out


def neighbours(boards, *, check: bool = True):
    """Every board's four successors and the mask of its legal moves.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
    check : bool
        Validate the boards first.

    Returns
    -------
    successors : ndarray, shape (B, 4, m, n) (``(4, m, n)`` for one board)
        ``successors[b, code]`` is board ``b`` after move ``code``; where the
        move is illegal it is board ``b`` unchanged (so every slot holds a
        valid board).
    mask : ndarray of bool, shape (B, 4) (``(4,)`` for one board)
        Which slots hold a real move.

    Examples
    --------
    >>> succ, mask = neighbours([[1, 2], [3, 0]])
    >>> mask.tolist(), succ[0].tolist()
    ([True, True, False, False], [[1, 0], [3, 2]])
    """
    from .memory import check_allocation

    if isinstance(boards, np.ndarray) and boards.ndim in (2, 3) and boards.size:  # refused before any copy
        B, (m, n) = (1 if boards.ndim == 2 else boards.shape[0]), boards.shape[-2:]
        check_allocation(4 * B * m * n * board_dtype(m * n).itemsize, f"the successors of {B:,} boards")
    flat, single, m, n = _flat_batch(boards, check)
    targets, _ = move_tables(m, n)
    B = flat.shape[0]
    check_allocation(4 * flat.nbytes, f"the successors of {B:,} boards")
    out = np.empty((B, 4, m * n), flat.dtype)
    mask = np.empty((B, 4), np.bool_)
    (_neighbours_parallel if use_threads(4 * flat.size) else _neighbours_serial)(flat, targets, out, mask)
    out = out.reshape(B, 4, m, n)
    return (out[0], mask[0]) if single else (out, mask)


def _check_codes(codes, B):
    arr = options.array(codes, "moves")
    if arr.size == 0 and arr.dtype.kind == "f" and not isinstance(codes, np.ndarray):
        arr = arr.astype(np.int64)  # an empty list reads as float64: no codes, no wrong type
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise OptionTypeError("moves", arr.dtype, "must be integer move codes 0..3 (U, L, R, D)")
    arr = arr.reshape(-1) if arr.ndim == 0 else arr
    if arr.shape != (B,):
        raise ShapeError(np.shape(codes), f"one move per board is needed: {B} boards, moves of shape {np.shape(codes)}",
                         expected=(B,))  # fmt: skip
    bad = np.flatnonzero((arr < 0) | (arr > 3))
    if bad.size:
        raise MoveError(None, int(arr[bad[0]]), f"has code {int(arr[bad[0]])}; move codes are 0..3 (U, L, R, D)",
                        board=int(bad[0]))  # fmt: skip
    return np.ascontiguousarray(arr, np.uint8)


def step_boards(boards, moves, *, out=None, illegal: str = "raise", check: bool = True) -> np.ndarray:
    """Make one move on every board of a batch.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
    moves : array_like of int, shape (B,) (a scalar for one board)
        Move codes ``0..3`` (``U L R D``), one per board.
    out : ndarray, optional
        Where to write the boards after the moves (same shape and dtype as
        the validated batch); pass the input itself to move in place.
    illegal : {"raise", "stay"}
        A move that takes the blank off the board raises ``ValueError``
        naming the board (nothing is written when ``out`` is new; with
        ``out`` given the batch may be partly moved), or leaves that board
        as it is.
    check : bool
        Validate the boards first.

    Returns
    -------
    ndarray, shape (B, m, n) or (m, n)

    Examples
    --------
    >>> step_boards([[[1, 2], [3, 0]], [[1, 2], [3, 0]]], [0, 1]).tolist()
    [[[1, 0], [3, 2]], [[1, 2], [0, 3]]]
    >>> step_boards([[1, 2], [3, 0]], 3, illegal="stay").tolist()
    [[1, 2], [3, 0]]
    """
    if not isinstance(illegal, str) or illegal not in ("raise", "stay"):
        raise OptionError("illegal", illegal, "must be 'raise' or 'stay'")
    flat, single, m, n = _flat_batch(boards, check)
    B = flat.shape[0]
    codes = _check_codes(moves, B)
    targets, _ = move_tables(m, n)
    if out is None:
        dst = np.empty_like(flat)
    else:
        if not isinstance(out, np.ndarray):
            raise OptionTypeError("out", type(out).__name__, "must be a NumPy array")
        want = (m, n) if single else (B, m, n)
        if out.shape != want or out.dtype != flat.dtype or not out.flags.c_contiguous or not out.flags.writeable:
            raise OptionError("out", f"{out.dtype} {out.shape}", f"must be a writeable C-contiguous {flat.dtype} array "
                              f"of shape {want}")  # fmt: skip
        dst = out.reshape(B, m * n)
    if np.shares_memory(dst, flat) and dst.__array_interface__["data"][0] != flat.__array_interface__["data"][0]:
        raise OptionError("out", "an overlapping array", "overlaps the boards without being them: pass the boards "
                          "themselves to move in place")  # fmt: skip
    copy = dst.__array_interface__["data"][0] != flat.__array_interface__["data"][0]
    if illegal == "raise":
        _, legal_of_cell = move_tables(m, n)
        mask = np.empty((B, 4), np.bool_)
        _legal_serial(flat, legal_of_cell, mask)
        bad = np.flatnonzero(~mask[np.arange(B), codes])
        if bad.size:
            b = int(bad[0])
            letter = move_letters(codes[b:b + 1])
            raise MoveError(None, letter, f"{letter!r} is illegal: it takes the blank off the {m}x{n} board",
                            board=None if single else b)  # fmt: skip
    legal = np.empty(B, np.bool_)
    (_step_parallel if use_threads(flat.size) else _step_serial)(flat, dst, codes, targets, legal, copy)
    result = dst.reshape(B, m, n)
    return result[0] if single else result


def random_legal_moves(boards, *, seed=None, check: bool = True) -> np.ndarray:
    """One move per board, uniform among the moves legal on it.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
    seed : None, int, SeedSequence or Generator
        Source of randomness (``numpy.random.default_rng(seed)``).
    check : bool
        Validate the boards first.

    Returns
    -------
    ndarray of uint8, shape (B,) (a 0-d array for one board)

    Examples
    --------
    >>> codes = random_legal_moves(np.array([[[1, 2], [3, 0]]] * 100), seed=1)
    >>> sorted(set(codes.tolist()))
    [0, 1]
    """
    seed = options.seed(seed)
    flat, single, m, n = _flat_batch(boards, check)
    targets, _ = move_tables(m, n)
    draws = np.random.default_rng(seed).integers(0, 1 << 30, size=flat.shape[0], dtype=np.int64)
    out = np.empty(flat.shape[0], np.uint8)
    _random_legal(flat, targets, draws, out)
    return out[0, ...] if single else out


def inverse_moves(moves):
    """The moves that undo ``moves``: reversed, each move undone (U<->D, L<->R).

    A string gives a string, codes give codes (:func:`fastpuzzle.notation.invert`);
    a 2-d array of codes ``(B, L)`` inverts every row.

    Examples
    --------
    >>> inverse_moves("UULR")
    'LRDD'
    >>> inverse_moves(np.array([[0, 1], [2, 2]])).tolist()
    [[2, 3], [1, 1]]
    """
    arr = None if isinstance(moves, str) else options.array(moves, "moves")
    if arr is None or arr.ndim != 2:
        return invert(moves)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise OptionTypeError("moves", arr.dtype, "must be integer move codes 0..3")
    if arr.size and (arr.min() < 0 or arr.max() > 3):
        board, index = (int(v) for v in np.argwhere((arr < 0) | (arr > 3))[0])
        code = int(arr[board, index])
        raise MoveError(index, code, f"has code {code}; move codes are 0..3 (U, L, R, D)", board=board)
    return UNDO[arr.astype(np.intp)][:, ::-1].copy()

