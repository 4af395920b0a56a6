"""Dual lookups against BFS distances, and the move order of a search on a
symmetric image of the board."""

from __future__ import annotations

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import pdb
from fastpuzzle.moves import DOWN_CODE, LEFT_CODE, RIGHT_CODE, UP_CODE, successor_tables
from fastpuzzle.search.pdb import GoalPlan
from fastpuzzle.search.pdb.dual import dual_lookup

from . import naive


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))


def _every_board(m, n):
    g = tuple(naive.cells_of(naive.goal(m, n)))
    dist = naive.bfs_distances(g, m, n)
    return np.array(list(dist)).reshape(-1, m, n), np.array(list(dist.values()))


@pytest.fixture(scope="module")
def all3():
    return _every_board(3, 3)


@pytest.mark.parametrize(
    "partition",
    [[(1, 2, 3, 4), (5, 6, 7, 8)], [(1, 2, 5), (3, 6), (4, 7, 8)], [(2, 4, 6, 8)], [(5, 6, 7, 8)]],
)
@pytest.mark.slow
def test_dual_admissible_on_every_3x3_board(partition, all3):
    """Never above the BFS distance, for every blank cell; (5, 6, 7, 8) and
    (2, 4, 6, 8) at home cut the goal's blank cell off (the case the region
    check is for)."""
    boards, dist = all3
    db = pdb.build_partition((3, 3), partition)
    assert db.reflect
    dual = dual_lookup(db, boards)
    assert (dual <= dist).all()
    assert (dual > db.lookup(boards)).any()  # it does add something to the regular lookups


def test_dual_admissible_on_every_2x4_board():
    boards, dist = _every_board(2, 4)
    db = pdb.build_partition((2, 4), [(1, 2, 5, 6), (3, 4, 7)])
    assert not db.reflect
    assert (dual_lookup(db, boards) <= dist).all()


def test_dual_with_the_blank_home_is_the_lookup_of_the_inverse_board(all3):
    """With the blank on its goal cell the dual board is the inverse
    permutation itself, and the dual bound is the tables' full value on it."""
    boards, dist = all3
    db = pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    home = boards[boards[:, 2, 2] == 0]
    flat = home.reshape(len(home), -1)
    goal_cell = np.r_[8, np.arange(8)]  # tile t's goal cell (blank last)
    as_tiles = np.zeros_like(flat)
    for cells, inverse in zip(flat, as_tiles):
        inverse[goal_cell[cells[goal_cell]]] = np.arange(9)  # tile u onto the goal cell of the tile on u's goal cell
    d_of = {tuple(b.ravel()): v for b, v in zip(boards, dist)}
    for cells, inv in zip(flat[::7], as_tiles[::7]):
        assert d_of[tuple(inv)] == d_of[tuple(cells)]  # the dual board is as far from the goal
    assert (dual_lookup(db, home) == db.lookup(as_tiles.reshape(-1, 3, 3))).all()


def test_dual_lookup_refuses_other_shapes():
    db = pdb.build_partition((3, 3), [(1, 2, 3, 4)])
    with pytest.raises(ValueError, match="batch"):
        dual_lookup(db, np.zeros((2, 4, 4), np.int64))


def test_move_order_of_the_successor_tables():
    count, packed = successor_tables(3, 3)
    count_r, packed_r = successor_tables(3, 3, (DOWN_CODE, RIGHT_CODE, LEFT_CODE, UP_CODE))
    assert np.array_equal(count, count_r)
    for row in range(len(count)):
        a = list(packed[row * 4 : row * 4 + count[row]])
        b = list(packed_r[row * 4 : row * 4 + count[row]])
        assert a == b[::-1]  # the same moves, the other way round
    with pytest.raises(ValueError, match="each of the move codes"):
        successor_tables(3, 3, (0, 1, 2, 2))


def test_search_on_an_image_tries_the_moves_as_on_the_board(all3, rng):
    """Korf's goal (blank first) is searched on the board turned half round;
    the moves are tried in the board's own U L R D order there, so solution
    and node count equal those of a database built for Korf's goal itself."""
    boards, dist = all3
    korf_goal = np.arange(9).reshape(3, 3)
    default = pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    plan = GoalPlan(default, korf_goal)
    assert plan.name == "rot180" and plan.move_order == (DOWN_CODE, RIGHT_CODE, LEFT_CODE, UP_CODE)
    own = pdb.build_partition((3, 3), [(8, 7, 6, 5), (4, 3, 2, 1)], goal=korf_goal)
    # boards that reach Korf's goal: the default boards turned half round and relabelled
    picked = boards[rng.choice(len(boards), 12, replace=False)]
    starts = 9 - picked[:, ::-1, ::-1]
    starts[starts == 9] = 0
    ref = naive.bfs_distances(tuple(korf_goal.ravel()), 3, 3)
    for b in starts:
        via_image = fp.solve(b, goal=korf_goal, heuristic="pdb", method="ida", database=default)
        direct = fp.solve(b, goal=korf_goal, heuristic="pdb", method="ida", database=own)
        assert via_image.length == direct.length == ref[tuple(b.ravel())]
        assert via_image.verify(b, goal=korf_goal)
        assert via_image.moves == direct.moves and via_image.nodes == direct.nodes
