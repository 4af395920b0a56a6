"""Pictures, hints and the multi-tile metric.

    python bench/bench_visual.py [--quick]     (or python -m bench --only visual)

* hint latency, one board at a time as a game asks, CPU milliseconds, mean
  and worst: 1,000 random 3x3 boards (from the distance table, loaded
  first) and uniform random 4x4 boards (quick: 10, full: 40; the board
  solved once with the pattern database named in the note, loaded first,
  every other neighbour searched only for ``d - 1`` moves); boards 10-20
  moves from the goal; 3x3 hints for a batch of 100,000 boards;
* multi-tile (MTM) optimal solving of 4x4 boards: scrambles solved in full
  (CPU seconds), and uniform random boards under a time limit (status and
  the lower bound proved);
* multi-tile (MTM) distance tables built from scratch (not cached): 3x3 and
  2x5 (full mode also 3x4), CPU seconds, radius and antipodes;
* SVG: ``fp.draw`` of a batch of 1,000 3x3 boards and of one 300x300 heat
  map, seconds and bytes of SVG.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.common import print_header, print_rows, row  # noqa: E402

FAMILY = "visual"


def _hint_latency(boards):
    """Mean, worst and median CPU seconds of one hint."""
    import fastpuzzle as fp

    times = []
    for b in boards:
        c0 = time.process_time()
        fp.hints(b)
        times.append(time.process_time() - c0)
    return float(np.mean(times)), float(np.max(times)), float(np.median(times))


def _mtm_rows(quick):
    import fastpuzzle as fp

    rows, uniform = [], _mtm_uniform_rows(quick)  # the first-use row first: the scrambles would build the tables
    scrambles = fp.scramble(4, 4, 40, count=3 if quick else 6, seed=7)
    fp.solve(scrambles[0], metric="mtm", heuristic="pdb", method="ida")  # compiled first
    from fastpuzzle.search.solve import search_setup

    label = search_setup(4, 4, fp.goal_board(4, 4), "pdb").label  # the database the scrambles were solved on
    times, lengths = [], []
    for b in scrambles:
        c0 = time.process_time()
        s = fp.solve(b, metric="mtm", heuristic="pdb", method="ida")
        times.append(time.process_time() - c0)
        lengths.append(s.length)
    rows.append(row(FAMILY, "MTM solve 4x4, 40-move scrambles, slide databases", float(np.mean(times)), "s",
                    note=f"CPU seconds, mean (worst {max(times):.2f} s) over {len(times)} boards, optimal MTM lengths "
                         f"{min(lengths)}-{max(lengths)}; the slide databases, and {label} over the longest "
                         "slide, as the bound"))  # fmt: skip
    return rows + uniform


def _mtm_uniform_rows(quick):
    """Uniform random 15-puzzles under the multi-tile metric: the slide databases' first use (built,
    or loaded when cached), then each board solved with a time limit."""
    import fastpuzzle as fp
    from fastpuzzle.search.pdb.slides import cache_directory, slide_bounds, slide_tables

    goal = fp.goal_board(4, 4)
    cached = any(cache_directory().glob("4x4-b15-*.npy"))
    t0, c0 = time.perf_counter(), time.process_time()
    tables = slide_tables(goal)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sample = fp.random_solvable(4, 4, count=2000, seed=9).reshape(2000, 16)
    bound = float(slide_bounds(sample, tables).mean())
    rows = [row(FAMILY, "MTM slide databases 4x4, first use", wall, "s",
                note=f"wall, {cpu:.1f} s CPU; {'loaded from the cache' if cached else 'built (once, then cached)'}: "
                     f"{len(tables[1]) // 2} tables of {tables[0].size // 2:,} bytes, {len(tables[1])} lookups a node; "
                     f"mean bound {bound:.2f} slides on 2,000 uniform random boards")]  # fmt: skip
    limit, count = (10.0, 3) if quick else (10.0, 20)
    times, lengths, nodes = _solve_uniform(fp, 4, 4, count, limit)
    rows.append(row(FAMILY, "MTM solve 4x4, uniform random boards, slide databases", float(np.mean(times)), "s",
                    note=f"CPU seconds, mean (worst {max(times):.2f} s, median {np.median(times):.2f} s); {len(nodes)} of "
                         f"{count} proved optimal within {limit:g} s each; optimal MTM lengths {min(lengths)}-{max(lengths)}; "
                         "slide databases as the bound"))  # fmt: skip
    for m, n in [(3, 4), (2, 6)]:  # 12 cells: the tables build in seconds; the single-tile bound alone took millions of nodes
        fp.solve(fp.random_solvable(m, n, seed=1), metric="mtm")  # built (or loaded) first
        times, _, nodes = _solve_uniform(fp, m, n, count, limit)
        rows.append(row(FAMILY, f"MTM solve {m}x{n}, uniform random boards, slide databases", float(np.mean(times)), "s",
                        note=f"CPU seconds, mean (worst {max(times):.4f} s); {len(nodes)} of {count} proved optimal within "
                             f"{limit:g} s each; nodes of those: mean {np.mean(nodes or [0]):,.0f}, most {max(nodes or [0]):,}"))  # fmt: skip
    return rows


def _solve_uniform(fp, m, n, count, limit):
    """CPU seconds of each uniform board's MTM solve, and the lengths and nodes of those proved optimal."""
    times, lengths, nodes = [], [], []
    for b in fp.random_solvable(m, n, count=count, seed=8):
        c0 = time.process_time()
        s = fp.solve(b, metric="mtm", time_limit=limit)
        times.append(time.process_time() - c0)
        if s.status == "optimal":
            lengths.append(s.length)
            nodes.append(s.nodes)
    return times, lengths or [0], nodes


def run(quick: bool = False) -> list[dict]:
    import fastpuzzle as fp
    from fastpuzzle.distances.table import distance_table

    rows = []
    # 3x3 hints: the tables loaded and the kernels warm first
    distance_table(3, 3)
    fp.hints(fp.random_solvable(3, 3, count=4, seed=0))
    mean, worst, median = _hint_latency(fp.random_solvable(3, 3, count=1000, seed=1))
    rows.append(row(FAMILY, "hint 3x3, one board at a time", mean * 1e3, "ms",
                    note=f"CPU, worst {worst * 1e3:.2f} ms, median {median * 1e3:.2f} ms over 1,000 random boards "
                         "(distance table)"))  # fmt: skip
    batch = fp.random_solvable(3, 3, count=100_000, seed=2)
    t0 = time.perf_counter()
    fp.hints(batch)
    rows.append(row(FAMILY, "hints 3x3, batch of 100,000", batch.shape[0] / (time.perf_counter() - t0), "boards/s"))
    # 4x4 hints: every neighbour solved optimally
    count = 10 if quick else 40
    fp.hints(fp.apply_moves(fp.goal_board(4, 4), "ULLURD"))  # compiles, builds or loads the database
    from fastpuzzle.search.solve import search_setup

    label = search_setup(4, 4, fp.goal_board(4, 4), "pdb").label
    mean, worst, median = _hint_latency(fp.random_solvable(4, 4, count=count, seed=3))
    rows.append(row(FAMILY, "hint 4x4, one random board at a time", mean * 1e3, "ms",
                    note=f"CPU, worst {worst * 1e3:.0f} ms, median {median * 1e3:.0f} ms over {count} uniform random "
                         f"boards ({label}: the board solved once, other neighbours bounded at d-1)"))  # fmt: skip
    near = [fp.random_solvable(4, 4, seed=10 + i, distance=(10, 20)) for i in range(10)]
    mean, worst, median = _hint_latency(near)
    rows.append(row(FAMILY, "hint 4x4, boards 10-20 moves from the goal", mean * 1e3, "ms",
                    note=f"CPU, worst {worst * 1e3:.1f} ms, median {median * 1e3:.1f} ms over 10 boards "
                         "(a game near its end)"))  # fmt: skip
    rows += _mtm_rows(quick)
    # multi-tile tables, built from scratch
    distance_table(2, 3, metric="mtm", cache=False)
    for m, n in [(3, 3), (2, 5)] + ([] if quick else [(3, 4)]):
        c0 = time.process_time()
        t = distance_table(m, n, metric="mtm", cache=False)
        cpu = time.process_time() - c0
        rows.append(row(FAMILY, f"MTM table {m}x{n}", cpu, "s",
                        note=f"CPU seconds; {t.size:,} boards, radius {t.radius}, {int(t.counts[-1])} antipodes"))
    # pictures
    boards = fp.random_solvable(3, 3, count=1000, seed=4)
    fp.draw(boards[:10])
    t0 = time.perf_counter()
    svg = fp.draw(boards).svg
    rows.append(row(FAMILY, "SVG of 1,000 3x3 boards", time.perf_counter() - t0, "s", note=f"{len(svg):,} bytes"))
    big = fp.random_solvable(300, 300, seed=5)
    t0 = time.perf_counter()
    svg = fp.draw(big).svg
    rows.append(row(FAMILY, "SVG heat map of one 300x300 board", time.perf_counter() - t0, "s",
                    note=f"{len(svg):,} bytes"))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer boards, smaller tables")
    args = ap.parse_args()
    print_header("pictures, hints and the multi-tile metric")
    print_rows(run(args.quick))
