"""Pattern databases (``pytest bench/ --benchmark-only``); skipped where fastpuzzle.pdb is not present."""

import pathlib

import numpy as np
import pytest

import fastpuzzle as fp
from bench.conftest import warm

pdb = pytest.importorskip("fastpuzzle.pdb")

DATA = pathlib.Path(__file__).resolve().parent / "data"


def test_build_4_4(benchmark, tmp_path):
    # force: build every time (into a scratch cache), not load the cached table
    db = benchmark(pdb.build, "4-4", progress=False, force=True, directory=tmp_path)
    assert db.lookup(fp.goal_board(3, 3)) == 0


def test_solve_korf_easy_555(benchmark):
    db = pdb.build("5-5-5", progress=False)  # cached on disk after the first build
    rows = np.loadtxt(DATA / "korf100_blank_last.txt", comments="#", dtype=np.int64)
    start, optimal = rows[78, :16].reshape(4, 4), int(rows[78, 16])  # Korf's instance 79
    warm(fp.solve, start, heuristic="pdb", method="ida", database=db)
    sol = benchmark(fp.solve, start, heuristic="pdb", method="ida", database=db)
    assert sol.status == "optimal" and sol.length == optimal and sol.verify(start)
