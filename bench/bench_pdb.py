"""Pattern databases: build cost, Korf's 100 with 7-8 + reflection, the 24-puzzle.

    python bench/bench_pdb.py            # full (needs 7-8 and 6-6-6-6 built: fastpuzzle pdb build ...)
    python bench/bench_pdb.py --quick    # 5-5-5 / 6-6-3 on a subset, a minute or so
    python bench/bench_pdb.py --build78  # also build 7-8 in a fresh process (minutes)
    python bench/bench_pdb.py --compare78 DIR [--first N]
        # Korf's 100 with the cached 7-8 and the 7-8 saved in DIR, side by side
    python bench/bench_pdb.py --hard80   # only the 17 positions that need 80 moves (7-8, both prunings)
    python bench/bench_pdb.py --prune    # only Korf's 100 with 7-8: the move automaton against the undo rule
    python bench/bench_pdb.py --partitions   # how often 6-6-3 bounds a state higher than 7-8 (a maximum over both?)

Build figures of 5-5-5 and 6-6-3 are measured here, each in a fresh process
(time and peak resident memory); those of 7-8 and 6-6-6-6 are the ones
recorded in the cache when they were built.  Search figures exclude database
building and loading; CPU seconds are ``time.process_time`` of this process.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastpuzzle import apply_moves, goal_board, pdb, random_solvable  # noqa: E402
from fastpuzzle import heuristics as fp_heuristics  # noqa: E402
from fastpuzzle.search.solve import solve  # noqa: E402
from bench.common import read_instances  # noqa: E402

solve_pdb = functools.partial(solve, heuristic="pdb", method="ida")  # optimal IDA* on the tables

PUBLISHED_NODES_78 = 36_710  # Korf & Felner 2002 / Felner et al. 2004: nodes per instance, 7-8 + reflection
GOAL_CPU_78, GOAL_PEAK_78 = 180.0, 1.5e9  # issue 13: 7-8 build under 3 minutes of CPU within 1.5 GB
CPP_SECONDS_663 = 13.2  # fastest open-source solver measured on this machine (6-6-3 + WD + pruning), all 100


def _row(name, value, unit, ratio=None, baseline=None, note=""):
    return dict(family="pdb", name=name, value=value, unit=unit, ratio=ratio, baseline=baseline, note=note)


def measure_build(name: str) -> dict:
    """Build ``name`` into an empty cache in a fresh process: seconds, peak bytes."""
    code = (
        "import json, sys; sys.path.insert(0, %r)\n"
        "from fastpuzzle import pdb\n"
        "pdb.build('4-4', progress=False)\n"  # compile the kernels first: not part of the build
        "db = pdb.build(%r, progress=False, force=True)\n"
        "print(json.dumps(dict(seconds=db.build_seconds, cpu=db.build_cpu_seconds, peak=db.build_peak_bytes)))\n"
    ) % (str(ROOT), name)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FASTPUZZLE_CACHE=tmp)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_half78() -> dict:
    """The 7-tile half of 7-8 (57.7 M placements) in a fresh process:
    cpu seconds, wall seconds, peak bytes."""
    code = (
        "import json, sys, time; sys.path.insert(0, %r)\n"
        "import numpy as np\n"
        "from fastpuzzle import goal_board, pdb\n"
        "from fastpuzzle.search.pdb.build import peak_rss_bytes\n"
        "from fastpuzzle.search.pdb.build_sets import build_pattern\n"
        "g = goal_board(4, 4)\n"
        "for par in (False, True):\n"  # compile first: not part of the build
        "    build_pattern(np.zeros(16 * 15 * 14, np.uint8), 4, 4, g, (1, 2, 3), parallel=par)\n"
        "tiles = pdb.DATABASES['7-8']['partition'][0]\n"
        "table = np.zeros(pdb.placement_count(16, len(tiles)), np.uint8)\n"
        "c0, t0 = time.process_time(), time.perf_counter()\n"
        "build_pattern(table, 4, 4, g, tiles)\n"
        "print(json.dumps(dict(cpu=time.process_time() - c0, seconds=time.perf_counter() - t0, peak=peak_rss_bytes())))\n"
    ) % (str(ROOT),)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def solve_set(instances, database, goal=None, max_nodes=None, prune="automaton"):
    """Solve each board; returns (cpu seconds, wall seconds, solutions)."""
    solve_pdb(apply_moves(goal_board(4, 4), "ULDR"), database=database, prune=prune)  # warm the JIT
    c0, t0 = time.process_time(), time.perf_counter()
    sols = [solve_pdb(b, goal=goal, database=database, max_nodes=max_nodes, prune=prune) for b in instances]
    return time.process_time() - c0, time.perf_counter() - t0, sols


PRUNINGS = ("undo", "automaton")  # before / after: the plain undo rule, the move automaton


def solve_each_pruning(boards, lengths, database, repeats=1):
    """Every board with each pruning in turn, side by side (the pairs run one
    after the other, so that the neighbours' load touches both alike).

    Returns ``{prune: (cpu seconds per board, nodes per board)}``: the median
    CPU seconds of ``repeats`` runs; every solution checked optimal and verified.
    """
    for prune in PRUNINGS:  # warm the JIT and build the automaton: not search time
        solve_pdb(apply_moves(goal_board(4, 4), "ULDR"), database=database, prune=prune)
    cpu = {p: np.zeros((repeats, len(boards))) for p in PRUNINGS}
    nodes = {p: np.zeros(len(boards), np.int64) for p in PRUNINGS}
    for i, (b, n) in enumerate(zip(boards, lengths)):
        for r in range(repeats):
            for prune in PRUNINGS:
                c0 = time.process_time()
                s = solve_pdb(b, database=database, prune=prune)
                cpu[prune][r, i] = time.process_time() - c0
                if not (s.status == "optimal" and s.length == n and s.verify(b)):
                    raise SystemExit(f"board {i + 1}, prune={prune}: {s.status}, {s.length} moves, expected {n}")
                nodes[prune][i] = s.nodes
    return {p: (np.median(cpu[p], axis=0), nodes[p]) for p in PRUNINGS}


def pruning_rows(tag, result, per_board=False):
    """Rows of :func:`solve_each_pruning`: CPU and nodes of each pruning, and after/before."""
    rows = []
    (cpu0, nodes0), (cpu1, nodes1) = result["undo"], result["automaton"]
    if per_board:
        for i in range(len(cpu0)):
            rows.append(_row(f"{tag} #{i + 1} cpu seconds, automaton", round(cpu1[i], 3), "s",
                             ratio=round(cpu1[i] / max(cpu0[i], 1e-9), 3), baseline=round(cpu0[i], 3),
                             note=f"nodes {nodes1[i]:,} (undo rule {nodes0[i]:,}); ratio = automaton / undo rule"))
    for prune, (cpu, nodes) in result.items():
        rows.append(_row(f"{tag} {prune}: cpu seconds mean", round(cpu.mean(), 3), "s",
                         note=f"worst {cpu.max():.3f} s (#{int(cpu.argmax()) + 1}); nodes per instance {nodes.mean():,.0f}"))
    rows.append(_row(f"{tag} automaton / undo rule: nodes", round(nodes1.sum() / nodes0.sum(), 3), "",
                     note=f"{nodes1.mean():,.0f} vs {nodes0.mean():,.0f} per instance; same run"))
    rows.append(_row(f"{tag} automaton / undo rule: cpu", round(cpu1.sum() / cpu0.sum(), 3), "",
                     note=f"{cpu1.sum():.2f} s vs {cpu0.sum():.2f} s in all; medians of repeats, same run"))
    return rows


def hard80_rows(quick: bool) -> list[dict]:
    """The 17 positions that need 80 moves, with 7-8 + reflection, both prunings
    (``quick``: the first two)."""
    try:
        db = pdb.load("7-8")
    except FileNotFoundError:
        return [_row("hard80", None, "", note="not built: fastpuzzle pdb build 7-8")]
    np.asarray(db.data).sum()  # page the tables in: loading is not search time
    hard = read_instances("hard80.txt", 16)[: 2 if quick else None]
    result = solve_each_pruning([b.reshape(4, 4) for b, _ in hard], [n for _, n in hard], db)
    return pruning_rows(f"hard80 ({len(hard)}) 7-8 +reflection", result, per_board=True)


def second_partition_rows(walk_moves: int = 40) -> list[dict]:
    """Would a maximum over 7-8 and 6-6-3 (each with its reflection) pay?  How
    often 6-6-3 is the larger bound, and by how much on average, at the starts
    of Korf's 100 and of the 80-move positions, at states of random walks
    from Korf's starts (every 4th of ``walk_moves`` moves) and at 1,000
    uniformly random states.  Where it is never
    larger, the maximum equals 7-8 and only adds lookups."""
    try:
        db78 = pdb.load("7-8")
    except FileNotFoundError:
        return [_row("7-8 vs 6-6-3 bounds", None, "", note="not built: fastpuzzle pdb build 7-8")]
    db663 = pdb.build("6-6-3", progress=False)
    korf = [b.reshape(4, 4) for b, _ in read_instances("korf100_blank_last.txt", 16)]
    hard = [b.reshape(4, 4) for b, _ in read_instances("hard80.txt", 16)]
    rng = np.random.default_rng(2024)
    walks = []
    for start in korf:
        board = start.copy()
        for k in range(walk_moves):
            board = apply_moves(board, "ULRD"[rng.choice([c for c in range(4) if _legal(board, c)])])
            if k % 4 == 3:
                walks.append(board)
    rows = []
    uniform = list(random_solvable(4, 4, count=1000, seed=2024))
    for tag, boards in (("Korf's 100 starts", korf), ("80-move starts", hard), ("random-walk states", walks),
                        ("uniform random states", uniform)):  # fmt: skip
        h78 = np.array([db78.lookup(b) for b in boards])
        h663 = np.array([db663.lookup(b) for b in boards])
        rows.append(_row(f"7-8 vs 6-6-3, {tag}: share where 6-6-3 is larger", round(float((h663 > h78).mean()), 4), "",
                         note=f"{len(boards)} states; mean h 7-8 {h78.mean():.2f}, 6-6-3 {h663.mean():.2f}; mean gain "
                         f"of the maximum {(np.maximum(h78, h663) - h78).mean():.3f} moves"))
    return rows


def _legal(board, code) -> bool:
    r, c = np.argwhere(board == 0)[0]
    return (code == 0 and r > 0) or (code == 1 and c > 0) or (code == 2 and c < 3) or (code == 3 and r < 3)


def korf_pruning_rows(quick: bool, repeats: int = 3) -> list[dict]:
    """Korf's 100 (``quick``: first 10) with 7-8 + reflection, both prunings."""
    try:
        db = pdb.load("7-8")
    except FileNotFoundError:
        return [_row("korf100 pruning", None, "", note="not built: fastpuzzle pdb build 7-8")]
    np.asarray(db.data).sum()
    korf = read_instances("korf100_blank_last.txt", 16)[: 10 if quick else None]
    result = solve_each_pruning([b.reshape(4, 4) for b, _ in korf], [n for _, n in korf], db, repeats)
    return pruning_rows(f"korf{len(korf)} 7-8 +reflection", result)


def _build78_rows(cpu, wall, peak, how):
    """The 7-8 build against its goals (180 s of CPU, 1.5 GB)."""
    return [
        _row("build 7-8 cpu seconds", round(cpu, 1), "s", ratio=round(cpu / GOAL_CPU_78, 2), baseline=GOAL_CPU_78,
             note=f"wall {wall:.1f} s; {how}; ratio to the goal"),
        _row("build 7-8 peak memory", round(peak / 2**20), "MiB", ratio=round(peak / GOAL_PEAK_78, 2),
             baseline=round(GOAL_PEAK_78 / 2**20), note=f"peak RSS (VmHWM); {how}; ratio to the goal"),
    ]


def run(quick: bool, build78: bool = False) -> list[dict]:
    rows = []
    print(f"cores: {os.cpu_count()}")
    # --- build cost -------------------------------------------------------
    for name in ["5-5-5"] if quick else ["5-5-5", "6-6-3"]:
        m = measure_build(name)
        rows.append(_row(f"build {name} cpu seconds", round(m["cpu"], 2), "s", note=f"wall {m['seconds']:.2f} s; fresh process"))
        rows.append(_row(f"build {name} peak memory", round(m["peak"] / 2**20), "MiB", note="peak RSS of the process"))
    if not quick:
        half = measure_half78()
        rows.append(_row("build 7-8 7-tile half cpu seconds", round(half["cpu"], 1), "s",
                         note=f"wall {half['seconds']:.1f} s, peak {half['peak'] / 2**20:.0f} MiB; fresh process"))
        if build78:
            m = measure_build("7-8")
            rows.extend(_build78_rows(m["cpu"], m["seconds"], m["peak"], "fresh process"))
        for name in ["7-8", "6-6-6-6"]:
            try:
                db = pdb.load(name)
            except FileNotFoundError:
                rows.append(_row(f"build {name}", None, "", note=f"not built: fastpuzzle pdb build {name}"))
                continue
            if name == "7-8" and not build78:
                rows.extend(_build78_rows(db.build_cpu_seconds, db.build_seconds, db.build_peak_bytes, "recorded at build time"))
            elif name != "7-8":
                cpu = f"cpu {db.build_cpu_seconds:.0f} s, " if db.build_cpu_seconds else ""
                rows.append(_row(f"build {name} seconds", round(db.build_seconds, 1), "s", note=f"{cpu}recorded at build time"))
                rows.append(_row(f"build {name} peak memory", round(db.build_peak_bytes / 2**20), "MiB", note="recorded at build time"))
            rows.append(_row(f"table {name} size", round(db.nbytes / 2**20), "MiB", note="1 byte per entry"))
    # --- Korf's 100 -------------------------------------------------------
    korf = read_instances("korf100_blank_last.txt", 16)
    if quick:
        korf = korf[:10]
    boards = [b.reshape(4, 4) for b, _ in korf]
    lengths = [n for _, n in korf]
    have78 = "7-8" in pdb.available()
    main_db = "7-8" if (have78 and not quick) else ("6-6-3" if not quick else "5-5-5")
    runs = [main_db] if quick else [main_db, "6-6-3"] if main_db != "6-6-3" else ["6-6-3"]
    results = {}
    for name in runs:
        db = pdb.build(name, progress=False) if name != "7-8" else pdb.load(name)
        np.asarray(db.data).sum()  # page the tables in: loading is not search time
        if not all(db.lookup(b) <= n for b, n in zip(boards, lengths)):
            raise SystemExit(f"{name}: a heuristic value exceeds a published optimal length")
        cpu, wall, sols = solve_set(boards, db)
        ok = all(s.status == "optimal" and s.length == n and s.verify(b) for s, n, b in zip(sols, lengths, boards))
        nodes = sum(s.nodes for s in sols)
        results[name] = (cpu, nodes)
        # The published figure counts with the undo rule only: so does the row set against it.
        undo_nodes = sum(s.nodes for s in solve_set(boards, db, prune="undo")[2]) if name == "7-8" else nodes
        tag = f"korf{len(boards)} {name}{' +reflection' if db.reflect else ''}"
        rows.append(_row(f"{tag} cpu seconds", round(cpu, 3), "s", note=f"wall {wall:.3f} s; all optimal and verified: {ok}"))
        rows.append(
            _row(
                f"{tag} nodes per instance",
                round(undo_nodes / len(boards)),
                "nodes",
                ratio=round(undo_nodes / len(boards) / PUBLISHED_NODES_78, 2) if name == "7-8" else None,
                baseline=PUBLISHED_NODES_78 if name == "7-8" else None,
                note=(f"undo rule, as the published figure counts (ratio to it); the move automaton (the default, "
                      f"cpu and rate rows): {nodes / len(boards):,.0f}") if name == "7-8" else "",
            )
        )
        rows.append(_row(f"{tag} nodes per second", round(nodes / max(cpu, 1e-9)), "nodes/s"))
        if not ok:
            raise SystemExit(f"{tag}: a solution is not optimal or does not verify")
    if "7-8" in results and len(boards) == 100:
        rows.append(
            _row(
                "korf100 7-8 vs C++ 6-6-3+WD cpu",
                round(results["7-8"][0], 3),
                "s",
                ratio=round(CPP_SECONDS_663 / max(results["7-8"][0], 1e-9), 1),
                baseline=CPP_SECONDS_663,
                note="baseline measured earlier on this machine (not in this run); ratio = speed-up",
            )
        )
    if "7-8" in results and "6-6-3" in results:
        rows.append(
            _row(
                "korf100 7-8 vs 6-6-3 (same run)",
                round(results["7-8"][0], 3),
                "s",
                ratio=round(results["6-6-3"][0] / max(results["7-8"][0], 1e-9), 2),
                baseline=round(results["6-6-3"][0], 3),
                note="cpu seconds; ratio = speed-up of 7-8",
            )
        )
    # --- the move automaton against the undo rule; the 80-move positions ---
    if not quick:
        rows.extend(korf_pruning_rows(False))
        rows.extend(second_partition_rows())
    rows.extend(hard80_rows(quick))
    # --- 24-puzzle ----------------------------------------------------------
    if not quick:
        try:
            db24 = pdb.load("6-6-6-6")
        except FileNotFoundError:
            rows.append(_row("24-puzzle", None, "", note="not built: fastpuzzle pdb build 6-6-6-6"))
            db24 = None
        if db24 is not None:
            np.asarray(db24.data).sum()
            inst = read_instances("korf24_50.txt", 25)
            order = sorted(range(len(inst)), key=lambda i: inst[i][1])[:3]
            korf_goal = np.arange(25).reshape(5, 5)  # this file's goal: blank top-left
            budget = 50_000_000
            warm = solve_pdb(korf_goal, goal=korf_goal, database=db24)
            assert warm.length == 0
            for i in order:
                b, n = inst[i][0].reshape(5, 5), inst[i][1]
                c0 = time.process_time()
                s = solve_pdb(b, goal=korf_goal, database=db24, max_nodes=budget)
                cpu = time.process_time() - c0
                h0 = fp_heuristics.pattern_database(b, goal=korf_goal, database=db24)
                fin = s.status == "optimal" and s.length == n and s.verify(b, goal=korf_goal)
                rows.append(
                    _row(
                        f"24-puzzle #{i + 1} (optimal {n}, h0 {h0})",
                        round(s.nodes / max(cpu, 1e-9)),
                        "nodes/s",
                        note=f"{'solved, ' + str(s.length) + ' moves' if fin else s.status}; {s.nodes:,} nodes, "
                        f"{cpu:.1f} s cpu, budget {budget:,}",
                    )
                )
    return rows


def compare78(other_dir: str, first: int = 100) -> list[dict]:
    """Korf's first ``first`` instances with the cached 7-8 and the 7-8 saved
    in ``other_dir`` (e.g. one built with merged blank regions), side by side."""
    korf = read_instances("korf100_blank_last.txt", 16)[:first]
    boards = [b.reshape(4, 4) for b, _ in korf]
    meta = json.loads((Path(other_dir) / "meta.json").read_text())  # any cache format: an older table on purpose
    other = pdb.PatternDatabase(
        "7-8", tuple(meta["shape"]), tuple(tuple(p) for p in meta["partition"]),
        np.asarray(meta["goal"]).reshape(meta["shape"]), np.load(Path(other_dir) / "tables.npy", mmap_mode="r"),
        np.asarray(meta["offsets"], np.int64), bool(meta["reflect"]), path=Path(other_dir),
    )
    dbs = {"cache": pdb.load("7-8"), "other": other}
    rows = []
    for tag, db in dbs.items():
        np.asarray(db.data).sum()
    a, b = (np.asarray(db.data) for db in dbs.values())
    for p, (lo, hi) in enumerate(zip(dbs["cache"].offsets, list(dbs["cache"].offsets[1:]) + [a.shape[0]])):
        ta, tb = a[lo:hi], b[lo:hi]
        rows.append(_row(f"7-8 pattern {p + 1}: entries cache > other", int((ta > tb).sum()), "entries",
                         note=f"cache < other: {int((ta < tb).sum())}; means {ta.mean():.4f} vs {tb.mean():.4f}"))
    nodes = {}
    for tag, db in dbs.items():
        cpu, _, sols = solve_set(boards, db)
        ok = all(s.status == "optimal" and s.length == n and s.verify(bd) for s, (_, n), bd in zip(sols, korf, boards))
        nodes[tag] = sum(s.nodes for s in sols) / len(boards)
        rows.append(_row(f"korf{len(boards)} 7-8 +reflection, {tag} ({db.path}) nodes per instance", round(nodes[tag]),
                         "nodes", ratio=round(nodes[tag] / PUBLISHED_NODES_78, 3), baseline=PUBLISHED_NODES_78,
                         note=f"cpu {cpu:.2f} s; all optimal and verified: {ok}"))
    rows.append(_row("nodes cache / other", round(nodes["cache"] / nodes["other"], 3), "", note="same instances"))
    return rows


def main(argv=None):
    argv = list(argv if argv is not None else sys.argv[1:])
    if "--compare78" in argv:
        i = argv.index("--compare78")
        first = int(argv[argv.index("--first") + 1]) if "--first" in argv else 100
        rows = compare78(argv[i + 1], first)
    elif "--partitions" in argv:
        rows = second_partition_rows()
    elif "--hard80" in argv or "--prune" in argv:
        rows = (korf_pruning_rows("--quick" in argv) if "--prune" in argv else []) + (
            hard80_rows("--quick" in argv) if "--hard80" in argv else [])
    else:
        rows = run("--quick" in argv, build78="--build78" in argv)
    for r in rows:
        extra = ""
        if r["ratio"] is not None:
            extra = f"  (ratio {r['ratio']} vs {r['baseline']})"
        note = f"  [{r['note']}]" if r["note"] else ""
        print(f"{r['name']:55s} {r['value']!s:>12} {r['unit']}{extra}{note}")


if __name__ == "__main__":
    main()
