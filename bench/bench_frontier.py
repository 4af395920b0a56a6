"""The optimal frontier: Korf's 24-puzzle with 6-6-6-6, the 15-puzzle's hardest, and the levers measured.

    python bench/bench_frontier.py           # full (needs 7-8 and 6-6-6-6 built, and their x2 for the
                                             # goal rows: fastpuzzle pdb build ...)
    python bench/bench_frontier.py --quick   # #38 and #40 with today's settings, dual-lookup strength
    python bench/bench_frontier.py --quick --kf15   # the quick rows and all 15 Korf-Felner instances

Rows (CPU seconds are ``time.process_time`` of this process, JIT warm,
databases paged in; every solution checked against the published optimum
and verified).  The 24-puzzle goal rows and Korf's 100 search with the
two-partition databases ``6-6-6-6x2`` and ``7-8x2`` where built (fewer
nodes), the 80-move positions with ``7-8`` (faster there); the row names say
which.

* Two partitions against one, side by side: the search ``solve`` runs on
  #38, #40 (and #25, #32, #44 in the full mode), Korf's 100 and the 80-move
  positions, nodes and CPU.

* Korf's 24-puzzle #38 and #40 (the file's order, Korf & Felner 2002), side
  by side: the search on the database's image of the board with the moves
  tried in U L R D order *there* (before: the half turn onto the database's
  goal reverses Korf's order on the board), against the moves tried, and the
  automaton read, in U L R D order on the board itself (after, the default).
  Korf & Felner count *expanded* nodes; ours are *generated* (every child,
  pruned ones included), so our ratio to theirs is an upper bound on the
  like-for-like one.
* Levers on #38 and #40: the default move automaton (14 moves) against the
  10-move one, and moves toward the goal first against the tables' order:
  nodes and CPU side by side, plain IDA* (no probes) to show the lever alone.
* Probes (:mod:`fastpuzzle.search.probes`, what ``solve`` runs): IDA* with
  probes against plain IDA* on #38, #40, #25, #32 and #44, side by side.
* The 15 Korf-Felner instances they solved in under 1e10 nodes: each one run
  (all fifteen in the full mode or with ``--kf15``; #38 and #40 in the quick mode)
  as nodes against theirs (goal: at most 0.5x), and the CPU in all (goal:
  15 minutes), the ones not run estimated from their published counts, the
  measured ratio and the measured node rate (the row says so).
* Dual lookups (:mod:`fastpuzzle.search.pdb.dual`): on random boards, how
  often the dual bound exceeds the regular one (reflection included) and by
  how much on average, and the lookup cost of each, side by side.
* The 15-puzzle goal rows: the 17 positions that need 80 moves (7-8 +
  reflection, mean and worst CPU), Korf's 100 (nodes per instance, CPU in all).
* The budgeted ladder through the plain calls (``bench/ladder_rows.py``): Korf-Felner #38 and
  #40 with the defaults, one proof on 2 threads against 1, the 80-move positions with
  ``time_limit=30`` against ``method="ida"``, ``time_limit=3`` in a fresh process.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastpuzzle import apply_moves, pdb, random_solvable  # noqa: E402
from fastpuzzle.moves import PRUNE_LENGTH  # noqa: E402
from fastpuzzle.search import ida, probes  # noqa: E402
from fastpuzzle.search.pdb.dual import dual_lookup  # noqa: E402
from fastpuzzle.search.engines import Search  # noqa: E402
from fastpuzzle.search.solve import solve  # noqa: E402
from bench import ladder_rows  # noqa: E402
from bench.common import DATA, read_instances  # noqa: E402

solve_pdb = functools.partial(solve, heuristic="pdb", method="ida")  # optimal IDA* on the tables

KORF_GOAL = np.arange(25).reshape(5, 5)  # korf24_50.txt's goal: blank top-left
GOAL_SECONDS_24 = 5.0
GOAL_NODES_KORF100 = 15_000
GOAL_HARD80_MEAN, GOAL_HARD80_WORST = 1.0, 2.0


def _row(name, value, unit, ratio=None, baseline=None, note=""):
    return dict(family="frontier", name=name, value=value, unit=unit, ratio=ratio, baseline=baseline, note=note)


def korf_felner_nodes() -> dict:
    """Instance number -> nodes Korf & Felner expanded (``korf24_50_nodes.txt``)."""
    out = {}
    for line in (DATA / "korf24_50_nodes.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            i, _, nodes = (int(x) for x in line.split())
            out[i] = nodes
    return out


def _engines(db, prune_length=PRUNE_LENGTH):
    """(search on the user's board, the same heuristic with the moves tried in the image's order)."""
    search = Search(5, 5, KORF_GOAL, "pdb", db, prune_length)
    image_order = ida.Heuristic(5, 5, db.goal, "pdb", db, prune_length=prune_length)
    return search, image_order


def _solve(search, engine, board, length, share=probes.PROBE_SHARE, threads=1, wall=False):
    """Optimal search as ``solve`` runs it (IDA* with probes; ``share=0``: plain IDA*): ``(nodes, cpu)``
    (``wall``: wall seconds instead of CPU, for a search on ``threads`` threads)."""
    cells = search.map_boards(board.reshape(1, -1).astype(np.uint8))[0]
    c0 = time.perf_counter() if wall else time.process_time()
    status, codes, nodes, _ = probes.optimal_search(cells, engine, share=share, threads=threads)
    cpu = (time.perf_counter() if wall else time.process_time()) - c0
    if status != ida.STATUS_FOUND or len(codes) != length:
        raise SystemExit(f"24-puzzle: status {status}, {len(codes)} moves, expected {length}")
    end = apply_moves(board.reshape(5, 5), search.unmap_codes(codes).astype(np.uint8))
    if not np.array_equal(end, KORF_GOAL):
        raise SystemExit("24-puzzle: the solution does not reach the goal")
    return nodes, cpu


def korf24_rows(db, which, before=True, solved=None) -> list[dict]:
    """The goal rows for #38 and #40; ``solved`` collects ``{instance: (nodes, cpu)}`` for the KF rows."""
    inst = read_instances("korf24_50.txt", 25)
    published = korf_felner_nodes()
    search, image_order = _engines(db)
    rows = []
    for i in which:
        board, length = inst[i - 1]
        kf = published.get(i)
        nodes, cpu = _solve(search, search.engine, board, length)
        if solved is not None:
            solved[i] = (nodes, cpu)
        note = f"{db.name}: {nodes:,} nodes generated; Korf-Felner {kf:,} expanded ({nodes / kf:.2f}x)" if kf else \
            f"{db.name}: {nodes:,} nodes"
        if before:
            nodes0, cpu0 = _solve(search, image_order, board, length)
            note += f"; before (U L R D on the database's image): {nodes0:,} nodes, {cpu0:.2f} s"
        rows.append(_row(f"korf24 #{i} (optimal {length}) cpu seconds", round(cpu, 2), "s",
                         ratio=round(cpu / GOAL_SECONDS_24, 2), baseline=GOAL_SECONDS_24,
                         note=note + "; ratio = cpu / goal"))  # fmt: skip
    return rows


def automaton_rows(db, which, shallower=10) -> list[dict]:
    """The default move automaton against a shallower one, side by side."""
    inst = read_instances("korf24_50.txt", 25)
    rows = []
    base, _ = _engines(db, shallower)
    deep, _ = _engines(db)
    for i in which:
        board, length = inst[i - 1]
        n0, c0 = _solve(base, base.engine, board, length, share=0)  # plain passes: the lever alone
        n1, c1 = _solve(deep, deep.engine, board, length, share=0)
        rows.append(_row(f"korf24 #{i} automaton {PRUNE_LENGTH} / {shallower} moves: nodes", round(n1 / n0, 3), "",
                         note=f"{n1:,} vs {n0:,} nodes; cpu {c1:.2f} s vs {c0:.2f} s (ratio {c1 / c0:.2f}); "
                         f"{deep.engine.successors[2].shape[0]:,} vs {base.engine.successors[2].shape[0]:,} states"))  # fmt: skip
    return rows


def _table_order(search, db):
    """The engine of ``search`` with the moves in the successor tables' order alone (no moves toward
    the goal first): the side-by-side of the move order."""
    return ida.Heuristic(search.engine.m, search.engine.n, db.goal, "pdb", db, order=search.plan.move_order,
                         toward_first=False)  # fmt: skip


def order_rows(db, which) -> list[dict]:
    """Moves toward the goal first against the tables' order alone, side by side on Korf's 24-puzzles."""
    inst = read_instances("korf24_50.txt", 25)
    search, _ = _engines(db)
    plain = _table_order(search, db)
    rows = []
    for i in which:
        board, length = inst[i - 1]
        n0, c0 = _solve(search, plain, board, length, share=0)  # plain passes: the lever alone
        n1, c1 = _solve(search, search.engine, board, length, share=0)
        rows.append(_row(f"korf24 #{i} moves toward the goal first / table order: nodes", round(n1 / n0, 3), "",
                         note=f"{n1:,} vs {n0:,} nodes; cpu {c1:.2f} s vs {c0:.2f} s (ratio {c1 / c0:.2f})"))  # fmt: skip
    return rows


def probe_rows(db, which, solved) -> list[dict]:
    """IDA* with probes (the solver) against plain IDA*, side by side; ``solved`` collects the former."""
    published, search, rows = korf_felner_nodes(), _engines(db)[0], []
    for i, (board, length) in ((i, read_instances("korf24_50.txt", 25)[i - 1]) for i in which):
        if i not in solved:
            solved[i] = _solve(search, search.engine, board, length)
        (n1, c1), (n0, c0) = solved[i], _solve(search, search.engine, board, length, share=0)
        rows.append(_row(f"korf24 #{i} probes / plain IDA*: nodes", round(n1 / n0, 3), "",
                         note=f"{n1:,} vs {n0:,} nodes ({n1 / published[i]:.3f} vs {n0 / published[i]:.3f} of "
                         f"Korf-Felner's); cpu {c1:.2f} s vs {c0:.2f} s (ratio {c1 / c0:.2f})"))  # fmt: skip
    return rows


def partition_rows(one, two, which, solved) -> list[dict]:
    """Two partitions (``two``, the goal rows' database) against one, side by side on Korf's
    24-puzzles, as ``solve`` searches; ``solved`` holds ``two``'s runs already made."""
    published, rows = korf_felner_nodes(), []
    search_one, search_two = _engines(one)[0], _engines(two)[0]
    for i, (board, length) in ((i, read_instances("korf24_50.txt", 25)[i - 1]) for i in which):
        if i not in solved:
            solved[i] = _solve(search_two, search_two.engine, board, length)
        (n2, c2), (n1, c1) = solved[i], _solve(search_one, search_one.engine, board, length)
        rows.append(_row(f"korf24 #{i} {two.name} / {one.name}: nodes", round(n2 / n1, 3), "",
                         note=f"{n2:,} vs {n1:,} nodes ({n2 / published[i]:.3f} vs {n1 / published[i]:.3f} of "
                         f"Korf-Felner's); cpu {c2:.2f} s vs {c1:.2f} s (ratio {c2 / c1:.2f})"))  # fmt: skip
    return rows


def dual_rows(dbs, count) -> list[dict]:
    rows = []
    for db in dbs:
        m = db.shape[0]
        boards = np.asarray(random_solvable(m, m, count=count, seed=18))
        db.lookup(boards), dual_lookup(db, boards)  # warm (the batch lookup picks its kernel by size) and page in
        c0 = time.process_time()
        regular = db.lookup(boards)
        c1 = time.process_time()
        dual = dual_lookup(db, boards)
        c2 = time.process_time()
        gain = np.maximum(regular, dual) - regular
        rows.append(_row(f"dual lookups {db.name}: boards raised", round(float((gain > 0).mean()), 4), "",
                         note=f"{count:,} random boards; mean bound {regular.mean():.2f} regular, {dual.mean():.2f} dual, "
                         f"{(regular + gain).mean():.3f} max; cost per board {1e9 * (c2 - c1) / count:.0f} ns dual vs "
                         f"{1e9 * (c1 - c0) / count:.0f} ns regular (whole lookups, reflection included)"))  # fmt: skip
    return rows


def _fifteen(db, instances, label):
    """Solve ``instances`` (optimal, verified) on ``db``: ``(cpu per instance, nodes in all)``."""
    cpu, nodes = [], 0
    for b, n in instances:
        c0 = time.process_time()
        s = solve_pdb(b.reshape(4, 4), database=db)
        cpu.append(time.process_time() - c0)
        nodes += s.nodes
        if not (s.status == "optimal" and s.length == n and s.verify(b.reshape(4, 4))):
            raise SystemExit(f"{label}: {s.status}, {s.length} moves, expected {n}")
    return np.array(cpu), nodes


def fifteen_rows(quick, one="7-8", two=None) -> list[dict]:
    """The 15-puzzle goal rows: the 80-move positions' CPU on database ``one``, Korf's 100's nodes on
    ``two`` (two partitions, where given; else ``one``), each set side by side on both."""
    timed, counted = one, two or one
    dbs = {name: pdb.load(name) for name in {one, counted}}
    for db in dbs.values():
        np.asarray(db.data).sum()  # paged in: loading is not search time
    rows = []
    hard = read_instances("hard80.txt", 16)[: 3 if quick else None]
    korf = read_instances("korf100_blank_last.txt", 16)[: 10 if quick else None]
    runs = {}
    for name, db in dbs.items():
        solve_pdb(hard[0][0].reshape(4, 4), database=db, max_nodes=10)  # warm
        runs[name, "hard80"] = _fifteen(db, hard, "hard80")
        runs[name, "korf100"] = _fifteen(db, korf, "korf100")
    db, (cpu, nodes) = dbs[timed], runs[timed, "hard80"]
    tag = f"hard80 ({len(hard)}) {timed} +reflection cpu seconds"
    rate = f"{nodes / len(hard):,.0f} nodes per position, {nodes / cpu.sum() / 1e6:.2f} M nodes/s"
    rows.append(_row(f"{tag} mean", round(cpu.mean(), 3), "s", ratio=round(cpu.mean() / GOAL_HARD80_MEAN, 2),
                     baseline=GOAL_HARD80_MEAN, note=f"{rate}; ratio = mean / goal"))  # fmt: skip
    rows.append(_row(f"{tag} worst", round(cpu.max(), 3), "s", ratio=round(cpu.max() / GOAL_HARD80_WORST, 2),
                     baseline=GOAL_HARD80_WORST, note="ratio = worst / goal"))  # fmt: skip
    rows.append(_before_last_pass(f"hard80 ({len(hard)})", hard, nodes, db))
    db, (cpu, nodes) = dbs[counted], runs[counted, "korf100"]
    rows.append(_row(f"korf{len(korf)} {counted} +reflection nodes per instance", round(nodes / len(korf)), "nodes",
                     ratio=round(nodes / len(korf) / GOAL_NODES_KORF100, 2), baseline=GOAL_NODES_KORF100,
                     note=f"move automaton of {PRUNE_LENGTH} moves (the default); {cpu.sum():.2f} s cpu in all; "
                     "ratio = nodes / goal"))  # fmt: skip
    rows.append(_before_last_pass(f"korf{len(korf)}", korf, nodes, db))
    rows.append(_korf100_table_order(korf, db, nodes))
    if two is not None:
        for label, k in (("hard80", len(hard)), ("korf100", len(korf))):
            (c2, n2), (c1, n1) = runs[two, label], runs[one, label]
            rows.append(_row(f"{label} ({k}) {two} / {one}: nodes", round(n2 / n1, 3), "",
                             note=f"{n2 / k:,.0f} vs {n1 / k:,.0f} nodes per instance; cpu {c2.sum():.2f} s vs "
                             f"{c1.sum():.2f} s in all (ratio {c2.sum() / c1.sum():.2f})"))  # fmt: skip
    return rows


def _korf100_table_order(instances, db, nodes) -> dict:
    """Korf's 100 with the moves in the tables' order alone, side by side with the default."""
    search = Search(4, 4, np.r_[np.arange(1, 16), 0].reshape(4, 4), "pdb", db, PRUNE_LENGTH)
    plain = _table_order(search, db)
    before = 0
    for b, n in instances:
        cells = search.map_boards(b.reshape(1, 16).astype(np.uint8))[0]
        status, codes, count, _ = ida.ida_search(cells, plain)
        if status != ida.STATUS_FOUND or len(codes) != n:
            raise SystemExit(f"korf100, table order: status {status}, {len(codes)} moves, expected {n}")
        before += count
    k = len(instances)
    return _row(f"korf{k} {db.name} +reflection nodes per instance, moves toward the goal first / table order",
                round(nodes / before, 3), "", note=f"{round(nodes / k):,} vs {round(before / k):,} nodes per instance")


def _before_last_pass(label, instances, nodes, db) -> dict:
    """Nodes of every pass below the optimum's (the search bounded at ``optimum - 2``): what no
    move order can save, since only the last pass stops at the first solution."""
    search = Search(4, 4, np.r_[np.arange(1, 16), 0].reshape(4, 4), "pdb", db, PRUNE_LENGTH)
    before = 0
    for b, n in instances:
        cells = search.map_boards(b.reshape(1, 16).astype(np.uint8))[0]
        before += ida.ida_search(cells, search.engine, max_length=n - 2)[2]
    return _row(f"{label} {db.name} +reflection nodes per instance before the last pass", round(before / len(instances)),
                "nodes", ratio=round(before / nodes, 3), baseline=round(nodes / len(instances)),
                note="every pass bounded below the optimum; ratio = share of all the nodes (the baseline): "
                "the floor a perfect move order in the last pass would leave")  # fmt: skip


#: Korf-Felner instances the full bench runs (fewest published nodes) besides #38 and #40.
KF_FULL = (25, 32, 44)


def kf15_rows(db, solved, run=()) -> list[dict]:
    """The 15 Korf-Felner instances they solved in under 1e10 nodes.

    ``solved``: ``{instance: (nodes, cpu)}`` already measured; the instances in
    ``run`` are solved here.  The rest are estimated, and the total row says
    how: their published count times the geometric mean of the measured
    ratios, over the measured node rate.
    """
    inst = read_instances("korf24_50.txt", 25)
    published = korf_felner_nodes()
    search, _ = _engines(db)
    fifteen = sorted(k for k, v in published.items() if v < 10**10)
    for i in run:
        if i not in solved:
            board, length = inst[i - 1]
            solved[i] = _solve(search, search.engine, board, length)
            print(f"kf15 #{i}: {solved[i][0]:,} nodes, {solved[i][1]:.1f} s", file=sys.stderr, flush=True)
    rows = []
    for i in fifteen:
        if i in solved:
            nodes, cpu = solved[i]
            rows.append(_row(f"kf15 #{i} (optimal {inst[i - 1][1]}) nodes / Korf-Felner", round(nodes / published[i], 3), "",
                             ratio=round(nodes / published[i] / 0.5, 2), baseline=0.5,
                             note=f"{nodes:,} generated vs {published[i]:,} expanded; {cpu:.1f} s cpu; "
                             "ratio = (nodes / theirs) / the 0.5 goal"))  # fmt: skip
    done = [i for i in fifteen if i in solved]
    left = [i for i in fifteen if i not in solved]
    cpu = sum(solved[i][1] for i in done)
    nodes = sum(solved[i][0] for i in done)
    ratio = float(np.exp(np.mean([np.log(solved[i][0] / published[i]) for i in done])))
    rate = nodes / cpu
    estimated = sum(published[i] for i in left) * ratio / rate
    total = cpu + estimated
    note = (f"{len(done)} of 15 run ({cpu:.1f} s, {nodes:,} nodes, {rate / 1e6:.2f} M nodes/s, geometric-mean ratio "
            f"{ratio:.2f} to Korf-Felner's)")
    if left:
        note += (f"; the other {len(left)} estimated: their published nodes x {ratio:.2f} / the measured rate = "
                 f"{estimated:,.0f} s")
    rows.append(_row("kf15 cpu seconds in all", round(total, 1), "s",
                     ratio=round(total / 900, 2), baseline=900, note=note + "; ratio = cpu / the 15-minute goal"))  # fmt: skip
    return rows


def kf15_wall_rows(db, threads=2) -> list[dict]:
    """All 15 Korf-Felner instances under 1e10 nodes on ``threads`` threads (what ``solve`` runs):
    the wall time in all and the nodes in all against theirs."""
    inst = read_instances("korf24_50.txt", 25)
    published = korf_felner_nodes()
    search, _ = _engines(db)
    fifteen = sorted(k for k, v in published.items() if v < 10**10)
    wall = nodes = 0
    for i in fifteen:
        board, length = inst[i - 1]
        n, w = _solve(search, search.engine, board, length, threads=threads, wall=True)
        print(f"kf15 #{i} on {threads} threads: {n:,} nodes, {w:.1f} s wall", file=sys.stderr, flush=True)
        wall, nodes = wall + w, nodes + n
    theirs = sum(published[i] for i in fifteen)
    return [_row(f"kf15 wall seconds in all, {threads} threads, {db.name}", round(wall, 1), "s", ratio=round(wall / 240, 2),
                 baseline=240, note=f"{db.name}, IDA* with probes, each large pass split; ratio = wall / the 240 s goal"),
            _row(f"kf15 nodes in all / Korf-Felner, {threads} threads, {db.name}", round(nodes / theirs, 3), "", baseline=0.5,
                 ratio=round(nodes / theirs / 0.5, 2),
                 note=f"{nodes:,} generated vs {theirs:,} expanded; ratio = (nodes / theirs) / the 0.5 goal")]


def run(quick: bool, kf_all: bool | None = None) -> list[dict]:
    if kf_all is None:  # the full mode runs all fifteen (twelve minutes here)
        kf_all = not quick or bool(os.environ.get("FASTPUZZLE_BENCH_KF15"))
    rows = []
    have = pdb.available()
    solved = {}
    if "6-6-6-6" not in have:
        rows.append(_row("korf24", None, "", note="not built: fastpuzzle pdb build 6-6-6-6"))
    else:
        db1 = pdb.load("6-6-6-6")
        db24 = pdb.load("6-6-6-6x2") if "6-6-6-6x2" in have else db1
        for db in {db1.name: db1, db24.name: db24}.values():
            np.asarray(db.data).sum()  # page the tables in: loading is not search time
            ida.ida_search(np.r_[np.arange(1, 25), 0].astype(np.uint8), _engines(db)[0].engine)  # warm the JIT
        rows.extend(korf24_rows(db24, (38, 40), before=not quick, solved=solved))
        if db24 is not db1:
            rows.extend(partition_rows(db1, db24, (38, 40) if quick else (38, 40) + KF_FULL, solved))
        if not quick:
            rows.extend(automaton_rows(db24, (38, 40)))
            rows.extend(order_rows(db24, (38, 40)))
            rows.extend(probe_rows(db24, (38, 40) + KF_FULL, solved))
        every = [i for i, v in korf_felner_nodes().items() if v < 10**10]
        rows.extend(kf15_rows(db24, solved, run=every if kf_all else ()))
        if kf_all:  # what solve's proof runs (its database on 5x5: engines.PROOF_ON_STRONGEST), and the other
            for db in {db24.name: db24, db1.name: db1}.values():
                rows.extend(kf15_wall_rows(db))
    dbs = [pdb.build("6-6-3", progress=False)] + [pdb.load(k) for k in ("7-8", "6-6-6-6") if k in have]
    rows.extend(dual_rows(dbs, 2_000 if quick else 20_000))
    if "7-8" in have:  # the 80-move positions timed on 7-8 (the faster here), Korf's 100 counted on 7-8x2
        rows.extend(fifteen_rows(quick, "7-8", "7-8x2" if "7-8x2" in have else None))
    rows.extend(ladder_rows.run(quick))  # the budgeted ladder through the plain calls
    return rows


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    kf_all = "--kf15" in args or bool(os.environ.get("FASTPUZZLE_BENCH_KF15"))
    rows = run("--quick" in args, kf_all=kf_all)
    for r in rows:
        ratio = "" if r["ratio"] is None else f"  (ratio {r['ratio']})"
        print(f"{r['name']:<58} {r['value']!s:>12} {r['unit']:<6}{ratio}  {r['note']}")


if __name__ == "__main__":
    main()
