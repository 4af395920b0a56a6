"""Before/after of the search engine: this checkout against another one, in one run.

    python bench/bench_solver.py --against /path/to/other/checkout [--count 10] [--rounds 2]

For each checkout, in a fresh process (its own JIT and database cache, JIT
warmed first): Korf's first ``count`` 15-puzzles with linear conflict through
``solve_many`` on 2 threads (CPU seconds of the process, nodes), and the same
boards with the 5-5-5 pattern database one at a time (CPU seconds, nodes; the
database is built in the process's cache and not timed).  The checkouts
alternate for ``rounds`` rounds and the least CPU time of each is shown, so a
load that changes during the run weighs on both.  The other checkout needs
``bench/bench_solver.py`` (``bench_korf_lc``) and ``bench/bench_pdb.py``
(``read_instances``, there or imported from ``bench/common.py``, and ``solve_set``), as every checkout since the pattern
databases has.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Run inside each checkout (cwd and PYTHONPATH = that checkout).
_CHILD = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
from bench import bench_pdb, bench_solver
from fastpuzzle import pdb

count = int(sys.argv[1])
bench_solver._warm()
rows, wrong = bench_solver.bench_korf_lc(list(range(count)))
out = {"lc_cpu": rows[0]["value"], "lc_nodes": rows[2]["value"], "lc_wrong": wrong}
db = pdb.build("5-5-5", progress=False)
korf = bench_pdb.read_instances("korf100_blank_last.txt", 16)[:count]
cpu, _, sols = bench_pdb.solve_set([b.reshape(4, 4) for b, _ in korf], db)
out["pdb_cpu"] = cpu
out["pdb_nodes"] = sum(s.nodes for s in sols)
out["pdb_wrong"] = sum(s.length != n for s, (_, n) in zip(sols, korf))
print(json.dumps(out))
"""


def run_in_checkout(tree: pathlib.Path, code: str, *args, **env) -> dict:
    """``code`` run by a fresh Python in the checkout ``tree`` (its cwd and ``PYTHONPATH``, ``env`` added) with
    ``args``; the JSON its last line prints (the side-by-side runs of this module and ``rl_before_after``)."""
    env = dict(os.environ, PYTHONPATH=str(tree), **env)
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=tree, env=env,
                          capture_output=True, text=True)  # fmt: skip
    if proc.returncode:
        raise RuntimeError(f"the benchmark failed in {tree}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(tree: pathlib.Path, count: int, cache: str) -> dict:
    """One fresh process in ``tree``; returns its figures."""
    return run_in_checkout(tree, _CHILD, count, FASTPUZZLE_CACHE=cache)


def compare(other, count: int = 10, rounds: int = 2) -> list[str]:
    """Lines of the side-by-side table: ``other`` (before) against this checkout (after)."""
    trees = {"before": pathlib.Path(other).resolve(), "after": ROOT}
    runs = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(rounds):
            for name, tree in trees.items():
                runs[name].append(measure(tree, count, os.path.join(cache, name)))
    before, after = runs["before"], runs["after"]
    lines = [f"cores: {os.cpu_count()}; load average now: {os.getloadavg()[0]:.1f}; Korf's first {count}; "
             f"least CPU of {rounds} rounds; before = {trees['before']}, after = {trees['after']}"]  # fmt: skip
    lines.append(f"{'':34} {'before':>12} {'after':>12} {'after/before':>13}")
    for key, label in (("lc", "linear conflict, 2 threads"), ("pdb", "5-5-5 pattern database")):
        cpu_b = min(r[f"{key}_cpu"] for r in before)
        cpu_a = min(r[f"{key}_cpu"] for r in after)
        nodes_b, nodes_a = before[0][f"{key}_nodes"], after[0][f"{key}_nodes"]
        wrong = before[0][f"{key}_wrong"] + after[0][f"{key}_wrong"]
        lines.append(f"{label + ': CPU s':34} {cpu_b:12.3f} {cpu_a:12.3f} {cpu_a / cpu_b:13.3f}")
        lines.append(f"{label + ': nodes':34} {nodes_b:12,} {nodes_a:12,} {nodes_a / nodes_b:13.3f}"
                     + ("" if wrong == 0 else f"  ({wrong} lengths differ from the optimum!)"))  # fmt: skip
    return lines
