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
Prints the core count and thread count first.
"""

from __future__ import annotations

import argparse
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.common import median_seconds, print_header, print_rows, row  # noqa: E402
from fastpuzzle.generate import random_permutations, random_solvable, scramble  # noqa: E402
from fastpuzzle.solvability import is_solvable  # noqa: E402

FAMILY = "generate"


def _median_time(fn, repeats):
    return median_seconds(fn, repeats, warmup=0)


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
        base = f"numpy Generator.permuted {t_np:.3f} s"
        rows.append(row(FAMILY, f"random_solvable {label}", count / t_sol, "boards/s", t_np / t_sol, base,
                        f"{t_sol:.3f} s, uniform over solvable boards"))
        rows.append(row(FAMILY, f"random_permutations {label}", count / t_perm, "boards/s", t_np / t_perm, base,
                        f"{t_perm:.3f} s, plain shuffles: the same work as NumPy"))
    count, k = (1_000_000, 100) if not quick else (100_000, 100)
    t_scr = _median_time(lambda: scramble(4, 4, k, count=count, seed=1), repeats)
    rows.append(row(FAMILY, f"scramble {count:,} 4x4 x {k} moves", count * k / t_scr, "moves/s",
                    note=f"{t_scr:.3f} s"))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the sizes, fewer repeats")
    args = ap.parse_args()
    print_header("generation: random solvable boards, permutations, scrambles")
    print_rows(run(args.quick))
