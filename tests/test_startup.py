"""Start-up: importing the package loads nothing heavy; names load on first use."""

import os
import subprocess
import sys

import pytest

import fastpuzzle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("numba", "fastpuzzle.search.constructive", "fastpuzzle.pdb", "dask", "tqdm")


def modules_after(code: str, **env_vars) -> set:
    """Names in sys.modules after running ``code`` in a fresh interpreter."""
    script = code + "\nimport sys\nprint('\\n'.join(sys.modules))"
    env = dict(os.environ, PYTHONPATH=ROOT, **env_vars)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return set(out.stdout.split())


def test_import_loads_no_kernels_and_no_heavy_module():
    loaded = modules_after("import fastpuzzle")
    assert not [m for m in HEAVY if m in loaded]
    assert not [m for m in loaded if m.startswith("fastpuzzle.")]


def test_solvability_check_loads_no_solver_database_dask_or_tqdm():
    loaded = modules_after("import fastpuzzle as fp\nfp.is_solvable([[1, 2], [3, 0]])")
    assert "fastpuzzle.solvability" in loaded
    assert not [m for m in HEAVY[1:] if m in loaded]


#: The pattern-database builder: loaded only when a table is built.
BUILDER = ("fastpuzzle.search.pdb.build", "fastpuzzle.search.pdb.build_sets",
           "fastpuzzle.search.pdb.build_placement", "fastpuzzle.search.pdb.regions")


def test_plain_heuristics_and_their_solves_load_no_database_builder():
    snapshot = "print(' '.join(m for m in sys.modules if m.startswith('fastpuzzle.search')), flush=True)"
    code = "\n".join((
        "import sys", "import fastpuzzle as fp", "import fastpuzzle.search.heuristics as h",
        snapshot,  # after the import alone
        "b = [[1, 2, 3], [4, 5, 6], [0, 7, 8]]",
        "assert h.manhattan(b) == 2 and h.linear_conflict(b) == 2", snapshot,
        "assert fp.solve(b, heuristic='manhattan').length == 2 and fp.solve(b).length == 2", snapshot,
    ))  # fmt: skip
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    imported, evaluated, solved = (set(line.split()) for line in out.stdout.splitlines())
    assert "fastpuzzle.search.heuristics" in imported and "fastpuzzle.search.ida" in solved
    # the plain heuristics never touch the pattern databases; a solve loads their lookups, not their builder
    assert not [m for m in imported | evaluated if m.startswith("fastpuzzle.search.pdb")]
    assert not [m for m in solved if m in BUILDER]


@pytest.mark.parametrize("name", fastpuzzle.__all__)
def test_every_public_name_imports(name):
    namespace = {}
    exec(f"from fastpuzzle import {name}", namespace)
    assert namespace[name] is getattr(fastpuzzle, name)


def test_submodules_and_unknown_names():
    assert fastpuzzle.heuristics.__name__ == "fastpuzzle.search.heuristics"
    assert fastpuzzle.boards.as_boards.__module__ == "fastpuzzle.boards"
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        fastpuzzle.no_such_name  # noqa: B018


def test_warm_kernels_reports_its_work():
    from fastpuzzle.warmup import warm_kernels

    # in a fresh process every kernel it runs is compiled or loaded from the cache
    code = ("from fastpuzzle.warmup import warm_kernels; r = warm_kernels(2, 3, judge=False, solver=False); "
            "print(r.compiled + r.loaded, r.seconds > 0, ('first run only' in r.message()) == r.cold)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    work, timed, says_why = done.stdout.split()
    assert int(work) > 0 and timed == "True" and says_why == "True"
    # in this process the kernels may already be in memory: nothing compiled or loaded, and it says so
    report = warm_kernels(2, 3, judge=False, solver=False)
    assert ("first run only" in report.message()) == report.cold
    with pytest.raises(ValueError, match="sides >= 1"):
        warm_kernels(0, 3)
    with pytest.raises(TypeError, match="judge must be True or False"):
        warm_kernels(3, 3, judge="yes")


JUDGE_ONE_CASE = "from fastpuzzle.io.judging import judge\nassert judge(b'2 1 2 3 0 1 2 3 0') == ['TAK']"


def test_cached_kernel_loads_without_numbas_compiler_registries():
    modules_after(JUDGE_ONE_CASE)  # compiled or loaded: on disk afterwards
    loaded = modules_after(JUDGE_ONE_CASE)
    assert "numba" in loaded and "fastpuzzle.io.judging" in loaded
    # what only a compile needs (the registries, array creation), and what Numba's import checks for nothing
    assert not [m for m in ("numba.np.arraymath", "numba.np.linalg", "numba.np.arrayobj", "cffi", "scipy", "yaml") if m in loaded]


@pytest.mark.slow
def test_compiling_skips_numbas_blas_probe(tmp_path):
    loaded = modules_after("import fastpuzzle as fp\nfp.is_solvable([[1, 2], [3, 0]])", NUMBA_CACHE_DIR=str(tmp_path))
    assert "numba.np.arraymath" in loaded and "scipy.linalg" not in loaded


@pytest.mark.slow
def test_blas_still_works_in_other_jitted_code():
    import scipy.linalg  # noqa: F401  (in the test extra: Numba's np.dot needs it)
    code = (
        "import numba, numpy as np\nimport fastpuzzle as fp\nfp.is_solvable([[1, 2], [3, 0]])\n"
        "print(numba.njit(lambda a: np.dot(a, a))(np.arange(3.0)))"
    )
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == "5.0"


def test_warmup_message_says_which_case():
    from fastpuzzle.warmup import Warmup

    assert Warmup(3.0, 5, 2).message() == "compiling kernels, first run only: 3.0 s"
    assert Warmup(0.5, 0, 9).message() == "kernels loaded from the cache: 0.50 s"
    assert Warmup(0.01, 0, 0).message() == "kernels ready: 0.01 s"  # already in memory


@pytest.mark.slow
def test_a_cold_solver_compiles_in_a_second_process_and_then_loads(tmp_path):
    """On an empty cache the engine compiles in a helper process; a later process loads it
    (no compile), and a process with the engine cached starts no helper."""
    env = dict(os.environ, PYTHONPATH=ROOT, NUMBA_CACHE_DIR=str(tmp_path))
    start = ("from fastpuzzle.warmup import start_solver_compile\n"
             "p = start_solver_compile()\nprint('none' if p is None else p.wait())")
    run = [sys.executable, "-c", start]
    assert subprocess.run(run, capture_output=True, text=True, env=env, check=True, timeout=600).stdout.split() == ["0"]
    load = ("from fastpuzzle.warmup import compile_solver\nfrom fastpuzzle.search import ida\ncompile_solver()\n"
            "s = ida.ida_rows.stats\nprint(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")
    out = subprocess.run([sys.executable, "-c", load], capture_output=True, text=True, env=env, check=True, timeout=600)
    assert out.stdout.split() == ["1", "0"]
    assert subprocess.run(run, capture_output=True, text=True, env=env, check=True, timeout=600).stdout.split() == ["none"]


def test_warm_up_stops_its_helper_when_it_fails(monkeypatch):
    """An error during the warm-up (here in the judge's kernels) kills the compiling helper."""
    from fastpuzzle import warmup
    from fastpuzzle.io import judging

    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    monkeypatch.setattr(warmup, "start_solver_compile", lambda: helper)

    def broken(text):
        raise RuntimeError("judge broke")

    monkeypatch.setattr(judging, "judge", broken)
    try:
        with pytest.raises(RuntimeError, match="judge broke"):
            warmup.warm_kernels(2, 3)
        assert helper.poll() is not None  # killed and reaped, not left running
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait()
