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
