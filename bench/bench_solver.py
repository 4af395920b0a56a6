"""Benchmark of the optimal solver (IDA*).

    python bench/bench_solver.py            # Korf's 100 (linear conflict), first 10 (Manhattan), 8-puzzles
    python bench/bench_solver.py --quick    # a subset, about half a minute
    python bench/bench_solver.py --all-manhattan   # also all 100 with Manhattan (several minutes)
    python bench/bench_solver.py --against DIR     # before/after: another checkout vs this one (bench/before_after.py)
    python bench/bench_solver.py --prune           # only Korf's first 10, linear conflict: move automaton vs undo rule

Figures, all with the JIT warm:

* Korf's 100 15-puzzle instances with linear conflict, solved by ``solve_many``
  on 2 threads: total CPU seconds (process time, both threads), wall seconds,
  nodes generated, nodes per CPU second; every length checked against the
  published optimum.
* Korf's first 10 with plain Manhattan distance, one at a time: nodes per
  second, node counts checked against Korf's published counts; side by side
  with a straightforward recursive C IDA* (``bench/baseline_ida_md.c``,
  compiled here with ``cc -O3 -march=native``) on the same boards.
* Korf's first 10 (quick: 5) with linear conflict, one at a time, with the
  undo rule and with the move automaton side by side (``prune=``): CPU
  seconds (medians of 3) and nodes.
* 1,000 random solvable 8-puzzles: boards per second with ``solve_many`` (2
  threads and 1 thread) against a Python loop over ``solve``.
* The move automaton built from its definition (``bench/check_automaton.py``): CPU seconds
  of the 10-move build, and in full mode of the 14-move build, compared with the stored table.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fastpuzzle as fp  # noqa: E402
from bench.check_automaton import automaton_rows  # noqa: E402

DATA = ROOT / "bench" / "data"
KORF_GOAL = np.arange(16).reshape(4, 4)


def _korf():
    rows = [r.split() for r in (DATA / "korf100.txt").read_text().splitlines() if r and not r.startswith("#")]
    boards = np.array([[int(v) for v in r[:16]] for r in rows]).reshape(-1, 4, 4)
    lengths = np.array([int(r[16]) for r in rows])
    nodes = {}
    for r in (DATA / "korf100_manhattan_nodes.txt").read_text().splitlines():
        p = r.split()
        if p and not p[0].startswith("#"):
            nodes[int(p[0]) - 1] = int(p[3])
    return boards, lengths, np.array([nodes[i] for i in range(len(boards))])


def _row(name, value, unit, ratio=None, baseline=None, note=""):
    return {"family": "solver", "name": name, "value": value, "unit": unit, "ratio": ratio,
            "baseline": baseline, "note": note}  # fmt: skip


def _warm():
    fp.solve([[1, 2, 3], [4, 0, 6], [7, 5, 8]], heuristic="manhattan")
    fp.solve([[1, 2, 3], [4, 0, 6], [7, 5, 8]], time_limit=1.0)
    fp.solve_many(np.array([[[1, 2, 3], [4, 0, 6], [7, 5, 8]]] * 4), threads=2)
    fp.solve_many(np.array([[[1, 2, 3], [4, 0, 6], [7, 5, 8]]] * 4), heuristic="manhattan", threads=2)
    b, _, _ = _korf()
    fp.solve(b[11], goal=KORF_GOAL)


def bench_korf_lc(picks, threads=2):
    boards, lengths, _ = _korf()
    c0, w0 = time.process_time(), time.perf_counter()
    res = fp.solve_many(boards[picks], goal=KORF_GOAL, heuristic="linear_conflict", threads=threads)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    wrong = int((res.lengths != lengths[picks]).sum())
    nodes = int(res.nodes.sum())
    what = f"Korf's {len(picks)}" if len(picks) == 100 else f"Korf's first {len(picks)}"
    note = f"{len(picks) - wrong}/{len(picks)} optimal lengths match"
    return [
        _row(f"{what}, linear conflict: CPU", cpu, "s", note=note + "; goal < 60 s for all 100"),
        _row(f"{what}, linear conflict: wall, {threads} threads", wall, "s", note=note),
        _row(f"{what}, linear conflict: nodes", nodes, "nodes"),
        _row(f"{what}, linear conflict: nodes/s (CPU)", nodes / cpu, "nodes/s"),
    ], wrong


def _c_baseline(boards):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "ida_md")
        subprocess.run([cc, "-O3", "-march=native", "-o", exe, str(ROOT / "bench" / "baseline_ida_md.c")], check=True)
        text = "\n".join(" ".join(map(str, b.ravel())) for b in boards) + "\n"
        out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [line.split() for line in out if line.strip()]
    return np.array([int(r[1]) for r in rows]), np.array([float(r[2]) for r in rows])


def bench_korf_md(picks, repeats):
    boards, lengths, published = _korf()
    rates, base_rates = [], []
    mismatch = 0
    total = 0
    for _ in range(repeats):
        nodes = cpu = 0
        for i in picks:
            c0 = time.process_time()
            sol = fp.solve(boards[i], goal=KORF_GOAL, heuristic="manhattan", prune="undo")  # Korf's counting
            cpu += time.process_time() - c0
            nodes += sol.nodes
            mismatch += int(sol.nodes != published[i] or sol.length != lengths[i])
        rates.append(nodes / cpu)
        total = nodes
        base = _c_baseline(boards[picks])
        if base is not None:
            base_rates.append(base[0].sum() / base[1].sum())
            mismatch += int((base[0] != published[picks]).sum())
    ours = statistics.median(rates)
    what = f"Korf's first {len(picks)}" if list(picks) == list(range(len(picks))) else f"Korf's {len(picks)} instances"
    rows = [_row(f"{what}, Manhattan: nodes", total, "nodes",
                 note="node counts equal Korf's published counts" if mismatch == 0 else f"{mismatch} MISMATCHES")]  # fmt: skip
    if base_rates:
        b = statistics.median(base_rates)
        rows.append(_row(f"{what}, Manhattan: nodes/s", ours, "nodes/s", ratio=ours / b, baseline=b,
                         note="baseline: recursive C IDA* (bench/baseline_ida_md.c, cc -O3)"))  # fmt: skip
    else:
        rows.append(_row(f"{what}, Manhattan: nodes/s", ours, "nodes/s", note="no C compiler: baseline skipped"))
    return rows, mismatch


def bench_korf_md_all(threads=2):
    """All 100 with Manhattan on ``threads`` threads: every node count checked (no C run: minutes)."""
    boards, lengths, published = _korf()
    c0, w0 = time.process_time(), time.perf_counter()
    res = fp.solve_many(boards, goal=KORF_GOAL, heuristic="manhattan", threads=threads, prune="undo")
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    bad = np.flatnonzero((res.nodes != published) | (res.lengths != lengths))
    note = "all 100 node counts equal Korf's published counts" if bad.size == 0 else f"MISMATCH at {bad.tolist()}"
    nodes = int(res.nodes.sum())
    return [
        _row("Korf's 100, Manhattan: nodes", nodes, "nodes", note=note),
        _row("Korf's 100, Manhattan: CPU", cpu, "s"),
        _row(f"Korf's 100, Manhattan: wall, {threads} threads", wall, "s"),
        _row("Korf's 100, Manhattan: nodes/s (CPU)", nodes / cpu, "nodes/s"),
    ]


def bench_korf_lc_pruning(picks, repeats):
    """Korf's instances with linear conflict, one at a time, with the undo rule
    and with the move automaton side by side (each board in both before the
    next one): nodes, and the median CPU seconds of ``repeats`` runs."""
    boards, lengths, _ = _korf()
    cpu = {p: np.zeros((repeats, len(picks))) for p in ("undo", "automaton")}
    nodes = {p: 0 for p in cpu}
    for j, i in enumerate(picks):
        for r in range(repeats):
            for prune in cpu:
                c0 = time.process_time()
                sol = fp.solve(boards[i], goal=KORF_GOAL, prune=prune)
                cpu[prune][r, j] = time.process_time() - c0
                if sol.length != lengths[i] or not sol.verify(boards[i], goal=KORF_GOAL):
                    raise SystemExit(f"Korf #{i + 1}, prune={prune}: {sol.length} moves, expected {lengths[i]}")
                nodes[prune] += sol.nodes if r == 0 else 0
    total = {p: float(np.median(c, axis=0).sum()) for p, c in cpu.items()}
    what = f"Korf's first {len(picks)}, linear conflict"
    return [
        _row(f"{what}, undo rule: CPU", total["undo"], "s", note=f"{nodes['undo']:,} nodes; one at a time"),
        _row(f"{what}, move automaton: CPU", total["automaton"], "s", ratio=total["automaton"] / total["undo"],
             baseline=total["undo"], note=f"{nodes['automaton']:,} nodes ({nodes['automaton'] / nodes['undo']:.3f} of "
             f"the undo rule's); medians of {repeats}, same run; ratio = automaton / undo rule"),
    ]  # fmt: skip


def bench_8puzzle(count, repeats):
    rng = np.random.default_rng(2024)
    boards = np.empty((count, 3, 3), np.int64)
    for k in range(count):
        b = rng.permutation(9)
        if not fp.is_solvable(b.reshape(3, 3)):
            i, j = np.flatnonzero(b != 0)[:2]
            b[i], b[j] = b[j], b[i]
        boards[k] = b.reshape(3, 3)
    t2, t1, c1, tl = [], [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        r2 = fp.solve_many(boards, threads=2)
        t2.append(time.perf_counter() - t)
        t, c = time.perf_counter(), time.process_time()
        r1 = fp.solve_many(boards, threads=1)
        t1.append(time.perf_counter() - t)
        c1.append(time.process_time() - c)
        t = time.perf_counter()
        loop = [fp.solve(b) for b in boards]
        tl.append(time.perf_counter() - t)
    assert r1.lengths.tolist() == r2.lengths.tolist() == [s.length for s in loop]
    s2, s1, sc, sl = (count / statistics.median(x) for x in (t2, t1, c1, tl))
    note = f"{count} uniform random solvable boards, mean length {r2.lengths.mean():.2f}"
    return [
        _row(f"{count} random 8-puzzles: solve_many, 2 threads", s2, "boards/s", ratio=s2 / sl, baseline=sl,
             note=note + "; baseline: Python loop over solve()"),
        _row(f"{count} random 8-puzzles: solve_many, 1 thread", s1, "boards/s", ratio=s1 / sl, baseline=sl,
             note="baseline: Python loop over solve()"),
        _row(f"{count} random 8-puzzles: solve_many, 1 thread, per CPU second", sc, "boards/s",
             note="process time: what an unloaded core gives"),
    ]  # fmt: skip


def run(quick: bool = False, all_manhattan: bool = False) -> list:
    """Run the benchmark; returns rows {family, name, value, unit, ratio, baseline, note}."""
    _warm()
    rows = []
    lc_picks = list(range(10)) if quick else list(range(100))
    r, _ = bench_korf_lc(lc_picks)
    rows += r
    md_picks = [8, 11, 1, 4] if quick else list(range(10))
    r, _ = bench_korf_md(md_picks, repeats=3 if quick else 1)
    rows += r
    rows += bench_korf_lc_pruning(list(range(5 if quick else 10)), repeats=1 if quick else 3)
    if all_manhattan:
        rows += bench_korf_md_all()
    rows += bench_8puzzle(300 if quick else 1000, repeats=3)
    rows += automaton_rows(quick)
    return rows


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return f"{v:,}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a subset (about half a minute)")
    ap.add_argument("--all-manhattan", action="store_true", help="also all 100 instances with Manhattan (minutes)")
    ap.add_argument("--against", metavar="DIR", help="compare the engine with the checkout in DIR (before/after)")
    ap.add_argument("--count", type=int, default=10, help="with --against: Korf's first COUNT instances")
    ap.add_argument("--prune", action="store_true", help="only the move automaton against the undo rule (Korf's first 10)")
    args = ap.parse_args(argv)
    if args.prune:
        _warm()
        for r in bench_korf_lc_pruning(list(range(10)), repeats=3):
            print(f"{r['name']:<55} {r['value']:>10.3f} {r['unit']}  ratio {r['ratio'] or '-'}  ({r['note']})")
        return
    if args.against:
        from bench.before_after import compare

        print("\n".join(compare(args.against, args.count)))
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"fastpuzzle solver benchmark; cores: {os.cpu_count()}; numba threads: {fp._jit.numba.get_num_threads()}; "
          f"load average at start: {load:.1f}")  # fmt: skip
    rows = run(args.quick, args.all_manhattan)
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        ratio = f"  x{r['ratio']:.2f} vs {_fmt(r['baseline'])}" if r["ratio"] is not None else ""
        note = f"  ({r['note']})" if r["note"] else ""
        print(f"{r['name']:<{width}}  {_fmt(r['value']):>14} {r['unit']}{ratio}{note}")


if __name__ == "__main__":
    main()
