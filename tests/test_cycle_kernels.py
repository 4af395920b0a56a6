"""The cycle walkers (fastpuzzle.solvability.cycle_kernels) against the slow reference."""

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.solvability import cycle_kernels as ck
from fastpuzzle.boards import cell_colours

from . import naive

# fewer cells than walkers, not a multiple of 64, several bitmap words, large
SHAPES = [(2, 2), (3, 3), (5, 7), (8, 8), (9, 15), (31, 33), (70, 61), (200, 301)]


def _expected(board):
    """The textbook rule: naive.invariant, or on large boards the same rule
    over the merge-sort count (quadratic Python would take minutes)."""
    m, n = board.shape
    if m * n <= 1100:
        return naive.invariant(board)
    blank_row = int(np.argmax(board.ravel() == 0)) // n
    return int(fp.inversions(board, method="merge") + blank_row * (n % 2 == 0)) % 2


def _walk(cells, m, n):
    inv, ok = ck.invariant_cycles_checked(cells, cell_colours(m, n), ck.cycle_scratch(m * n))
    return int(inv), bool(ok)


def _structured(m, n, rng):
    """Permutations with few long or many short cycles (many walkers stop at once)."""
    size = m * n
    ident = np.arange(size)
    yield ident
    yield ident[::-1].copy()
    yield np.roll(ident, 1)  # one cycle through every cell
    swaps = ident.copy()
    swaps[: size - size % 2] = swaps[: size - size % 2].reshape(-1, 2)[:, ::-1].ravel()
    yield swaps  # transpositions side by side
    yield rng.permutation(size)


@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.slow
def test_walkers_match_reference(rng, m, n):
    for cells in _structured(m, n, rng):
        board = cells.reshape(m, n)
        expected = _expected(board)
        for dtype in (np.uint8, np.uint16, np.uint32, np.int64):
            if m * n > np.iinfo(dtype).max + 1:
                continue
            assert _walk(cells.astype(dtype), m, n) == (expected, True)
        assert fp.invariant(board, method="cycles") == expected


@pytest.mark.parametrize("m,n", SHAPES)
def test_walkers_flag_every_non_permutation(rng, m, n):
    size = m * n
    for _ in range(20):
        cells = rng.permutation(size).astype(np.uint32)
        i, j = rng.choice(size, 2, replace=False)
        duplicate = cells.copy()
        duplicate[i] = duplicate[j]
        assert _walk(duplicate, m, n)[1] is False
        out_of_range = cells.copy()
        out_of_range[i] = size + int(rng.integers(0, 1000))
        assert _walk(out_of_range, m, n)[1] is False
        # any values in range: a permutation iff all distinct, and the walk always ends
        anything = rng.integers(0, size, size).astype(np.uint32)
        assert _walk(anything, m, n)[1] == (np.unique(anything).size == size)
    assert _walk(np.zeros(size, np.uint32), m, n)[1] is False
    negative = rng.permutation(size).astype(np.int64)
    negative[int(rng.integers(size))] = -int(rng.integers(1, 10**6))
    assert _walk(negative, m, n)[1] is False


@pytest.mark.slow
def test_batch_drivers_agree_and_name_the_first_bad_board(rng):
    m, n = 70, 61
    boards = np.stack([rng.permutation(m * n) for _ in range(9)]).astype(np.uint16)
    expected = [_expected(b.reshape(m, n)) for b in boards]
    colour = cell_colours(m, n)
    for kernel in (ck.batch_invariant_cycles_checked, ck.batch_invariant_cycles_checked_par):
        out = np.empty(9, np.uint8)
        assert kernel(boards, colour, out) == -1
        assert out.tolist() == expected
    boards[6, 3] = boards[6, 4]
    boards[8, 0] = 60000
    for kernel in (ck.batch_invariant_cycles_checked, ck.batch_invariant_cycles_checked_par):
        out = np.empty(9, np.uint8)
        assert kernel(boards, colour, out) == 6
        assert out[:6].tolist() == expected[:6]


def test_unchecked_garbage_still_gets_an_answer(rng):
    boards = rng.integers(0, 70 * 61, (3, 70, 61)).astype(np.uint16)
    boards[0] = rng.permutation(70 * 61).reshape(70, 61)
    for call in (lambda: fp.invariant(boards, check=False), lambda: fp.invariant(boards, method="cycles", check=False)):
        got = call()
        assert got.shape == (3,) and set(got.tolist()) <= {0, 1}
        assert got[0] == _expected(boards[0])


def test_tree_checked_path_agrees_and_flags_the_same_boards(rng):
    # the validated parity tree (kept as the benchmark's "before" row) against the walkers
    from fastpuzzle.solvability import inversion_kernels as inv

    m, n = 70, 61
    boards = np.stack([rng.permutation(m * n) for _ in range(4)]).astype(np.uint16)
    boards[2, 5] = boards[2, 9]  # a duplicate: not a permutation
    flat = boards.reshape(4, -1)
    out = np.empty(4, np.uint8)
    first_bad = inv.batch_invariant_tree_checked(flat, cell_colours(m, n), inv.tree_levels(m * n), out)
    assert first_bad == 2
    for b in (0, 1, 3):
        assert int(out[b]) == _expected(boards[b].reshape(m, n)) == _walk(flat[b], m, n)[0]
