"""Exact distances: whole-space tables, boards of a chosen distance, the Dask search.

    python bench/bench_distances.py [--quick]     (or python -m bench --only distances)
    python bench/bench_distances.py --dask        the Dask search of 3x4 alone
    python bench/bench_distances.py --shipping    offsets a Dask pass ships per board (sampled)
    python bench/bench_distances.py --radii       radii and antipodes alone
    python bench/bench_distances.py --acceptance [N]   4x4 distance shares alone (N boards, default 10,000)

* whole-space search of 3x3, 3x4 and 2x6 (quick: 3x3, 2x5), each in a fresh
  process with an empty cache and the kernels compiled first: wall and CPU
  seconds, peak memory (VmHWM);
* radius and antipode count of every shape up to 12 cells, both orientations,
  lines included (quick: up to 10 cells); 12-cell tables from the disk cache;
* ``random_solvable(3, 3, count=10**6, distance=k)``: boards per second;
* 4x4: optimal distances of 10,000 uniform random boards (quick: 100), the
  share at each distance (the acceptance rate of ``distance=k``) and of
  50..55, and ``random_solvable(4, 4, distance=(50, 55))`` boards per second;
* full mode: the Dask search of 3x4 on ``LocalCluster(n_workers=2,
  threads_per_worker=1)``, wall and CPU seconds beside the local search's,
  counts and every depth checked equal to the local table, and the offsets
  shipped between slices.
"""

from __future__ import annotations

import json
import math
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


#: Every 2-D shape up to 12 cells, both orientations (lines are checked apart).
RADII_SHAPES = ((2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (2, 5), (5, 2), (2, 6), (6, 2), (3, 4), (4, 3))


def _radii(rows, quick, built):
    """Radius and antipodes of every shape up to 12 cells (quick: up to 10).

    The 12-cell tables come from the disk cache (built once, about a minute
    of CPU and 240 MB each, one at a time)."""
    from fastpuzzle.distances import distance_table

    lines = []
    for cells in range(2, 13):
        for m, n in ((1, cells), (cells, 1)):
            t = distance_table(m, n, cache=False)
            lines.append(t.radius == cells - 1 and t.counts.tolist() == [1] * cells)
    rows.append(row(FAMILY, "radius 1xN and Nx1, N = 2..12", "N-1", "moves",
                    note=f"1 antipode each; every line table checked: {all(lines)}"))  # fmt: skip
    for m, n in RADII_SHAPES:
        if quick and m * n > 10:
            continue
        if (m, n) in built:
            radius, k = built[(m, n)]["radius"], built[(m, n)]["antipodes"]
        else:
            t = distance_table(m, n, progress=False)
            radius, k = t.radius, int(t.counts[-1])
            del t
        rows.append(row(FAMILY, f"radius {m}x{n}", radius, "moves",
                        note=f"{k:,} antipode{'s' if k != 1 else ''}, {math.factorial(m * n) // 2:,} boards"))  # fmt: skip


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


def _near_goal_4x4(rows, quick):
    """Exact draws near the goal on 4x4: the layers' first build, then warm draws."""
    import fastpuzzle as fp
    from fastpuzzle.distances import near

    depth = 18 if quick else 23  # 23: the farthest layer under near.MAX_LAYER on 4x4
    near._CACHE.clear()
    fp.random_solvable(3, 3, count=1, seed=0)  # the generator's own kernels, not the layers
    c0, t0 = time.process_time(), time.perf_counter()
    layers = near.layers_near_goal(fp.goal_board(4, 4), depth)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rows.append(row(FAMILY, f"4x4 layers near the goal to distance {depth}", round(cpu, 2), "s",
                    note=f"CPU, first build; wall {wall:.2f} s; {sum(len(x) for x in layers):,} boards; "
                         f"layer {depth}: {len(layers[depth]):,} boards"))  # fmt: skip
    count = 10**5 if quick else 10**6
    for k in (10, depth):
        fp.random_solvable(4, 4, count=10, seed=0, distance=k)
        t0 = time.perf_counter()
        fp.random_solvable(4, 4, count=count, seed=1, distance=k)
        s = time.perf_counter() - t0
        rows.append(row(FAMILY, f"random_solvable 4x4 distance={k}", round(count / s), "boards/s",
                        note=f"{count:,} boards, exact draws from the layers near the goal"))  # fmt: skip


def _acceptance_4x4(rows, sample, solver_rows=True):
    """Optimal distances of ``sample`` uniform random 4x4 boards (7-8 database
    when cached): the share at each distance, the acceptance of
    ``random_solvable(4, 4, distance=k)``."""
    import fastpuzzle as fp
    from fastpuzzle.distances import distance

    boards = fp.random_solvable(4, 4, count=sample, seed=123)
    distance(boards[:2])  # compile, load the database
    c0, t0 = time.process_time(), time.perf_counter()
    d = np.concatenate([distance(boards[i : i + 100]) for i in range(0, sample, 100)])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    hist = np.bincount(d, minlength=81)
    shown = ", ".join(f"{k}: {hist[k]}" for k in range(int(d.min()), int(d.max()) + 1))
    rows.append(row(FAMILY, "4x4 optimal distances of uniform boards", sample, "boards",
                    note=f"mean {d.mean():.2f}, min {d.min()}, max {d.max()}; {wall / sample * 1e3:.0f} ms wall, "
                         f"{cpu / sample * 1e3:.0f} ms CPU per solve; boards per distance: {shown}"))  # fmt: skip
    for k in range(int(d.min()), int(d.max()) + 1):
        p = hist[k] / sample
        rows.append(row(FAMILY, f"4x4 acceptance of distance {k}", round(float(p), 4), "share",
                        note=f"{hist[k]} of {sample}, +-{math.sqrt(p * (1 - p) / sample):.4f} (1 s.e.)"))  # fmt: skip
    inside = float(((d >= 50) & (d <= 55)).mean())
    rows.append(row(FAMILY, "4x4 acceptance of distance 50..55", round(inside, 4), "share",
                    note=f"{int(round(inside * sample))} of {sample}"))  # fmt: skip
    if not solver_rows:
        return
    count = 10
    t0 = time.perf_counter()
    fp.random_solvable(4, 4, count=count, seed=7, distance=(50, 55))
    s = time.perf_counter() - t0
    rows.append(row(FAMILY, "random_solvable 4x4 distance=(50, 55)", round(count / s, 2), "boards/s",
                    note=f"{count} boards by rejection"))  # fmt: skip


def vertical_leaving(m, n, slices, sample=200_000, seed=5):
    """Vertical neighbours per board that lie in another slice when the rank
    range of ``m x n`` is cut into ``slices`` slices of whole tile-order
    blocks (as :func:`distance_table_dask` cuts it), on ``sample`` uniform
    boards: the offsets a step ships per board of its layer."""
    from fastpuzzle.distances.ranking import StateSpace

    space = StateSpace(m, n)
    N = space.cells
    edges = np.unique(np.linspace(0, space.orders, slices + 1).astype(np.int64))
    ranks = np.random.default_rng(seed).integers(0, space.size, size=sample, dtype=np.int64)
    flat = space.boards(ranks).reshape(sample, N)
    blank = np.argmax(flat == 0, axis=1)
    owner = np.searchsorted(edges, ranks // N, side="right")
    leaving = 0
    for step in (-n, n):
        ok = (blank + step >= 0) & (blank + step < N)
        moved = flat[ok].copy()
        rows, b = np.arange(moved.shape[0]), blank[ok]
        moved[rows, b], moved[rows, b + step] = moved[rows, b + step], 0
        there = np.searchsorted(edges, space.ranks(moved) // N, side="right")
        leaving += int((there != owner[ok]).sum())
    return leaving / sample


def _shipping(rows, measured=None):
    """Offsets shipped per board: sampled for 3x4 (beside the measured run) and for 2x7 and 3x5
    cut into 1 GB slices (1 byte per board)."""
    for m, n, slices in ((3, 4, 4), (2, 7, 44), (3, 5, 654)):
        per_board = vertical_leaving(m, n, slices)
        size = math.factorial(m * n) // 2
        note = f"sampled on 200,000 boards; {size * per_board * 4 / 1e9:,.1f} GB of offsets over the whole search"
        if (m, n) == (3, 4) and measured is not None:
            note += f"; measured in the Dask run: {measured:.3f}"
        rows.append(row(FAMILY, f"dask {m}x{n} offsets per board, {slices} slices", round(per_board, 3),
                        "per board", note=note))  # fmt: skip


def _worker_cpu(client):
    return sum(client.run(time.process_time).values())


def _dask_3x4(rows, built, m=3, n=4, partitions=4):
    """The Dask search of ``m x n`` on a 2-worker LocalCluster against the local table."""
    try:
        import distributed
    except ImportError:  # pragma: no cover
        rows.append(row(FAMILY, f"dask {m}x{n}", None, "", note="distributed not installed"))
        return
    from fastpuzzle.distances import distance_table
    from fastpuzzle.distances.cluster import distance_table_dask

    local_run = built.get((m, n)) or measure_build(m, n)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=50)  # fmt: skip
    stats = {}
    with distributed.Client(cluster) as client:
        distance_table_dask(2, 4, client=client, partitions=partitions)  # compile on the workers
        w0, c0, t0 = _worker_cpu(client), time.process_time(), time.perf_counter()
        remote = distance_table_dask(m, n, client=client, partitions=partitions, stats=stats)
        wall = time.perf_counter() - t0
        workers, client_cpu = _worker_cpu(client) - w0, time.process_time() - c0
    cluster.close()
    local = distance_table(m, n, progress=False)
    same_counts = remote.counts.tolist() == local.counts.tolist()
    same_depths = bool((np.asarray(remote.depths[: local.size]) == np.asarray(local.depths[: local.size])).all())
    shipped = int(stats["shipped"].sum())
    rows.append(row(FAMILY, f"dask {m}x{n} wall seconds (LocalCluster 2x1)", round(wall, 1), "s",
                    ratio=round(wall / local_run["wall"], 2), baseline=f"local search {local_run['wall']:.1f} s wall",
                    note=f"counts equal: {same_counts}, every depth equal: {same_depths}; {stats['partitions']} slices, "
                         f"{stats['passes']} passes"))  # fmt: skip
    rows.append(row(FAMILY, f"dask {m}x{n} CPU seconds", round(workers + client_cpu, 1), "s",
                    ratio=round((workers + client_cpu) / local_run["cpu"], 2),
                    baseline=f"local search {local_run['cpu']:.1f} s CPU",
                    note=f"workers {workers:.1f} s, client and scheduler {client_cpu:.1f} s; "
                         f"{local.size / workers / 1e6:.2f} M boards per worker CPU-second"))  # fmt: skip
    rows.append(row(FAMILY, f"dask {m}x{n} offsets shipped", round(shipped / local.size, 3), "per board",
                    note=f"{shipped:,} uint32 offsets ({shipped * 4 / 2**20:,.0f} MiB) in all, "
                         f"peak pass {int(stats['shipped'].max()) * 4 / 2**20:,.0f} MiB"))  # fmt: skip
    _shipping(rows, shipped / local.size)
    if not (same_counts and same_depths):
        raise SystemExit(f"the Dask search differs from the local search on {m}x{n}")


def run(quick: bool) -> list[dict]:
    rows = []
    print(f"cores: {os.cpu_count()}", file=sys.stderr)
    built = _builds(rows, quick)
    _radii(rows, quick, built)
    _generation_3x3(rows, quick)
    _near_goal_4x4(rows, quick)
    _acceptance_4x4(rows, 100 if quick else 10000)
    if not quick:
        _dask_3x4(rows, built)
    return rows


def main(argv=None):
    """``--quick``; or one part alone: ``--dask``, ``--shipping``, ``--radii``, ``--acceptance [N]`` (boards, default 10,000)."""
    args = list(argv if argv is not None else sys.argv[1:])
    print_header("exact distances")
    print(f"# cores: {os.cpu_count()}")
    rows = []
    if "--dask" in args:
        _dask_3x4(rows, {})
    elif "--shipping" in args:
        _shipping(rows)
    elif "--radii" in args:
        _radii(rows, False, {})
    elif "--acceptance" in args:
        i = args.index("--acceptance")
        sample = int(args[i + 1]) if i + 1 < len(args) and args[i + 1].isdigit() else 10000
        _acceptance_4x4(rows, sample, solver_rows=False)
    else:
        rows = run("--quick" in args)
    print_rows(rows)


if __name__ == "__main__":
    main()
