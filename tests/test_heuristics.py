"""Manhattan distance and linear conflict: against plain references and exhaustive BFS."""

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.search import heuristics as H

from . import naive


def random_board(rng, m, n):
    return rng.permutation(m * n).reshape(m, n)


SHAPES = [(2, 2), (2, 3), (3, 3), (4, 4), (2, 5), (5, 2), (3, 4), (5, 5), (1, 6), (6, 1), (3, 8), (7, 4)]


@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.parametrize("custom_goal", [False, True])
def test_against_naive(rng, m, n, custom_goal):
    goal = random_board(rng, m, n) if custom_goal else fp.goal_board(m, n)
    gcells = naive.cells_of(goal)
    boards = np.stack([random_board(rng, m, n) for _ in range(40)] + [np.asarray(goal)])
    md = H.manhattan(boards, goal=goal if custom_goal else None)
    lc = H.linear_conflict(boards, goal=goal if custom_goal else None)
    pen = H.conflict_penalty(boards, goal=goal if custom_goal else None)
    for i, b in enumerate(boards):
        cells = naive.cells_of(b)
        assert md[i] == naive.manhattan(cells, m, n, gcells)
        assert pen[i] == naive.conflict_penalty(cells, m, n, gcells)
        assert lc[i] == md[i] + pen[i]
    assert md[-1] == 0 and lc[-1] == 0


def test_single_board_gives_int_batch_gives_array():
    b = [[2, 1, 3], [4, 5, 6], [7, 8, 0]]
    assert isinstance(H.manhattan(b), int) and H.manhattan(b) == 2
    assert isinstance(H.linear_conflict(b), int) and H.linear_conflict(b) == 4
    out = H.linear_conflict([b, fp.goal_board(3, 3)])
    assert out.dtype == np.int64 and out.tolist() == [4, 0]
    assert fp.heuristics.manhattan is H.manhattan


def test_lis_penalty_not_greedy():
    # Row 0 holds tiles whose goal columns read 3 0 1 2 (goal row 0 of a 1..15 board):
    # removing tile 4 alone fixes the order, so the penalty is 2, not more.
    b = [[4, 1, 2, 3], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 0]]
    assert H.conflict_penalty(b) == 2
    # goal columns 3 2 1 0: three tiles must leave the row
    b = [[4, 3, 2, 1], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 0]]
    assert H.conflict_penalty(b) == 6


def test_bad_inputs():
    with pytest.raises(ValueError, match="permutation"):
        H.manhattan([[1, 1], [2, 0]])
    with pytest.raises(TypeError, match="whole numbers"):
        H.linear_conflict([[1.5, 2], [3, 0]])
    with pytest.raises(ValueError, match="goal has shape"):
        H.manhattan([[1, 2], [3, 0]], goal=fp.goal_board(3, 3))
    with pytest.raises(ValueError, match="dimension"):
        H.manhattan([1, 2, 3, 0])
    with pytest.raises(ValueError, match="one board"):
        H.goal_coordinates(np.zeros((2, 2, 2)))


def test_goal_coordinates():
    r, c = H.goal_coordinates([[3, 0], [1, 2]])
    assert r.tolist() == [0, 1, 1, 0] and c.tolist() == [1, 0, 1, 0]


@pytest.fixture(scope="module")
def all_3x3():
    """Every solvable 3x3 board and its breadth-first distance to the goal."""
    goal = tuple(naive.cells_of(naive.goal(3, 3)))
    dist = naive.bfs_distances(goal, 3, 3)
    states = list(dist)
    return states, np.array(states, np.uint8).reshape(-1, 3, 3), np.array([dist[s] for s in states])


def test_exhaustive_3x3_admissible_and_consistent(all_3x3):
    states, boards, dist = all_3x3
    assert len(states) == 181440 and dist.max() == 31
    h = H.linear_conflict(boards)
    md = H.manhattan(boards)
    assert (md <= h).all()
    assert (h <= dist).all(), "linear conflict overestimates"
    # consistency: every move changes h by exactly 1 (at most 1, and parity flips)
    index = {s: i for i, s in enumerate(states)}
    src, dst = [], []
    for i, s in enumerate(states):
        for t in naive.neighbours(s, 3, 3):
            src.append(i)
            dst.append(index[t])
    delta = np.abs(h[np.array(src)] - h[np.array(dst)])
    assert (delta == 1).all()


def test_exhaustive_3x3_custom_goal(all_3x3, rng):
    # Admissibility for another goal: distances to goal g equal distances from g.
    goal = (8, 7, 6, 5, 4, 3, 2, 1, 0)
    dist = naive.bfs_distances(goal, 3, 3)
    states = list(dist)
    boards = np.array(states, np.uint8).reshape(-1, 3, 3)
    h = H.linear_conflict(boards, goal=np.array(goal).reshape(3, 3))
    assert (h <= np.array([dist[s] for s in states])).all()


@pytest.mark.parametrize("m,n", [(2, 4), (4, 2), (2, 3)])
def test_exhaustive_small_shapes_admissible(m, n):
    goal = tuple(naive.cells_of(naive.goal(m, n)))
    dist = naive.bfs_distances(goal, m, n)
    states = list(dist)
    h = H.linear_conflict(np.array(states, np.uint8).reshape(-1, m, n))
    assert (h <= np.array([dist[s] for s in states])).all()


@pytest.mark.parametrize("length", range(2, 8))
def test_line_table_matches_lis(length, rng):
    table = H._line_table(length)
    assert table.shape == ((length + 1) ** length,)
    base = length + 1
    for code in rng.integers(0, table.shape[0], 300):
        digits = [(int(code) // base**p) % base for p in range(length)]
        seq = [d for d in digits if d]
        assert table[code] == 2 * (len(seq) - naive.longest_increasing(seq))
