"""Exact distances: whole-space tables, boards of a chosen distance, the Dask search.

    python bench/bench_distances.py [--quick]     (or python -m bench --only distances)

* whole-space search of 3x3 and 3x4 (quick: 2x5), each in a fresh process with
  an empty cache and the kernels compiled first: wall and CPU seconds, peak
  memory (VmHWM);
* radius and antipode count of every shape up to 12 cells (quick: up to 10);
* ``random_solvable(3, 3, count=10**6, distance=k)``: boards per second;
* 4x4: acceptance rate per distance on uniform random boards (optimal
  pattern-database solves) and ``random_solvable(4, 4, distance=(50, 55))``
  boards per second;
* full mode: the Dask search of 3x4 on a 2-worker LocalCluster, checked equal
  to the local table, and the rate per core it implies for larger shapes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.common import print_header, print_rows, row  # noqa: E402

FAMILY = "distances"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_BUILD = """
import json, sys, time, resource
sys.path.insert(0, %r)
from fastpuzzle.distances import distance_table
distance_table(2, 3, cache=False)  # compile the kernels: not part of the search
c0, t0 = time.process_time(), time.perf_counter()
t = distance_table(%d, %d, cache=False, progress=False)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = 0
for line in open('/proc/self/status'):
    if line.startswith('VmHWM:'):
        peak = int(line.split()[1]) * 1024
print(json.dumps(dict(wall=wall, cpu=cpu, peak=peak, radius=t.radius, antipodes=int(t.counts[-1]),
                      size=int(t.size))))
"""


def measure_build(m, n):
    """Search ``m x n`` in a fresh process with an empty cache."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FASTPUZZLE_CACHE=tmp)
        out = subprocess.run([sys.executable, "-c", _BUILD % (ROOT, m, n)], env=env, capture_output=True,
                             text=True, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _builds(rows, quick):
    shapes = [(3, 3), (2, 5)] if quick else [(3, 3), (3, 4), (2, 6)]
    found = {}
    for m, n in shapes:
        r = measure_build(m, n)
        found[(m, n)] = r
        rate = r["size"] / max(r["cpu"], 1e-9)
        rows.append(row(FAMILY, f"table {m}x{n} wall seconds", round(r["wall"], 3), "s",
                        note=f"cpu {r['cpu']:.2f} s, {r['size']:,} boards, {rate / 1e6:.1f} M boards/cpu-s"))  # fmt: skip
        rows.append(row(FAMILY, f"table {m}x{n} peak memory", round(r["peak"] / 2**20), "MiB",
                        note="VmHWM of a fresh process (Python, NumPy, Numba included)"))  # fmt: skip
    return found


def _radii(rows, quick, built):
    from fastpuzzle.distances import distance_table

    shapes = [(1, 12), (2, 2), (2, 3), (2, 4), (2, 5), (3, 3)] + ([] if quick else [(2, 6), (3, 4)])
    for m, n in shapes:
        if (m, n) in built:
            radius, k = built[(m, n)]["radius"], built[(m, n)]["antipodes"]
        else:
            t = distance_table(m, n, cache=False)
            radius, k = t.radius, int(t.counts[-1])
        rows.append(row(FAMILY, f"radius {m}x{n}", radius, "moves", note=f"{k:,} antipode{'s' if k != 1 else ''}"))


def _generation_3x3(rows, quick):
    import fastpuzzle as fp

    count = 10**5 if quick else 10**6
    fp.random_solvable(3, 3, count=10, seed=0, distance=20)  # compile, build the table
    for k in (0, 20, 24, 31):
        fp.random_solvable(3, 3, count=10, seed=0, distance=k)  # index of depth k (built once per range)
        t0 = time.perf_counter()
        fp.random_solvable(3, 3, count=count, seed=1, distance=k)
        s = time.perf_counter() - t0
        rows.append(row(FAMILY, f"random_solvable 3x3 distance={k}", round(count / s), "boards/s",
                        note=f"{count:,} boards; goal >= 1 M/s"))  # fmt: skip


def _acceptance_4x4(rows, quick):
    import fastpuzzle as fp
    from fastpuzzle.distances import distance

    sample = 40 if quick else 300
    boards = fp.random_solvable(4, 4, count=sample, seed=123)
    distance(boards[:2])  # compile, build the database
    t0 = time.perf_counter()
    d = distance(boards)
    per_board = (time.perf_counter() - t0) / sample
    hist = np.bincount(d, minlength=81)
    shown = ", ".join(f"{k}: {hist[k] / sample:.1%}" for k in range(int(d.min()), int(d.max()) + 1))
    inside = float(((d >= 50) & (d <= 55)).mean())
    rows.append(row(FAMILY, "4x4 acceptance of distance 50..55", round(inside, 3), "share",
                    note=f"{sample} uniform boards, {per_board * 1e3:.0f} ms per optimal solve; per k: {shown}"))  # fmt: skip
    count = 2 if quick else 10
    t0 = time.perf_counter()
    fp.random_solvable(4, 4, count=count, seed=7, distance=(50, 55))
    s = time.perf_counter() - t0
    rows.append(row(FAMILY, "random_solvable 4x4 distance=(50, 55)", round(count / s, 2), "boards/s",
                    note=f"{count} boards by rejection"))  # fmt: skip


def _dask_3x4(rows):
    try:
        import distributed
    except ImportError:  # pragma: no cover
        rows.append(row(FAMILY, "dask 3x4", None, "", note="distributed not installed"))
        return
    from fastpuzzle.distances import distance_table
    from fastpuzzle.distances.cluster import distance_table_dask

    local = distance_table(3, 4)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=50)  # fmt: skip
    with distributed.Client(cluster) as client:
        distance_table_dask(2, 3, client=client)  # compile on the workers
        t0 = time.perf_counter()
        remote = distance_table_dask(3, 4, client=client, partitions=16)
        s = time.perf_counter() - t0
    cluster.close()
    same = remote.counts.tolist() == local.counts.tolist() and bool(
        (np.asarray(remote.depths[: local.size]) == np.asarray(local.depths[: local.size])).all()
    )
    rows.append(row(FAMILY, "dask 3x4 wall seconds (2 workers)", round(s, 1), "s",
                    note=f"equal to the local table: {same}; {local.size / s / 2 / 1e6:.2f} M boards/s per worker"))  # fmt: skip
    if not same:
        raise SystemExit("the Dask search differs from the local search on 3x4")


def run(quick: bool) -> list[dict]:
    rows = []
    print(f"cores: {os.cpu_count()}", file=sys.stderr)
    built = _builds(rows, quick)
    _radii(rows, quick, built)
    _generation_3x3(rows, quick)
    _acceptance_4x4(rows, quick)
    if not quick:
        _dask_3x4(rows)
    return rows


def main(argv=None):
    quick = "--quick" in (argv if argv is not None else sys.argv[1:])
    print_header("exact distances")
    print_rows(run(quick))


if __name__ == "__main__":
    main()
