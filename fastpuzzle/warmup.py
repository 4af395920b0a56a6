"""Compile (or load from the on-disk cache) the kernels a first run needs.

The first call of a Numba kernel compiles it -- seconds for the whole engine
-- and writes it to the on-disk cache, which later processes load in a
fraction of that.  A program that times its work (the command-line demo, a
benchmark) calls :func:`warm_kernels` first, says "compiling kernels, first
run only: N s" when the cache was cold, and then times warm calls only.

On a cold cache the solver's engine, the largest kernel of a first run, is
compiled in a second process (:func:`start_solver_compile`) while this one
compiles the rest: the cache is shared, so the engine is then loaded, and
a first run waits for the longer of the two, not their sum.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

__all__ = ["Warmup", "judge_case_text", "warm_kernels", "start_solver_compile", "compile_solver"]

#: Seconds a first run waits for the process compiling the solver before compiling it itself.
SOLVER_COMPILE_WAIT = 120.0


@dataclass(frozen=True)
class Warmup:
    """What :func:`warm_kernels` did.

    Attributes
    ----------
    seconds : float
        Wall time of the warm-up (compiling, or loading from the cache).
    compiled : int
        Kernel signatures compiled because the on-disk cache did not hold
        them (0 when everything came from the cache).
    loaded : int
        Kernel signatures loaded from the on-disk cache.
    """

    seconds: float
    compiled: int
    loaded: int

    @property
    def cold(self) -> bool:
        """True when something had to be compiled (a first run)."""
        return self.compiled > 0

    def message(self) -> str:
        """One line for the user: what the warm-up cost, and why."""
        if self.cold:
            return f"compiling kernels, first run only: {self.seconds:.1f} s"
        if self.loaded == 0:  # everything was already compiled in this process
            return f"kernels ready: {self.seconds:.2f} s"
        return f"kernels loaded from the cache: {self.seconds:.2f} s"


def judge_case_text(n: int, *, seed: int) -> bytes:
    """One case of the judge format: ``n``, then two random ``n x n``
    permutations of ``0..n*n-1`` as text.

    Written with NumPy and Python, not the compiled writer: on a first run the
    writer would compile a kernel for the wide dtype that boards over 255
    cells take, which nothing else of the demo needs.

    Parameters
    ----------
    n : int
        Side of the two grids (1..1000).
    seed : int
        Seed of the two permutations.

    Examples
    --------
    >>> judge_case_text(2, seed=0).split(b"\\n")[0]
    b'2'
    >>> sorted(int(v) for v in judge_case_text(2, seed=0).split()[1:5])
    [0, 1, 2, 3]
    """
    import numpy as np

    from .options import whole

    n, seed = whole(n, "n", least=1, most=1000), whole(seed, "seed")
    rng = np.random.default_rng(seed)
    parts = [b"%d\n" % n]
    for _ in range(2):
        grid = rng.permutation(n * n).reshape(n, n).tolist()
        parts.append("".join(" ".join(map(str, row)) + "\n" for row in grid).encode())
    return b"".join(parts)


def _cache_counts() -> tuple[int, int]:
    """(compiled, loaded) signatures over every kernel of the loaded fastpuzzle modules."""
    from numba.core.registry import CPUDispatcher

    compiled = loaded = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("fastpuzzle") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher):
                stats = value.stats
                compiled += sum(stats.cache_misses.values())
                loaded += sum(stats.cache_hits.values())
    return compiled, loaded


def compile_solver() -> None:
    """Compile (or load) the optimal solver's engine as :func:`fastpuzzle.solve_many` runs it on
    small boards (linear conflict, ``uint8`` boards): what :func:`start_solver_compile` runs.

    Examples
    --------
    >>> compile_solver()
    """
    import numpy as np

    from .search.batch import ida_batch
    from .search.ida import Heuristic

    engine = Heuristic(3, 3, np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), "linear_conflict")
    ida_batch(np.array([[1, 2, 3, 4, 5, 6, 0, 7, 8]], np.uint8), engine, None, None, 1)


def start_solver_compile():
    """A process compiling the solver's engine into the shared on-disk cache
    (:func:`compile_solver`), or None when the cache already holds it (or
    its place is unknown, or the process cannot start).

    Examples
    --------
    >>> process = start_solver_compile()
    >>> process is None or process.wait() == 0
    True
    """
    from .search import ida

    index = getattr(getattr(getattr(ida.ida_rows, "_cache", None), "_cache_file", None), "_index_path", None)
    if index is None or os.path.exists(index):
        return None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this copy of fastpuzzle, whatever sys.path says
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    try:
        return subprocess.Popen([sys.executable, "-c", "from fastpuzzle.warmup import compile_solver; compile_solver()"],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
    except OSError:
        return None


def _stop(process, timeout: float = 0.0) -> None:
    """Wait up to ``timeout`` seconds for the solver's compile to end, then kill it if it still runs."""
    if process is None:
        return
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def warm_kernels(m: int = 4, n: int = 4, *, judge: bool = True, solver: bool = True) -> Warmup:
    """Compile or load the kernels of the demo's work on ``m x n`` boards.

    Generation (solvable boards, random permutations), the validated
    solvability check (serial and threaded kernels), and optionally the judge
    format reader and the optimal solver (on 3x3 boards).

    Parameters
    ----------
    m, n : int
        Board shape the caller will work on (2 <= m*n <= 64 uses the lane kernels).
    judge : bool
        Also warm :func:`fastpuzzle.io.judge` (on a 3x3 case: its kernels
        do not depend on the size).
    solver : bool
        Also warm :func:`fastpuzzle.solve_many` on 3x3 boards.

    Returns
    -------
    Warmup
        Seconds taken and whether kernels had to be compiled.

    Examples
    --------
    >>> report = warm_kernels(3, 3, judge=False, solver=False)
    >>> report.seconds >= 0 and report.compiled >= 0 and report.loaded >= 0
    True
    >>> report.message().startswith(("compiling kernels", "kernels loaded", "kernels ready"))
    True
    """
    from .boards import goal_board
    from .errors import OptionTypeError

    goal_board(m, n)  # validates the shape
    for flag, what in ((judge, "judge"), (solver, "solver")):
        if not isinstance(flag, bool):
            raise OptionTypeError(what, flag, "must be True or False")
    before = _cache_counts() if "numba" in sys.modules else (0, 0)
    start = time.perf_counter()
    from ._jit import PARALLEL_MIN_CELLS
    from .generate import random_permutations, random_solvable
    from .solvability import is_solvable

    threaded = PARALLEL_MIN_CELLS // (m * n) + 1  # enough boards for the threaded kernels
    helper = start_solver_compile() if solver else None  # cold cache: the engine compiles alongside
    try:
        for count in (64, threaded):
            is_solvable(random_solvable(m, n, count=count, seed=0))
            is_solvable(random_permutations(m, n, count=count, seed=0))
        if judge:  # the kernels read bytes: a small case compiles what a large one runs
            from .io.judging import judge as judge_text

            judge_text(judge_case_text(3, seed=0))
        if solver:
            from .search.solve import solve_many

            _stop(helper, SOLVER_COMPILE_WAIT)  # then the engine loads from the cache
            solve_many(random_solvable(3, 3, count=4, seed=0))
    finally:
        _stop(helper)  # an error or a signal here: stop the helper too
    seconds = time.perf_counter() - start
    after = _cache_counts()
    return Warmup(seconds, after[0] - before[0], after[1] - before[1])
