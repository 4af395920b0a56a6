"""Exact draws near the goal on 13 to 16 cells (fastpuzzle.distances.near)."""

from __future__ import annotations

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.distances import distance_table, near

from . import naive


@pytest.fixture(autouse=True, scope="module")
def _tmp_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FASTPUZZLE_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def plain_layers(goal, depth):
    """Layers 0..depth of a plain breadth-first search from ``goal`` (sets of tuples)."""
    m, n = goal.shape
    start = tuple(int(v) for v in goal.ravel())
    seen, layers = {start}, [{start}]
    for _ in range(depth):
        nxt = set()
        for s in layers[-1]:
            for t in naive.neighbours(s, m, n):
                if t not in seen:
                    seen.add(t)
                    nxt.add(t)
        layers.append(nxt)
    return layers


def as_tuples(codes, m, n):
    return {tuple(int(v) for v in b.ravel()) for b in near.unpack_boards(codes, m, n)}


@pytest.mark.parametrize("m,n", [(3, 3), (2, 5)])
def test_layers_equal_the_whole_table(m, n, rng):
    for goal in (fp.goal_board(m, n), rng.permutation(m * n).astype(np.uint8).reshape(m, n)):
        table = distance_table(m, n, goal, cache=False)
        layers = near.layers_near_goal(goal, table.radius)
        assert [len(x) for x in layers] == table.counts.tolist()
        for d in (0, 1, table.radius // 2, table.radius):
            assert (np.diff(layers[d].astype(np.float64)) > 0).all()  # sorted, no repeats
            assert (table.lookup(near.unpack_boards(layers[d], m, n)) == d).all()


@pytest.mark.parametrize("m,n", [(4, 4), (2, 7), (3, 5)])
def test_layers_equal_plain_bfs(m, n, rng):
    for goal in (fp.goal_board(m, n), rng.permutation(m * n).astype(np.uint8).reshape(m, n)):
        depth = 9
        expected = plain_layers(goal, depth)
        got = near.layers_near_goal(goal, depth)
        assert [as_tuples(x, m, n) for x in got] == expected


def test_random_4x4_near_goal_has_the_distance_the_solver_finds():
    boards = fp.random_solvable(4, 4, count=60, seed=5, distance=14)
    assert boards.shape == (60, 4, 4)
    assert (fp.solve_many(boards).lengths == 14).all()
    goal = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]], np.uint8)
    ranged = fp.random_solvable(4, 4, count=40, seed=6, goal=goal, distance=(6, 9))
    lengths = fp.solve_many(ranged, goal=goal).lengths
    assert ((lengths >= 6) & (lengths <= 9)).all() and len(set(lengths.tolist())) > 1


def test_random_2x7_near_goal():
    boards = fp.random_solvable(2, 7, count=20, seed=1, distance=11)
    assert (fp.solve_many(boards).lengths == 11).all()


def test_near_goal_draws_are_uniform_and_seeded():
    from scipy import stats
    boards = fp.random_solvable(4, 4, count=4000, seed=9, distance=4)  # 24 boards at distance 4
    codes = near.pack_boards(boards.reshape(len(boards), -1))
    everyone = near.layers_near_goal(fp.goal_board(4, 4), 4)[4]
    observed = np.array([np.count_nonzero(codes == c) for c in everyone])
    assert observed.sum() == len(boards)  # every draw is one of them
    assert stats.chisquare(observed).pvalue > 1e-4
    again = fp.random_solvable(4, 4, count=4000, seed=9, distance=4)
    assert (again == boards).all()
    assert not (fp.random_solvable(4, 4, count=4000, seed=10, distance=4) == boards).all()


def test_past_the_last_layer_is_refused(monkeypatch):
    monkeypatch.setattr(near, "MAX_LAYER", 500)
    near._CACHE.clear()
    with pytest.raises(near.LayerLimitError, match="beyond the layers enumerated") as info:
        fp.random_solvable(4, 4, count=2, distance=12)
    assert info.value.depth == 12 and info.value.reached == 8 and info.value.size > 500
    assert isinstance(info.value, ValueError)
    near._CACHE.clear()
    with pytest.raises(ValueError, match="at most 16 cells"):
        fp.random_solvable(5, 5, count=2, distance=3)
    with pytest.raises(ValueError, match="at most 16 cells"):
        near.layers_near_goal(fp.goal_board(3, 6), 2)
