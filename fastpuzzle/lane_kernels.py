"""Invariant and validation of boards of at most 64 cells, computed across boards.

The per-board kernels of :mod:`fastpuzzle.inversion_kernels` walk one board's
cells with a scalar seen-mask: a few dependent operations per cell, nothing
for the vector units.  Here the loop is turned around.  A block of boards is
transposed so that one cell of all boards is contiguous, and the inner loop
runs *across boards*, each lane holding one board's state:

* ``seen``: the seen-mask of values (bit ``v`` set once ``v`` appeared);
* ``acc``: the XOR of ``seen >> v`` over the cells; its popcount parity is the
  parity of the inversions with the blank counted as the smallest value (the
  parity of a sum of popcounts is the popcount parity of the XOR);
* and, per block, the largest value seen, for validation.

The colour ``(row + col) % 2`` of the blank's cell turns that parity into the
invariant (see :mod:`fastpuzzle.inversion_kernels`); it is a constant of the
cell, so a byte loop takes the minimum of each board over the cells of
colour 1: it is 0 iff the blank sits on one.
Variable shifts, ORs, XORs and max vectorise (AVX2: 8 lanes of 32 bits or 4
of 64), and validation comes almost free: a board of ``N`` cells is a
permutation iff no value reaches ``N`` and its seen-mask is full.

Lanes are 32 bits for boards of at most 32 cells and 64 bits up to 64 cells;
shift counts are masked to the lane width, so a board that is not a
permutation (``check=False``) gives some answer, never a read or write
outside its arrays.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import jit, pjit
from .inversion_kernels import parity64

__all__ = ["LANE_BLOCK", "MAX_LANE_CELLS", "lane_constants", "lane_invariants", "lane_invariants_par"]

#: Boards per block: the transposed block (cells x boards bytes) and the
#: three state arrays stay in L1.
LANE_BLOCK = 256

#: Largest board (cells) the lane kernels take.
MAX_LANE_CELLS = 64


def lane_constants(n_cells: int) -> np.ndarray:
    """Lane constants for boards of ``n_cells`` (2..64): ``[1, shift mask,
    full seen-mask, largest value]`` in the lane dtype (uint32 up to 32
    cells, else uint64).

    Examples
    --------
    >>> lane_constants(16)
    array([    1,    31, 65535,    15], dtype=uint32)
    """
    if not 2 <= n_cells <= MAX_LANE_CELLS:
        raise ValueError(f"lane kernels take boards of 2..{MAX_LANE_CELLS} cells, got {n_cells}")
    bits = 32 if n_cells <= 32 else 64
    return np.array([1, bits - 1, (1 << n_cells) - 1, n_cells - 1], np.uint32 if bits == 32 else np.uint64)


# The two lane widths are written out with literal types: Numba widens mixed
# or generic integer arithmetic to 64 bits, which would halve the 32-bit lanes.
# The loops hold nothing but the shift/XOR/OR chain: anything more (a
# per-board maximum, the blank's colour) kept them from vectorising well, so
# those run as byte loops of their own (:func:`_lane_bytes`).


@jit(inline="always")
def _lane_cells32(cells_t, seen, acc, width):
    """The cell loop for boards of at most 32 cells (32-bit lanes)."""
    one, zero = np.uint32(1), np.uint32(0)
    for k in range(width):
        seen[k] = zero
        acc[k] = zero
    for j in range(cells_t.shape[0]):
        row = cells_t[j]
        for k in range(width):
            v = np.uint32(row[k]) & np.uint32(31)
            acc[k] ^= seen[k] >> v
            seen[k] |= one << v


@jit(inline="always")
def _lane_cells64(cells_t, seen, acc, width):
    """The cell loop for boards of 33..64 cells (64-bit lanes)."""
    one, zero = np.uint64(1), np.uint64(0)
    for k in range(width):
        seen[k] = zero
        acc[k] = zero
    for j in range(cells_t.shape[0]):
        row = cells_t[j]
        for k in range(width):
            v = np.uint64(row[k]) & np.uint64(63)
            acc[k] ^= seen[k] >> v
            seen[k] |= one << v


@jit(inline="always")
def _lane_bytes(cells_t, colour, low, width):
    """Byte lanes (32 per AVX2 register): ``low[k]`` becomes the smallest
    value of board ``k`` on cells of colour 1 (0 iff the blank is there, on a
    permutation); returns the largest value of the block."""
    block_top = cells_t[0, 0]
    for k in range(width):
        low[k] = 255
    for j in range(cells_t.shape[0]):
        row = cells_t[j]
        if colour[j]:
            for k in range(width):
                low[k] = min(low[k], row[k])
        for k in range(width):
            block_top = max(block_top, row[k])
    return block_top


@jit
def _lane_block(flat, lo, hi, colour, cells_t, seen, acc, low, consts, out):
    """Invariants of boards ``lo..hi-1`` (at most ``LANE_BLOCK``) of ``flat``
    into ``out``; returns the first board of the block that is not a
    permutation, or -1.  ``seen`` and ``acc`` are lane scratch in the dtype
    of ``consts`` (see :func:`lane_constants`), ``cells_t`` is
    (N, LANE_BLOCK) scratch in the dtype of ``flat``."""
    n_cells = flat.shape[1]
    width = hi - lo
    for k in range(width):  # transpose: cell j of every board in one row
        for j in range(n_cells):
            cells_t[j, k] = flat[lo + k, j]
    if seen.itemsize == 4:
        _lane_cells32(cells_t, seen, acc, width)
    else:
        _lane_cells64(cells_t, seen, acc, width)
    # one maximum per block, not per board: a bad value is rare
    block_top = _lane_bytes(cells_t, colour, low, width)
    full, last = consts[2], consts[3]
    first_bad = -1
    for k in range(width):
        out[lo + k] = parity64(np.uint64(acc[k])) ^ np.uint8(low[k] == 0)
        if first_bad < 0 and seen[k] != full:
            first_bad = lo + k
    if block_top > last:  # some value is out of range: find its board
        for k in range(width):
            if first_bad >= 0 and lo + k >= first_bad:
                break
            for j in range(n_cells):
                if flat[lo + k, j] > last:
                    first_bad = lo + k
                    break
    return first_bad


@jit
def _lane_range(flat, colour, consts, out, lo, hi):
    """Blocks of ``flat[lo:hi]`` with one set of scratch buffers; returns the
    first board that is not a permutation, or -1."""
    cells_t = np.empty((flat.shape[1], LANE_BLOCK), flat.dtype)
    seen = np.empty(LANE_BLOCK, consts.dtype)
    acc = np.empty(LANE_BLOCK, consts.dtype)
    low = np.empty(LANE_BLOCK, flat.dtype)
    first_bad = -1
    for start in range(lo, hi, LANE_BLOCK):
        bad = _lane_block(flat, start, min(start + LANE_BLOCK, hi), colour, cells_t, seen, acc, low, consts, out)
        if first_bad < 0:
            first_bad = bad
    return first_bad


@jit
def lane_invariants(flat, colour, consts, out):
    """Invariant of every board of ``flat`` (B, N <= 64, uint8) into ``out``
    (uint8), serial; returns the first board that is not a permutation, or -1.

    ``colour`` is the checkerboard colour of every cell (uint8, N), ``consts``
    comes from :func:`lane_constants` (its dtype is the lane width).
    """
    return _lane_range(flat, colour, consts, out, 0, flat.shape[0])


@pjit
def lane_invariants_par(flat, colour, consts, out):
    """:func:`lane_invariants` across threads: ``prange`` over chunks of
    blocks, each chunk with its own scratch."""
    n_boards = flat.shape[0]
    per_chunk = LANE_BLOCK * max(1, (1 << 16) // (LANE_BLOCK * flat.shape[1]))
    n_chunks = (n_boards + per_chunk - 1) // per_chunk
    firsts = np.empty(n_chunks, np.int64)
    for c in prange(n_chunks):
        firsts[c] = _lane_range(flat, colour, consts, out, c * per_chunk, min((c + 1) * per_chunk, n_boards))
    for c in range(n_chunks):
        if firsts[c] >= 0:
            return firsts[c]
    return -1
