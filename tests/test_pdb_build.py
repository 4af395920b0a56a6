"""Pattern tables from the two exact builders (set-major and placement
frontier): equal to each other, serial and threaded, and to a plain 0-1 BFS."""

from __future__ import annotations

import numpy as np
import pytest

from fastpuzzle import goal_board, pdb
from fastpuzzle.search.pdb.build_sets import build_pattern

from . import naive


def _new(m, n, goal, tiles, method, parallel):
    table = np.zeros(pdb.placement_count(m * n, len(tiles)), np.uint8)
    build_pattern(table, m, n, goal, tiles, method=method, parallel=parallel)
    return table


CUSTOM_GOAL = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
CASES = [
    ((3, 3), None, (1, 2, 3, 4)),
    ((3, 3), None, (5, 6, 7, 8)),
    ((3, 3), None, (2, 4, 6, 8)),  # a placement with 5 blank regions
    ((3, 3), CUSTOM_GOAL, (1, 2, 3, 4)),
    ((3, 3), CUSTOM_GOAL, (8, 5, 7)),
    ((4, 4), None, (1, 6, 11)),
    ((4, 4), None, (10, 14, 15)),
    ((4, 4), None, (4, 7, 8, 11)),
    ((4, 4), None, (1, 2, 3, 5, 6)),
    ((4, 4), None, (14, 9, 12, 15, 10)),  # tiles out of order
    ((2, 4), None, (1, 5, 6)),
    ((2, 4), None, (2, 3, 4, 7)),
    ((3, 4), None, (1, 2, 3, 4, 5)),
    ((3, 4), None, (11, 7, 10)),
    ((5, 5), None, (1, 7, 13)),  # more than 16 cells: regions by flood fill
]


@pytest.mark.parametrize("shape,goal,tiles", CASES)
@pytest.mark.parametrize("method", ["sets", "placements"])
@pytest.mark.slow
def test_methods_agree_serial_and_threaded(shape, goal, tiles, method):
    m, n = shape
    goal = goal_board(m, n) if goal is None else goal
    ref = _new(m, n, goal, tiles, "sets" if method == "placements" else "placements", False)
    assert np.array_equal(_new(m, n, goal, tiles, method, False), ref)
    assert np.array_equal(_new(m, n, goal, tiles, method, True), ref)


@pytest.mark.parametrize("method", ["sets", "placements"])
@pytest.mark.parametrize("shape,tiles", [((6, 6), (29, 35)), ((7, 9), (1, 62)), ((9, 7), (54, 61))])
def test_equal_to_naive_bfs_on_boards_above_32_cells(method, shape, tiles):
    """Cell sets of more than 32 bits (up to the 63-cell limit), tiles beside the blank's goal cell."""
    m, n = shape
    table = _new(m, n, goal_board(m, n), tiles, method, False)
    ref = naive.pattern_distances(m, n, tiles)
    assert len(ref) == table.shape[0]
    assert all(table[naive.partial_rank(placed, m * n)] == d for placed, d in ref.items())


@pytest.mark.parametrize("method", ["sets", "placements"])
def test_equal_to_naive_bfs(method):
    for shape, goal, tiles in [((3, 3), None, (2, 4, 6, 8)), ((2, 4), None, (1, 5, 6)), ((3, 3), CUSTOM_GOAL, (8, 5, 7))]:
        m, n = shape
        goal = goal_board(m, n) if goal is None else goal
        table = _new(m, n, goal, tiles, method, False)
        ref = naive.pattern_distances(m, n, tiles, tuple(int(v) for v in goal.ravel()))
        assert len(ref) == table.shape[0]
        for placed, d in ref.items():
            assert table[naive.partial_rank(placed, m * n)] == d, (tiles, placed)


def test_build_partition_uses_the_exact_builder():
    part = [(1, 2, 3, 4), (5, 6, 7, 8)]
    db = pdb.build_partition((3, 3), part)
    for p, tiles in enumerate(part):
        table = _new(3, 3, goal_board(3, 3), tiles, None, None)
        assert np.array_equal(np.asarray(db.tables[p]), table)


def test_errors():
    with pytest.raises(ValueError, match="uint8 array of 504"):
        build_pattern(np.zeros(10, np.uint8), 3, 3, goal_board(3, 3), (1, 2, 3))
    with pytest.raises(ValueError, match="method must be"):
        build_pattern(np.zeros(504, np.uint8), 3, 3, goal_board(3, 3), (1, 2, 3), method="bits")
    for tiles in [(), (1, 1, 2), (0, 1, 2), (9, 1, 2)]:
        with pytest.raises(ValueError, match="distinct tiles of 1..8"):
            build_pattern(np.zeros(504, np.uint8), 3, 3, goal_board(3, 3), tiles)
    with pytest.raises(ValueError, match="2x2 to 63 cells"):
        build_pattern(np.zeros(504, np.uint8), 1, 9, goal_board(3, 3), (1, 2, 3))
    with pytest.raises(ValueError):
        build_pattern(np.zeros(504, np.uint8), 3, 3, goal_board(4, 4), (1, 2, 3))
