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

_CACHE_ENV = "FASTPUZZLE_CACHE"
_saved: dict[str, str | None] = {}


def pytest_configure(config):
    """Point ``FASTPUZZLE_CACHE`` at a fresh temporary directory for this run."""
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
