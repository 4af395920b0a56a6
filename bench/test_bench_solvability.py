"""Solvability and inversion kernels (``pytest bench/ --benchmark-only``)."""

import numpy as np
import pytest

import fastpuzzle as fp
from bench.conftest import warm


def _python_inversions(board) -> int:
    tiles = [int(t) for t in np.asarray(board).ravel() if t]
    return sum(a > b for i, a in enumerate(tiles) for b in tiles[i + 1:])


def test_is_solvable_4x4_batch(benchmark, boards_4x4):
    warm(fp.is_solvable, boards_4x4, check=False)
    mask = benchmark(fp.is_solvable, boards_4x4, check=False)
    expected = [(_python_inversions(b) + 3 - int(np.argmax(b.ravel() == 0)) // 4) % 2 == 0 for b in boards_4x4[:200]]
    assert mask[:200].tolist() == expected


def test_is_solvable_validated_4x4_batch(benchmark, boards_4x4):
    warm(fp.is_solvable, boards_4x4)
    mask = benchmark(fp.is_solvable, boards_4x4)
    assert np.array_equal(mask, fp.is_solvable(boards_4x4, check=False))


def test_is_solvable_100x100(benchmark, boards_100x100):
    warm(fp.is_solvable, boards_100x100, check=False)
    mask = benchmark(fp.is_solvable, boards_100x100, check=False)
    blank_row = np.argmax(boards_100x100.reshape(len(boards_100x100), -1) == 0, axis=1) // 100
    goal_bit = 99 % 2  # the goal: no inversions, blank in the last row
    assert np.array_equal(mask, (fp.inversions(boards_100x100, method="merge") + blank_row) % 2 == goal_bit)


@pytest.mark.parametrize("method", ["merge", "fenwick", "radix", "bitmask"])
def test_inversions_8x8(benchmark, method):
    boards = fp.random_permutations(8, 8, count=10_000, seed=3)
    warm(fp.inversions, boards, method=method, check=False)
    counts = benchmark(fp.inversions, boards, method=method, check=False)
    assert [int(c) for c in counts[:50]] == [_python_inversions(b) for b in boards[:50]]


@pytest.mark.parametrize("method", ["merge", "fenwick", "radix"])
def test_inversions_100x100(benchmark, boards_100x100, method):
    warm(fp.inversions, boards_100x100, method=method, check=False)
    counts = benchmark(fp.inversions, boards_100x100, method=method, check=False)
    assert int(counts[0]) == _python_inversions(boards_100x100[0])


@pytest.mark.parametrize("method, side", [("words", 32), ("tree", 100), ("cycles", 100)])
def test_invariant(benchmark, method, side):
    boards = fp.random_permutations(side, side, count=20, seed=4)
    warm(fp.invariant, boards, method=method, check=False)
    bits = benchmark(fp.invariant, boards, method=method, check=False)
    blank_row = np.argmax(boards.reshape(len(boards), -1) == 0, axis=1) // side
    assert np.array_equal(bits, (fp.inversions(boards, method="merge") + blank_row * (side % 2 == 0)) % 2)
