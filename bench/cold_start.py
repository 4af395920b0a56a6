"""The first run: CPU and wall seconds of ``fastpuzzle demo`` on an empty cache, and what compiles.

    python bench/cold_start.py [--rounds 3] [--against /other/checkout] [--kernels] [-- DEMO ARGS]

Each run is a fresh process whose ``NUMBA_CACHE_DIR`` and ``FASTPUZZLE_CACHE``
are new empty folders, so every kernel the demo needs is compiled.  The CPU
time is the child's (``resource.getrusage(RUSAGE_CHILDREN)``, user + system),
which a load on the other cores does not inflate the way it does wall time; it holds the
process that compiles the solver's engine alongside (``fastpuzzle.warmup``), whose gain shows
in the wall time a user waits.
With ``--against`` the two checkouts alternate for ``rounds`` rounds.
``--kernels`` also prints, for one run of this checkout, the CPU seconds of
each compile (a ``numba:compile`` event listener); the times are inclusive: a
kernel's time holds the compiles of the kernels it calls.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

HERE = str(pathlib.Path(__file__).resolve().parent.parent)

#: run in the child: the demo, optionally with a listener that times each compile
CHILD = """
import sys
if {kernels}:
    import atexit, collections, time
    import numba.core.event as ev
    spent, starts = collections.Counter(), []
    class Compiles(ev.Listener):
        def on_start(self, event):
            starts.append(time.process_time())
        def on_end(self, event):
            f = event.data["dispatcher"].py_func
            spent[f.__module__ + "." + f.__qualname__] += time.process_time() - starts.pop()
    ev.register("numba:compile", Compiles())
    atexit.register(lambda: [print(f"{{s:7.2f}} s  {{k}}", file=sys.stderr) for k, s in spent.most_common(20)])
from fastpuzzle.cli import main
sys.exit(main(["demo", *sys.argv[1:]]))
"""


def cold_demo(tree: str, demo_args: list[str], kernels: bool = False) -> tuple[float, float, subprocess.CompletedProcess]:
    """CPU and wall seconds of one demo in ``tree`` on empty caches, and the finished process."""
    with tempfile.TemporaryDirectory() as numba_dir, tempfile.TemporaryDirectory() as data_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_dir, FASTPUZZLE_CACHE=data_dir, PYTHONPATH=tree)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        # cwd=tree: "python -c" puts the working directory first on sys.path, ahead of PYTHONPATH, so a
        # run started in another checkout would import that checkout's package instead
        proc = subprocess.run([sys.executable, "-c", CHILD.format(kernels=kernels), *demo_args], env=env, cwd=tree,
                              capture_output=True, text=True, check=False)  # fmt: skip
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def main(argv=None) -> int:
    """Print the cold demo's CPU and wall seconds per checkout and round."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--against", help="another checkout, run alternately with this one")
    p.add_argument("--kernels", action="store_true", help="also time each compile (one run of this checkout)")
    p.add_argument("demo_args", nargs="*", help="arguments of the demo (after --)")
    args = p.parse_args(argv)
    trees = [HERE] + ([str(pathlib.Path(args.against).resolve())] if args.against else [])
    print(f"cold demo, {os.cpu_count()} CPUs, demo args {args.demo_args or '(default)'}")
    for r in range(args.rounds):
        for tree in trees:
            cpu, wall, proc = cold_demo(tree, args.demo_args)
            print(f"  round {r + 1}  {tree:30s}  {cpu:6.2f} s CPU  {wall:6.2f} s wall  (exit {proc.returncode})", flush=True)
            if proc.returncode:
                print(proc.stderr[-2000:], file=sys.stderr)
    if args.kernels:
        cpu, _, proc = cold_demo(HERE, args.demo_args, kernels=True)
        print(f"compiles in one run ({cpu:.2f} s CPU in all), CPU seconds, inclusive:")
        print(proc.stderr[-4000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
