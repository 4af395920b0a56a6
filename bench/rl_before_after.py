"""Before/after of the vector environment's step: this checkout against another one, in one run.

    python bench/bench_rl.py --against /path/to/other/checkout [--rounds 4] [--size 4]

For each checkout, in a fresh process: ``bench_rl``'s own measurements of
the 100,000-board rows (``step(sample_actions())``, ``step_random()`` and
``copy=False``, 50 steps each after 3 warm ones) and of jumanji's
SlidingTilePuzzle at the same size in the same process (when jumanji is
installed), so each ratio to jumanji is taken within one process.  The
checkouts alternate for ``rounds`` rounds and the medians are shown, so a
load that comes and goes on a shared machine weighs on both.  The other
checkout needs ``bench/bench_rl.py`` with ``_ours`` and ``_jumanji_rate``.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from bench.before_after import run_in_checkout
from bench.bench_rl import FORMS

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Run inside each checkout (cwd and PYTHONPATH = that checkout).
_CHILD = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
from bench.bench_rl import _ours, _jumanji_rate

m, B, steps = int(sys.argv[1]), 100_000, 50
out = {"default": _ours(B, m, m, steps), "jumanji": _jumanji_rate(B, m, steps)}
out["step_random"] = _ours(B, m, m, steps, fused=True)
out["copy=False"] = _ours(B, m, m, steps, copy=False)
print(json.dumps(out))
"""


def measure(tree: pathlib.Path, m: int) -> dict:
    """One fresh process in ``tree``: ``{form: (steps/s, steps per CPU-second)}``, jumanji's or None."""
    return run_in_checkout(tree, _CHILD, m)


def compare(other, rounds: int = 4, m: int = 4) -> list[str]:
    """Lines of the side-by-side table: ``other`` (before) against this checkout (after)."""
    trees = {"before": pathlib.Path(other).resolve(), "after": ROOT}
    runs = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            runs[name].append(measure(tree, m))
    lines = [f"cores: {os.cpu_count()}; load average now: {os.getloadavg()[0]:.1f}; {m}x{m}, 100,000 boards, "
             f"50 steps; medians of {rounds} processes each, alternating; before = {trees['before']}, "
             f"after = {trees['after']}"]  # fmt: skip
    jumanji = all(r["jumanji"] for rs in runs.values() for r in rs)
    lines.append(f"{'':13} {'':7} {'steps/s':>9} {'per CPU-s':>10}" + (f" {'x jumanji':>10}" if jumanji else ""))
    forms = [form for form in FORMS if form in next(iter(runs.values()))[0]]  # those the child measures
    for form in (*forms, *(("jumanji",) if jumanji else ())):
        for name in trees:
            rs = runs[name]
            wall, cpu = (float(np.median([r[form][k] for r in rs])) / 1e6 for k in (0, 1))
            line = f"{form if name == 'before' else '':13} {name:7} {wall:8.1f}M {cpu:9.1f}M"
            if jumanji and form != "jumanji":  # each process's own ratio, then the median
                line += f" {float(np.median([r[form][1] / r['jumanji'][1] for r in rs])):9.2f}x"
            lines.append(line)
    if not jumanji:
        lines.append("jumanji not installed: our rates only")
    return lines
