"""Training workloads: the vector environment against jumanji's SlidingTilePuzzle, and labelled boards.

    python bench/bench_rl.py [--quick]
    python bench/bench_rl.py --against DIR [--rounds 4] [--size 4]   # before/after (bench/rl_before_after.py)

Side by side in one run, on the same machine:

* steps per second of :class:`fastpuzzle.env.SlidingPuzzleVectorEnv` with
  random legal actions (``step(sample_actions())``, two compiled passes, and
  ``step_random()``, one) at 1, 1,000 and
  100,000 boards of 4x4 and 5x5, against jumanji's ``SlidingTilePuzzle``
  on JAX's CPU backend (``jax.vmap`` of its ``step`` and of a masked random
  action over the same number of boards, the whole loop inside one
  ``jax.lax.scan`` under ``jax.jit``: its fastest form; compiled and run
  once before the timed runs, each of which ends on ``jax.block_until_ready``).
  Both sides are compiled and warmed first, then timed in turn in one
  process (our three forms, then jumanji's) for 7 rounds (3 with
  ``--quick``); each rate, wall and per CPU-second, is the median over the
  rounds, so a load that comes and goes weighs on both sides.
  ``ratio`` = our median steps per CPU-second over jumanji's (CPU time: the
  machine's other load does not count, and neither side gains by using
  more cores than the other); the note gives both sides' steps/s too.  jumanji is
  installed for the bench only (``pip install jumanji``); without it the
  rows say so and our side is still measured;
* the CPU time of one ``SlidingPuzzleEnv.step`` called from Python (jumanji's
  jitted step: wall time, its dispatch runs on other threads);
* labelled boards per second: 3x4 from the distance table, 4x4 at distance
  0..23 from the layers near the goal, uniform 4x4 by optimal solves
  (pattern databases on the threads: 7-8 when it is cached, else 6-6-3).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.common import print_header, print_rows, row  # noqa: E402

FAMILY = "rl"

#: The vector env's forms measured, each a row: name (the row name's suffix) -> (:func:`_ours`'s
#: keywords, what the row's note says of it).
FORMS = {
    "default": ({}, "new arrays every step (copy=True, the default)"),
    "step_random": ({"fused": True}, "the moves drawn in the step's own pass, copy=True"),
    "copy=False": ({"copy": False}, "the env's own arrays, overwritten by the next step"),
    "step_random, one thread": ({"fused": True, "threads": 1},
                                "step_random with numba.set_num_threads(1): the step on one core"),
}


def _rates(run, count):
    """``(per second, per CPU-second)`` of ``count`` things done by one call of ``run()``."""
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return count / (time.perf_counter() - start), count / (time.process_time() - cpu)


def _ours_runner(B, m, n, steps, copy=True, fused=False, threads=None):
    """A call that takes ``steps`` steps of a :class:`SlidingPuzzleVectorEnv` of ``B`` boards, its kernels warmed
    (on ``threads`` Numba threads when given, as a user limits them: ``numba.set_num_threads``)."""
    import numba

    from fastpuzzle.env import SlidingPuzzleVectorEnv

    env = SlidingPuzzleVectorEnv(B, m, n, copy=copy)
    env.reset(seed=0)
    step = env.step_random if fused else (lambda: env.step(env.sample_actions()))
    for _ in range(3):  # warm: the kernels compiled or loaded
        step()

    def run():
        for _ in range(steps):
            step()

    if threads is None:
        return run

    def run_on_threads():
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            run()
        finally:
            numba.set_num_threads(before)

    return run_on_threads


def _ours(B, m, n, steps, copy=True, fused=False):
    """``(steps/s, steps per CPU-second)`` of one run of ``steps`` steps at ``B`` boards."""
    return _rates(_ours_runner(B, m, n, steps, copy, fused), B * steps)


def _jumanji_runner(B, m, steps):
    """A call that takes ``steps`` steps of jumanji's SlidingTilePuzzle (``m x m``) at ``B`` boards, compiled
    and run once, each call going on from the last one's state; None without jumanji."""
    try:
        import jax
        import jax.numpy as jnp
        from jumanji.environments import SlidingTilePuzzle
        from jumanji.environments.logic.sliding_tile_puzzle.generator import RandomWalkGenerator
    except ImportError:
        return None
    env = SlidingTilePuzzle(generator=RandomWalkGenerator(grid_size=m, num_random_moves=100))
    keys = jax.random.split(jax.random.PRNGKey(0), B)
    state, ts = jax.jit(jax.vmap(env.reset))(keys)
    step = jax.vmap(env.step)

    def body(carry, _):
        state, mask, key = carry
        key, sub = jax.random.split(key)
        logits = jnp.where(mask, 0.0, -jnp.inf)
        action = jax.random.categorical(sub, logits, axis=-1)
        state, ts = step(state, action)
        return (state, ts.observation.action_mask, key), None

    @jax.jit
    def scan(state, mask, key):
        return jax.lax.scan(body, (state, mask, key), None, length=steps)[0]

    carry = [scan(state, ts.observation.action_mask, jax.random.PRNGKey(1))]  # compiled and warmed
    jax.block_until_ready(carry[0])

    def run():
        carry[0] = scan(*carry[0])
        jax.block_until_ready(carry[0])

    return run


def _jumanji_rate(B, m, steps):
    """``(steps/s, steps per CPU-second)`` of jumanji's SlidingTilePuzzle (``m x m``) at ``B`` boards,
    or None without jumanji."""
    run = _jumanji_runner(B, m, steps)
    return None if run is None else _rates(run, B * steps)


def _alternating(B, m, steps, rounds):
    """Our three forms at ``B`` boards of ``m x m`` and jumanji's in turn, ``rounds`` rounds in this process:
    ``{form: (steps/s, steps per CPU-second)}``, each the median over the rounds, jumanji's None
    without it.  Every side is compiled and warmed before the first round, so a load that comes and
    goes on a shared machine weighs on both sides."""
    runs = {form: _ours_runner(B, m, m, steps, **kw) for form, (kw, _) in FORMS.items()}
    runs["jumanji"] = _jumanji_runner(B, m, steps)
    rates = {form: [] for form, run in runs.items() if run is not None}
    for _ in range(rounds):
        for form in rates:
            rates[form].append(_rates(runs[form], B * steps))
    out = {form: tuple(float(x) for x in np.median(np.array(r), axis=0)) for form, r in rates.items()}
    out.setdefault("jumanji", None)
    return out


def _single_latency(repeats):
    from fastpuzzle.env import SlidingPuzzleEnv

    env = SlidingPuzzleEnv(4, 4, max_steps=None)
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, repeats).tolist()
    step = env.step
    for a in actions[:1000]:
        step(a)
    start = time.process_time()  # CPU time: the machine's other load does not count
    for a in actions:
        step(a)
    return (time.process_time() - start) / repeats


def _jumanji_latency(repeats):
    try:
        import jax
        from jumanji.environments import SlidingTilePuzzle
        from jumanji.environments.logic.sliding_tile_puzzle.generator import RandomWalkGenerator
    except ImportError:
        return None
    env = SlidingTilePuzzle(generator=RandomWalkGenerator(grid_size=4, num_random_moves=100))
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    state, ts = step(state, 0)
    jax.block_until_ready(state)
    start = time.perf_counter()
    for i in range(repeats):
        state, ts = step(state, i & 3)
    jax.block_until_ready(state)
    return (time.perf_counter() - start) / repeats


def _labels_rate(count, m, n, warm=1_000_000, repeats=3, **kw):
    """``(boards/s, boards per CPU-second)``: medians over ``repeats`` calls (neighbours load the cores)."""
    from fastpuzzle import labelled_boards

    # tables, layers and databases loaded, the table's pages touched
    labelled_boards(m, n, min(count, warm), seed=0, **kw)
    rates = []
    for k in range(repeats):
        rates.append(_rates(functools.partial(labelled_boards, m, n, count, seed=1 + k, **kw), count))
    return tuple(float(x) for x in np.median(np.array(rates), axis=0))


def _pdb_name():
    from fastpuzzle.search.pdb.store import cache_path

    return "7-8" if os.path.exists(cache_path("7-8")) else "6-6-3"


def run(quick: bool = False) -> list[dict]:
    rows = []
    # quick: the 100,000-board rows only (each jumanji shape and size is a compile of seconds)
    sizes = (100_000,) if quick else (1, 1_000, 100_000)
    rounds = 3 if quick else 7
    for m in (4, 5):
        for B in sizes:
            steps = {1: 2000, 1_000: 200, 100_000: 50}[B] // (2 if quick else 1)
            rates = _alternating(B, m, steps, rounds)
            theirs = rates["jumanji"]
            medians = f"medians of {rounds} rounds, ours and jumanji's in turn in one process"
            if theirs is None:
                base = "jumanji not installed"
            else:
                base = (f"jumanji SlidingTilePuzzle (jit, vmap, scan), {B:,} boards: {theirs[0]:,.0f} steps/s, "
                        f"{theirs[1]:,.0f} per CPU-second")
            label = f"vector env {m}x{m}, {B:,} boards, random legal actions"
            for form, (_, what) in FORMS.items():
                wall, cpu = rates[form]
                rows.append(row(FAMILY, label + ("" if form == "default" else f", {form}"), wall, "steps/s",
                                None if theirs is None else cpu / theirs[1], base,
                                f"{what}; {cpu:,.0f} steps per CPU-second; {medians}"))
    repeats = 20_000 if quick else 100_000
    ours = _single_latency(repeats)
    theirs = _jumanji_latency(repeats // 10)
    rows.append(row(FAMILY, "single env 4x4, one step from Python", ours * 1e6, "us",
                    None if theirs is None else theirs / ours,
                    "jumanji not installed" if theirs is None else f"jumanji jitted step {theirs * 1e6:.1f} us"))
    count = 1_000_000 if quick else 20_000_000
    rate, cpu = _labels_rate(count, m=3, n=4)
    import numba

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one, _ = _labels_rate(count, m=3, n=4)
    finally:
        numba.set_num_threads(threads)
    rows.append(row(FAMILY, "labelled 3x4 boards, uniform, exact (table)", rate, "boards/s", rate / one,
                    f"one thread {one:,.0f} boards/s",
                    f"{count:,} boards, {threads} threads, medians of 3; {cpu:,.0f} per CPU-second"))
    rate, cpu = _labels_rate(count, m=4, n=4, distance=(0, 23))
    rows.append(row(FAMILY, "labelled 4x4 boards at distance 0..23, exact (layers)", rate, "boards/s",
                    note=f"{count:,} boards, medians of 3; {cpu:,.0f} per CPU-second"))
    count = 20 if quick else 200  # random 4x4 solves vary tenfold: fewer boards say little
    name = _pdb_name()
    from fastpuzzle import pdb

    db = pdb.load(name) if name == "7-8" else pdb.build(name, progress=False)  # 6-6-3 builds in seconds
    np.asarray(db.data).sum()  # every page of the table read in: loading is not labelling
    rate, cpu = _labels_rate(count, m=4, n=4, warm=4, repeats=1)
    rows.append(row(FAMILY, "labelled 4x4 boards, uniform, exact (pattern databases)", rate, "boards/s",
                    note=f"{count} boards, {name}, both cores; {cpu:,.1f} per CPU-second"))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer steps and boards")
    ap.add_argument("--against", metavar="DIR", help="the vector env's step against the checkout in DIR (before/after)")
    ap.add_argument("--rounds", type=int, default=4, help="with --against: processes per checkout, alternating")
    ap.add_argument("--size", type=int, default=4, help="with --against: boards of SIZE x SIZE")
    args = ap.parse_args()
    if args.against:
        from bench.rl_before_after import compare

        print("\n".join(compare(args.against, args.rounds, args.size)))
        sys.exit(0)
    print_header("training workloads: vector environment vs jumanji, labelled boards")
    print_rows(run(args.quick))
