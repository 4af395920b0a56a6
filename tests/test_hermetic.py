"""The suite never touches the user's cache (root conftest.py)."""

import os
import pathlib
import subprocess
import sys
import tempfile

from fastpuzzle.search.pdb.store import cache_dir

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_run_has_its_own_empty_cache():
    path = pathlib.Path(os.environ["FASTPUZZLE_CACHE"])
    assert path.parent == pathlib.Path(tempfile.gettempdir()) and path.name.startswith("fastpuzzle-test-cache-")
    assert cache_dir() == path  # what the pattern databases and distance tables use
    assert path != pathlib.Path.home() / ".cache" / "fastpuzzle"


def test_child_processes_inherit_the_cache():
    code = "from fastpuzzle.search.pdb.store import cache_dir; print(cache_dir())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == os.environ["FASTPUZZLE_CACHE"]


def _root_conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest_under_test", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Config:
    def __init__(self, args, benchmark_only=False):
        self.args = args
        self._only = benchmark_only

    def getoption(self, name, default=None):
        return self._only if name == "benchmark_only" else default


def test_the_benchmark_suite_runs_in_one_process():
    # pytest-benchmark times nothing across xdist workers: `pytest bench/ --benchmark-only` gets none
    workers = _root_conftest().pytest_xdist_auto_num_workers
    assert workers(_Config([str(ROOT / "bench")])) == 0
    assert workers(_Config([str(ROOT / "bench" / "test_bench_io.py") + "::test_write_boards"])) == 0
    assert workers(_Config(["tests"], benchmark_only=True)) == 0
    assert workers(_Config([str(ROOT / "tests"), str(ROOT / "benchmarks_elsewhere")])) is None  # xdist's count


def test_the_workers_hostile_counts_add_up():
    from types import SimpleNamespace

    from tests import conftest
    from tests.hostile import TRIED

    before = dict(TRIED)
    try:
        conftest.pytest_testnodedown(SimpleNamespace(workeroutput={"hostile_tried": {"probe": 3}}), None)
        conftest.pytest_testnodedown(SimpleNamespace(workeroutput={"hostile_tried": {"probe": 2}}), None)
        conftest.pytest_testnodedown(SimpleNamespace(), None)  # a worker that died: nothing to add
        assert TRIED["probe"] == before.get("probe", 0) + 5
    finally:
        TRIED.clear()
        TRIED.update(before)
