"""Constructive (not optimal) solver on large boards (``pytest bench/ --benchmark-only``)."""

import pytest

import fastpuzzle as fp
from bench.conftest import warm

try:
    import fastpuzzle.search.constructive  # noqa: F401
except ImportError:
    pytest.skip("fastpuzzle.search.constructive is not in this build", allow_module_level=True)


@pytest.mark.parametrize("m, n", [(30, 30), (8, 100)])
def test_solve_constructive(benchmark, m, n):
    board = fp.random_solvable(m, n, seed=m * n)
    warm(fp.solve, board, method="constructive")
    sol = benchmark(fp.solve, board, method="constructive")
    assert sol.status in ("found", "optimal") and sol.verify(board)
