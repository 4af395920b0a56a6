"""No regression elsewhere: this checkout against another one, alternating, in one run.

    python bench/side_by_side.py --against /path/to/other/checkout [--rounds 3]

For each checkout, in a fresh process with its JIT warmed: the constructive
solver on one 300x300 board (least CPU seconds of 3 solves, and the move
count, which must be equal), ``random_solvable(4, 4, count=10**7)`` (least
wall seconds of 3, on all threads), and 300 random 8-puzzles solved one at a
time (least CPU seconds of 3).  The checkouts alternate for ``--rounds``
rounds, so a neighbour's load weighs on both.  (The search engine's own
before/after is ``python bench/bench_solver.py --against DIR``.)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, time
import fastpuzzle as fp
from fastpuzzle.search.constructive import solve_constructive

board = fp.random_solvable(300, 300, seed=0)
solve_constructive(fp.random_solvable(6, 7, seed=1))  # compile or load
cpu = []
for _ in range(3):
    c = time.process_time(); s = solve_constructive(board); cpu.append(time.process_time() - c)
fp.random_solvable(4, 4, count=1000, seed=1)
gen = []
for _ in range(3):
    t = time.perf_counter(); fp.random_solvable(4, 4, count=10_000_000, seed=2); gen.append(time.perf_counter() - t)
eights = fp.random_solvable(3, 3, count=300, seed=3)
fp.solve(eights[0])
solve = []
for _ in range(3):
    c = time.process_time(); lengths = [fp.solve(b).length for b in eights]; solve.append(time.process_time() - c)
print(json.dumps(dict(constructive=min(cpu), moves=int(s.length), generate=min(gen), solve8=min(solve),
                      length8=sum(lengths))))
"""

ROWS = [("constructive 300x300, CPU s", "constructive"), ("  moves", "moves"),
        ("random_solvable 10^7 4x4, wall s", "generate"), ("300 8-puzzles one at a time, CPU s", "solve8"),
        ("  sum of their lengths", "length8")]  # fmt: skip


def measure(tree: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", _CHILD], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=True, help="the other checkout (before)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    trees = {"before": os.path.abspath(args.against), "after": str(ROOT)}
    best: dict = {"before": {}, "after": {}}
    for _ in range(max(1, args.rounds)):
        for side, tree in trees.items():
            for key, value in measure(tree).items():
                best[side][key] = min(best[side].get(key, value), value)
    print(f"cores: {os.cpu_count()}; least of {args.rounds} rounds, checkouts alternating; "
          f"before = {trees['before']}, after = {trees['after']}")
    print(f"{'':38}{'before':>14}{'after':>14}{'after/before':>14}")
    for label, key in ROWS:
        b, a = best["before"][key], best["after"][key]
        fmt = "{:>14,}" if isinstance(b, int) else "{:>14.3f}"
        print(f"{label:38}" + fmt.format(b) + fmt.format(a) + f"{a / b if b else float('nan'):>14.3f}")


if __name__ == "__main__":
    main()
