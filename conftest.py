"""Test-run settings shared by ``tests/``, the doctests in ``fastpuzzle/`` and the notebooks.

Hermetic caches: every run gets its own empty ``FASTPUZZLE_CACHE`` (pattern
databases, distance tables), set in the environment before the first test, so
tests, doctests and the notebook kernels (child processes inherit it) never
read or write the user's cache, and a table a user built cannot change what a
test sees.  The directory is removed when the run ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE_ENV = "FASTPUZZLE_CACHE"
_BENCH_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench")
_saved: dict[str, str | None] = {}


@pytest.hookimpl(tryfirst=True)  # before pytest-benchmark's, which reads benchmark_disable
def pytest_configure(config):
    """Point ``FASTPUZZLE_CACHE`` at a fresh temporary directory for this run; across ``pytest -n``
    workers, turn pytest-benchmark's timing off (it would warn that it does) unless asked for."""
    xdist_active = getattr(config.option, "dist", "no") != "no" or "PYTEST_XDIST_WORKER" in os.environ
    if xdist_active and hasattr(config.option, "benchmark_disable") and not config.option.benchmark_only:
        config.option.benchmark_disable = True
    if _saved:  # configured twice in one process (pytester): keep the first directory
        return
    _saved["previous"] = os.environ.get(_CACHE_ENV)
    _saved["dir"] = tempfile.mkdtemp(prefix="fastpuzzle-test-cache-")
    os.environ[_CACHE_ENV] = _saved["dir"]


def pytest_unconfigure(config):
    """Restore the caller's ``FASTPUZZLE_CACHE`` and remove the run's directory."""
    if not _saved:
        return
    previous = _saved.pop("previous")
    if previous is None:
        os.environ.pop(_CACHE_ENV, None)
    else:
        os.environ[_CACHE_ENV] = previous
    shutil.rmtree(_saved.pop("dir"), ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (in addopts): no workers when timing the pytest-benchmark suite (``pytest bench/
    --benchmark-only``: pytest-benchmark times nothing across workers); else xdist's count, one
    per core (``--maxprocesses`` caps it)."""
    paths = [os.path.abspath(str(a).split("::")[0]) for a in config.args]
    in_bench = any(p == _BENCH_DIR or p.startswith(_BENCH_DIR + os.sep) for p in paths)
    if in_bench or config.getoption("benchmark_only", False):
        return 0
    return None
