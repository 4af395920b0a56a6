"""Helpers compiled for linking only (fastpuzzle._linkonly): the kernels that call them give the
answers plain Numba gives, a helper is never turned into machine code of its own, and a helper
called from Python, or one that needs its Numba environment, still works."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from numba import prange

from fastpuzzle import _jit, _linkonly

pytestmark = pytest.mark.skipif(_jit.LinkOnlyDispatcher is None, reason="plain Numba: no link-only helpers")


@_jit.jit_inner
def _twice(a, i):
    return a[i] * 2


@_jit.jit_inner
def _twice_plus_next(a, i):
    return _twice(a, i) + a[i + 1]  # a helper calling a helper


@_jit.jit_inner
def _checked(a, i):
    if a[i] < 0:
        raise ValueError("negative at", i)  # run-time arguments: the helper needs its environment
    return a[i]


@_jit.jit_inner
def _positive(a, i):
    if a[i] <= 0:
        raise ValueError("not positive")  # constant arguments: no environment needed
    return a[i]


@_jit.jit(cache=False)
def _serial_positive(a, i):
    return _positive(a, i) + 1


@_jit.jit_inner(always_inline=True)
def _tripled(a, i):
    return a[i] * 3


@_jit.jit(cache=False)
def _inlining_caller(a, i):
    return _tripled(a, i) - _twice(a, i)


@_jit.jit(cache=False)
def _caller(a, i):
    return _twice(a, i) + _twice_plus_next(a, i)


def _sum_checked(a):
    total = 0
    for i in prange(a.size - 1):  # a range in a serial kernel
        total += _twice_plus_next(a, i) + _checked(a, i)
    return total


_other_caller = _jit.jit(cache=False)(_sum_checked)
_parallel_sum = _jit.pjit(cache=False)(_sum_checked)


def _overload(helper):
    (cres,) = helper.overloads.values()
    return cres


def test_kernels_calling_helpers_give_the_python_answers():
    a = np.arange(7, dtype=np.int64) * 3 - 4
    a[0] = 5
    assert _caller(a, 2) == _caller.py_func(a, 2) == 2 * a[2] + 2 * a[2] + a[3]
    with pytest.raises(ValueError, match="negative at"):
        _other_caller(a)
    a = np.abs(a)
    assert _other_caller(a) == _other_caller.py_func(a)  # the same helper linked into a second kernel


def test_a_helper_has_no_machine_code_of_its_own():
    _caller(np.arange(5, dtype=np.int64), 1)
    for helper in (_twice, _twice_plus_next):
        assert type(helper) is _jit.LinkOnlyDispatcher
        cres = _overload(helper)
        assert not callable(cres.entry_point)  # a key for the callers' lowering, not a function
        with pytest.raises(RuntimeError, match="linking only"):
            cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        with pytest.raises(RuntimeError, match="linking only"):
            cres.library.serialize_using_object_code()
        assert helper._cache.__class__.__name__ == "NullCache"  # cached in its callers only


def test_a_helper_that_needs_its_environment_compiles_the_usual_way():
    a = np.array([3, -1, 4], dtype=np.int64)
    with pytest.raises(ValueError, match="negative at"):
        _other_caller(a)
    cres = _overload(_checked)
    assert callable(cres.entry_point)  # an ordinary compile, machine code and all
    assert _linkonly.uses_environment(cres)
    assert not _linkonly.uses_environment(_overload(_twice))


def test_a_helper_called_from_python_runs_a_twin():
    a = np.arange(6, dtype=np.int64)
    assert _twice_plus_next(a, 3) == 2 * 3 + 4
    assert _twice(a, 5) == 10
    assert type(_twice._twin) is not _jit.LinkOnlyDispatcher and _twice._twin.py_func is _twice.py_func
    with pytest.raises(ValueError, match="negative at"):
        _checked(np.array([-2]), 0)


def test_a_helper_pickles_as_numba_functions_do():
    _caller(np.arange(5, dtype=np.int64), 1)
    again = pickle.loads(pickle.dumps(_twice))
    assert again is _twice  # Numba keeps one dispatcher per function in a process


def test_an_always_inline_helper_is_inlined_into_its_callers():
    a = np.arange(5, dtype=np.int64)
    assert _inlining_caller(a, 3) == 3
    cres = _overload(_tripled)
    name = cres.fndesc.llvm_func_name
    assert "alwaysinline" in str(cres.library._final_module)  # the IR's text: older llvmlite lists no attributes
    assert "alwaysinline" not in str(_overload(_twice).library._final_module)
    code = _inlining_caller.inspect_llvm(_inlining_caller.signatures[0])
    assert not [line for line in code.splitlines() if "call " in line and name in line]  # no call left
    assert _tripled(a, 4) == 12  # from Python: the twin


def test_a_helper_raising_a_constant_exception_stays_link_only():
    a = np.arange(1, 6, dtype=np.int64)
    assert _serial_positive(a, 2) == 4
    cres = _overload(_positive)
    assert not callable(cres.entry_point) and not _linkonly.uses_environment(cres)
    a[2] = 0
    with pytest.raises(ValueError, match="not positive"):
        _serial_positive(a, 2)


def test_a_prange_kernel_links_helpers_too():
    a = np.arange(1, 6, dtype=np.int64)
    assert _parallel_sum(a) == _other_caller(a) == _sum_checked(a)


def test_a_helper_unpickles_in_another_process(tmp_path):
    from fastpuzzle.search.constructive.routes import walk_gain  # an ordinary helper, not a test's
    from fastpuzzle.search.constructive.state import l1

    (tmp_path / "helper.pkl").write_bytes(pickle.dumps(l1))
    code = ("import pickle, sys; helper = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "print(type(helper).__name__, helper(1, 2, 5, 7))")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "helper.pkl")], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=root), cwd=root, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["LinkOnlyDispatcher", "9"]
    assert walk_gain(4, 5, 1, 4, 1) == 4
