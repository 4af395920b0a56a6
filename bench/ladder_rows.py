"""The budgeted ladder measured through the plain calls (rows of the ``frontier`` family).

    python bench/ladder_rows.py [--quick] [--against DIR]

* Korf-Felner #38 and #40, ``solve(b, goal=blank_first)`` as shipped (the default time limit),
  wall seconds (median of 3), beside ``method="ida", heuristic="pdb"`` on one thread (the proof
  the issue named);
* one proof on 2 threads against 1 (#40, ``method="ida", heuristic="pdb"``), wall, median of 3;
* the 80-move 15-puzzles (``hard80.txt``): ``solve(b, time_limit=30)`` against
  ``method="ida", heuristic="pdb"`` (one thread), wall per board, side by side, mean and worst ratio;
* ``solve(b, time_limit=3)`` in a fresh process on a 24-puzzle it does not prove in 3 s, the
  database read included: wall of the call, and of the whole process;
* how closely a warm budgeted call keeps its budget (5x5 and 8x8 boards not settled in time).

``--against DIR`` runs the plain calls of the first and third rows in the checkout ``DIR`` too
(a fresh process each), one after the other, and prints both.  Every solution is verified.
Needs ``6-6-6-6`` and ``7-8`` built (``fastpuzzle pdb build ...``); rows say when they are not.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fastpuzzle as fp  # noqa: E402
from bench.common import read_instances, row  # noqa: E402

KORF_GOAL = np.arange(25).reshape(5, 5)  # korf24_50.txt's goal: blank top-left
FRESH_BOARD = 25  # Korf-Felner #25: about 4 s of proof, so a 3 s budget ends unproved


def _row(name, value, unit, ratio=None, baseline=None, note=""):
    return row("frontier", name, value, unit, ratio, baseline, note)


def _wall(call, repeats=3):
    """``(median wall seconds, the last result)`` over ``repeats`` calls."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def korf_rows(quick=False) -> list:
    inst = read_instances("korf24_50.txt", 25)
    rows = []
    for i in (38, 40):
        board, length = inst[i - 1]
        board = board.reshape(5, 5)
        plain, sol = _wall(lambda: fp.solve(board, goal=KORF_GOAL), 1 if quick else 3)
        assert sol.verify(board, goal=KORF_GOAL) and sol.lower_bound <= length <= sol.length
        ida, ref = _wall(lambda: fp.solve(board, goal=KORF_GOAL, method="ida", heuristic="pdb", threads=1), 1)
        rows.append(_row(f"ladder korf24 #{i} plain solve wall", round(plain, 3), "s", round(plain / ida, 3), round(ida, 3),
                         f"{sol.status} {sol.length} (optimum {length}), {sol.heuristic}, {sol.nodes:,} nodes; "
                         f"baseline: method='ida', heuristic='pdb', 1 thread, {ref.nodes:,} nodes; goal < 3 s"))
    board, length = inst[39]
    board = board.reshape(5, 5)
    walls = {}
    for threads in (1, 2):
        walls[threads], sol = _wall(lambda: fp.solve(board, goal=KORF_GOAL, method="ida", heuristic="pdb",
                                                     threads=threads), 1 if quick else 3)  # fmt: skip
        assert sol.length == length and sol.verify(board, goal=KORF_GOAL)
        walls[f"n{threads}"] = sol.nodes
    rows.append(_row("ladder korf24 #40 one proof, 2 threads / 1: wall", round(walls[2] / walls[1], 3), "x",
                     note=f"{walls[2]:.3f} s vs {walls[1]:.3f} s; nodes {walls['n2']:,} vs {walls['n1']:,} "
                          f"({walls['n2'] / walls['n1']:.3f}x); goal <= 0.62x"))
    return rows


def hard80_rows(quick=False) -> list:
    boards = [b.reshape(4, 4) for b, _ in read_instances("hard80.txt", 16)][: 3 if quick else None]
    ratios, plain_walls = [], []
    for board in boards:
        plain, sol = _wall(lambda: fp.solve(board, time_limit=30.0), 1)
        ida, ref = _wall(lambda: fp.solve(board, method="ida", heuristic="pdb", threads=1), 1)
        assert sol.status == "optimal" and sol.length == ref.length == 80 and sol.verify(board)
        ratios.append(plain / ida)
        plain_walls.append(plain)
    return [_row(f"ladder hard80 ({len(boards)}) time_limit=30 / method='ida': wall", round(statistics.mean(ratios), 3),
                 "x", note=f"mean of the per-board ratios, worst {max(ratios):.3f}x; the plain call's mean "
                           f"{statistics.mean(plain_walls):.3f} s, worst {max(plain_walls):.3f} s; goal <= 1.25x, "
                           "mean < 1 s"),  # fmt: skip
            _row(f"ladder hard80 ({len(boards)}) time_limit=30: mean wall", round(statistics.mean(plain_walls), 3), "s")]


_FRESH = r"""
import time, sys
t0 = time.perf_counter()
import numpy as np, fastpuzzle as fp
from bench.common import read_instances
board = read_instances("korf24_50.txt", 25)[int(sys.argv[1]) - 1][0].reshape(5, 5)
t1 = time.perf_counter()
s = fp.solve(board, goal=np.arange(25).reshape(5, 5), time_limit=3.0)  # fp.solve imports the solver first
t2 = time.perf_counter()
assert s.verify(board, goal=np.arange(25).reshape(5, 5))
print({"call": t2 - t1, "process": t2 - t0, "status": s.status, "length": s.length, "bound": s.lower_bound,
       "note": s.note})
"""


def fresh_rows() -> list:
    proc = subprocess.run([sys.executable, "-c", _FRESH, str(FRESH_BOARD)], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))  # fmt: skip
    if proc.returncode:
        return [_row("ladder time_limit=3 fresh process", None, "", note=proc.stderr.strip()[-300:])]
    out = eval(proc.stdout.strip().splitlines()[-1])  # our own child's dict
    return [_row("ladder time_limit=3 in a fresh process: wall of the call", round(out["call"], 3), "s",
                 note=f"Korf-Felner #{FRESH_BOARD}: {out['status']} {out['length']}, bound {out['bound']}; the call "
                      "includes importing the solver (fp.solve loads it on first use) and reading the database; "
                      f"whole process {out['process']:.2f} s (kernels from the cache); goal < 3.6 s")]


def budget_rows(quick=False) -> list:
    """How closely a warm ``solve(b, time_limit=T)`` keeps its budget: the worst overrun over random
    24-puzzles and 8x8 boards that none of the searches settles in time."""
    over = []
    for shape in ((5, 5), (8, 8)):
        boards = fp.random_solvable(*shape, count=2 if quick else 6, seed=11)
        fp.solve(boards[0], time_limit=0.3)  # compiled and the tables read: the budget is the search's
        for board, limit in zip(boards, (0.5, 1.0, 2.0) * 2):
            wall, sol = _wall(lambda: fp.solve(board, time_limit=limit), 1)
            if sol.status != "optimal":
                over.append(wall - limit)
    return [_row("ladder budget kept, warm: worst overrun", round(max(over), 4), "s",
                 note=f"{len(over)} calls of solve(b, time_limit=0.5, 1 or 2) on 5x5 and 8x8 boards not proved in "
                      f"time; mean overrun {statistics.mean(over):.4f} s; goal <= 0.1 s")]


def run(quick: bool = False) -> list:
    have = fp.pdb.available()
    if "6-6-6-6" not in have or "7-8" not in have:
        return [_row("ladder", None, "", note="needs 6-6-6-6 and 7-8: fastpuzzle pdb build 6-6-6-6 7-8")]
    return korf_rows(quick) + hard80_rows(quick) + fresh_rows() + budget_rows(quick)


_AGAINST = r"""
import json, sys, time
import numpy as np, fastpuzzle as fp
from bench.common import read_instances
out = {}
inst = read_instances("korf24_50.txt", 25)
for i in (38, 40):
    b = inst[i - 1][0].reshape(5, 5)
    t = time.perf_counter(); s = fp.solve(b, goal=np.arange(25).reshape(5, 5)); out[f"korf{i}"] = (time.perf_counter() - t, s.status, s.length)
walls = []
for b, _ in read_instances("hard80.txt", 16)[: int(sys.argv[1])]:
    t = time.perf_counter(); s = fp.solve(b.reshape(4, 4), time_limit=30.0); walls.append(time.perf_counter() - t)
out["hard80"] = walls
print(json.dumps(out))
"""


def against(other: str, count: int = 17) -> None:
    """The plain calls in this checkout and in ``other``, each in a fresh process (warmed by a first
    solve of the same kind: compile time is not search time)."""
    for name, tree in (("before", Path(other).resolve()), ("after", ROOT)):
        code = "import fastpuzzle as fp, numpy as np\nfp.solve(fp.random_solvable(5, 5, seed=1), time_limit=0.5)\n"
        code += "fp.solve(fp.random_solvable(4, 4, seed=1), time_limit=0.5)\n" + _AGAINST
        proc = subprocess.run([sys.executable, "-c", code, str(count)], cwd=tree, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(tree)))  # fmt: skip
        if proc.returncode:
            raise SystemExit(f"{tree}: {proc.stderr[-2000:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{name:7} {tree}: korf #38 {out['korf38']}, #40 {out['korf40']}; hard80 time_limit=30 mean "
              f"{statistics.mean(out['hard80']):.3f} s, worst {max(out['hard80']):.3f} s ({len(out['hard80'])} boards)")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--against" in args:
        against(args[args.index("--against") + 1])
    else:
        for r in run("--quick" in args):
            print(f"{r['name']:<58} {r['value']!s:>10} {r['unit']:<3} {r['ratio'] or ''}  {r['note']}")
