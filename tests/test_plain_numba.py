"""The start-up trims of fastpuzzle._jit are optional: with them off (plain
Numba), or when Numba's internals are laid out otherwise, the kernels give the
same answers and nothing warns."""

import os
import subprocess
import sys
import types

import fastpuzzle as fp
from fastpuzzle import _jit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_SCRIPT = """
import numpy as np
import fastpuzzle as fp
from fastpuzzle import _jit
from fastpuzzle.solvability import lane_kernels
from numba.core.caching import FunctionCache
boards = fp.random_solvable(4, 4, count=2000, seed=5)
boards[::3, 0, :2] = boards[::3, 0, 1::-1].copy()   # every third board unsolvable
print(_jit.PLAIN_NUMBA, _jit.QuickLoadCache is None, type(lane_kernels.lane_range32._cache) is FunctionCache)
print(''.join('1' if s else '0' for s in fp.is_solvable(boards)))
print(fp.solve(fp.random_solvable(3, 3, seed=2)).length)
"""


def test_kernels_run_with_every_trim_off():
    env = dict(os.environ, PYTHONPATH=ROOT, FASTPUZZLE_PLAIN_NUMBA="1")
    out = subprocess.run([sys.executable, "-W", "error", "-c", _SCRIPT], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0 and not out.stderr, out.stderr[-2000:]
    *flags, solvable, length = out.stdout.split()
    assert flags == ["True", "True", "True"]  # plain Numba: its own cache class, no trim
    boards = fp.random_solvable(4, 4, count=2000, seed=5)
    boards[::3, 0, :2] = boards[::3, 0, 1::-1].copy()
    assert solvable == "".join("1" if s else "0" for s in fp.is_solvable(boards))  # the trimmed process agrees
    assert 0 < solvable.count("0") < 2000
    assert int(length) == fp.solve(fp.random_solvable(3, 3, seed=2)).length


def test_trims_stand_down_when_numbas_internals_differ(monkeypatch, recwarn):
    from numba.core import caching, entrypoints

    monkeypatch.setattr(caching, "FunctionCache", type("FunctionCache", (), {"load_overload": lambda self: None}))
    assert _jit._quick_cache_class() is None  # a cache class laid out otherwise: Numba's own
    monkeypatch.setattr(_jit, "QuickLoadCache", None)
    kernel = types.SimpleNamespace(_cache=object())
    assert _jit._quick_loading(kernel)._cache.__class__ is object  # left as it was
    monkeypatch.delattr(entrypoints, "_already_initialized", raising=False)
    _jit.skip_extension_scan()
    assert not hasattr(entrypoints, "_already_initialized")
    assert not recwarn.list


def test_the_flag_set_to_zero_keeps_the_trims():
    code = "from fastpuzzle import _jit; print(_jit.PLAIN_NUMBA, _jit.QuickLoadCache is not None)"
    env = dict(os.environ, PYTHONPATH=ROOT, FASTPUZZLE_PLAIN_NUMBA="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "True"]
