"""Rebuild the move automaton stored with the package and compare it with the stored table.

    python -m bench.check_automaton               # the stored depth (14 moves): minutes, about 20 GB
    python -m bench.check_automaton --length 10   # a shorter build only: its CPU seconds, no comparison

The stored table (``fastpuzzle/data/move_automaton_14.npy``) is what ``move_automaton()``
loads; ``build_move_automaton`` is its definition. The full rebuild is too slow for the test
suite (which checks that the stored table accepts exactly the sequences of at most 10 moves that
a fresh 10-move build accepts), so it lives here: the exit status is 1 when the rebuilt table
differs from the stored one. The ``solver`` family of ``python -m bench`` runs it too
(:func:`automaton_rows`: 10 moves in ``--quick``, 10 and 12 in full mode). The 14-move build
peaks near 20 GB of memory (the 12-move one near 3 GB), so only this command runs it, after
checking that the memory is there.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from fastpuzzle.errors import AllocationError
from fastpuzzle.memory import check_allocation
from fastpuzzle.moves import PRUNE_LENGTH, build_move_automaton, move_automaton


#: The rows' names (quoted whole, so tests/test_docs.py finds rows not yet in docs/bench.json).
NAMES = {10: "move automaton, 10 moves: build CPU", 12: "move automaton, 12 moves: build CPU"}
#: Peak memory of a build, measured (bytes); the 14-move one is checked before it starts.
PEAK_BYTES = {12: 3 << 30, 14: 20 << 30}


def _row(name, value, unit, note=""):
    return {"family": "solver", "name": name, "value": value, "unit": unit, "ratio": None, "baseline": None,
            "note": note}


def build_row(length: int) -> tuple[dict, bool | None]:
    """Build the ``length``-move automaton: its row (CPU seconds) and, at the stored depth,
    whether it equals the stored table (``None`` at other depths)."""
    check_allocation(PEAK_BYTES.get(length, 0), f"building the {length}-move automaton")
    c0 = time.process_time()
    table = build_move_automaton(length)
    cpu = time.process_time() - c0
    equal = bool(np.array_equal(table, move_automaton())) if length == PRUNE_LENGTH else None
    note = f"{table.shape[0]:,} states"
    if equal is not None:
        note += f"; equals the stored table: {equal}"
    name = NAMES.get(length, f"move automaton, {length} moves: build CPU")
    return _row(name, cpu, "s", note), equal


def automaton_rows(quick: bool) -> list[dict]:
    """The builds of the ``solver`` family; a rebuilt stored table that differs raises ``SystemExit``."""
    rows = []
    for length in (10,) if quick else (10, 12):
        row, equal = build_row(length)
        if equal is False:
            raise SystemExit(f"the {length}-move automaton built now differs from fastpuzzle/data/: {row['note']}")
        rows.append(row)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.check_automaton", description=__doc__.split("\n\n")[0])
    p.add_argument("--length", type=int, default=PRUNE_LENGTH,
                   help=f"moves compared (default {PRUNE_LENGTH}, the stored table, which the build is compared with)")
    args = p.parse_args(argv)
    if args.length < 2 or args.length > PRUNE_LENGTH:
        p.error(f"--length must be between 2 and {PRUNE_LENGTH}, got {args.length}")
    try:
        row, equal = build_row(args.length)
    except AllocationError as e:  # the machine lacks the memory the build peaks at
        print(f"python -m bench.check_automaton: {e}", file=sys.stderr)
        return 2
    print(f"{row['name']}: {row['value']:.2f} s ({row['note']})")
    return 1 if equal is False else 0


if __name__ == "__main__":
    sys.exit(main())
