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
from numba.core import inline_closurecall
boards = fp.random_solvable(4, 4, count=2000, seed=5)
boards[::3, 0, :2] = boards[::3, 0, 1::-1].copy()   # every third board unsolvable
print(_jit.PLAIN_NUMBA, _jit.QuickLoadCache is None, type(lane_kernels.lane_range32._cache) is FunctionCache,
      not hasattr(inline_closurecall.InlineWorker.inline_ir, "_fastpuzzle_trim"), _jit.LinkOnlyDispatcher is None)
print(''.join('1' if s else '0' for s in fp.is_solvable(boards)))
print(fp.solve(fp.random_solvable(3, 3, seed=2)).length)
"""


def test_kernels_run_with_every_trim_off():
    env = dict(os.environ, PYTHONPATH=ROOT, FASTPUZZLE_PLAIN_NUMBA="1")
    out = subprocess.run([sys.executable, "-W", "error", "-c", _SCRIPT], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0 and not out.stderr, out.stderr[-2000:]
    *flags, solvable, length = out.stdout.split()
    assert flags == ["True"] * 5  # plain Numba: its own cache class, inliner and linking, no trim
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
    from numba.core import inline_closurecall

    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir", lambda self, *args: None)
    # an inliner laid out otherwise (its copying not the copy module's, ours replaced): left alone,
    # whether or not a compile of this process installed the trim before
    monkeypatch.setattr(inline_closurecall, "copy", types.SimpleNamespace(deepcopy=lambda x, memo=None: x))
    assert not _jit.share_inline_copies()
    from numba.core import compiler, dispatcher

    from fastpuzzle import _linkonly

    assert _linkonly.link_only_class(_jit.jit) is not None
    with monkeypatch.context() as patch:  # a compiler without the flag that stops after lowering
        patch.setattr(compiler, "Flags", type("Flags", (), {}))
        assert _linkonly.link_only_class(_jit.jit) is None
    with monkeypatch.context() as patch:  # a function compiler laid out otherwise
        patch.delattr(dispatcher._FunctionCompiler, "_customize_flags")
        assert _linkonly.link_only_class(_jit.jit) is None
    monkeypatch.delattr(entrypoints, "_already_initialized", raising=False)
    _jit.skip_extension_scan()
    assert not hasattr(entrypoints, "_already_initialized")
    assert not recwarn.list


def test_the_flag_set_to_zero_keeps_the_trims():
    code = "from fastpuzzle import _jit; print(_jit.PLAIN_NUMBA, _jit.QuickLoadCache is not None)"
    env = dict(os.environ, PYTHONPATH=ROOT, FASTPUZZLE_PLAIN_NUMBA="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_an_inlined_kernel_is_copied_with_one_memo():
    from numba.core import inline_closurecall, ir

    assert _jit.share_inline_copies() and inline_closurecall.InlineWorker.inline_ir._fastpuzzle_trim  # on, once
    scope = ir.Scope(None, ir.Loc("f.py", 1))
    blocks = [ir.Block(scope, ir.Loc("f.py", line)) for line in (1, 2)]
    x = scope.redefine("x", blocks[0].loc)
    for block in blocks:
        block.append(ir.Assign(ir.Const(1, block.loc), x, block.loc))
    shim = inline_closurecall.copy
    apart = [shim.deepcopy(b) for b in blocks]  # outside an inline of ours: block by block, as Numba does
    assert apart[0].scope is not apart[1].scope
    _jit._INLINE_COPY.memo = {}
    try:
        together = [shim.deepcopy(b) for b in blocks]
    finally:
        _jit._INLINE_COPY.memo = None
    assert together[0].scope is together[1].scope is not scope  # one copy of the scope, shared
    assert together[0].body[0].target is together[1].body[0].target  # the same variable, copied once
    assert str(together[1].body[0]) == str(blocks[1].body[0])
    assert shim.copy is __import__("copy").copy  # the rest of the module is copy's own


def test_inlining_another_packages_function_is_left_alone():
    import numba
    from numba.core import inline_closurecall

    seen = []
    real = inline_closurecall.copy.deepcopy

    def spy(x, memo=None):
        seen.append(getattr(_jit._INLINE_COPY, "memo", None))
        return real(x, memo)

    inline_closurecall.copy.deepcopy = spy
    try:
        helper = numba.njit(inline="always")(lambda a: a + 1)
        caller = numba.njit(lambda a: helper(a) * 2)
        assert caller(3) == 8
    finally:
        del inline_closurecall.copy.deepcopy
    assert seen and all(memo is None for memo in seen)
