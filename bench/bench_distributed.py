"""Dask scale-out against the local streaming ``fastpuzzle check``.

Run: ``python bench/bench_distributed.py [--quick] [--boards N] [--dir D]``.
Writes N random 4x4 boards to a ``.npy`` file (10^8 boards, 1.6 GB, in full
mode; 10^7 with --quick), times ``fastpuzzle check FILE --summary`` (local
threads, streaming), then the Dask path (``fastpuzzle.distributed.is_solvable``
over the memory-mapped file) on a LocalCluster of 1 and 2 worker processes,
and reports each one's throughput, its ratio to the local stream, and the peak
memory of every worker next to its chunk size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.bench_io import CHECK_WRAPPER, ROOT, _env, _write_npy  # noqa: E402
from bench.common import print_header, print_rows, row  # noqa: E402

FAMILY = "distributed"


def _peak_rss_kb():
    """VmHWM of the worker (see bench.common.peak_rss_kb; inlined: it runs in the worker)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _local_stream(path, count):
    proc = subprocess.run([sys.executable, "-c", CHECK_WRAPPER, "check", path, "--summary"],
                          capture_output=True, env=_env(), cwd=ROOT, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    assert int(proc.stdout.split("boards:")[1].split()[0]) == count
    solvable = int(proc.stdout.split("solvable:")[1].split()[0])
    return float(proc.stdout.split("seconds:")[1].split()[0]), solvable


def _dask_run(path, workers, cores, chunk_boards, repeats):
    import distributed

    import fastpuzzle.distributed as fd

    threads = max(1, cores // workers)
    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=":0", silence_logs=50, env={"NUMBA_NUM_THREADS": str(threads)},
    )
    try:
        with distributed.Client(cluster) as client:
            x = fd.from_npy(path, chunks=chunk_boards)
            client.compute(fd.is_solvable(x[:1000]).sum()).result()  # warm the kernels in every worker
            client.run(lambda: None)
            times, solvable = [], None
            for _ in range(repeats):
                t = time.perf_counter()
                solvable = int(client.compute(fd.is_solvable(x).sum()).result())
                times.append(time.perf_counter() - t)
            peaks = client.run(_peak_rss_kb)
    finally:
        cluster.close()
    return float(np.median(times)), solvable, [kb * 1024 for kb in peaks.values()], threads


def run(quick: bool = False, boards: int | None = None, workdir: str | None = None) -> list[dict]:
    count = boards or (10_000_000 if quick else 100_000_000)
    cores = os.cpu_count() or 1
    chunk_boards = 1 << 22  # 64 MiB of 4x4 boards per task
    rows = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = os.path.join(tmp, "boards.npy")
        _write_npy(path, count)
        size = os.path.getsize(path)
        _local_stream(path, count)  # warm the page cache and the on-disk JIT cache
        t_local, expected = _local_stream(path, count)
        local_rate = count / t_local
        rows.append(row(FAMILY, f"local streaming check, {count:,} 4x4 ({size / 1e9:.2f} GB)",
                        local_rate / 1e6, "M boards/s", note=f"{t_local:.2f} s, {cores} threads"))
        for workers in (1, 2):
            t, solvable, peaks, threads = _dask_run(path, workers, cores, chunk_boards, 1 if quick else 3)
            assert solvable == expected, (solvable, expected)
            rate = count / t
            rows.append(row(FAMILY, f"Dask, {workers} worker(s) x {threads} Numba thread(s)", rate / 1e6,
                            "M boards/s", rate / local_rate, "local streaming check", f"{t:.2f} s"))
            chunk_mb = chunk_boards * 16 / 1e6
            rows.append(row(FAMILY, f"  peak memory per worker ({workers} worker(s))", max(peaks) / 1e6, "MB",
                            max(peaks) / (chunk_boards * 16), f"chunk {chunk_mb:.0f} MB",
                            "peak RSS of the worker process (Python + Numba + Dask) / chunk size"))
    return rows


if __name__ == "__main__":
    args = sys.argv[1:]
    boards = int(args[args.index("--boards") + 1]) if "--boards" in args else None
    workdir = args[args.index("--dir") + 1] if "--dir" in args else None
    print_header("Dask scale-out")
    print_rows(run(quick="--quick" in args, boards=boards, workdir=workdir))
