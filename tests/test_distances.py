"""Exact distances: whole-space tables against plain BFS, lookups against the
solver, boards of a chosen distance (exact, uniform, seeded), bad arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.distances import DistanceBudgetError, distance, distance_table, format_depth_table
from fastpuzzle.distances.ranking import StateSpace
from fastpuzzle.distances.table import table_path

from . import naive

SMALL_SHAPES = [(1, 2), (2, 1), (1, 4), (4, 1), (1, 6), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]


@pytest.fixture(autouse=True, scope="module")
def _tmp_cache(tmp_path_factory):
    """Never touch the user's cache (one for the module: the 4x4 database is built once)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FASTPUZZLE_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def goals_for(m, n, rng, count=3):
    """The default goal and random goals (blank anywhere, any tile order)."""
    out = [fp.goal_board(m, n)]
    for _ in range(count - 1):
        out.append(rng.permutation(m * n).astype(np.uint8).reshape(m, n))
    return out


@pytest.mark.parametrize("m,n", SMALL_SHAPES)
@pytest.mark.slow
def test_table_equals_plain_bfs(m, n, rng):
    for goal in goals_for(m, n, rng):
        counts, antipodes, depth_of = naive.depth_table(m, n, naive.cells_of(goal))
        for threads in (None, 1):
            table = distance_table(m, n, goal=goal, threads=threads, cache=False)
            assert table.counts.tolist() == counts
            assert table.radius == len(counts) - 1
            got = sorted(tuple(int(v) for v in b.ravel()) for b in table.antipodes)
            assert got == antipodes
        boards = np.array(list(depth_of), np.uint8).reshape(-1, m, n)
        assert table.lookup(boards).tolist() == list(depth_of.values())


@pytest.mark.parametrize("m,n", SMALL_SHAPES + [(2, 5), (5, 2)])
def test_counts_sum_to_half_the_permutations(m, n):
    table = distance_table(m, n, cache=False)
    expected = m * n if min(m, n) == 1 else math.factorial(m * n) // 2
    assert table.counts.sum() == expected == table.size
    assert table.counts.dtype == np.int64 and table.counts[0] == 1


def test_eight_puzzle_depths_match_published_table():
    # Reinefeld 1993 / OEIS A089473 (blank in a corner), a source independent of our code.
    published = [1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
                 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2]  # fmt: skip
    assert distance_table(3, 3).counts.tolist() == published


@pytest.mark.parametrize("m,n", [(2, 2), (2, 4), (3, 3), (1, 5)])
def test_ranking_is_a_bijection(m, n, rng):
    goal = rng.permutation(m * n).astype(np.uint8).reshape(m, n)
    space = StateSpace(m, n, goal)
    boards = space.boards(np.arange(space.size))
    assert fp.is_solvable(boards, goal=goal).all()
    assert len({b.tobytes() for b in boards}) == space.size
    assert (space.ranks(boards.reshape(space.size, -1)) == np.arange(space.size)).all()
    other = boards.copy()
    if min(m, n) > 1:  # a swap of two tiles leaves the reachable half
        flat = other.reshape(space.size, -1)
        a = np.argmax(flat != 0, axis=1)
        b = (m * n - 1) - np.argmax(flat[:, ::-1] != 0, axis=1)
        rows = np.arange(space.size)
        flat[rows, a], flat[rows, b] = flat[rows, b], flat[rows, a].copy()
        assert (space.ranks(flat) == -1).all()


def test_distance_agrees_with_ida(rng):
    for m, n in [(3, 3), (2, 4), (3, 2)]:
        goal = rng.permutation(m * n).astype(np.uint8).reshape(m, n)
        boards = fp.random_solvable(m, n, count=60, seed=int(rng.integers(1 << 30)), goal=goal)
        want = fp.solve_many(boards, goal=goal).lengths
        assert (distance(boards, goal=goal) == want).all()
        assert (distance(boards, goal=goal, table=False) == want).all()


def test_distance_on_4x4_uses_the_solver():
    boards = fp.scramble(4, 4, 30, count=6, seed=5)
    got = distance(boards)
    assert (got == fp.solve_many(boards).lengths).all()
    assert distance(boards[0]) == got[0]


def test_distance_reports_stopped_boards():
    boards = fp.random_solvable(4, 4, count=3, seed=11)
    with pytest.raises(DistanceBudgetError) as info:
        distance(boards, max_nodes=10)
    assert info.value.stopped.tolist() == [0, 1, 2]
    assert (info.value.distances == -1).all()
    assert (distance(boards, max_nodes=10, stopped="mark") == -1).all()


@pytest.mark.parametrize("m,n,k", [(3, 3, 20), (3, 3, 31), (2, 4, 0), (2, 3, 21), (1, 5, 3)])
def test_random_solvable_at_exact_distance(m, n, k):
    boards = fp.random_solvable(m, n, count=300, seed=1, distance=k)
    assert boards.shape == (300, m, n)
    assert (distance(boards) == k).all()
    if m * n > 5:
        assert (fp.solve_many(boards[:40]).lengths == k).all()  # the solver agrees


def test_random_solvable_in_range_with_goal(rng):
    goal = rng.permutation(9).astype(np.uint8).reshape(3, 3)
    boards = fp.random_solvable(3, 3, count=2000, seed=4, goal=goal, distance=(10, 12))
    d = distance(boards, goal=goal)
    assert ((d >= 10) & (d <= 12)).all()
    # uniform over the range: each depth in proportion to its size
    table = distance_table(3, 3, goal=goal)
    share = table.counts[10:13] / table.counts[10:13].sum()
    seen = np.bincount(d - 10, minlength=3) / d.size
    assert np.abs(seen - share).max() < 0.05


def test_random_solvable_at_distance_is_uniform():
    from scipy import stats
    table = distance_table(3, 3)
    depth = 30  # 221 boards
    boards = fp.random_solvable(3, 3, count=221 * 60, seed=9, distance=depth)
    ranks = table.space.ranks(boards.reshape(len(boards), -1))
    everyone = table.ranks_at(depth)
    assert np.isin(ranks, everyone).all()
    observed = np.array([np.count_nonzero(ranks == r) for r in everyone])
    assert stats.chisquare(observed).pvalue > 1e-4


def test_random_solvable_at_distance_is_seeded():
    a = fp.random_solvable(3, 3, count=50, seed=3, distance=(5, 25))
    assert (a == fp.random_solvable(3, 3, count=50, seed=3, distance=(5, 25))).all()
    assert not (a == fp.random_solvable(3, 3, count=50, seed=4, distance=(5, 25))).all()
    one = fp.random_solvable(3, 3, seed=3, distance=7)
    assert one.shape == (3, 3) and distance(one) == 7


def test_random_solvable_4x4_by_rejection():
    boards = fp.random_solvable(4, 4, count=3, seed=2, distance=(45, 60))
    d = fp.solve_many(boards, heuristic="pdb").lengths
    assert ((d >= 45) & (d <= 60)).all()
    from fastpuzzle.distances.sample import random_at_distance

    with pytest.raises(ValueError, match="budget of 0.001 s"):
        random_at_distance(4, 4, 1, (1, 2), fp.goal_board(4, 4), 70, 70, budget=1e-3)
    # a rare distance: none in the measured sample nor in the pilot, refused after the pilot
    with pytest.raises(ValueError, match=r"would take over .* fewer than 1 in 10,00\d of uniform random boards.*ending at most 30 moves"):
        random_at_distance(4, 4, 10**6, (1, 2), fp.goal_board(4, 4), 75, 76)


def test_4x4_sample_is_a_distribution_of_optimal_lengths():
    """The stored sample obeys two laws of optimal lengths on uniform 4x4
    boards (corner blank goal): a length has the parity of the blank's
    Manhattan distance, and no length is below the board's linear-conflict
    bound, so the sample's distribution lies at or above the bound's
    distribution measured here on fresh uniform boards."""
    from scipy import stats

    from fastpuzzle.distances.sample import SAMPLE_4X4

    lengths = np.repeat(np.array(list(SAMPLE_4X4), np.int64), list(SAMPLE_4X4.values()))
    assert lengths.size == 10_000 and lengths.min() >= 0 and lengths.max() <= 80  # radius 80
    # blank uniform over 16 cells, half of them at an even distance from the corner
    even = int(np.count_nonzero(lengths % 2 == 0))
    assert stats.binomtest(even, lengths.size, 0.5).pvalue > 1e-4
    bound = fp.heuristics.linear_conflict(fp.random_solvable(4, 4, count=20_000, seed=17)).astype(np.int64)
    grid = np.arange(81)
    below = np.searchsorted(np.sort(lengths), grid, side="right") / lengths.size
    below_bound = np.searchsorted(np.sort(bound), grid, side="right") / bound.size
    assert (below - below_bound).max() < 0.03  # sampling noise only (about 1% at 10,000)
    assert lengths.mean() > bound.mean() + 8  # optimal lengths exceed the bound by ~14 on average


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(distance=-1), ValueError, "0 <= lo <= hi"),
        (dict(distance=(5, 3)), ValueError, "0 <= lo <= hi"),
        (dict(distance="7"), TypeError, "int or a"),
        (dict(distance=True), TypeError, "int or a"),
        (dict(distance=(1.0, 2)), TypeError, "two ints"),
        (dict(distance=(1, 2, 3)), TypeError, "int or a"),
        (dict(distance=32), ValueError, "distances run from 0 to 31"),
    ],
)
def test_random_solvable_distance_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        fp.random_solvable(3, 3, count=2, **kwargs)


def test_bad_arguments():
    with pytest.raises(ValueError, match="at most 12 cells"):
        distance_table(4, 4)
    with pytest.raises(TypeError, match="m must be an integer"):
        distance_table("3", 3)
    with pytest.raises(ValueError, match="at least 2 cells"):
        distance_table(1, 1)
    with pytest.raises(ValueError, match="goal has shape"):
        distance_table(3, 3, goal=fp.goal_board(2, 2))
    with pytest.raises(TypeError, match="time_limit"):
        distance_table(3, 3, time_limit="1")
    with pytest.raises(TypeError, match="cache"):
        distance_table(3, 3, cache=1)
    with pytest.raises(ValueError, match="board 1 cannot reach the goal"):
        distance([[[1, 2, 3], [4, 5, 6], [7, 8, 0]], [[2, 1, 3], [4, 5, 6], [7, 8, 0]]])
    with pytest.raises(ValueError, match="table is for 3x3"):
        distance_table(3, 3).lookup(fp.goal_board(2, 2))
    with pytest.raises(ValueError, match="stopped"):
        distance(fp.goal_board(3, 3), stopped="ignore")
    with pytest.raises(ValueError, match="at most 16 cells.*got 3x6"):
        fp.random_solvable(3, 6, count=2, distance=20)


@pytest.mark.slow
def test_cache_round_trip():
    built = distance_table(2, 4, cache=True)
    path = table_path(2, 4, 7)
    assert path.exists() and built.path == path
    from fastpuzzle.distances import table as table_module

    table_module._MEMO.clear()
    loaded = distance_table(2, 4, cache=True)
    assert isinstance(loaded.depths, np.memmap)
    assert loaded.counts.tolist() == built.counts.tolist()
    path.write_bytes(path.read_bytes()[:-64])
    table_module._MEMO.clear()
    with pytest.warns(RuntimeWarning, match="rebuilt"):  # detected, removed, built again
        rebuilt = distance_table(2, 4, cache=True)
    assert rebuilt.counts.tolist() == built.counts.tolist()


def test_time_limit_stops_the_search():
    with pytest.raises(TimeoutError, match="stopped by time_limit"):
        distance_table(2, 5, cache=False, time_limit=1e-9)


def test_format_depth_table():
    text = format_depth_table(distance_table(3, 3))
    lines = text.splitlines()
    assert "radius 31, 2 antipodes" in lines[0]
    assert lines[-1].split() == ["31", "2", "181,440"]


@pytest.mark.slow
def test_dask_search_equals_local_search(rng, dask_client):
    from fastpuzzle.distances.cluster import distance_table_dask

    client = dask_client
    # few partitions: every pass is a round of tasks on worker processes
    cases = [(2, 4, None, 3), (3, 3, rng.permutation(9).astype(np.uint8).reshape(3, 3), 3), (1, 4, None, 3),
             (3, 3, None, 1)]  # fmt: skip
    for m, n, goal, partitions in cases:
        local = distance_table(m, n, goal=goal, cache=False)
        stats = {}
        remote = distance_table_dask(m, n, goal=goal, client=client, partitions=partitions, stats=stats)
        assert remote.counts.tolist() == local.counts.tolist()
        assert (remote.depths[: local.size] == local.depths[: local.size]).all()
        assert (remote.antipodes == local.antipodes).all()
        assert stats["passes"] == local.radius + 2  # the last pass finds no board
        if stats["partitions"] == 1:
            assert stats["shipped"].sum() == 0  # one slice: every neighbour is marked in place
        elif m > 1:
            assert stats["shipped"].sum() > 0
    with pytest.raises(ValueError, match="partitions"):
        distance_table_dask(2, 2, partitions=0, client=object())
    with pytest.raises(TypeError, match="partitions"):
        distance_table_dask(2, 2, partitions=2.0, client=object())
    with pytest.raises(TypeError, match="stats"):
        distance_table_dask(2, 2, stats=[], client=object())
    with pytest.raises(ValueError, match="16 cells|at most"):
        distance_table_dask(3, 6, client=object())
    with pytest.raises(TypeError, match="client"):
        distance_table_dask(2, 2, client=object())


def test_bucketing_kernel_sorts_ranks_by_slice(rng):
    from fastpuzzle.distances.cluster import _bucket

    N, edges = 6, np.array([0, 3, 4, 10], np.int64)
    ranks = rng.integers(0, 10 * N, size=200).astype(np.int64)
    offsets, starts = _bucket(ranks, 150, edges, N)
    for t in range(3):
        got = sorted(offsets[starts[t] : starts[t + 1]].tolist())
        mine = ranks[:150][(ranks[:150] // N >= edges[t]) & (ranks[:150] // N < edges[t + 1])]
        assert got == sorted((mine - edges[t] * N).tolist())
