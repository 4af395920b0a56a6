"""``fastpuzzle demo``: a short report on built-in data -- generate, check, judge, solve."""

from __future__ import annotations

import os
import time

from .common import CLIError, positive_arg, seed_arg, shape_arg

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register ``demo``."""
    d = subparsers.add_parser(
        "demo",
        help="a short report on built-in data: generate, check, judge, solve (a few seconds)",
        description="Generate random solvable boards and random permutations, check them all, answer a "
        "judge case and solve a few boards; print throughput and the share solvable. The kernels are "
        "compiled (first run only) or loaded from the cache before anything is timed.",
    )
    d.add_argument("--count", type=positive_arg, default=1_000_000, help="boards of each kind (default 1,000,000)")
    d.add_argument("--shape", type=shape_arg, default=(4, 4), help="board shape (default 4x4)")
    d.add_argument("--seed", type=seed_arg, default=2024, help="seed (default 2024)")
    d.set_defaults(run=run)


#: Each timed step runs until this much time has passed (and at least MIN_RUNS times):
#: the rate printed is the median of those runs, stable from run to run.
STABLE_SECONDS = 0.3
MIN_RUNS = 3
MAX_RUNS = 50


def _timed(fn, *a, **k):
    """``(result, seconds)``: the median time of repeated warm calls of ``fn``."""
    times = []
    while len(times) < MIN_RUNS or (sum(times) < STABLE_SECONDS and len(times) < MAX_RUNS):
        t = time.perf_counter()
        result = fn(*a, **k)
        times.append(time.perf_counter() - t)
    times.sort()
    return result, times[len(times) // 2]


def run(args) -> int:
    """Run ``demo``: compile (or load) the kernels first, then time warm calls only."""
    import sys

    import numba

    from ..generate import random_permutations, random_solvable
    from ..memory import check_allocation
    from ..io.judging import judge
    from ..solvability import is_solvable
    from ..warmup import judge_case_text, warm_kernels
    from .solve import demo_lines

    (m, n), count, seed = args.shape, args.count, args.seed
    check_allocation(2 * count * m * n * 8, f"--count {count:,}: {m}x{n} boards of each kind")
    print(f"fastpuzzle demo: {count:,} {m}x{n} boards, {numba.get_num_threads()} threads on {os.cpu_count()} CPUs")
    sys.stdout.flush()  # the first run compiles for a while: say what is happening first
    print(f"  {warm_kernels(m, n).message()}")
    good, t_gen = _timed(random_solvable, m, n, count=count, seed=seed)
    perms, t_perm = _timed(random_permutations, m, n, count=count, seed=seed + 1)
    ok_good, t_chk1 = _timed(is_solvable, good)
    ok_perm, t_chk2 = _timed(is_solvable, perms)
    t_chk = t_chk1 + t_chk2

    def rate(k, s):
        return f"{k / s / 1e6:8.1f} M boards/s" if s > 0 else "      -"

    print(f"  generate {count:>11,} solvable boards      {t_gen:7.3f} s  {rate(count, t_gen)}")
    print(f"  generate {count:>11,} random permutations  {t_perm:7.3f} s  {rate(count, t_perm)}")
    print(f"  check    {2 * count:>11,} boards (validated)   {t_chk:7.3f} s  {rate(2 * count, t_chk)}")
    print(f"  share solvable: generated {100 * ok_good.mean():.3f}%, random permutations {100 * ok_perm.mean():.3f}%")
    if not ok_good.all():
        raise CLIError("internal error: a generated board is not solvable")
    # the judge problem on one case of 499x499 boards (the largest it allows)
    text = judge_case_text(499, seed=seed)
    answer, t_judge = _timed(judge, text)
    print(f"  judge    1 case of two 499x499 grids      {t_judge:7.3f} s  ({len(text) / 1e6:.1f} MB of text) -> {answer[0]}")
    for line in demo_lines(good, seed=seed):
        print(f"  {line}")
    return 0
