"""Databases of several partitions (``groups``): the bound is the largest partition's sum.

Checked on every 3x3 board against BFS and against each partition alone, on a 2x4 board with four
partitions (no reflection), in the engine (optimal lengths, both metrics) and at the gates."""

from __future__ import annotations

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import pdb
from fastpuzzle.search.pdb.dual import dual_lookup
from fastpuzzle.search.pdb.store import DATABASES, PREFERENCE

from . import naive

FIRST = [(1, 2, 3, 4), (5, 6, 7, 8)]
SECOND = [(1, 2, 4, 5), (3, 6, 7, 8)]


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def every3():
    """Every solvable 3x3 board and its distance (BFS)."""
    distances = naive.bfs_distances(tuple(naive.cells_of(naive.goal(3, 3))), 3, 3)
    boards = np.array(list(distances), np.int64).reshape(-1, 3, 3)
    return boards, np.array(list(distances.values()))


@pytest.fixture(scope="module")
def both():
    return pdb.build_partition((3, 3), FIRST + SECOND, groups=(2, 2))


def test_the_bound_is_the_larger_partition_sum_on_every_3x3_board_and_admissible(every3, both):
    boards, dist = every3
    first = pdb.build_partition((3, 3), FIRST).lookup(boards)
    second = pdb.build_partition((3, 3), SECOND).lookup(boards)
    bound = both.lookup(boards)
    assert both.reflect and both.groups == (2, 2) and both.pattern_groups == (2, 2)
    assert np.array_equal(bound, np.maximum(first, second))
    assert (bound <= dist).all()
    assert (bound > first).mean() > 0.05  # the second partition raises a share of the boards


def test_each_partition_alone_is_a_database_sharing_the_tables(both, every3):
    boards = every3[0][:500]
    for q, patterns in enumerate((FIRST, SECOND)):
        alone = both.group(q)
        assert alone.partition == tuple(patterns) and alone.pattern_groups == (2,)
        assert np.array_equal(alone.lookup(boards), pdb.build_partition((3, 3), patterns).lookup(boards))
    assert np.array_equal(dual_lookup(both, boards), dual_lookup(both.group(0), boards))


def test_the_engine_on_two_partitions_finds_optimal_lengths_in_both_metrics(both, every3):
    boards, dist = every3
    pick = np.random.default_rng(5).choice(len(boards), 120, replace=False)
    many = fp.solve_many(boards[pick], heuristic="pdb", database=both, method="ida", threads=1)
    assert many.lengths.tolist() == dist[pick].tolist()
    assert all(s.verify(b) for s, b in zip(many, boards[pick]))
    mtm = fp.distance_table(3, 3, metric="mtm").lookup(boards[pick[:40]])
    got = fp.solve_many(boards[pick[:40]], heuristic="pdb", database=both, method="ida", metric="mtm", threads=1)
    assert got.lengths.tolist() == mtm.tolist()


def test_fewer_nodes_than_either_partition_on_hard_boards(both, every3):
    """Over the 300 longest boards, two partitions search fewer nodes in all than either alone."""
    boards, dist = every3
    hard = boards[np.argsort(dist)[-300:]]
    nodes = [fp.solve_many(hard, heuristic="pdb", database=db, method="ida", threads=1).nodes.sum()
             for db in (pdb.build_partition((3, 3), FIRST), pdb.build_partition((3, 3), SECOND), both)]  # fmt: skip
    assert nodes[2] < min(nodes[:2])


def test_four_partitions_without_reflection_on_a_2x4_board():
    parts = [[(1, 2, 3), (4, 5, 6, 7)], [(1, 5), (2, 3, 6, 7), (4,)], [(1, 2, 5, 6), (3, 4, 7)], [(3, 4), (5, 6, 7)]]
    flat = [p for part in parts for p in part]
    db = pdb.build_partition((2, 4), flat, groups=[len(p) for p in parts])
    distances = naive.bfs_distances(tuple(naive.cells_of(naive.goal(2, 4))), 2, 4)
    boards = np.array(list(distances), np.int64).reshape(-1, 2, 4)
    dist = np.array(list(distances.values()))
    singles = [pdb.build_partition((2, 4), part).lookup(boards) for part in parts]
    assert not db.reflect and np.array_equal(db.lookup(boards), np.max(singles, axis=0))
    assert (db.lookup(boards) <= dist).all()
    pick = np.random.default_rng(2).choice(len(boards), 80, replace=False)
    many = fp.solve_many(boards[pick], heuristic="pdb", database=db, method="ida", threads=1)
    assert many.lengths.tolist() == dist[pick].tolist()


@pytest.mark.parametrize("groups,error,words", [
    ((2, 1), ValueError, "count the partition's 4 patterns"),
    ((2, 2, 0), ValueError, "at least one pattern"),
    ((2.0, 2), TypeError, "whole numbers"),
    ("22", TypeError, "sequence of pattern counts"),
    ((1, 1, 1, 1), ValueError, "8 views, the search keeps at most 4"),
])  # fmt: skip
def test_wrong_groups_are_refused_by_name(groups, error, words):
    with pytest.raises(error, match=words) as info:
        pdb.build_partition((3, 3), FIRST + SECOND, groups=groups)
    assert info.value.option == "groups"


def test_a_tile_twice_in_one_partition_is_refused_but_not_across_partitions():
    with pytest.raises(ValueError, match="tile 4 is in two patterns of one partition"):
        pdb.build_partition((3, 3), [(1, 2, 3, 4), (4, 5)] + SECOND, groups=(2, 2))
    db = pdb.build_partition((3, 3), [(1, 2), (3, 4)] + [(1, 3), (2, 4)], groups=(2, 2))
    assert db.lookup(fp.goal_board(3, 3)) == 0


def test_the_named_two_partition_databases_extend_the_named_ones():
    for name, base in (("7-8x2", "7-8"), ("6-6-6-6x2", "6-6-6-6")):
        spec = DATABASES[name]
        groups = spec["groups"]
        assert spec["partition"][: groups[0]] == DATABASES[base]["partition"] and spec["shape"] == DATABASES[base]["shape"]
        first = spec["partition"][: groups[0]]
        second = spec["partition"][groups[0]:]
        n_tiles = spec["shape"][0] * spec["shape"][1] - 1
        assert sorted(t for p in second for t in p) == list(range(1, n_tiles + 1)) == sorted(t for p in first for t in p)
        assert PREFERENCE[spec["shape"]][:2] == [(base, False), (name, False)]  # never built unasked


def test_a_two_partition_database_reuses_its_cached_first_partition(tmp_path, monkeypatch):
    """Building an ``x2`` database whose first partition is a cached named database builds only the
    partitions after it, and the tables equal a build from scratch; without that cache (or with a
    damaged one) everything is built."""
    from fastpuzzle.search.pdb import build as builder, store

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    spec = dict(shape=(3, 3), partition=DATABASES["4-4"]["partition"] + ((1, 2, 5), (3, 4, 6, 7, 8)), groups=(2, 2))
    monkeypatch.setitem(DATABASES, "4-4x2", spec)
    built = []
    full_build = builder.build_partition

    def spy(shape, partition, **kw):
        built.append(tuple(map(tuple, partition)))
        return full_build(shape, partition, **kw)

    monkeypatch.setattr(builder, "build_partition", spy)
    fresh = full_build((3, 3), spec["partition"], groups=spec["groups"])
    pdb.build("4-4x2", progress=False)  # 4-4 not cached: all four patterns
    assert built == [spec["partition"]]
    pdb.build("4-4", progress=False)
    built.clear()
    db = pdb.build("4-4x2", progress=False, force=True)
    assert built == [spec["partition"][2:]]  # the cached 4-4 gave the first two
    assert db.groups == (2, 2) and db.partition == spec["partition"] and db.offsets.tolist() == fresh.offsets.tolist()
    assert np.array_equal(np.asarray(db.data), fresh.data)
    (store.cache_path("4-4") / "tables.npy").write_bytes(b"damaged")
    built.clear()
    pdb.build("4-4x2", progress=False, force=True)
    assert built == [spec["partition"]]


def test_a_cached_database_whose_groups_differ_from_its_name_is_refused(tmp_path):
    """The description names the partitions: a cached 4-4 that claims two groups is stale, and rebuilt."""
    db = pdb.build("4-4", progress=False)
    meta = db.path / "meta.json"
    text = meta.read_text().replace('"groups": [\n  2\n ]', '"groups": [\n  1,\n  1\n ]')
    assert text != meta.read_text()
    meta.write_text(text)
    with pytest.raises(ValueError, match="stale or foreign"):
        pdb.load("4-4")


def test_two_partitions_above_16_cells_search_with_probes_and_stay_optimal():
    """On 18 cells ``solve`` runs IDA* with weighted probes: every view feeds them, the lengths stay optimal."""
    first = [(1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12), (13, 14, 15), (16, 17)]
    second = [(1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 16), (5, 11, 17), (6, 12)]
    db = pdb.build_partition((3, 6), first + second, groups=(6, 6))
    singles = [pdb.build_partition((3, 6), part) for part in (first, second)]
    for seed in range(4):
        board = np.asarray(fp.scramble(3, 6, 30, seed=seed)).reshape(3, 6)
        ref = fp.solve(board, method="ida")
        ours = fp.solve(board, heuristic="pdb", database=db, method="ida")
        assert ours.status == "optimal" and ours.verify(board) and ours.length == ref.length
        assert db.lookup(board) == max(s.lookup(board) for s in singles) <= ref.length


def test_a_database_made_by_hand_with_too_many_views_is_refused_before_any_search(both):
    """The engine's stack holds four views: a hand-made database of three reflected partitions never reaches it."""
    from fastpuzzle.search.pdb.heuristic import PatternDatabase

    three = PatternDatabase("three", (3, 3), both.partition + both.partition[:2], both.goal,
                            np.concatenate([both.data, both.data[: both.offsets[2]]]),
                            np.concatenate([both.offsets, both.offsets[:2] + both.data.shape[0]]), True,
                            groups=(2, 2, 2))  # fmt: skip
    with pytest.raises(ValueError, match="6 views, the search keeps at most 4"):
        fp.solve(fp.scramble(3, 3, 10, seed=1), heuristic="pdb", database=three, method="ida")
    with pytest.raises(ValueError, match="must count the partition's 6 patterns"):
        PatternDatabase("bad", (3, 3), three.partition, both.goal, three.data, three.offsets, True,
                        groups=(2, 2))._kernel_arrays()  # fmt: skip


@pytest.mark.parametrize("q,error", [(2, ValueError), (-1, ValueError), (1.0, TypeError), (True, TypeError)])
def test_a_partition_that_is_not_there_is_refused_by_name(both, q, error):
    with pytest.raises(error, match="partition") as info:
        both.group(q)
    assert info.value.option == "q"
