"""Board files and the command line: streaming ``check`` and the judge format.

    python bench/bench_io.py [--quick] [--boards N] [--dir DIR]

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
   ``ratio`` = C seconds / our seconds (>= 1: at least as fast).
"""

from __future__ import annotations

import argparse
import os
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
from fastpuzzle.textio import NpyWriter, format_boards  # noqa: E402

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
            f.write(format_boards(random_permutations(n, n, count=2, seed=1000 + k), "grids"))


def _time_cmd(cmd, stdin_path, repeats, env=None):
    times, out = [], None
    for _ in range(repeats):
        with open(stdin_path, "rb") as f:
            t = time.perf_counter()
            proc = subprocess.run(cmd, stdin=f, capture_output=True, env=env, cwd=ROOT)
            times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed: {proc.stderr.decode()[-500:]}")
        out = proc.stdout
    return float(np.median(times)), out


def bench_judge(workdir, repeats):
    path = os.path.join(workdir, "bench_judge.txt")
    exe = os.path.join(workdir, "judge_scanf")
    try:
        _make_judge_input(path)
        mb = os.path.getsize(path) / 1e6
        cmd = [sys.executable, "-m", "fastpuzzle", "reach", "--judge"]
        subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, env=_env(), cwd=ROOT)  # warm the cache
        t_ours, ours = _time_cmd(cmd, path, repeats, _env())
        cc = shutil.which("cc") or shutil.which("gcc")
        t_c = None
        if cc:
            subprocess.run([cc, "-O2", "-o", exe, str(ROOT / "bench" / "judge_scanf.c")], check=True)
            t_c, theirs = _time_cmd([exe], path, repeats)
            if theirs != ours:
                raise AssertionError("the C baseline and fastpuzzle disagree on the judge input")
    finally:
        for p in (path, exe):
            if os.path.exists(p):
                os.unlink(p)
    answers = ours.decode().split()
    return [row(FAMILY, f"judge 20 cases n=499 ({mb:.0f} MB), start-up included", t_ours, "s",
                (t_c / t_ours) if t_c else None, f"C scanf {t_c:.2f} s" if t_c else "C scanf: no compiler here",
                f"{answers.count('TAK')} TAK / {answers.count('NIE')} NIE, answers equal to C; ratio = C s / ours")]


def run(quick: bool = False, boards: int | None = None, workdir: str | None = None) -> list[dict]:
    count = boards or (10_000_000 if quick else 100_000_000)
    workdir = workdir or tempfile.gettempdir()
    rows = bench_check(workdir, count)
    rows += bench_judge(workdir, 3 if quick else 5)
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10,000,000 boards, fewer repeats")
    ap.add_argument("--boards", type=int, help="boards in the .npy file (default 10^8, quick 10^7)")
    ap.add_argument("--dir", help="where to write the temporary files (default: the temp dir)")
    args = ap.parse_args()
    print_header("board files: streaming check and the judge format")
    print_rows(run(args.quick, args.boards, args.dir))
