"""pytest-benchmark suite (``pytest bench/ --benchmark-only``): small sizes, for regression tracking.

Not part of the default test run (``testpaths = ["tests"]``).  Every
benchmark warms the compiled kernel before timing and checks its result, so a
regression in correctness fails here too.
"""

import numpy as np
import pytest

import fastpuzzle as fp


@pytest.fixture(scope="session")
def boards_4x4():
    return fp.random_permutations(4, 4, count=100_000, seed=1)


@pytest.fixture(scope="session")
def boards_100x100():
    return fp.random_permutations(100, 100, count=20, seed=2)


def warm(fn, *args, **kwargs):
    """Call once (JIT compile or cache load) before pytest-benchmark times it."""
    return fn(*args, **kwargs)


@pytest.fixture
def numpy_rng():
    return np.random.default_rng(0)
