"""Generation throughput: random solvable boards vs NumPy's own shuffles.

    python bench/bench_generate.py [--quick]

Side by side in one run, on the same machine and thread count:

* ``random_solvable`` (uniform over boards that reach the goal) and
  ``random_permutations`` (plain shuffles) against NumPy's
  ``Generator.permuted`` shuffling the rows of a preallocated array in place
  (``out=``: NumPy gets no allocation cost, we do);
* 10,000,000 4x4 boards and 10,000 100x100 boards (quick: a tenth);
* ``scramble``: random walks, moves per second.

``ratio`` = NumPy seconds / our seconds (>= 1: we are at least as fast).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402
import numpy as np  # noqa: E402

from fastpuzzle.generate import random_permutations, random_solvable, scramble  # noqa: E402
from fastpuzzle.solvability import is_solvable  # noqa: E402


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def _numpy_permuted(m, n, count, seed):
    base = np.tile(np.arange(m * n, dtype=np.uint8 if m * n <= 256 else np.uint16), (count, 1))
    rng = np.random.default_rng(seed)
    return lambda: rng.permuted(base, axis=1, out=base)


def run(quick: bool = False) -> list[dict]:
    repeats = 3 if quick else 5
    rows = []
    # warm the compiled kernels (serial and threaded)
    random_solvable(4, 4, count=200_000, seed=0)
    random_permutations(4, 4, count=200_000, seed=0)
    random_solvable(100, 100, count=30, seed=0)
    scramble(4, 4, 10, count=100_000, seed=0)
    for m, n, count in [(4, 4, 10_000_000), (100, 100, 10_000)]:
        if quick:
            count //= 10
        t_np = _median_time(_numpy_permuted(m, n, count, 1), repeats)
        t_sol = _median_time(lambda: random_solvable(m, n, count=count, seed=1), repeats)
        t_perm = _median_time(lambda: random_permutations(m, n, count=count, seed=1), repeats)
        sample = random_solvable(m, n, count=min(count, 100_000), seed=2)
        assert is_solvable(sample).all()
        label = f"{count:,} {m}x{n}"
        rows.append(dict(family="generate", name=f"random_solvable {label}", value=count / t_sol, unit="boards/s",
                         ratio=t_np / t_sol, baseline=f"numpy Generator.permuted {t_np:.3f} s",
                         note=f"{t_sol:.3f} s; uniform over solvable boards"))
        rows.append(dict(family="generate", name=f"random_permutations {label}", value=count / t_perm,
                         unit="boards/s", ratio=t_np / t_perm, baseline=f"numpy Generator.permuted {t_np:.3f} s",
                         note=f"{t_perm:.3f} s; plain shuffles, same work as NumPy"))
    count, k = (1_000_000, 100) if not quick else (100_000, 100)
    t_scr = _median_time(lambda: scramble(4, 4, k, count=count, seed=1), repeats)
    rows.append(dict(family="generate", name=f"scramble {count:,} 4x4 x {k} moves", value=count * k / t_scr,
                     unit="moves/s", ratio=None, baseline=None, note=f"{t_scr:.3f} s"))
    return rows


def print_rows(rows, title):
    print(f"{title}: {os.cpu_count()} CPUs, {numba.get_num_threads()} Numba threads, numpy {np.__version__}")
    for r in rows:
        ratio = f"  x{r['ratio']:.2f} vs {r['baseline']}" if r["ratio"] is not None else ""
        print(f"  {r['name']:<40} {r['value']:>14,.0f} {r['unit']:<9} ({r['note']}){ratio}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the sizes, fewer repeats")
    args = ap.parse_args()
    print_rows(run(args.quick), "bench_generate")
