"""Near-optimal search from 5x5 to 10x10: ``solve(b, time_limit=T)`` (``method="auto"``,
the anytime search) against DeepCubeA's lengths on the same boards and the constructive solver.

Samples of the published DeepCubeA sets (``bench/data/deepcubea_*.txt``, or
``$FASTPUZZLE_DATA``) and uniform random 8x8 and 10x10 boards; every solution is
verified and every lower bound checked against the file's optimum where known.
``FASTPUZZLE_BENCH_NEAR_BOARDS=N`` runs ``N`` boards of each set instead of the sample.
Times are CPU seconds of this process per board (the budget itself is wall time).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

import fastpuzzle as fp
from fastpuzzle.search.pdb import choose_database

DATA = os.environ.get("FASTPUZZLE_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

#: (shape, time limit s, boards in the full run, boards in --quick, time limit in --quick)
#: every goal's row in both modes
SETS = (((5, 5), 10.0, 12, 2, 1.5), ((6, 6), 30.0, 4, 1, 2.0), ((7, 7), 60.0, 3, 1, 2.0),
        ((8, 8), 60.0, 2, 1, 2.0), ((10, 10), 60.0, 2, 1, 2.0))  # fmt: skip


def _row(name, value, unit, ratio=None, baseline=None, note=""):
    return {"family": "near", "name": name, "value": value, "unit": unit, "ratio": ratio,
            "baseline": baseline, "note": note}  # fmt: skip


def _boards(shape, count):
    """Boards with DeepCubeA's length and the optimum (0 where unknown)."""
    m, n = shape
    path = os.path.join(DATA, f"deepcubea_{m}x{n}.txt")
    if m == n and os.path.exists(path):
        rows = [line.split() for line in open(path) if line.strip() and not line.startswith("#")][:count]
        cells = m * n
        out = []
        for r in rows:
            optimal = int(r[cells]) if m == 5 else 0
            out.append((np.array(r[:cells], np.int64).reshape(m, n), int(r[cells + 1] if m == 5 else r[cells]), optimal))
        return out
    return [(b, 0, 0) for b in fp.random_solvable(m, n, count=count, seed=2024)]


def _bench_set(shape, limit, count):
    """The rows of one set, and ``(shape, DeepCubeA's mean length or 0, the mean lower bound)``."""
    m, n = shape
    boards = _boards(shape, count)
    lengths, bounds, proved, cpu, dca, cons, optima = [], [], 0, [], [], [], []
    for board, theirs, optimal in boards:
        t = time.process_time()
        sol = fp.solve(board, time_limit=limit)
        cpu.append(time.process_time() - t)
        assert sol.verify(board) and sol.lower_bound <= sol.length
        if optimal:
            assert sol.lower_bound <= optimal <= sol.length, (sol.lower_bound, optimal, sol.length)
        lengths.append(sol.length)
        bounds.append(sol.lower_bound)
        proved += sol.status == "optimal"
        dca.append(theirs)
        optima.append(optimal)
        cons.append(fp.solve(board, method="constructive").length)
    k = len(boards)
    ours, lb, c = float(np.mean(lengths)), float(np.mean(bounds)), float(np.mean(cons))
    what = f"{m}x{n}, {k} boards, solve(b, time_limit={limit:g})"
    note = (f"mean lower bound {lb:.2f}, {proved}/{k} proved optimal, constructive {c:.2f}, "
            f"CPU {np.mean(cpu):.1f} s/board")  # fmt: skip
    rows = []
    if any(dca):
        theirs = float(np.mean(dca))
        opt = f", optimum {np.mean(optima):.2f}" if all(optima) else ""
        rows.append(_row(f"{what}: mean length vs DeepCubeA", ours, "moves", ratio=ours / theirs, baseline=theirs,
                         note=note + opt))  # fmt: skip
        rows.append(_row(f"{what}: proved optimal", proved / k, "share", note=f"{proved} of {k}"))
    else:
        ratio = float(np.mean(np.array(lengths) / np.maximum(1, np.array(bounds))))
        rows.append(_row(f"{what}: length / reported lower bound", ratio, "x", note=note + f", mean length {ours:.2f}"))
    rows.append(_row(f"{what}: constructive mean length", c, "moves", ratio=c / ours, baseline=ours,
                     note="method='constructive' on the same boards; ratio over the anytime search"))  # fmt: skip
    return rows, (shape, float(np.mean(dca)) if any(dca) else 0.0, lb)


#: Partitions of the large boards into compact groups of tiles (a letter per group, '.' the
#: blank): 5-tile groups on 6x6 (7 tables of 45 M entries), 4-tile on 7x7 (12 of 5.5 M).
GROUPS = {6: ("AAABBB", "AABBCC", "DDDCCC", "DDEEFF", "GGEEFF", "GGGEF."),
          7: ("AABBCCM", "AABBCCM", "DDEEFFM", "DDEEFFM", "GGHHIIN", "GGHHIIN", "KKKKNN.")}  # fmt: skip


def _groups(rows):
    n = len(rows[0])
    tiles = {}
    for r, line in enumerate(rows):
        for c, letter in enumerate(line):
            if letter != ".":
                tiles.setdefault(letter, []).append(r * n + c + 1)
    return [tuple(v) for _, v in sorted(tiles.items())]


def bound_rows(count=50) -> list:
    """How much additive databases of small patterns add over linear conflict on the large boards."""
    from fastpuzzle.pdb import build_partition
    from fastpuzzle.search.heuristics import linear_conflict, manhattan

    rows = []
    for m, letters in GROUPS.items():
        part = _groups(letters)
        c0 = time.process_time()
        db = build_partition((m, m), part, name=f"{m}x{m}")
        build = time.process_time() - c0
        data = _boards((m, m), count)
        boards = np.stack([b for b, _, _ in data])
        md = float(np.mean(manhattan(boards)))
        lc = float(np.mean(linear_conflict(boards)))
        pdb = db.lookup(boards).mean()
        rows.append(_row(f"{m}x{m} DeepCubeA boards: mean bound of {len(part)} tables of {len(part[0])} tiles", round(float(pdb), 2),
                         "moves", ratio=round(float(pdb / lc), 3), baseline=round(float(lc), 2),
                         note=f"{count} boards; Manhattan {md:.2f}, linear conflict {lc:.2f} (the baseline), DeepCubeA's "
                         f"mean length {np.mean([d for _, d, _ in data]):.2f}; built in {build:.1f} s CPU"))  # fmt: skip
    return rows


#: Boards of the 5x5 sample whose optimal proof is timed here: the file's solver generated at most this many nodes.
PROOF_TIMED_NODES = 300_000_000


def proof_limit_rows(limit=10.0, quick=False) -> list:
    """What limits the share of 5x5 boards proved optimal within ``limit`` s: the optimal search's
    nodes.  IDA* with probes on the database the anytime search takes is timed on the sample
    boards whose optimal search the file reports at most :data:`PROOF_TIMED_NODES` nodes for
    (the easiest first); their nodes against the file's and their rate give, for every board of
    the half-set, the CPU seconds a whole proof would take here (an estimate: the ratio of nodes
    is measured on easy boards, and the anytime search gives its proof part of the budget only)."""
    path = os.path.join(DATA, "deepcubea_5x5.txt")
    from fastpuzzle import pdb

    if not os.path.exists(path) or "6-6-6-6" not in pdb.available():
        return []
    db = choose_database((5, 5), None, strongest=True)
    rows = [line.split() for line in open(path) if line.strip() and not line.startswith("#")]
    theirs = np.array([float(r[27]) for r in rows])
    sample = range(min(12, len(rows)))
    timed = sorted((i for i in sample if theirs[i] <= PROOF_TIMED_NODES), key=lambda i: theirs[i])[: 1 if quick else 4]
    if not timed:
        return []
    ratios, rates = [], []
    for i in timed:
        board = np.array(rows[i][:25], np.int64).reshape(5, 5)
        t = time.process_time()
        sol = fp.solve(board, method="ida", heuristic="pdb", database=db)
        cpu = time.process_time() - t
        assert sol.status == "optimal" and sol.length == int(rows[i][25])
        ratios.append(sol.nodes / theirs[i])
        rates.append(sol.nodes / cpu)
    ratio, rate = float(np.median(ratios)), float(np.median(rates))
    seconds = theirs * ratio / rate
    share = float(np.mean(seconds <= limit))
    median = float(np.median(seconds))
    return [_row(f"5x5 half-set ({len(rows)} boards): share whose optimal search fits {limit:g} s CPU, estimated", share,
                 "share", note=f"the median board needs {median:.0f} s ({median / limit:.1f}x the budget) at {rate / 1e6:.1f} M "
                 f"nodes/s and {ratio:.2f}x the file's nodes (IDA* with probes, {db.name}, measured on {len(timed)} sample "
                 "boards; CPU s of a whole proof)")]  # fmt: skip


def gap_rows(sets) -> list:
    """How far DeepCubeA's own lengths lie above the lower bound this search reports (same boards)."""
    rows = []
    for (m, n), dca, bound in sets:
        rows.append(_row(f"{m}x{n}: DeepCubeA's mean length / the mean lower bound reported here", round(dca / bound, 3), "x",
                         note=f"{dca:.2f} / {bound:.2f}: an answer as short as DeepCubeA's is this far above the bound"))  # fmt: skip
    return rows


# The beam's node rate, run in this process or in another checkout (``--against``): only
# ``beam_search`` with ``stats`` and ``max_depth`` is needed, which every checkout since the beams has.
_BEAM_CHILD = r"""
import json, sys, time
import numpy as np
import fastpuzzle as fp
from fastpuzzle.search.beam import beam_search
width, layers = int(sys.argv[1]), int(sys.argv[2])
goal = fp.goal_board(10, 10).ravel()
boards = [b.ravel().astype(np.uint8) for b in fp.random_solvable(10, 10, count=2, seed=2024)]
out = {}
for heuristic in ("linear_conflict", "manhattan"):
    beam_search(boards[0], 10, 10, goal, 10, heuristic=heuristic, max_depth=5)  # compile
    children, cpu = 0, 0.0
    for b in boards:
        stats = np.zeros(1, np.int64)
        c0 = time.process_time()
        beam_search(b, 10, 10, goal, width, heuristic=heuristic, max_depth=layers, stats=stats)
        cpu += time.process_time() - c0
        children += int(stats[0])
    out[heuristic] = children / cpu
print(json.dumps(out))
"""


def beam_rows(quick: bool = False) -> list:
    """Children the beam generates per CPU second on 10x10 (width 4,000), ranked by linear conflict,
    side by side with the same beam ranked by Manhattan distance alone (no line to rescan)."""
    from bench.before_after import run_in_checkout

    layers = 100 if quick else 300
    rate = run_in_checkout(Path(__file__).resolve().parents[1], _BEAM_CHILD, 4000, layers)
    lc, md = rate["linear_conflict"], rate["manhattan"]
    return [_row("beam search 10x10, width 4,000: children per CPU second", lc, "children/s", ratio=lc / md,
                 baseline=md, note=f"2 boards, {layers} layers each; ratio over the same beam ranked by Manhattan "
                 "distance alone (the baseline)")]  # fmt: skip


def beam_against(other: str, rounds: int = 3) -> None:
    """The beam's rates in this checkout and in ``other``, alternating, best of ``rounds`` each."""
    from bench.before_after import run_in_checkout

    trees = {"this": Path(__file__).resolve().parents[1], "other": Path(other).resolve()}
    best = {k: {} for k in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            for heuristic, rate in run_in_checkout(tree, _BEAM_CHILD, 4000, 300).items():
                best[name][heuristic] = max(best[name].get(heuristic, 0.0), rate)
    for heuristic in ("linear_conflict", "manhattan"):
        this, that = best["this"][heuristic], best["other"][heuristic]
        print(f"beam 10x10 width 4,000, {heuristic}: {this / 1e6:.2f} M children/s here, {that / 1e6:.2f} M in "
              f"{trees['other']} ({this / that:.2f}x)")


def run(quick: bool = False) -> list:
    """Rows {family, name, value, unit, ratio, baseline, note}; ``quick``: one or two boards, short budgets."""
    from fastpuzzle import pdb

    if "6-6-6-6" in pdb.available():  # every page of the table the anytime search takes read in: not search time
        np.asarray(choose_database((5, 5), None, strongest=True).data).sum()
    fp.solve(fp.random_solvable(5, 5, count=1, seed=1)[0], time_limit=1.0)  # compile and load first
    more = os.environ.get("FASTPUZZLE_BENCH_NEAR_BOARDS")
    rows, gaps = [], []
    for shape, limit, full, small, quick_limit in SETS:
        count = small if quick else (int(more) if more else full)
        if count:
            set_rows, summary = _bench_set(shape, quick_limit if quick else limit, count)
            rows += set_rows
            gaps += [summary] if summary[1] else []
    rows += gap_rows(gaps) + proof_limit_rows(SETS[0][1], quick) + beam_rows(quick)
    return rows if quick else rows + bound_rows()


if __name__ == "__main__":
    # python bench/bench_near.py --against DIR: the beam's rates here and in another checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    if len(sys.argv) == 3 and sys.argv[1] == "--against":
        beam_against(sys.argv[2])
    else:
        for r in run("--quick" in sys.argv):
            print(f"{r['name']:<70} {r['value']!s:>14} {r['unit']:<6} {r['note']}")
