"""Generation kernels (``pytest bench/ --benchmark-only``)."""

import numpy as np

import fastpuzzle as fp
from bench.conftest import warm


def test_random_solvable_4x4(benchmark):
    warm(fp.random_solvable, 4, 4, count=100_000, seed=1)
    boards = benchmark(fp.random_solvable, 4, 4, count=100_000, seed=1)
    assert boards.shape == (100_000, 4, 4) and fp.is_solvable(boards).all()


def test_random_solvable_100x100(benchmark):
    warm(fp.random_solvable, 100, 100, count=20, seed=1)
    boards = benchmark(fp.random_solvable, 100, 100, count=20, seed=1)
    assert fp.is_solvable(boards).all()


def test_random_permutations_4x4(benchmark):
    warm(fp.random_permutations, 4, 4, count=100_000, seed=1)
    boards = benchmark(fp.random_permutations, 4, 4, count=100_000, seed=1)
    assert (np.sort(boards.reshape(len(boards), -1), axis=1) == np.arange(16)).all()


def test_scramble_4x4(benchmark):
    warm(fp.scramble, 4, 4, 50, count=100_000, seed=1)
    boards, codes = benchmark(fp.scramble, 4, 4, 50, count=100_000, seed=1, return_moves="codes")
    assert np.array_equal(fp.apply_moves(fp.goal_board(4, 4), codes[0]), boards[0])
