"""Board files: text and .npy round trips (``pytest bench/ --benchmark-only``)."""

import numpy as np
import pytest

import fastpuzzle as fp


@pytest.fixture(scope="module")
def boards():
    return fp.random_permutations(4, 4, count=100_000, seed=5)


@pytest.mark.parametrize("suffix", [".txt", ".npy"])
def test_write_boards(benchmark, boards, tmp_path, suffix):
    path = tmp_path / f"boards{suffix}"
    benchmark(fp.write_boards, path, boards)
    assert np.array_equal(np.asarray(fp.load_boards(path)), boards)


@pytest.mark.parametrize("suffix", [".txt", ".npy"])
def test_load_and_check(benchmark, boards, tmp_path, suffix):
    path = tmp_path / f"boards{suffix}"
    fp.write_boards(path, boards)
    fp.is_solvable(fp.load_boards(path))  # warm

    def load_and_check():
        return fp.is_solvable(fp.load_boards(path))

    mask = benchmark(load_and_check)
    assert np.array_equal(mask, fp.is_solvable(boards))
