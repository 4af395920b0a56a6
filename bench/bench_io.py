"""Board files and the command line: streaming ``check`` and the judge format.

    python bench/bench_io.py [--quick] [--boards N] [--dir DIR] [--only check|judge]

1. ``fastpuzzle check FILE.npy --summary`` on a file of N random 4x4 boards
   (default 100,000,000 = 1.6 GB; quick: 10,000,000), run as a separate
   process: boards/s of the streaming loop, wall time with start-up, and peak
   resident memory (goal: under 25% of the file size).  Baseline: in-memory
   ``is_solvable`` (validated) on a 10,000,000-board slice already in RAM.
   The file is written first (so it sits in the page cache) and deleted after.
2. The judge format: 20 cases of two 499x499 grids (65 MB of text) through
   ``python -m fastpuzzle reach --judge`` (start-up included), against a C
   program reading with ``scanf`` (``bench/judge_scanf.c``, compiled here
   with ``cc -O2`` when a compiler exists).  Both answers are compared.
   The two programs alternate run by run; ``ratio`` = median C seconds /
   median our seconds (>= 1: at least as fast), for wall time and for CPU
   time (user + system, steadier on a shared machine), with our start-up
   alone (the same command on an empty input) beside it.
3. The cache files' checksum (``fastpuzzle.cachefile.checksum``) of 577 MB, the size of the
   7-8 database: CPU seconds (``--only checksum``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.common import print_header, print_rows, row  # noqa: E402
from fastpuzzle.generate import generate_chunks, random_permutations  # noqa: E402
from fastpuzzle.solvability import is_solvable  # noqa: E402
from fastpuzzle.io import NpyWriter, format_boards  # noqa: E402

FAMILY = "io"

CHECK_WRAPPER = (
    "import sys, time; t = time.perf_counter(); from fastpuzzle.cli import main; from bench.common import peak_rss_kb; "
    "rc = main(sys.argv[1:]); "
    "print('WALL', time.perf_counter() - t, 'MAXRSS_KB', peak_rss_kb(), "
    "file=sys.stderr); sys.exit(rc)"
)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _write_npy(path, count, m=4, n=4):
    with NpyWriter(path, (count, m, n), np.uint8) as w:
        for _, chunk in generate_chunks(m, n, count, seed=11, kind="permutations", chunk_boards=1 << 22):
            w.write(chunk)


def bench_check(workdir, count):
    path = os.path.join(workdir, "bench_check.npy")
    free = shutil.disk_usage(workdir).free
    if free < count * 16 * 1.2:
        return [row(FAMILY, "check .npy streaming", float("nan"), "boards/s",
                    note=f"skipped: {free / 1e9:.1f} GB free in {workdir}, need {count * 16 / 1e9:.1f}")]
    try:
        _write_npy(path, count)
        size = os.path.getsize(path)
        proc = subprocess.run([sys.executable, "-c", CHECK_WRAPPER, "check", path, "--summary"],
                              capture_output=True, env=_env(), cwd=ROOT)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.decode())
        out = proc.stdout.decode()
        stats = proc.stderr.decode().split()
        wall = float(stats[stats.index("WALL") + 1])
        rss = int(stats[stats.index("MAXRSS_KB") + 1]) * 1024
        loop_s = float(out.split("seconds:")[1].split()[0])
        boards = int(out.split("boards:")[1].split()[0])
        assert boards == count
        # the fixed cost: the same command on a file of 1,000 boards
        tiny = os.path.join(workdir, "bench_check_tiny.npy")
        _write_npy(tiny, 1000)
        proc = subprocess.run([sys.executable, "-c", CHECK_WRAPPER, "check", tiny, "--summary"],
                              capture_output=True, env=_env(), cwd=ROOT)
        os.unlink(tiny)
        st = proc.stderr.decode().split()
        rss_floor = int(st[st.index("MAXRSS_KB") + 1]) * 1024
        # baseline: in-memory is_solvable on a 10^7 slice already in RAM
        k = min(count, 10_000_000)
        mem = np.array(np.load(path, mmap_mode="r")[:k])
        is_solvable(mem[:1000])
        times = []
        for _ in range(3):
            t = time.perf_counter()
            is_solvable(mem)
            times.append(time.perf_counter() - t)
        t_mem = float(np.median(times))
        del mem
    finally:
        if os.path.exists(path):
            os.unlink(path)
    stream_rate = count / loop_s
    mem_rate = k / t_mem
    return [
        row(FAMILY, f"check .npy streaming {count:,} 4x4 ({size / 1e9:.2f} GB)", stream_rate, "boards/s",
            stream_rate / mem_rate, f"in-memory is_solvable {mem_rate:,.0f} boards/s",
            f"loop {loop_s:.2f} s, process wall {wall:.2f} s"),
        row(FAMILY, "check .npy peak memory", rss / 1e6, "MB", rss / size, f"file {size / 1e6:,.0f} MB",
            f"peak RSS of the check process / file size, goal < 0.25; {rss_floor / 1e6:.0f} MB of it is the "
            "process itself (same command on 1,000 boards)"),
    ]


def _make_judge_input(path, cases=20, n=499):
    with open(path, "wb") as f:
        for k in range(cases):
            f.write(f"{n}\n".encode())
            f.write(format_boards(random_permutations(n, n, count=2, seed=1000 + k), fmt="grids"))


def _run_timed(cmd, stdin_path, env=None):
    """``(wall seconds, CPU seconds, stdout)`` of one run; CPU time (user +
    system of the child) moves less with the neighbours' load than wall time."""
    with open(stdin_path, "rb") as f:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(cmd, stdin=f, capture_output=True, env=env, cwd=ROOT)
        elapsed = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, proc.stdout


def bench_judge(workdir, repeats):
    """Ours and C alternate run by run, so a change in the neighbours' load
    hits both; ratio = median C seconds / median ours."""
    path = os.path.join(workdir, "bench_judge.txt")
    exe = os.path.join(workdir, "judge_scanf")
    try:
        _make_judge_input(path)
        mb = os.path.getsize(path) / 1e6
        cmd = [sys.executable, "-m", "fastpuzzle", "reach", "--judge"]
        subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, env=_env(), cwd=ROOT)  # warm the cache
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc:
            subprocess.run([cc, "-O2", "-o", exe, str(ROOT / "bench" / "judge_scanf.c")], check=True)
        ours_s, c_s, ours_cpu, c_cpu, start_cpu = [], [], [], [], []
        for _ in range(repeats):
            start_cpu.append(_run_timed(cmd, os.devnull, _env())[1])  # the same command on an empty input
            t, cpu, ours = _run_timed(cmd, path, _env())
            ours_s.append(t)
            ours_cpu.append(cpu)
            if cc:
                t, cpu, theirs = _run_timed([exe], path)
                c_s.append(t)
                c_cpu.append(cpu)
                if theirs != ours:
                    raise AssertionError("the C baseline and fastpuzzle disagree on the judge input")
        t_ours = float(np.median(ours_s))
        t_c = float(np.median(c_s)) if cc else None
        cpu_ours = float(np.median(ours_cpu))
        cpu_c = float(np.median(c_cpu)) if cc else None
        startup_cpu = float(np.median(start_cpu))
    finally:
        for p in (path, exe):
            if os.path.exists(p):
                os.unlink(p)
    answers = ours.decode().split()
    return [row(FAMILY, f"judge 20 cases n=499 ({mb:.0f} MB), start-up included", t_ours, "s",
                (t_c / t_ours) if t_c else None, f"C scanf {t_c:.2f} s" if t_c else "C scanf: no compiler here",
                f"{answers.count('TAK')} TAK / {answers.count('NIE')} NIE, answers equal to C; ratio = C s / ours, "
                f"median of {repeats}, runs alternating"),
            row(FAMILY, "judge, CPU time (user + system)", cpu_ours, "s", (cpu_c / cpu_ours) if cpu_c else None,
                f"C scanf {cpu_c:.2f} s CPU" if cpu_c else "C scanf: no compiler here",
                f"of ours, {startup_cpu:.2f} s is start-up (the same command on an empty input)")]


def bench_checksum(size: int = 577_000_000) -> list[dict]:
    """CPU seconds of one checksum over ``size`` bytes (the 7-8 database's size), median of 3."""
    import numpy as np

    from fastpuzzle.cachefile import checksum

    data = np.zeros(size, np.uint8)
    checksum(data[:1000])  # warm
    seconds = []
    for _ in range(3):
        c0 = time.process_time()
        checksum(data)
        seconds.append(time.process_time() - c0)
    return [row(FAMILY, "checksum of 577 MB, CPU", sorted(seconds)[1], "s", None, "", "median of 3, one process")]


def run(quick: bool = False, boards: int | None = None, workdir: str | None = None, only: str | None = None) -> list[dict]:
    count = boards or (10_000_000 if quick else 100_000_000)
    workdir = workdir or tempfile.gettempdir()
    rows = bench_check(workdir, count) if only in (None, "check") else []
    if only in (None, "judge"):
        rows += bench_judge(workdir, 3 if quick else 5)
    if only in (None, "checksum"):
        rows += bench_checksum()
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10,000,000 boards, fewer repeats")
    ap.add_argument("--boards", type=int, help="boards in the .npy file (default 10^8, quick 10^7)")
    ap.add_argument("--dir", help="where to write the temporary files (default: the temp dir)")
    ap.add_argument("--only", choices=("check", "judge", "checksum"), help="run one of the two benchmarks")
    args = ap.parse_args()
    print_header("board files: streaming check and the judge format")
    print_rows(run(args.quick, args.boards, args.dir, args.only))
