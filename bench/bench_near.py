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
import time

import numpy as np

import fastpuzzle as fp

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
    return rows


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


def run(quick: bool = False) -> list:
    """Rows {family, name, value, unit, ratio, baseline, note}; ``quick``: one or two boards, short budgets."""
    from fastpuzzle import pdb

    if "6-6-6-6" in pdb.available():  # every page of the table read in: loading is not search time
        np.asarray(pdb.load("6-6-6-6").data).sum()
    fp.solve(fp.random_solvable(5, 5, count=1, seed=1)[0], time_limit=1.0)  # compile and load first
    more = os.environ.get("FASTPUZZLE_BENCH_NEAR_BOARDS")
    rows = []
    for shape, limit, full, small, quick_limit in SETS:
        count = small if quick else (int(more) if more else full)
        if count:
            rows += _bench_set(shape, quick_limit if quick else limit, count)
    return rows if quick else rows + bound_rows()
