"""Search kernels (``pytest bench/ --benchmark-only``); skipped where the solver is not present."""

import pathlib

import numpy as np
import pytest

import fastpuzzle as fp
from bench.conftest import warm

if not hasattr(fp, "solve"):
    pytest.skip("fastpuzzle.solve is not in this build", allow_module_level=True)

DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def puzzles8():
    return fp.random_solvable(3, 3, count=200, seed=9)


@pytest.mark.parametrize("heuristic", ["manhattan", "linear_conflict"])
def test_solve_many_8puzzle(benchmark, puzzles8, heuristic):
    warm(fp.solve_many, puzzles8[:4], heuristic=heuristic)
    result = benchmark(fp.solve_many, puzzles8, heuristic=heuristic)
    assert (result.status == "optimal").all()
    assert all(s.verify(b) for s, b in zip(result.solutions()[:20], puzzles8[:20]))


@pytest.mark.parametrize("heuristic", ["manhattan", "linear_conflict"])
def test_solve_korf_easy(benchmark, heuristic):
    rows = np.loadtxt(DATA / "korf100_blank_last.txt", comments="#", dtype=np.int64)
    start, optimal = rows[78, :16].reshape(4, 4), int(rows[78, 16])  # Korf's instance 79
    warm(fp.solve, start, heuristic=heuristic)
    sol = benchmark(fp.solve, start, heuristic=heuristic)
    assert sol.status == "optimal" and sol.length == optimal and sol.verify(start)


@pytest.mark.parametrize("name", ["manhattan", "linear_conflict"])
def test_heuristic_batch_4x4(benchmark, boards_4x4, name):
    fn = getattr(fp.heuristics, name)
    warm(fn, boards_4x4)
    values = benchmark(fn, boards_4x4)
    assert values.shape == (len(boards_4x4),) and (values >= 0).all()
