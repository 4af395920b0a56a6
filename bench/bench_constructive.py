"""Constructive solver on large boards: speed, verification speed and quality.

    python bench/bench_constructive.py [--quick] [--cold]
    python bench/bench_constructive.py --cold-against DIR|- [--repeats N]

For random solvable boards (uniform: a random permutation, two tiles swapped
when it cannot reach the goal) of 100 x 100, 300 x 300 and 1000 x 1000 (the
last in count-only mode: its solution has billions of moves), plus wide
boards:

* seconds to solve (median of repeats, JIT warmed first; wall and CPU time,
  as the machine may be shared) and moves per second;
* for boards solved with their moves, the seconds to verify them with the
  jitted applier (``Solution.verify``) and its moves per second;
* quality: solution length / the start's Manhattan distance sum (a lower
  bound on any solution), measured on the same board in the same run;
* steered (best routes in a band, the displaced tiles' gains weighted by
  their walks home) against the solvers before: best routes with unweighted
  gains (``solve_kernel(..., steer=2)``) and plain routes (``steer=0``, the
  solver before steering),
  side by side on the same boards in one run (10 x 10, 30 x 30, 100 x 100,
  300 x 300 and 50 x 200; several boards for the small sizes): length /
  Manhattan and CPU seconds of each, and the CPU time against plain routes'
  (issue 18 allows 3x);
* with ``--cold`` (and in the full run): CPU seconds of the first call in a fresh process with an
  empty Numba cache (as after an install), the solver's kernels apart from
  the parity kernels of the solvability check, and the most signatures any
  piece of the kernel was compiled for.

The sources' own solver of this kind (Python, a breadth-first path search per
step) is not runnable here; its published figures are quoted as notes: 9.8 s
for 40 x 40, 84 s for 60 x 60, 3.6-5.3x the Manhattan bound (growing with
size), and it fails on wide boards such as 8 x 13.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402
import numpy as np  # noqa: E402

from fastpuzzle.boards import goal_board, relabel_for_goal  # noqa: E402
from fastpuzzle.search.constructive import relabelled_manhattan, solve_constructive  # noqa: E402
from fastpuzzle.search.constructive.lines import solve_kernel  # noqa: E402
from fastpuzzle.search.constructive.solver import blank_to_corner  # noqa: E402
from fastpuzzle.search.constructive.state import STEER_BEST, STEER_PLAIN, STEER_WEIGHTED  # noqa: E402
from fastpuzzle.solvability import is_solvable  # noqa: E402

SOURCES = "sources' Python solver: 9.8 s at 40x40, 84 s at 60x60, 3.6-5.3x Manhattan, fails on 8x13"


def random_board(m, n, seed):
    rng = np.random.default_rng(seed)
    board = rng.permutation(m * n).reshape(m, n)
    if not is_solvable(board):
        flat = board.ravel()
        i, j = np.flatnonzero(flat != 0)[:2]
        flat[i], flat[j] = flat[j], flat[i]
    return board


def manhattan(board):
    m, n = board.shape
    return int(relabelled_manhattan(np.ascontiguousarray(board).ravel().astype(np.int64), m, n))


_COLD = """
import time
import numpy as np
from fastpuzzle.solvability import is_solvable
board = np.array([[4, 1, 3], [7, 2, 6], [0, 5, 8]])
c = time.process_time()
is_solvable(board, goal=np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), check=False)
parity = time.process_time() - c
c = time.process_time()
from fastpuzzle.search.constructive import lines, routes, solve_constructive, state, tiles
solve_constructive(board)
seconds = time.process_time() - c
pieces = [f for mod in (state, routes, tiles, lines) for f in vars(mod).values() if hasattr(f, "signatures")]
print(seconds, parity, max(len(f.signatures) for f in pieces))
"""


#: Run first in a child to time a first call without the compile trims: the inline copies
#: (:func:`fastpuzzle._jit.share_inline_copies`) and the link-only helpers (:mod:`fastpuzzle._linkonly`).
_NO_COMPILE_TRIMS = ("from fastpuzzle import _linkonly\n_linkonly.link_only_class = lambda twin_factory: None\n"
                     "from fastpuzzle import _jit\n_jit.share_inline_copies = lambda: False\n")


def cold_first_call(tree=None, trims=True):
    """CPU seconds of the first solve in a fresh process with an empty Numba
    cache (as after an install), without the parity kernels of the
    solvability check (compiled first, timed apart); and the most
    signatures any piece of the kernel was compiled for (1 is the goal).
    ``tree``: another checkout to time instead of this one; ``trims`` False:
    Numba's inliner and linking left as they are (:data:`_NO_COMPILE_TRIMS`)."""
    seconds, parity, signatures = _run_cold(_COLD if trims else _NO_COMPILE_TRIMS + _COLD, tree).split()
    return float(seconds), float(parity), int(signatures)


# The compile of each kernel and helper on the first call (Numba's compile events): inclusive
# seconds, a callee indented under the caller whose compile it happened in.
_BREAKDOWN = """
import time
import numpy as np
from numba.core import event
from fastpuzzle.solvability import is_solvable
board = np.array([[4, 1, 3], [7, 2, 6], [0, 5, 8]])
is_solvable(board, goal=np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0]]), check=False)
from fastpuzzle.search.constructive import solve_constructive
recorder = event.RecordingListener()
event.register("numba:compile", recorder)
c = time.process_time()
solve_constructive(board)
print(f"first call {time.process_time() - c:.2f} s CPU; its compiles, wall s (inclusive, callees indented):")
stack, lines = [], []  # stack: the index in lines of each compile begun and not ended
for when, e in recorder.buffer:
    if e.is_start:
        stack.append(len(lines))
        lines.append([len(stack) - 1, e.data["dispatcher"].py_func.__qualname__, when])
    else:
        line = lines[stack.pop()]
        line[2] = when - line[2]
for depth, name, seconds in lines:
    if seconds >= 0.1:
        print(f"  {'  ' * depth}{name} {seconds:.2f}")
"""


def _run_cold(code, tree=None) -> str:
    """Standard output of ``code`` run in a fresh process on an empty Numba cache, in this checkout
    or ``tree``; a failure raises with the child's error output."""
    root = Path(tree).resolve() if tree else Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(root))
        # cwd: "python -c" puts the working directory first on the path, before PYTHONPATH
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"the cold child failed:\n{out.stderr}")
    return out.stdout


def cold_breakdown():
    """Print the first call's compile in a fresh process with an empty Numba cache, kernel by kernel."""
    print(_run_cold(_BREAKDOWN), end="")


def cold_against(other=None, repeats=5):
    """:func:`cold_first_call` here and in the checkout ``other`` (None: here without the compile
    trims), alternating (who goes first alternates too), ``repeats`` times each; prints both
    medians and their ratio."""
    label = str(other) if other else "here, Numba's inliner and linking as they are"
    runs = {"here": lambda: cold_first_call(), label: lambda: cold_first_call(other, trims=other is not None)}
    seconds = {name: [] for name in runs}
    for k in range(repeats):
        for name in (list(runs) if k % 2 == 0 else list(runs)[::-1]):
            seconds[name].append(runs[name]()[0])
    here, there = _median(seconds["here"]), _median(seconds[label])
    print(f"constructive first call, empty Numba cache, CPU s ({os.cpu_count()} CPUs, median of {repeats}, "
          f"alternating): {here:.2f} here, {there:.2f} {'in ' if other else ''}{label} (ratio {here / there:.3f})")
    for name, values in seconds.items():
        print(f"  {name}: {', '.join(f'{v:.2f}' for v in values)}")


def _median(values):
    return float(np.median(values))


def kernel_length(board, steer):
    """Moves of the kernel (counted, not kept) in steering mode ``steer``
    (``state.STEER_*``: 1, gains weighted by the tiles' walks, the solver;
    2, best routes with unweighted gains, the solver before; 0, plain
    routes), and its CPU seconds."""
    m, n = board.shape
    shifted, back = blank_to_corner(goal_board(m, n))
    cells = relabel_for_goal(board, shifted).ravel().astype(np.int32)
    c = time.process_time()
    count, err = solve_kernel(cells, m, n, np.empty(0, np.uint8), back, np.zeros(2, np.int64), -1, 1, steer)
    seconds = time.process_time() - c
    assert err == 0
    return int(count), seconds


#: (m, n, boards in full mode, boards in quick mode) of the side by side.
STEER_CASES = [(10, 10, 50, 20), (30, 30, 10, 4), (100, 100, 2, 1), (300, 300, 1, 1), (50, 200, 2, 1)]


#: The solvers before, side by side with the solver (``STEER_WEIGHTED``) on the same boards:
#: (mode, the rows' label, what the ratio is against).
BEFORE = (
    (STEER_BEST, "steered unweighted (before)",
     "the same boards with best routes and unweighted gains (the solver before), this run"),
)


def steer_rows(quick):
    """The solver against the solvers before (:data:`BEFORE`) and plain routes on the same boards, in one run."""
    rows = []
    modes = (STEER_WEIGHTED, *(mode for mode, _, _ in BEFORE), STEER_PLAIN)
    for m, n, full, few in STEER_CASES:
        bound = 0
        moves = dict.fromkeys(modes, 0)
        cpu = dict.fromkeys(modes, 0.0)
        count = few if quick else full
        for k in range(count):
            board = random_board(m, n, seed=m * 7919 + n + k)
            bound += manhattan(board)
            for steer in modes:
                length, seconds = kernel_length(board, steer)
                moves[steer] += length
                cpu[steer] += seconds
        new, plain = moves[STEER_WEIGHTED] / bound, moves[STEER_PLAIN] / bound
        label = f"{m}x{n}"
        boards = f"{count} board{'s' if count > 1 else ''}"
        base = "the same boards with plain routes (the solver before), this run"
        unweighted = moves[STEER_BEST] / bound
        rows.append(dict(family="constructive", name=f"length/Manhattan {label}, steered", value=new, unit="x",
                         ratio=new / plain, baseline=base,
                         note=f"{boards}; unweighted (before) {unweighted:.3f}x, plain routes {plain:.3f}x"))
        rows.append(dict(family="constructive", name=f"length/Manhattan {label}, plain routes (before)", value=plain,
                         unit="x", ratio=None, baseline=None, note=boards))
        for mode, what, against in BEFORE:
            rows.append(dict(family="constructive", name=f"length/Manhattan {label}, {what}", value=moves[mode] / bound,
                             unit="x", ratio=moves[STEER_WEIGHTED] / moves[mode], baseline=against, note=boards))
            rows.append(dict(family="constructive", name=f"CPU s {label}, {what}", value=cpu[mode] / count,
                             unit="s CPU", ratio=cpu[STEER_WEIGHTED] / cpu[mode], baseline=against,
                             note=f"{boards}, per board"))
        ours, flat = cpu[STEER_WEIGHTED], cpu[STEER_PLAIN]
        rows.append(dict(family="constructive", name=f"CPU s {label}, steered", value=ours / count, unit="s CPU",
                         ratio=ours / flat, baseline=base,
                         note=f"{boards}, per board; plain {flat / count:.4f} s, {ours / flat:.2f}x plain"))
        rows.append(dict(family="constructive", name=f"CPU s {label}, plain routes (before)", value=flat / count,
                         unit="s CPU", ratio=None, baseline=None, note=f"{boards}, per board"))
    return rows


def run(quick: bool = False, cold: bool | None = None) -> list[dict]:
    rows = []
    if cold if cold is not None else not quick:  # the full run times the first call too
        seconds, parity, signatures = cold_first_call()
        rows.append(dict(family="constructive", name="first call, empty cache", value=seconds, unit="s CPU",
                         ratio=None, baseline=None,
                         note=f"compiles the solver's kernels, at most {signatures} signature(s) a piece; "
                              f"the parity kernels of the solvability check take {parity:.1f} s more"))
        plain = cold_first_call(trims=False)[0]
        rows.append(dict(family="constructive", name="first call, empty cache, no compile trims", value=plain,
                         unit="s CPU", ratio=plain / seconds, baseline="the same with the compile trims (the row before)",
                         note="Numba's inliner and linking as they are (no shared inline copies, no link-only "
                              "helpers), the next child process"))
    solve_constructive(random_board(6, 7, 0))  # warm the JIT
    kernel_length(random_board(6, 7, 0), 0)
    rows += steer_rows(quick)
    cases = [(100, 100, False, 5), (300, 300, False, 3), (8, 13, False, 5), (10, 1000, False, 3), (2, 1000, False, 3)]
    cases.append((300, 300, True, 1) if quick else (1000, 1000, True, 1))
    if quick:
        cases = [(m, n, c, min(r, 2)) for m, n, c, r in cases]
    for m, n, count_only, repeats in cases:
        board = random_board(m, n, seed=m * 7919 + n)
        bound = manhattan(board)
        times, cpu, sol = [], [], None
        for _ in range(repeats):
            sol = None
            t, c = time.perf_counter(), time.process_time()
            sol = solve_constructive(board, count_only=count_only)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        t_solve = _median(times)
        t_cpu = _median(cpu)
        moves = sol.length
        quality = moves / bound
        label = f"{m}x{n}" + (" (count only)" if count_only else "")
        note = f"{t_solve:.3f} s ({t_cpu:.3f} s CPU), {moves:,} moves, {quality:.3f}x Manhattan ({bound:,})"
        if not count_only:
            t = time.perf_counter()
            ok = sol.verify(board)
            t_verify = time.perf_counter() - t
            assert ok, f"{label}: solution does not reach the goal"
            note += f"; verified in {t_verify:.3f} s"
            if moves >= 1_000_000:  # below that, call overhead is all one measures
                rows.append(dict(family="constructive", name=f"verify {label}", value=moves / t_verify,
                                 unit="moves/s", ratio=None, baseline=None, note=f"{t_verify:.3f} s"))
        rows.append(dict(family="constructive", name=f"solve {label}", value=moves / t_solve, unit="moves/s",
                         ratio=None, baseline=None, note=note))
        rows.append(dict(family="constructive", name=f"length/Manhattan {label}", value=quality, unit="x",
                         ratio=quality, baseline="Manhattan lower bound, same board", note=SOURCES))
        del sol
    return rows


def print_rows(rows, title):
    print(f"{title}: {os.cpu_count()} CPUs, {numba.get_num_threads()} Numba threads, numpy {np.__version__}")
    for r in rows:
        if r["unit"] == "s CPU":
            print(f"  {r['name']:<56} {r['value']:>14.4f} {r['unit']:<9} ({r['note']})")
        elif r["unit"] == "x":
            print(f"  {r['name']:<56} {r['value']:>14.3f} {r['unit']}" + (f"  ({r['note']})" if "steered" in r["name"] else ""))
        else:
            print(f"  {r['name']:<56} {r['value']:>14,.0f} {r['unit']:<9} ({r['note']})")
    print(f"  (for comparison, {SOURCES})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300x300 count-only instead of 1000x1000, fewer boards and repeats")
    ap.add_argument("--cold", action="store_true", default=None,
                    help="also time the first call with an empty Numba cache (the full run does)")
    ap.add_argument("--cold-against", metavar="DIR",
                    help="only the first call with an empty cache, here and in the checkout DIR, alternating "
                         "('-': here without the compile trims: inline copies, link-only helpers)")
    ap.add_argument("--repeats", type=int, default=5, help="runs of each side with --cold-against")
    ap.add_argument("--cold-breakdown", action="store_true",
                    help="only the first call with an empty cache: the compile seconds of each kernel and helper")
    args = ap.parse_args()
    if args.cold_breakdown:
        cold_breakdown()
    elif args.cold_against:
        cold_against(None if args.cold_against == "-" else args.cold_against, args.repeats)
    else:
        print_rows(run(args.quick, args.cold), "bench_constructive")
