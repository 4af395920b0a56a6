"""Write the figures of one benchmark run into the README and the docs pages.

``python -m bench.render [RESULTS.json] [--check]`` reads the JSON written by
``python -m bench`` (default ``docs/bench.json``, the committed run) and
replaces what stands between markers in ``README.md``, ``ARCHITECTURE.md`` and
``docs/*.md``, so every figure of the documentation comes from that one run and
no two pages disagree:

- ``<!-- fig:KEY -->...<!-- /fig -->``: one figure. ``KEY`` is a name of
  :data:`FIGURES` (``fig:solver.korf_lc_cpu``) or a row written out as
  ``FAMILY|ROW NAME`` with an optional ``|FIELD`` (``value``, ``ratio``,
  ``baseline``, ``note``), formatted by its unit.
- ``<!-- table:family:NAME -->...<!-- /table -->``: every row of one family
  as a Markdown table; ``<!-- table:all -->`` every row of the run, family by
  family; ``<!-- table:machine -->`` the machine and the run's date.

A family or row missing from the JSON (a family that is new, or was left out
of the run) renders as ``—``; nothing is required to exist. ``--check``
writes nothing and exits 1 when a page is out of date (the test suite runs the
same check). ``python -m bench --json docs/bench.json`` calls this after
writing the JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_JSON = os.path.join(ROOT, "docs", "bench.json")
MISSING = "—"


@dataclass(frozen=True)
class Figure:
    """One number of the run: the row ``name`` of ``family``, its ``field``, formatted.

    ``fmt`` is a ``str.format`` pattern applied to ``field * scale``; ``None``
    formats by the row's unit (see :func:`human`).
    """

    family: str
    name: str
    field: str = "value"
    fmt: str | None = None
    scale: float = 1.0


#: The figures the pages quote by name. Add one here, then write
#: ``<!-- fig:KEY --><!-- /fig -->`` in a page and run ``python -m bench.render``.
FIGURES: dict[str, Figure] = {
    # visual: pictures, hints, the multi-tile metric
    "visual.hint_3x3_ms": Figure("visual", "hint 3x3, one board at a time", fmt="{:.2f} ms"),
    "visual.hints_3x3_batch": Figure("visual", "hints 3x3, batch of 100,000"),
    "visual.hint_4x4_ms": Figure("visual", "hint 4x4, one random board at a time", fmt="{:.0f} ms"),
    "visual.hint_4x4_near_ms": Figure("visual", "hint 4x4, boards 10-20 moves from the goal", fmt="{:.1f} ms"),
    "visual.mtm_3x3_s": Figure("visual", "MTM table 3x3", fmt="{:.2f} s"),
    "visual.mtm_2x5_s": Figure("visual", "MTM table 2x5", fmt="{:.1f} s"),
    "visual.mtm_3x4_s": Figure("visual", "MTM table 3x4", fmt="{:.0f} s"),
    "visual.mtm_solve_4x4_s": Figure("visual", "MTM solve 4x4, 40-move scrambles, slide databases", fmt="{:.3f} s"),
    "visual.svg_1000_s": Figure("visual", "SVG of 1,000 3x3 boards", fmt="{:.2f} s"),
    "visual.svg_heat_s": Figure("visual", "SVG heat map of one 300x300 board", fmt="{:.2f} s"),
    # near: the anytime search on the large boards
    "near.bound_6x6_gain": Figure("near", "6x6 DeepCubeA boards: mean bound of 7 tables of 5 tiles", "ratio",
                                  "{:.3f}x"),
    "near.bound_7x7_gain": Figure("near", "7x7 DeepCubeA boards: mean bound of 12 tables of 4 tiles", "ratio",
                                  "{:.3f}x"),
    "near.5x5_mean": Figure("near", "5x5, 12 boards, solve(b, time_limit=10): mean length vs DeepCubeA", fmt="{:.2f}"),
    "near.5x5_dca": Figure("near", "5x5, 12 boards, solve(b, time_limit=10): mean length vs DeepCubeA", "baseline",
                           "{:.2f}"),
    "near.5x5_optimum": Figure("near", "5x5, 12 boards, solve(b, time_limit=10): mean length vs DeepCubeA", "note",
                               r"optimum ([\d.]+)"),
    "near.5x5_proved": Figure("near", "5x5, 12 boards, solve(b, time_limit=10): proved optimal", "note"),
    "near.5x5_fits": Figure("near", "5x5 half-set (248 boards): share whose optimal search fits 10 s CPU, estimated",
                            fmt="{:.0%}"),
    "near.5x5_median_proof": Figure("near", "5x5 half-set (248 boards): share whose optimal search fits 10 s CPU, "
                                    "estimated", "note", r"needs (\d+ s)"),
    "near.5x5_proof_short": Figure("near", "5x5 half-set (248 boards): share whose optimal search fits 10 s CPU, "
                                   "estimated", "note", r"\(([\d.]+x) the budget\)"),
    "near.6x6_vs_dca": Figure("near", "6x6, 4 boards, solve(b, time_limit=30): mean length vs DeepCubeA", "ratio",
                              "{:.3f}x"),
    "near.7x7_vs_dca": Figure("near", "7x7, 3 boards, solve(b, time_limit=60): mean length vs DeepCubeA", "ratio",
                              "{:.3f}x"),
    "near.5x5_dca_over_bound": Figure("near", "5x5: DeepCubeA's mean length / the mean lower bound reported here"),
    "near.6x6_dca_over_bound": Figure("near", "6x6: DeepCubeA's mean length / the mean lower bound reported here"),
    "near.7x7_dca_over_bound": Figure("near", "7x7: DeepCubeA's mean length / the mean lower bound reported here"),
    "near.8x8_over_bound": Figure("near", "8x8, 2 boards, solve(b, time_limit=60): length / reported lower bound",
                                  fmt="{:.2f}x"),
    "near.10x10_over_bound": Figure("near", "10x10, 2 boards, solve(b, time_limit=60): length / reported lower bound",
                                    fmt="{:.2f}x"),
    "frontier.korf100_before_last": Figure("frontier", "korf100 7-8x2 +reflection nodes per instance before the last pass",
                                           fmt="{:,.0f}"),
    "frontier.hard80_before_last_share": Figure(
        "frontier", "hard80 (17) 7-8 +reflection nodes per instance before the last pass", "ratio", "{:.0%}",
        scale=1.0),
    # solvability
    "solvability.is_solvable_4x4": Figure("solvability", "is_solvable, 10,000,000 random 4x4 (uint8), check=False",
                                          fmt="{:.0f} M boards/s"),
    "solvability.is_solvable_4x4_validated": Figure(
        "solvability", "is_solvable, 10,000,000 random 4x4 (uint8), validated", fmt="{:.0f} M boards/s"),
    "solvability.vs_numpy": Figure("solvability", "  is_solvable vs NumPy-vectorised rule", "ratio", "{:.0f}x"),
    "solvability.vs_python": Figure("solvability", "  is_solvable vs plain-Python rule", "ratio", "{:.0f}x"),
    "solvability.vs_read": Figure("solvability", "is_solvable, 10,000,000 random 4x4 (uint8), check=False",
                                  "ratio", "{:.3f}x"),
    "solvability.vs_read_validated": Figure(
        "solvability", "is_solvable, 10,000,000 random 4x4 (uint8), validated", "ratio", "{:.3f}x"),
    "solvability.read_loop": Figure("solvability", "  read-only loop over the same array", fmt="{:,.0f} M boards/s"),
    "solvability.small_call": Figure("solvability", "is_solvable, one call on 1,000 boards", fmt="{:.0f} us"),
    "solvability.is_solvable_10x10": Figure("solvability", "is_solvable, 1,000,000 random 10x10, check=False",
                                            fmt="{:.1f} M boards/s"),
    "solvability.is_solvable_10x10_validated": Figure(
        "solvability", "is_solvable, 1,000,000 random 10x10, validated", fmt="{:.1f} M boards/s"),
    "solvability.np_sort_1000": Figure("solvability", "np.sort of one 1000x1000 board", fmt="{:.1f} ms"),
    "solvability.radix_1000": Figure("solvability", "inversions 1000x1000, radix", fmt="{:.0f} ms"),
    "solvability.fenwick_1000": Figure("solvability", "inversions 1000x1000, fenwick", fmt="{:.0f} ms"),
    "solvability.merge_1000": Figure("solvability", "inversions 1000x1000, merge", fmt="{:.0f} ms"),
    "solvability.tree_1000": Figure("solvability", "parity 1000x1000, tree", fmt="{:.0f} ms"),
    "solvability.cycles_1000": Figure("solvability", "parity 1000x1000, cycles", fmt="{:.0f} ms"),
    "solvability.tree_1000_vs_sort": Figure("solvability", "parity 1000x1000, tree", "ratio", "{:.1f}x"),
    "solvability.ratio_3x3_validated": Figure("solvability", "ratio 3x3: is_solvable validated, 10,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_3x3_unchecked": Figure("solvability", "ratio 3x3: is_solvable check=False, 10,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_4x4_validated": Figure("solvability", "ratio 4x4: is_solvable validated, 10,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_4x4_unchecked": Figure("solvability", "ratio 4x4: is_solvable check=False, 10,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_5x5_validated": Figure("solvability", "ratio 5x5: is_solvable validated, 4,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_5x5_unchecked": Figure("solvability", "ratio 5x5: is_solvable check=False, 4,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_8x8_validated": Figure("solvability", "ratio 8x8: is_solvable validated, 1,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_8x8_unchecked": Figure("solvability", "ratio 8x8: is_solvable check=False, 1,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_10x10_validated": Figure("solvability", "ratio 10x10: is_solvable validated, 1,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_10x10_unchecked": Figure("solvability", "ratio 10x10: is_solvable check=False, 1,000,000 boards", "ratio",
                                              "{:.2f}"),
    "solvability.ratio_10x10_before": Figure(
        "solvability", "ratio 10x10: is_solvable validated, before (bitmask128), 1,000,000 boards", "ratio", "{:.3f}"),
    "solvability.cycles_1000_vs_sort": Figure("solvability", "parity 1000x1000, cycles", "ratio", "{:.2f}x"),
    "solvability.validated_tree_1000_vs_sort": Figure(
        "solvability", "is_solvable 1000x1000, validated, tree checked (before)", "ratio", "{:.2f}x"),
    "solvability.validated_1000_vs_sort": Figure("solvability", "is_solvable 1000x1000, validated", "ratio",
                                                 "{:.2f}x"),
    "solvability.import": Figure("solvability", "fresh process: import fastpuzzle", fmt="{:.2f} s"),
    "solvability.first_call": Figure("solvability", "fresh process: first is_solvable call", fmt="{:.2f} s"),
    # generation
    "generate.random_solvable_4x4": Figure("generate", "random_solvable 10,000,000 4x4", fmt="{:.0f} M boards/s",
                                           scale=1e-6),
    "generate.random_solvable_4x4_vs_numpy": Figure("generate", "random_solvable 10,000,000 4x4", "ratio", "{:.1f}x"),
    "generate.random_permutations_4x4": Figure("generate", "random_permutations 10,000,000 4x4",
                                               fmt="{:.0f} M boards/s", scale=1e-6),
    "generate.random_permutations_4x4_vs_numpy": Figure("generate", "random_permutations 10,000,000 4x4", "ratio",
                                                        "{:.1f}x"),
    "generate.random_solvable_100x100": Figure("generate", "random_solvable 10,000 100x100", fmt="{:,.0f} boards/s"),
    "generate.random_solvable_100x100_vs_numpy": Figure("generate", "random_solvable 10,000 100x100", "ratio",
                                                        "{:.1f}x"),
    "generate.scramble": Figure("generate", "scramble 1,000,000 4x4 x 100 moves", fmt="{:.0f} M moves/s", scale=1e-6),
    # files
    "io.check_npy": Figure("io", "check .npy streaming 100,000,000 4x4 (1.60 GB)", fmt="{:.0f} M boards/s",
                           scale=1e-6),
    "io.check_npy_vs_memory": Figure("io", "check .npy streaming 100,000,000 4x4 (1.60 GB)", "ratio", "{:.2f}x"),
    "io.check_npy_memory": Figure("io", "check .npy peak memory", fmt="{:.0f} MB"),
    "io.check_npy_memory_share": Figure("io", "check .npy peak memory", "ratio", "{:.2f}"),
    "io.judge": Figure("io", "judge 20 cases n=499 (65 MB), start-up included", fmt="{:.2f} s"),
    "io.judge_vs_c": Figure("io", "judge 20 cases n=499 (65 MB), start-up included", "ratio", "{:.2f}x"),
    "io.judge_cpu": Figure("io", "judge, CPU time (user + system)", fmt="{:.2f} s"),
    "io.judge_cpu_vs_c": Figure("io", "judge, CPU time (user + system)", "ratio", "{:.2f}x the speed of C"),
    "io.judge_c_cpu": Figure("io", "judge, CPU time (user + system)", "baseline", r"([\d.]+ s)"),
    "io.judge_startup": Figure("io", "judge, CPU time (user + system)", "note", r"([\d.]+ s) is start-up"),
    "io.checksum_78": Figure("io", "checksum of 577 MB, CPU", fmt="{:.2f} s"),
    # optimal solver
    "solver.korf_lc_cpu": Figure("solver", "Korf's 100, linear conflict: CPU", fmt="{:.1f} s"),
    "solver.korf_lc_wall": Figure("solver", "Korf's 100, linear conflict: wall, 2 threads", fmt="{:.1f} s"),
    "solver.korf_lc_nodes": Figure("solver", "Korf's 100, linear conflict: nodes", fmt="{:,.0f}"),
    "solver.korf_lc_rate": Figure("solver", "Korf's 100, linear conflict: nodes/s (CPU)", fmt="{:.0f} M nodes/s",
                                  scale=1e-6),
    "solver.korf10_md_nodes": Figure("solver", "Korf's first 10, Manhattan: nodes", fmt="{:,.0f}"),
    "solver.korf10_md_rate": Figure("solver", "Korf's first 10, Manhattan: nodes/s", fmt="{:.0f} M nodes/s",
                                    scale=1e-6),
    "solver.korf10_md_vs_c": Figure("solver", "Korf's first 10, Manhattan: nodes/s", "ratio", "{:.2f}x"),
    "solver.korf10_md_c_rate": Figure("solver", "Korf's first 10, Manhattan: nodes/s", "baseline",
                                      "{:.0f} M nodes/s", scale=1e-6),
    "solver.8puzzle_2t": Figure("solver", "1000 random 8-puzzles: solve_many, 2 threads", fmt="{:,.0f} boards/s"),
    "solver.8puzzle_2t_vs_loop": Figure("solver", "1000 random 8-puzzles: solve_many, 2 threads", "ratio", "{:.1f}x"),
    "solver.8puzzle_1t": Figure("solver", "1000 random 8-puzzles: solve_many, 1 thread", fmt="{:,.0f} boards/s"),
    "solver.korf10_lc_undo_nodes": Figure("solver", "Korf's first 10, linear conflict, undo rule: CPU", "note", r"^([\d,]+) nodes"),
    "solver.korf10_lc_automaton_nodes": Figure("solver", "Korf's first 10, linear conflict, move automaton: CPU", "note", r"^([\d,]+) nodes"),
    "solver.korf10_lc_automaton_vs_undo_nodes": Figure("solver", "Korf's first 10, linear conflict, move automaton: CPU", "note",
                                                       r"\(([\d.]+) of the undo rule's\)"),
    "solver.korf10_lc_undo_cpu": Figure("solver", "Korf's first 10, linear conflict, undo rule: CPU", fmt="{:.2f} s"),
    "solver.korf10_lc_automaton_cpu": Figure("solver", "Korf's first 10, linear conflict, move automaton: CPU", fmt="{:.2f} s"),
    "solver.korf10_lc_automaton_vs_undo_cpu": Figure("solver", "Korf's first 10, linear conflict, move automaton: CPU", "ratio", "{:.3f}"),
    "solver.automaton_10_cpu": Figure("solver", "move automaton, 10 moves: build CPU", fmt="{:.1f} s"),
    "solver.automaton_12_cpu": Figure("solver", "move automaton, 12 moves: build CPU", fmt="{:.0f} s"),
    # constructive
    "constructive.300_rate": Figure("constructive", "solve 300x300", fmt="{:.0f} M moves/s", scale=1e-6),
    "constructive.300_seconds": Figure("constructive", "solve 300x300", "note", r"^([\d.]+ s)"),
    "constructive.300_verify": Figure("constructive", "verify 300x300", "note", r"^([\d.]+ s)"),
    "constructive.300_quality": Figure("constructive", "length/Manhattan 300x300", fmt="{:.2f}x"),
    "constructive.1000_seconds": Figure("constructive", "solve 1000x1000 (count only)", "note", r"^([\d.]+ s)"),
    "constructive.1000_rate": Figure("constructive", "solve 1000x1000 (count only)", fmt="{:.0f} M moves/s",
                                     scale=1e-6),
    "constructive.100_seconds": Figure("constructive", "solve 100x100", "note", r"^([\d.]+ s)"),
    "constructive.10x1000_seconds": Figure("constructive", "solve 10x1000", "note", r"^([\d.]+ s)"),
    # pattern databases
    "pdb.korf_78_cpu": Figure("pdb", "korf100 7-8 +reflection cpu seconds", fmt="{:.2f} s"),
    "pdb.korf_78_nodes": Figure("pdb", "korf100 7-8 +reflection nodes per instance", fmt="{:,.0f}"),
    "pdb.korf_78_vs_published": Figure("pdb", "korf100 7-8 +reflection nodes per instance", "ratio", "{:.2f}"),
    "pdb.korf_78_rate": Figure("pdb", "korf100 7-8 +reflection nodes per second", fmt="{:.1f} M nodes/s", scale=1e-6),
    "pdb.korf_663_cpu": Figure("pdb", "korf100 6-6-3 +reflection cpu seconds", fmt="{:.1f} s"),
    "pdb.korf_663_nodes": Figure("pdb", "korf100 6-6-3 +reflection nodes per instance", fmt="{:,.0f}"),
    "pdb.78_vs_663": Figure("pdb", "korf100 7-8 vs 6-6-3 (same run)", "ratio", "{:.0f}x"),
    "pdb.build_555_cpu": Figure("pdb", "build 5-5-5 cpu seconds", fmt="{:.1f} s"),
    "pdb.build_663_cpu": Figure("pdb", "build 6-6-3 cpu seconds", fmt="{:.1f} s"),
    "pdb.build_78": Figure("pdb", "build 7-8 cpu seconds", fmt="{:.0f} s of CPU"),
    "pdb.build_78_half_cpu": Figure("pdb", "build 7-8 7-tile half cpu seconds", fmt="{:.1f} s"),
    "pdb.build_78_cpu": Figure("pdb", "build 7-8 cpu seconds", fmt="{:.1f} s"),
    "pdb.build_78_wall": Figure("pdb", "build 7-8 cpu seconds", "note", r"^(wall [\d.]+ s)"),
    "pdb.korf_undo_nodes": Figure("pdb", "korf100 7-8 +reflection undo: cpu seconds mean", "note", r"nodes per instance ([\d,]+)"),
    "pdb.korf_automaton_nodes": Figure("pdb", "korf100 7-8 +reflection automaton: cpu seconds mean", "note",
                                       r"nodes per instance ([\d,]+)"),
    "pdb.korf_automaton_vs_undo_nodes": Figure("pdb", "korf100 7-8 +reflection automaton / undo rule: nodes", fmt="{:.3f}"),
    "pdb.korf_undo_cpu": Figure("pdb", "korf100 7-8 +reflection automaton / undo rule: cpu", "note", r"vs ([\d.]+ s)"),
    "pdb.korf_automaton_cpu": Figure("pdb", "korf100 7-8 +reflection automaton / undo rule: cpu", "note", r"^([\d.]+ s) vs"),
    "pdb.korf_automaton_vs_undo_cpu": Figure("pdb", "korf100 7-8 +reflection automaton / undo rule: cpu", fmt="{:.3f}"),
    "pdb.hard80_undo_nodes": Figure("pdb", "hard80 (17) 7-8 +reflection undo: cpu seconds mean", "note", r"nodes per instance ([\d,]+)"),
    "pdb.hard80_automaton_nodes": Figure("pdb", "hard80 (17) 7-8 +reflection automaton: cpu seconds mean", "note",
                                         r"nodes per instance ([\d,]+)"),
    "pdb.hard80_automaton_vs_undo_nodes": Figure("pdb", "hard80 (17) 7-8 +reflection automaton / undo rule: nodes", fmt="{:.3f}"),
    "pdb.hard80_undo_cpu": Figure("pdb", "hard80 (17) 7-8 +reflection automaton / undo rule: cpu", "note", r"vs ([\d.]+ s)"),
    "pdb.hard80_automaton_cpu": Figure("pdb", "hard80 (17) 7-8 +reflection automaton / undo rule: cpu", "note", r"^([\d.]+ s) vs"),
    "pdb.hard80_automaton_vs_undo_cpu": Figure("pdb", "hard80 (17) 7-8 +reflection automaton / undo rule: cpu", fmt="{:.3f}"),
    "pdb.hard80_undo_mean": Figure("pdb", "hard80 (17) 7-8 +reflection undo: cpu seconds mean", fmt="{:.2f} s"),
    "pdb.hard80_automaton_mean": Figure("pdb", "hard80 (17) 7-8 +reflection automaton: cpu seconds mean", fmt="{:.2f} s"),
    "pdb.hard80_undo_worst": Figure("pdb", "hard80 (17) 7-8 +reflection undo: cpu seconds mean", "note", r"^worst ([\d.]+ s \(#\d+\))"),
    "pdb.hard80_automaton_worst": Figure("pdb", "hard80 (17) 7-8 +reflection automaton: cpu seconds mean", "note",
                                         r"^worst ([\d.]+ s \(#\d+\))"),
    "pdb.partitions_korf_share": Figure("pdb", "7-8 vs 6-6-3, Korf's 100 starts: share where 6-6-3 is larger",
                                        fmt="{:.0%}"),
    "pdb.partitions_korf_h": Figure("pdb", "7-8 vs 6-6-3, Korf's 100 starts: share where 6-6-3 is larger", "note",
                                    r"(mean h 7-8 [\d.]+, 6-6-3 [\d.]+)"),
    "pdb.partitions_hard80_share": Figure("pdb", "7-8 vs 6-6-3, 80-move starts: share where 6-6-3 is larger",
                                          fmt="{:.0%}"),
    "pdb.partitions_hard80_h": Figure("pdb", "7-8 vs 6-6-3, 80-move starts: share where 6-6-3 is larger", "note",
                                      r"(mean h 7-8 [\d.]+, 6-6-3 [\d.]+)"),
    "pdb.partitions_walk_share": Figure("pdb", "7-8 vs 6-6-3, random-walk states: share where 6-6-3 is larger",
                                        fmt="{:.0%}"),
    "pdb.partitions_uniform_share": Figure("pdb", "7-8 vs 6-6-3, uniform random states: share where 6-6-3 is larger",
                                           fmt="{:.0%}"),
    "pdb.build_78_memory": Figure("pdb", "build 7-8 peak memory", fmt="{:,.0f} MiB"),
    # distance tables
    "distances.table_3x3_wall": Figure("distances", "table 3x3 wall seconds", fmt="{:.2f} s"),
    "distances.table_3x3_cpu": Figure("distances", "table 3x3 wall seconds", "note", r"^cpu ([\d.]+ s)"),
    "distances.table_3x3_memory": Figure("distances", "table 3x3 peak memory", fmt="{:,.0f} MiB"),
    "distances.table_3x4_wall": Figure("distances", "table 3x4 wall seconds", fmt="{:.0f} s"),
    "distances.table_3x4_cpu": Figure("distances", "table 3x4 wall seconds", "note", r"^cpu ([\d.]+ s)"),
    "distances.table_3x4_memory": Figure("distances", "table 3x4 peak memory", fmt="{:,.0f} MiB"),
    "distances.table_3x4_rate": Figure("distances", "table 3x4 wall seconds", "note", r"([\d.]+ M boards/cpu-s)"),
    "distances.table_2x6_wall": Figure("distances", "table 2x6 wall seconds", fmt="{:.0f} s"),
    "distances.table_2x6_cpu": Figure("distances", "table 2x6 wall seconds", "note", r"^cpu ([\d.]+ s)"),
    "distances.table_2x6_memory": Figure("distances", "table 2x6 peak memory", fmt="{:,.0f} MiB"),
    "distances.random_3x3_d0": Figure("distances", "random_solvable 3x3 distance=0", fmt="{:.1f} M boards/s",
                                      scale=1e-6),
    "distances.random_3x3_d31": Figure("distances", "random_solvable 3x3 distance=31", fmt="{:.1f} M boards/s",
                                       scale=1e-6),
    "distances.layers_4x4_cpu": Figure("distances", "4x4 layers near the goal to distance 23", fmt="{:.1f} s"),
    "distances.random_4x4_d23": Figure("distances", "random_solvable 4x4 distance=23", fmt="{:.0f} M boards/s",
                                       scale=1e-6),
    "distances.solve_4x4_cpu": Figure("distances", "4x4 optimal distances of uniform boards", "note",
                                      r"([\d.]+ ms) CPU per solve"),
    "distances.accept_50_55": Figure("distances", "4x4 acceptance of distance 50..55", fmt="{:.1%}"),
    "distances.rejection_50_55": Figure("distances", "random_solvable 4x4 distance=(50, 55)",
                                        fmt="{:.0f} boards/s"),
    "distances.dask_3x4_wall": Figure("distances", "dask 3x4 wall seconds (LocalCluster 2x1)", fmt="{:.0f} s"),
    "distances.dask_3x4_cpu": Figure("distances", "dask 3x4 CPU seconds", fmt="{:.0f} s"),
    "distances.dask_3x4_cpu_split": Figure("distances", "dask 3x4 CPU seconds", "note",
                                           r"^(workers [\d.]+ s, client and scheduler [\d.]+ s)"),
    "distances.dask_3x4_local_wall": Figure("distances", "dask 3x4 wall seconds (LocalCluster 2x1)", "baseline",
                                            r"([\d.]+ s)"),
    "distances.dask_3x4_local_cpu": Figure("distances", "dask 3x4 CPU seconds", "baseline", r"([\d.]+ s)"),
    "distances.dask_3x4_rate": Figure("distances", "dask 3x4 CPU seconds", "note",
                                      r"([\d.]+ M boards per worker CPU-second)"),
    "distances.dask_3x4_offsets": Figure("distances", "dask 3x4 offsets shipped", fmt="{:.3f}"),
    "distances.dask_3x4_offsets_total": Figure("distances", "dask 3x4 offsets shipped", "note",
                                               r"^([\d,]+ uint32 offsets \([\d.]+ MiB\) in all)"),
    "distances.dask_3x4_offsets_sampled": Figure("distances", "dask 3x4 offsets per board, 4 slices", fmt="{:.3f}"),
    "distances.dask_2x7_offsets": Figure("distances", "dask 2x7 offsets per board, 44 slices", fmt="{:.2f}"),
    "distances.dask_2x7_offsets_total": Figure("distances", "dask 2x7 offsets per board, 44 slices", "note",
                                               r"([\d,.]+ GB) of offsets"),
    "distances.dask_3x5_offsets": Figure("distances", "dask 3x5 offsets per board, 654 slices", fmt="{:.2f}"),
    "distances.dask_3x5_offsets_total": Figure("distances", "dask 3x5 offsets per board, 654 slices", "note",
                                               r"([\d,.]+ GB) of offsets"),
    # Dask
    "distributed.local": Figure("distributed", "local streaming check, 100,000,000 4x4 (1.60 GB)",
                                fmt="{:.0f} M boards/s"),
    "distributed.two_workers": Figure("distributed", "Dask, 2 worker(s) x 1 Numba thread(s)", fmt="{:.0f} M boards/s"),
    "distributed.two_workers_vs_local": Figure("distributed", "Dask, 2 worker(s) x 1 Numba thread(s)", "ratio",
                                               "{:.2f}x"),
}

#: Pages rendered (relative to the repository root); ``docs/*.md`` is added.
PAGES = ("README.md", "ARCHITECTURE.md")

# a marker right after a backtick is quoted in code (as in docs/benchmarks.md), not filled
_FIG = re.compile(r"(?<!`)<!-- fig:(?P<key>[^>]*?) -->(?P<body>.*?)<!-- /fig -->", re.S)
_TABLE = re.compile(r"(?P<open>(?<!`)<!-- table:(?P<key>[^>]*?) -->\n)(?P<body>.*?)(?P<close><!-- /table -->)", re.S)
_PREFIX = {"k": 1e3, "M": 1e6, "G": 1e9}


def load(path: str = DEFAULT_JSON) -> dict:
    """The run written by ``python -m bench``; an absent file gives an empty run (all ``—``)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        return {}
    return doc if isinstance(doc, dict) else {}


def find_row(doc: dict, family: str, name: str) -> dict | None:
    """The row ``name`` of ``family`` (surrounding spaces ignored), or ``None``."""
    for row in doc.get("rows") or ():
        if isinstance(row, dict) and row.get("family") == family and str(row.get("name", "")).strip() == name.strip():
            return row
    return None


def _sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, thousands separated, no exponent."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    return f"{x:,.{decimals}f}"


def human(value, unit: str = "") -> str:
    """A row's value with its unit, rates scaled to M or G: ``40034916, 'boards/s'`` -> ``40.0 M boards/s``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return MISSING if value is None else str(value)
    unit = str(unit or "").strip()
    if unit.endswith("/s") and unit[:1] not in _PREFIX and unit[1:2] != " ":
        for prefix, scale in (("G", 1e9), ("M", 1e6)):
            if abs(value) >= scale:
                return f"{_sig(value / scale)} {prefix} {unit}"
    if isinstance(value, int) or (unit in ("nodes", "moves", "boards") and float(value).is_integer()):
        text = f"{int(value):,}"
    else:
        text = _sig(value)
    if unit == "x":
        return text + "x"
    return f"{text} {unit}".strip()


def format_figure(doc: dict, fig: Figure) -> str:
    """``fig`` read from ``doc``, or ``—`` when its row or field is missing."""
    row = find_row(doc, fig.family, fig.name)
    if row is None:
        return MISSING
    value = row.get(fig.field)
    if fig.field == "note" or isinstance(value, str):  # a figure inside a text: fmt is a regex, group 1 kept
        found = re.search(fig.fmt or "(.*)", str(value or ""))
        return found.group(1) if found else MISSING
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return MISSING if value in (None, "") else str(value)
    if fig.fmt is None:
        if fig.field == "ratio":
            return f"{_sig(value)}x"
        return human(value * fig.scale, row.get("unit", "") if fig.field == "value" else "")
    return fig.fmt.format(value * fig.scale)


def figure(doc: dict, key: str) -> str:
    """The text for ``<!-- fig:KEY -->``; unknown names raise ``KeyError``."""
    key = key.strip()
    if key == "machine":
        return machine_line(doc)
    if "|" in key:
        parts = key.split("|")
        field = parts[2].strip() if len(parts) > 2 else "value"
        return format_figure(doc, Figure(parts[0].strip(), parts[1].strip(), field))
    return format_figure(doc, FIGURES[key])


def machine_line(doc: dict) -> str:
    """``2 cores (2 Numba threads), AMD EPYC, Python 3.11.7, NumPy 2.4.6, Numba 0.68.1; full run of 2026-12-01``,
    then the run's ``notes`` (which families were rerun alone since, and where) when it has any."""
    m = doc.get("machine")
    if not isinstance(m, dict):
        return MISSING
    line = (f"{m.get('cores', '?')} cores ({m.get('numba_threads', '?')} Numba threads), {m.get('cpu', '?')}, "
            f"Python {m.get('python', '?')}, NumPy {m.get('numpy', '?')}, Numba {m.get('numba', '?')}")
    when = str(doc.get("created") or "")[:10]
    line = f"{line}; {doc.get('mode', '?')} run of {when}" if when else line
    notes = doc.get("notes")  # families rerun alone since the full run, on which machine
    return f"{line}; {notes}" if isinstance(notes, str) and notes else line


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def family_table(doc: dict, family: str) -> str:
    """Every row of ``family`` as a Markdown table (a one-line note when the run has none)."""
    rows = [r for r in doc.get("rows") or () if isinstance(r, dict) and r.get("family") == family]
    if not rows:
        return f"{MISSING} (no `{family}` rows in docs/bench.json yet)\n"
    out = ["| benchmark | value | ratio | against / note |", "|---|---|---|---|"]
    for r in rows:
        ratio = r.get("ratio")
        ratio_text = f"{_sig(ratio)}x" if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) \
            and math.isfinite(ratio) else ""
        baseline = r.get("baseline")
        if isinstance(baseline, (int, float)) and not isinstance(baseline, bool):
            baseline = human(baseline, r.get("unit", "") if r.get("unit", "").endswith("/s") else "")
        against = " — ".join(_cell(s) for s in (baseline, r.get("note")) if s)
        out.append(f"| {_cell(r.get('name', ''))} | {_cell(human(r.get('value'), r.get('unit', '')))} "
                   f"| {ratio_text} | {against} |")
    return "\n".join(out) + "\n"


def table(doc: dict, key: str) -> str:
    """The text for ``<!-- table:KEY -->``; unknown kinds raise ``KeyError``."""
    key = key.strip()
    if key.startswith("family:"):
        return family_table(doc, key.split(":", 1)[1].strip())
    if key == "machine":
        return machine_line(doc) + "\n"
    if key == "all":
        families = list(doc.get("families") or [])
        families += [r.get("family") for r in doc.get("rows") or () if isinstance(r, dict)
                     and r.get("family") not in families]
        if not families:
            return f"{MISSING} (docs/bench.json holds no run yet)\n"
        return "\n".join(f"**{f}**\n\n{family_table(doc, f)}" for f in families)
    raise KeyError(key)


def render_text(text: str, doc: dict) -> str:
    """``text`` with every marker filled from ``doc``."""
    text = _FIG.sub(lambda m: f"<!-- fig:{m['key']} -->{figure(doc, m['key'])}<!-- /fig -->", text)
    return _TABLE.sub(lambda m: m["open"] + table(doc, m["key"]) + m["close"], text)


def pages(root: str = ROOT) -> list[str]:
    """The pages that may hold markers: README, ARCHITECTURE and every ``docs/*.md``."""
    found = [os.path.join(root, p) for p in PAGES if os.path.exists(os.path.join(root, p))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        found += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return found


def render(doc: dict, root: str = ROOT, write: bool = True) -> list[str]:
    """Fill every page under ``root`` from ``doc``; returns the pages that changed (or would)."""
    changed = []
    for path in pages(root):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = render_text(old, doc)
        if new != old:
            changed.append(os.path.relpath(path, root))
            if write:
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(new)
                os.replace(tmp, path)
    return changed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="?", default=DEFAULT_JSON, help="the run's JSON (default docs/bench.json)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page is out of date")
    args = p.parse_args(argv)
    try:
        changed = render(load(args.results), write=not args.check)
    except KeyError as exc:
        print(f"bench.render: unknown figure or table {exc}; the names are in bench/render.py", file=sys.stderr)
        return 2
    verb = "out of date" if args.check else "rendered"
    for page in changed:
        print(f"{verb}: {page}")
    if not changed:
        print("every page is up to date with " + os.path.relpath(args.results, ROOT))
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
