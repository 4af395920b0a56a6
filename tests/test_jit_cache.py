"""The on-disk kernel cache follows every change to a package's sources: a
kernel calling a kernel of another file is compiled afresh when that file
changes (Numba alone keys a kernel by its own file)."""

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CALLER = """
from fastpuzzle._jit import jit
from .callee import value


@jit
def caller():
    return value() + 0
"""

_RUN = "from tinypkg.caller import caller; print(caller(), caller.stats.cache_hits.get(caller.signatures[0], 0))"


def _run(pkg_dir, cache, plain):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(pkg_dir)]), NUMBA_CACHE_DIR=str(cache),
               FASTPUZZLE_PLAIN_NUMBA="1" if plain else "0")
    out = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    value, hits = out.stdout.split()
    return int(value), int(hits)


def _package(tmp_path, value):
    pkg = tmp_path / "tinypkg"
    if not pkg.exists():  # later calls change the callee's file alone
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "caller.py").write_text(_CALLER)
    (pkg / "callee.py").write_text(textwrap.dedent(f"""
        from fastpuzzle._jit import jit_inner


        @jit_inner
        def value():
            return {value}
        """))


@pytest.mark.slow
def test_a_change_in_a_callees_file_recompiles_its_caller(tmp_path):
    _package(tmp_path, 1)
    cache = tmp_path / "numba"
    assert _run(tmp_path, cache, plain=False) == (1, 0)  # compiled
    cached = {p.name.split(".")[0] for p in cache.rglob("*.nbi")}
    assert "caller" in cached and not any(name.startswith("callee") for name in cached)  # the helper: linked only
    assert _run(tmp_path, cache, plain=False) == (1, 1)  # loaded from the cache
    _package(tmp_path, 22)  # another size: another stamp, even within the file system's mtime step
    assert _run(tmp_path, cache, plain=False) == (22, 0)  # the caller is compiled afresh


@pytest.mark.slow
def test_plain_numba_keeps_the_stale_copy(tmp_path):
    """What the stamp prevents: Numba's own keys miss the callee's change."""
    _package(tmp_path, 1)
    cache = tmp_path / "numba"
    assert _run(tmp_path, cache, plain=True) == (1, 0)
    _package(tmp_path, 22)
    assert _run(tmp_path, cache, plain=True) == (1, 1)  # stale: the old callee, from the cache
