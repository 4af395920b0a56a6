"""Invariant and validation of boards of at most 128 cells, computed across boards.

The per-board kernels of :mod:`fastpuzzle.solvability.inversion_kernels` walk one board's
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
invariant (see :mod:`fastpuzzle.solvability.inversion_kernels`); it is a constant of the
cell, so a byte loop takes the minimum of each board over the cells of
colour 1: it is 0 iff the blank sits on one.
Variable shifts, ORs, XORs and max vectorise (AVX2: 8 lanes of 32 bits or 4
of 64), and validation comes almost free: a board of ``N`` cells is a
permutation iff no value reaches ``N`` and its seen-mask is full.

Lanes are 32 bits for boards of at most 32 cells and 64 bits up to 64 cells;
boards of 65..128 cells hold their seen-mask in two 64-bit lanes (values
below 64 and the rest), the word chosen by masks, not branches.  Shift
counts are masked to the lane width, so a board that is not a permutation
(``check=False``) gives some answer, never a read or write outside its
arrays.

Boards of at most 32 cells (:func:`lane_range32`) are transposed a word of
four cells at a time, a quarter of the loads and stores of a byte transpose;
each lane takes its cells out of the word by shifts, and finds the blank's
colour and any value the masked shifts would wrap in the same pass
(``docs/solvability.md``).
"""

from __future__ import annotations

import numpy as np
from .._jit import jit, jit_inner, split_threads
from ..errors import OptionError
from .inversion_kernels import parity64

__all__ = ["LANE_BLOCK", "MAX_LANE_CELLS", "lane_constants", "lane_words", "word_colours", "lane_range", "lane_range32",
           "lane_range64", "lane_range128", "lane_invariants"]

#: Boards per block: the transposed block (cells x boards bytes) and the
#: three state arrays stay in L1.
LANE_BLOCK = 256

#: Largest board (cells) the lane kernels take.
MAX_LANE_CELLS = 128


def lane_constants(n_cells: int) -> np.ndarray:
    """Lane constants for boards of ``n_cells`` (2..128): ``[1, shift mask,
    full seen-mask, largest value]`` in the lane dtype (uint32 up to 32
    cells, else uint64); above 64 cells the full mask is that of the values
    64 and up (the lower word must be all ones).

    Examples
    --------
    >>> lane_constants(16)
    array([    1,    31, 65535,    15], dtype=uint32)
    """
    if not 2 <= n_cells <= MAX_LANE_CELLS:
        raise OptionError("n_cells", n_cells, f"must be in 2..{MAX_LANE_CELLS}: lane kernels take boards of 2..{MAX_LANE_CELLS} cells")
    bits = 32 if n_cells <= 32 else 64
    full = (1 << (n_cells if n_cells <= 64 else n_cells - 64)) - 1
    return np.array([1, bits - 1, full, n_cells - 1], np.uint32 if bits == 32 else np.uint64)


# The two lane widths are written out with literal types: Numba widens mixed
# or generic integer arithmetic to 64 bits, which would halve the 32-bit lanes.
# The loops hold nothing but the shift/XOR/OR chain: anything more (a
# per-board maximum, the blank's colour) kept them from vectorising well, so
# those run as byte loops of their own (:func:`_lane_bytes`).


def lane_words(flat: np.ndarray) -> np.ndarray:
    """``flat`` (B, N) uint8, C-contiguous, viewed as uint64 words when N is
    a multiple of 8, else an empty (0, 0) uint64 array: the ``words``
    argument of :func:`lane_invariants`.

    Examples
    --------
    >>> lane_words(np.zeros((3, 16), np.uint8)).shape, lane_words(np.zeros((3, 9), np.uint8)).shape
    ((3, 2), (0, 0))
    """
    if flat.shape[1] % 8 == 0 and flat.shape[0] > 0:
        return flat.view(np.uint64)
    return np.empty((0, 0), np.uint64)


@jit(inline="always")  # the hot loops: inlined (a linked call measured 3-4 % slower)
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


@jit_inner
def _lane_cells128(cells_t, seen, seen_hi, acc, width):
    """The cell loop for boards of 65..128 cells: values below 64 in
    ``seen``, the others in ``seen_hi``.  A low value is below every high
    one, so it also counts all high values seen: XOR-ing ``seen_hi`` itself
    into ``acc`` adds their number to the popcount parity."""
    one, zero, low6 = np.uint64(1), np.uint64(0), np.uint64(63)
    for k in range(width):
        seen[k] = zero
        seen_hi[k] = zero
        acc[k] = zero
    for j in range(cells_t.shape[0]):
        row = cells_t[j]
        for k in range(width):
            v = np.uint64(row[k])
            high = zero - ((v >> np.uint64(6)) & one)  # all ones for values 64..127
            shift = v & low6
            lo_k, hi_k = seen[k], seen_hi[k]
            acc[k] ^= (((hi_k & high) | (lo_k & ~high)) >> shift) ^ (hi_k & ~high)
            bit = one << shift
            seen_hi[k] = hi_k | (bit & high)
            seen[k] = lo_k | (bit & ~high)


@jit(inline="always")  # the hot loops: inlined (a linked call measured 3-4 % slower)
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


@jit_inner
def _swap_bytes(a, b, shift, mask):
    """Exchange the ``mask`` bits of ``a >> shift`` with those of ``b``."""
    t = ((a >> shift) ^ b) & mask
    return a ^ (t << shift), b ^ t


@jit_inner
def _word(flat, k, j):
    """Cells j..j+7 of board k as one little-endian word (the compiler turns
    the eight byte loads into one load)."""
    row = flat[k]
    return (np.uint64(row[j]) | (np.uint64(row[j + 1]) << np.uint64(8)) | (np.uint64(row[j + 2]) << np.uint64(16))
            | (np.uint64(row[j + 3]) << np.uint64(24)) | (np.uint64(row[j + 4]) << np.uint64(32))
            | (np.uint64(row[j + 5]) << np.uint64(40)) | (np.uint64(row[j + 6]) << np.uint64(48))
            | (np.uint64(row[j + 7]) << np.uint64(56)))


@jit_inner
def _transpose8(x0, x1, x2, x3, x4, x5, x6, x7):
    """Transpose the 8x8 byte matrix held in eight words (row i = word i),
    in registers: three rounds of swaps of 4, 2 and 1 bytes."""
    m32, m16, m8 = np.uint64(0x00000000FFFFFFFF), np.uint64(0x0000FFFF0000FFFF), np.uint64(0x00FF00FF00FF00FF)
    s32, s16, s8 = np.uint64(32), np.uint64(16), np.uint64(8)
    x0, x4 = _swap_bytes(x0, x4, s32, m32)
    x1, x5 = _swap_bytes(x1, x5, s32, m32)
    x2, x6 = _swap_bytes(x2, x6, s32, m32)
    x3, x7 = _swap_bytes(x3, x7, s32, m32)
    x0, x2 = _swap_bytes(x0, x2, s16, m16)
    x1, x3 = _swap_bytes(x1, x3, s16, m16)
    x4, x6 = _swap_bytes(x4, x6, s16, m16)
    x5, x7 = _swap_bytes(x5, x7, s16, m16)
    x0, x1 = _swap_bytes(x0, x1, s8, m8)
    x2, x3 = _swap_bytes(x2, x3, s8, m8)
    x4, x5 = _swap_bytes(x4, x5, s8, m8)
    x6, x7 = _swap_bytes(x6, x7, s8, m8)
    return x0, x1, x2, x3, x4, x5, x6, x7


@jit_inner
def _store8(cells_w, j, g, x0, x1, x2, x3, x4, x5, x6, x7):
    cells_w[j, g], cells_w[j + 1, g], cells_w[j + 2, g], cells_w[j + 3, g] = x0, x1, x2, x3
    cells_w[j + 4, g], cells_w[j + 5, g], cells_w[j + 6, g], cells_w[j + 7, g] = x4, x5, x6, x7


@jit_inner
def _transpose_block(flat, words, lo, width, cells_w):
    """Transpose boards ``lo..lo+width-1`` into ``cells_w`` (uint64 words, 8
    boards' cell ``j`` per word), 8 boards by 8 cells at a time in registers:
    an eighth of the loads and stores of a byte-by-byte copy.  Boards are read
    as uint64 words (``words``, when N is a multiple of 8) or as eight byte
    loads the compiler merges into one; the cells past the last whole word,
    and the boards past the last whole group of 8, are copied byte by byte."""
    n_cells = flat.shape[1]
    groups = width // 8
    whole = n_cells >> 3
    for g in range(groups):
        k = lo + 8 * g
        for w in range(whole):
            j = 8 * w
            if words.shape[0] > 0:
                x0, x1, x2, x3 = words[k, w], words[k + 1, w], words[k + 2, w], words[k + 3, w]
                x4, x5, x6, x7 = words[k + 4, w], words[k + 5, w], words[k + 6, w], words[k + 7, w]
            else:
                x0, x1, x2, x3 = _word(flat, k, j), _word(flat, k + 1, j), _word(flat, k + 2, j), _word(flat, k + 3, j)
                x4, x5, x6, x7 = _word(flat, k + 4, j), _word(flat, k + 5, j), _word(flat, k + 6, j), _word(flat, k + 7, j)
            x0, x1, x2, x3, x4, x5, x6, x7 = _transpose8(x0, x1, x2, x3, x4, x5, x6, x7)
            _store8(cells_w, j, g, x0, x1, x2, x3, x4, x5, x6, x7)
    cells_t = cells_w.view(np.uint8)
    # two plain loops, not one with bounds that depend on the board: 14-25%
    # less time for 3x3 and 5x5 (measured)
    for j in range(8 * whole, n_cells):  # cells past the last whole word: one row each
        row = cells_t[j]
        for k in range(8 * groups):
            row[k] = flat[lo + k, j]
    for k in range(8 * groups, width):  # boards past the last whole group of 8
        for j in range(n_cells):
            cells_t[j, k] = flat[lo + k, j]


@jit(inline="always")  # the hot loops: inlined (a linked call measured 3-4 % slower)
def _lane_out(flat, lo, width, block_top, seen, acc, low, consts, out):
    """The end of a block of boards of at most 64 cells: each board's
    invariant into ``out``; returns the first board of the block that is not
    a permutation, or -1 (one maximum per block, not per board: a bad value
    is rare)."""
    full, last = consts[2], consts[3]
    for k in range(width):  # no branch: the loop vectorises
        out[lo + k] = parity64(np.uint64(acc[k])) ^ np.uint8(low[k] == 0)
    first_bad = _first_incomplete(seen, full, lo, width)
    if block_top > last:  # some value is out of range: find its board
        first_bad = _first_out_of_range(flat, lo, width, last, first_bad)
    return first_bad


@jit_inner
def _first_incomplete(seen, full, lo, width):
    """The first board ``lo + k`` of a block whose seen-mask is not ``full``,
    or -1 (one OR over the block first: a bad board is rare)."""
    missing = seen[0] ^ seen[0]
    for k in range(width):
        missing |= seen[k] ^ full
    if missing != 0:
        for k in range(width):
            if seen[k] != full:
                return lo + k
    return -1


@jit_inner
def _first_out_of_range(flat, lo, width, last, first_bad):
    """The first board of ``lo..lo+width-1`` (before ``first_bad``, when that
    is set) holding a value above ``last``, else ``first_bad``."""
    n_cells = flat.shape[1]
    for k in range(width):
        if first_bad >= 0 and lo + k >= first_bad:
            break
        for j in range(n_cells):
            if flat[lo + k, j] > last:
                return lo + k
    return first_bad


# One compiled kernel per lane width (a branch on the width inside one kernel
# would compile every width's loops for every board size: seconds on a first
# run); each is the whole block loop, so no kernel re-optimises another.


@jit_inner
def _words_to_lanes(flat, words32, lo, width, cw, tail):
    """Transpose boards ``lo..lo+width-1`` word by word: row ``q`` of ``cw``
    (uint32) becomes word ``q`` (cells 4q..4q+3) of every board, and the cells
    past the last whole word go to the rows of ``tail`` (bytes).  Words are
    read from ``words32`` (``flat`` as uint32, flattened) when N is a
    multiple of 4, else built from four byte loads the compiler merges."""
    n_cells = flat.shape[1]
    n_words = n_cells >> 2
    if words32.shape[0] > 0 and n_words == 4:  # the 15-puzzle: a constant stride, so the loads vectorise
        w0, w1, w2, w3 = cw[0], cw[1], cw[2], cw[3]
        for k in range(width):
            i = 4 * (lo + k)
            w0[k], w1[k], w2[k], w3[k] = words32[i], words32[i + 1], words32[i + 2], words32[i + 3]
    elif words32.shape[0] > 0:
        for q in range(n_words):
            row = cw[q]
            for k in range(width):
                row[k] = words32[n_words * (lo + k) + q]
    else:
        for q in range(n_words):
            row = cw[q]
            j = 4 * q
            for k in range(width):
                b = flat[lo + k]
                row[k] = (np.uint32(b[j]) | (np.uint32(b[j + 1]) << np.uint32(8))
                          | (np.uint32(b[j + 2]) << np.uint32(16)) | (np.uint32(b[j + 3]) << np.uint32(24)))
    for t in range(n_cells - 4 * n_words):
        row8 = tail[t]
        for k in range(width):
            row8[k] = flat[lo + k, 4 * n_words + t]


@jit(inline="always")  # the hot loops: inlined (a linked call measured 3-4 % slower)
def _lane_words32(cw, tail, word_colour, tail_colour, seen, acc, blank_odd, width):
    """The cell loop for boards of at most 32 cells, a word (four cells) at a
    time in 32-bit lanes; ``blank_odd[k]`` becomes non-zero iff board ``k``'s
    blank sits on a cell of colour 1; returns the OR of every word (a value
    of 32 or more sets one of its bits 5..7).  Every result is cast back to
    uint32: Numba would widen it, and the lanes with it, to 64 bits."""
    one, low5 = np.uint32(1), np.uint32(31)
    ones, highs = np.uint32(0x01010101), np.uint32(0x80808080)
    high = np.uint32(0)
    for k in range(width):
        seen[k] = 0
        acc[k] = 0
        blank_odd[k] = 0
    for q in range(cw.shape[0]):
        row = cw[q]
        other = word_colour[q]  # 0xFF in the bytes of cells of colour 0
        for k in range(width):
            w = row[k]
            s = seen[k]
            a = acc[k]
            for i in range(4):
                v = np.uint32(np.uint32(w >> np.uint32(8 * i)) & low5)
                a = np.uint32(a ^ np.uint32(s >> v))
                s = np.uint32(s | np.uint32(one << v))
            seen[k] = s
            acc[k] = a
            # a zero byte among the cells of colour 1 (the others set to 0xFF): the blank is there
            x = np.uint32(w | other)
            blank_odd[k] |= np.uint32(np.uint32(np.uint32(x - ones) & np.uint32(~x)) & highs)
            high = np.uint32(high | w)
    for t in range(tail.shape[0]):
        row8 = tail[t]
        odd = tail_colour[t]
        for k in range(width):
            v = np.uint32(row8[k])
            s = seen[k]
            acc[k] = np.uint32(acc[k] ^ np.uint32(s >> np.uint32(v & low5)))
            seen[k] = np.uint32(s | np.uint32(one << np.uint32(v & low5)))
            blank_odd[k] |= np.uint32(np.uint32(v == 0) & odd)
            high = np.uint32(high | v)
    return high


@jit
def lane_range32(flat, words32, word_colour, tail_colour, consts, out, lo, hi):
    """Invariant of boards ``lo..hi-1`` of ``flat`` (B, N <= 32, uint8) into
    ``out`` (uint8), block by block with one set of scratch buffers; returns
    the first of them that is not a permutation, or -1.

    ``words32`` is ``flat`` viewed as uint32 and flattened when N is a
    multiple of 4, else an empty uint32 array; ``word_colour`` and
    ``tail_colour`` come from :func:`word_colours`; ``consts`` from
    :func:`lane_constants` (uint32 here).
    """
    n_cells = flat.shape[1]
    n_words = n_cells >> 2
    cw = np.empty((n_words, LANE_BLOCK), np.uint32)
    tail = np.empty((n_cells - 4 * n_words, LANE_BLOCK), np.uint8)
    seen = np.empty(LANE_BLOCK, np.uint32)
    acc = np.empty(LANE_BLOCK, np.uint32)
    blank_odd = np.empty(LANE_BLOCK, np.uint32)
    full, last = consts[2], consts[3]
    first_bad = -1
    for start in range(lo, hi, LANE_BLOCK):
        width = min(start + LANE_BLOCK, hi) - start
        _words_to_lanes(flat, words32, start, width, cw, tail)
        high = _lane_words32(cw, tail, word_colour, tail_colour, seen, acc, blank_odd, width)
        for k in range(width):  # no branch: the loop vectorises
            a = acc[k]
            for shift in (16, 8, 4, 2, 1):  # the popcount parity, in 32 bits
                a = np.uint32(a ^ np.uint32(a >> np.uint32(shift)))
            out[start + k] = np.uint8(np.uint32(a & np.uint32(1)) ^ np.uint32(blank_odd[k] != 0))
        bad = _first_incomplete(seen, full, start, width)
        if high & np.uint32(0xE0E0E0E0):  # a value of 32 or more: it wraps round the shifts, find its board
            bad = _first_out_of_range(flat, start, width, last, bad)
        if first_bad < 0:
            first_bad = bad
    return first_bad


@jit
def lane_range64(flat, words, colour, consts, out, lo, hi):
    """:func:`lane_range32` for boards of 33..64 cells (``consts`` uint64)."""
    cells_w = np.empty((flat.shape[1], LANE_BLOCK // 8), np.uint64)
    seen = np.empty(LANE_BLOCK, consts.dtype)
    acc = np.empty(LANE_BLOCK, consts.dtype)
    low = np.empty(LANE_BLOCK, flat.dtype)
    first_bad = -1
    for start in range(lo, hi, LANE_BLOCK):
        width = min(start + LANE_BLOCK, hi) - start
        _transpose_block(flat, words, start, width, cells_w)
        cells_t = cells_w.view(np.uint8)
        _lane_cells64(cells_t, seen, acc, width)
        bad = _lane_out(flat, start, width, _lane_bytes(cells_t, colour, low, width), seen, acc, low, consts, out)
        if first_bad < 0:
            first_bad = bad
    return first_bad


@jit
def lane_range128(flat, words, colour, consts, out, lo, hi):
    """:func:`lane_range32` for boards of 65..128 cells (``consts`` uint64;
    two seen-masks a board, see :func:`_lane_cells128`)."""
    n_cells = flat.shape[1]
    cells_w = np.empty((n_cells, LANE_BLOCK // 8), np.uint64)
    seen = np.empty(LANE_BLOCK, consts.dtype)
    seen_hi = np.empty(LANE_BLOCK, consts.dtype)
    acc = np.empty(LANE_BLOCK, consts.dtype)
    low = np.empty(LANE_BLOCK, flat.dtype)
    full, last = consts[2], consts[3]
    first_bad = -1
    for start in range(lo, hi, LANE_BLOCK):
        width = min(start + LANE_BLOCK, hi) - start
        _transpose_block(flat, words, start, width, cells_w)
        cells_t = cells_w.view(np.uint8)
        _lane_cells128(cells_t, seen, seen_hi, acc, width)
        block_top = _lane_bytes(cells_t, colour, low, width)
        for k in range(width):  # no branch: the loop vectorises
            out[start + k] = parity64(np.uint64(acc[k])) ^ np.uint8(low[k] == 0)
        missing = seen[0] ^ seen[0]
        for k in range(width):
            missing |= (seen_hi[k] ^ full) | ~seen[k]
        bad = -1
        if missing != 0:  # some board lacks a value: find the first
            for k in range(width):
                if seen_hi[k] != full or ~seen[k] != 0:
                    bad = start + k
                    break
        if block_top > last:
            bad = _first_out_of_range(flat, start, width, last, bad)
        if first_bad < 0:
            first_bad = bad
    return first_bad


def word_colours(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cell colours (:func:`~fastpuzzle.boards.cell_colours`) as
    :func:`lane_range32` takes them: per whole word of four cells a uint32
    with 0xFF in the bytes of the cells of colour 0, and the colours of the
    cells past the last whole word (uint32).

    Examples
    --------
    >>> words, tail = word_colours(np.array([0, 1, 0, 1, 1], np.uint8))
    >>> [hex(w) for w in words], tail.tolist()
    (['0xff00ff'], [1])
    """
    n_words = colour.size // 4
    quads = (colour[: 4 * n_words].reshape(n_words, 4) == 0).astype(np.uint32) * np.uint32(0xFF)
    words = (quads << np.array([0, 8, 16, 24], np.uint32)).sum(axis=1, dtype=np.uint32)
    return words.astype(np.uint32), colour[4 * n_words:].astype(np.uint32)


def _kernel_and_args(flat, words, colour):
    """The lane kernel for ``flat``'s width, and its arguments between ``flat`` and ``consts``."""
    n_boards, n_cells = flat.shape
    if n_cells <= 32:
        words32 = flat.reshape(-1).view(np.uint32) if n_cells % 4 == 0 and n_boards > 0 else np.empty(0, np.uint32)
        return lane_range32, (words32, *word_colours(colour))
    return (lane_range64 if n_cells <= 64 else lane_range128), (words, colour)


def lane_range(flat, words, colour, consts, out, lo, hi):
    """The invariant of boards ``lo..hi-1`` of ``flat`` into ``out`` by the
    kernel of their lane width (:func:`lane_range32`, :func:`lane_range64`,
    :func:`lane_range128`); returns the first that is not a permutation, or -1.
    ``words`` is :func:`lane_words` of ``flat``; ``colour`` the cells' colours."""
    kernel, args = _kernel_and_args(flat, words, colour)
    return kernel(flat, *args, consts, out, lo, hi)


def lane_invariants(flat, words, colour, consts, out, *, threads=False):
    """Invariant of every board of ``flat`` into ``out`` by :func:`lane_range`,
    on every Numba thread when ``threads``; returns the first board that is
    not a permutation, or -1.

    Examples
    --------
    >>> flat = np.array([[1, 2, 3, 0], [2, 1, 3, 0]], np.uint8)
    >>> out = np.empty(2, np.uint8)
    >>> lane_invariants(flat, lane_words(flat), np.array([0, 1, 1, 0], np.uint8), lane_constants(4), out), out.tolist()
    (-1, [1, 0])
    """
    n_boards = flat.shape[0]
    kernel, args = _kernel_and_args(flat, words, colour)  # made once for every thread
    if not threads:
        return int(kernel(flat, *args, consts, out, 0, n_boards))
    firsts = split_threads(lambda lo, hi: kernel(flat, *args, consts, out, lo, hi), n_boards, align=LANE_BLOCK)
    return next((int(f) for f in firsts if f >= 0), -1)
