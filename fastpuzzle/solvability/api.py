"""Solvability and reachability of boards: the public face of the inversion kernels.

For boards with at least two rows and two columns the state graph has exactly
two connected components, told apart by one bit, the *invariant*
(:func:`invariant`): the inversion parity (blank skipped), plus the blank's row
when the width is even.  A board can reach another iff their invariants are
equal; a legal move never changes it and swapping two tiles always flips it.

Boards with one row or one column are different: no tile can pass another, so
two boards are reachable iff their tiles, blank removed, appear in the same
order.  The parity rule is wrong there and is not used.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from . import inversion_kernels as _inv
from .. import options
from .._jit import use_threads
from ..boards import as_boards, as_goal, board_dtype, cell_colours, goal_board
from ..errors import OptionError, ShapeError
from .cycle_kernels import batch_invariant_cycles_checked, batch_invariant_cycles_checked_par
from .lane_kernels import MAX_LANE_CELLS, lane_constants, lane_invariants, lane_words

__all__ = ["inversions", "invariant", "is_solvable", "reachable"]

# Kernels chosen (see docs/solvability.md): boards of at most 128 cells with
# two sides >= 2 go to the lane kernels (fastpuzzle.solvability.lane_kernels), which also
# validate; boards above WALK_CHECKED_MIN_CELLS go to the cycle walkers
# (fastpuzzle.solvability.cycle_kernels), which validate too; the others and one-row
# boards go through as_boards and the per-board kernels of
# fastpuzzle.solvability.inversion_kernels.

_METHODS = {
    "merge": _inv.METHOD_MERGE, "fenwick": _inv.METHOD_FENWICK, "radix": _inv.METHOD_RADIX, "bitmask": _inv.METHOD_BITMASK,
}


def _flat(batch: np.ndarray) -> np.ndarray:
    return batch.reshape(batch.shape[0], batch.shape[1] * batch.shape[2])


@functools.lru_cache(maxsize=64)
def _colour(m: int, n: int) -> np.ndarray:
    """:func:`~fastpuzzle.boards.cell_colours`, kept per shape: on one large
    board building it would cost a tenth of the parity itself."""
    return cell_colours(m, n)


def inversions(boards, *, method: str = "auto", check: bool = True):
    """Exact inversion counts, blank skipped.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards (0 = blank).
    method : {"auto", "merge", "fenwick", "radix", "bitmask"}
        ``"merge"``: merge-sort count, O(N log N); ``"fenwick"``: binary indexed
        tree, O(N log N); ``"radix"``: bitwise radix partition, O(N log N) in
        branch-free sequential passes; ``"bitmask"``: popcount over a
        seen-mask, O(N), boards of at most 64 cells; ``"auto"`` picks bitmask
        where it applies, else radix.
    check : bool
        Validate the boards first (see :func:`fastpuzzle.as_boards`).

    Returns
    -------
    int or ndarray of int64, shape (B,)

    Examples
    --------
    >>> inversions([[2, 1], [3, 0]])
    1
    >>> inversions([[[1, 2], [3, 0]], [[3, 2], [1, 0]]], method="merge")
    array([0, 3])
    """
    check = options.flag(check, "check")
    options.choice(method, "method", ("auto", *_METHODS))
    batch, single = as_boards(boards, check=check)
    n_cells = batch.shape[1] * batch.shape[2]
    if method == "bitmask" and n_cells > 64:
        raise ShapeError(batch.shape[1:], f"method 'bitmask' handles boards of at most 64 cells, got {n_cells}", expected=64)
    if method == "auto":
        method = "bitmask" if n_cells <= 64 else "radix"
    flat = _flat(batch)
    out = np.empty(batch.shape[0], np.int64)
    if method == "radix" and use_threads(n_cells) and batch.shape[0] < numba.get_num_threads():
        # few large boards: split each board's radix levels over the threads instead
        size = _inv.radix_buffer_size(n_cells)
        a, b = np.empty(size, flat.dtype), np.empty(size, flat.dtype)
        for i in range(flat.shape[0]):
            out[i] = _inv.count_radix_par(flat[i], a, b, 4 * numba.get_num_threads())
        return int(out[0]) if single else out
    kernel = _inv.batch_count_par if use_threads(flat.size) else _inv.batch_count
    kernel(flat, _METHODS[method], out)
    return int(out[0]) if single else out


_PARITY_METHODS = {
    "lanes": -1, "bitmask": _inv.PARITY_BITMASK, "bitmask128": _inv.PARITY_BITMASK128, "words": _inv.PARITY_WORDS, "tree": _inv.PARITY_TREE, "cycles": -2,
}


#: Boards above this many cells are validated by the cycle walkers while
#: they compute the invariant, instead of by a separate pass.
WALK_CHECKED_MIN_CELLS = 4096


def _lane_invariants(batch: np.ndarray) -> tuple[np.ndarray, int]:
    """Invariants of a uint8 batch of at most 128 cells by the lane kernels,
    and the first board that is not a permutation (-1 if none)."""
    m, n = batch.shape[1:]
    flat = _flat(batch)
    out = np.empty(batch.shape[0], np.uint8)
    bad = lane_invariants(flat, lane_words(flat), _colour(m, n), lane_constants(m * n), out,
                          threads=use_threads(flat.size))
    return out, int(bad)


def _walked_invariants(flat: np.ndarray, m: int, n: int) -> tuple[np.ndarray, int]:
    """Invariants by the cycle walkers (:mod:`fastpuzzle.solvability.cycle_kernels`) and
    the first board that is not a permutation (-1 if none; its invariant is 0)."""
    out = np.empty(flat.shape[0], np.uint8)
    kernel = batch_invariant_cycles_checked_par if use_threads(flat.size) and flat.shape[0] > 1 else batch_invariant_cycles_checked
    return out, int(kernel(flat, _colour(m, n), out))


def _checked_invariants(boards, check: bool, label: str):
    """``(invariants, batch, single)`` of boards taken as they are -- an
    ndarray already in the board dtype, both sides >= 2, of at most 128 cells
    (lane kernels) or more than ``WALK_CHECKED_MIN_CELLS`` (cycle walkers) --
    validating them on the way; ``None`` for any other input (it goes through
    :func:`as_boards` first).

    Both kernels tell whether every board is a permutation at no extra cost
    (a seen-mask), so the separate validation pass is skipped; when one is not,
    :func:`as_boards` runs after all and raises its usual
    :class:`~fastpuzzle.errors.BoardError` (same message, index, reason).
    """
    if not isinstance(boards, np.ndarray) or boards.ndim not in (2, 3):
        return None
    m, n = boards.shape[-2:]
    if m < 2 or n < 2 or (boards.ndim == 3 and boards.shape[0] == 0) or boards.dtype != board_dtype(m * n):
        return None
    if MAX_LANE_CELLS < m * n <= WALK_CHECKED_MIN_CELLS:
        return None
    batch, single = as_boards(boards, check=False, label=label)  # a view: the dtype is already right
    if m * n <= MAX_LANE_CELLS:
        out, bad = _lane_invariants(batch)
    else:
        out, bad = _walked_invariants(_flat(batch), m, n)
    if bad >= 0:
        if check:
            as_boards(boards, check=True, label=label)
            raise RuntimeError(f"{label}: board {bad} failed the in-kernel check but passed validation")
        if m * n > MAX_LANE_CELLS:  # unchecked garbage: the walk stopped early, the tree gives some answer
            out = _invariant_of(batch, "tree")
    return out, batch, single


@functools.lru_cache(maxsize=64)
def _default_goal_invariant(m: int, n: int) -> int:
    return int(_invariant_of(goal_board(m, n)[None])[0])


def _goal_invariant(goal, m: int, n: int, check: bool) -> int:
    """Invariant of ``goal`` (the default goal's is computed once per shape:
    on a large board it would cost as much as the board itself)."""
    if goal is None:
        return _default_goal_invariant(m, n)
    return int(_invariant_of(as_goal(goal, m, n, check=check)[None])[0])


def _invariant_of(batch: np.ndarray, method: str = "auto") -> np.ndarray:
    m, n = batch.shape[1:]
    n_cells = m * n
    if method == "auto" and n_cells <= MAX_LANE_CELLS and batch.dtype == np.uint8:
        method = "lanes"
    if method == "lanes":
        if n_cells > MAX_LANE_CELLS:
            raise ShapeError(batch.shape[1:], f"method 'lanes' handles boards of at most {MAX_LANE_CELLS} cells, got {n_cells}",
                             expected=MAX_LANE_CELLS)  # fmt: skip
        return _lane_invariants(np.ascontiguousarray(batch, np.uint8))[0]
    if method == "auto":
        method = ("bitmask" if n_cells <= 64 else "bitmask128" if n_cells <= 128
                  else "words" if n_cells <= 4096 else "cycles")
    if method == "cycles":
        out, bad = _walked_invariants(_flat(batch), m, n)
        if bad >= 0:  # not a permutation (check=False): the tree gives some answer, in bounds
            out = _invariant_of(batch, "tree")
        return out
    most = {"bitmask": 64, "bitmask128": 128, "words": 4096}.get(method)
    if most is not None and n_cells > most:
        raise ShapeError(batch.shape[1:], f"method {method!r} handles boards of at most {most} cells, got {n_cells}",
                         expected=most)  # fmt: skip
    flat = _flat(batch)
    out = np.empty(batch.shape[0], np.uint8)
    kernel = _inv.batch_invariant_par if use_threads(flat.size) else _inv.batch_invariant
    kernel(flat, _colour(m, n), _PARITY_METHODS[method], _inv.tree_levels(n_cells), out)
    return out


def invariant(boards, *, method: str = "auto", check: bool = True):
    """The bit that tells the two halves of the state space apart (m, n >= 2).

    ``(inversions + (blank_row if width is even else 0)) % 2``, computed by
    a parity-only kernel (no exact count).  Boards with equal invariants
    reach each other.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
    method : {"auto", "lanes", "bitmask", "bitmask128", "words", "tree", "cycles"}
        ``"lanes"``: XOR of seen-masks across a block of boards at once
        (:mod:`fastpuzzle.solvability.lane_kernels`), boards of at most 128 cells;
        ``"bitmask"``: XOR of seen-masks, one board at a time, at most 64 cells;
        ``"bitmask128"``: the same in two registers, at most 128 cells;
        ``"words"``: a seen-mask of words plus their parities, at most 4096 cells;
        ``"tree"``: a tree of parity words, O(N log64 N) without branches;
        ``"cycles"``: cycle count of the permutation by interleaved walkers
        (:mod:`fastpuzzle.solvability.cycle_kernels`), O(N); ``"auto"``: the first of
        lanes, bitmask128, words, cycles that applies.
    check : bool
        Validate the boards first.

    Examples
    --------
    >>> invariant([[1, 2, 3], [4, 5, 0]]), invariant([[2, 1, 3], [4, 5, 0]])
    (0, 1)
    """
    check = options.flag(check, "check")
    options.choice(method, "method", ("auto", *_PARITY_METHODS))
    fast = _checked_invariants(boards, check, "boards") if method == "auto" else None
    if fast is not None:
        out, _, single = fast
        return int(out[0]) if single else out
    batch, single = as_boards(boards, check=check)
    m, n = batch.shape[1:]
    if m == 1 or n == 1:
        raise ShapeError(
            (m, n),
            f"{m}x{n} boards have no parity invariant: no tile can pass another, "
            "use reachable() or is_solvable(), which compare tile order"
        )
    out = _invariant_of(batch, method)
    return int(out[0]) if single else out


def _reachable_batches(batch: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Reachability of each board of ``batch`` from ``reference`` (one board,
    broadcast, or a batch of the same length)."""
    m, n = batch.shape[1:]
    if m == 1 or n == 1:
        out = np.empty(batch.shape[0], np.bool_)
        kernel = _inv.batch_same_order_par if use_threads(m * n * batch.shape[0]) else _inv.batch_same_order
        kernel(_flat(batch), _flat(reference), out)
        return out
    return _invariant_of(batch) == _invariant_of(reference)


def is_solvable(boards, *, goal=None, check: bool = True):
    """Whether each board can reach ``goal`` by sliding tiles.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards (0 = blank), any m, n >= 1 with m*n >= 2.
    goal : array_like, shape (m, n), optional
        Target board; default :func:`fastpuzzle.goal_board`.
    check : bool
        Validate boards and goal first.

    Returns
    -------
    bool or ndarray of bool, shape (B,)

    Examples
    --------
    >>> is_solvable([[1, 2, 3], [4, 5, 6], [8, 7, 0]])
    False
    >>> is_solvable([[12, 1, 10, 2], [7, 11, 4, 14], [5, 0, 9, 15], [8, 13, 6, 3]])
    True
    """
    check = options.flag(check, "check")
    fast = _checked_invariants(boards, check, "boards")
    if fast is not None:
        invariants, batch, single = fast
        m, n = batch.shape[1:]
        out = invariants == _goal_invariant(goal, m, n, check)
        return bool(out[0]) if single else out
    batch, single = as_boards(boards, check=check)
    m, n = batch.shape[1:]
    target = as_goal(goal, m, n, check=check)
    out = _reachable_batches(batch, target[None])
    return bool(out[0]) if single else out


def reachable(a, b, *, check: bool = True):
    """Whether board(s) ``a`` can be turned into board(s) ``b``.

    Parameters
    ----------
    a : array_like, shape (m, n) or (B, m, n)
    b : array_like, shape (m, n) or (B, m, n)
        One board (compared with every board of ``a``) or a batch of the same
        length as ``a``.  The relation is symmetric.

    Returns
    -------
    bool or ndarray of bool, shape (B,)

    Examples
    --------
    >>> reachable([[1, 2], [3, 0]], [[0, 1], [3, 2]])
    True
    >>> reachable([[1, 2, 0]], [[2, 0, 1]])
    False
    """
    check = options.flag(check, "check")
    fast_a = _checked_invariants(a, check, "a")
    batch_a, single_a = fast_a[1:] if fast_a is not None else as_boards(a, check=check, label="a")
    fast_b = _checked_invariants(b, check, "b")
    batch_b, single_b = fast_b[1:] if fast_b is not None else as_boards(b, check=check, label="b")
    if batch_a.shape[1:] != batch_b.shape[1:]:
        raise ShapeError(
            batch_b.shape[1:],
            f"a and b hold boards of different shapes: {batch_a.shape[1]}x{batch_a.shape[2]} "
            f"and {batch_b.shape[1]}x{batch_b.shape[2]}",
            expected=batch_a.shape[1:],
        )
    if not single_b and batch_b.shape[0] != batch_a.shape[0]:
        if single_a:
            batch_a, batch_b, single_a, single_b = batch_b, batch_a, single_b, single_a
        else:
            raise ShapeError(
                batch_b.shape,
                f"a holds {batch_a.shape[0]} boards and b holds {batch_b.shape[0]}; "
                "b must be one board or a batch of the same length"
            )
    if fast_a is not None and fast_b is not None:  # invariants already known: compare them
        out = fast_a[0] == fast_b[0]  # one side may hold a single board: it broadcasts
    else:
        out = _reachable_batches(batch_a, batch_b)
    return bool(out[0]) if single_a else out
