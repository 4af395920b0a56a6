"""labelled_boards against breadth-first search and the distance tables."""

from __future__ import annotations

import numpy as np
import pytest

import fastpuzzle as fp
import fastpuzzle.labels as labels
from tests import naive


@pytest.mark.parametrize("shape", [(2, 3), (2, 2), (1, 6)])
def test_labels_are_bfs_distances(shape):
    m, n = shape
    goal = tuple(v for row in naive.goal(m, n) for v in row)
    bfs = naive.bfs_distances(goal, m, n)
    boards, d = fp.labelled_boards(m, n, 300, seed=1)
    assert boards.shape == (300, m, n) and d.dtype == np.int64
    assert [bfs[tuple(b.ravel().tolist())] for b in boards] == d.tolist()
    boards, d = fp.labelled_boards(m, n, 100, distance=(2, 3), seed=2)
    assert [bfs[tuple(b.ravel().tolist())] for b in boards] == d.tolist() and set(d.tolist()) <= {2, 3}


def test_labels_match_the_table_and_a_custom_goal():
    goal = fp.random_solvable(3, 3, seed=11)
    boards, d = fp.labelled_boards(3, 3, 2000, seed=3, goal=goal)
    assert (fp.distance(boards, goal=goal) == d).all()
    assert fp.reachable(boards, goal).all()
    # every depth of 3x3 shows up in a uniform draw of this size near the middle
    assert d.min() < 15 and d.max() > 25


def test_near_goal_labels_on_4x4_are_exact():
    boards, d = fp.labelled_boards(4, 4, 40, distance=(0, 12), seed=4)
    assert (fp.distance(boards) == d).all()


def test_uniform_4x4_labels_come_from_optimal_solves():
    boards, d = fp.labelled_boards(4, 4, 2, seed=5)  # two PDB solves
    for b, k in zip(boards, d):
        assert fp.solve(b, heuristic="pdb").length == k


def test_bounds_where_exact_is_out_of_reach():
    with pytest.raises(ValueError, match="exact=False"):
        fp.labelled_boards(5, 5, 3, seed=1)
    boards, d, ok = fp.labelled_boards(5, 5, 30, seed=1, exact=False)
    assert not ok.any()
    assert (d == fp.heuristics.linear_conflict(boards)).all()
    boards, d, ok = fp.labelled_boards(3, 3, 30, seed=1, exact=False)
    assert ok.all() and (d == fp.distance(boards)).all()


def test_chunks_are_one_stream(monkeypatch):
    monkeypatch.setattr(labels, "CHUNK_BOARDS", 64)
    whole, d = fp.labelled_boards(3, 3, 200, seed=7)
    parts = list(fp.labelled_chunks(3, 3, 200, seed=7))
    assert [p[0] for p in parts] == [0, 64, 128, 192]
    assert (np.concatenate([p[1] for p in parts]) == whole).all()
    assert (np.concatenate([p[2] for p in parts]) == d).all()
    prefix, dp = fp.labelled_boards(3, 3, 100, seed=7)
    assert (prefix == whole[:100]).all() and (dp == d[:100]).all()
    # the other ways a chunk is drawn write into the answer's rows as well
    cases = (((3, 3), dict(distance=(3, 6))), ((1, 5), {}), ((2, 2), dict(exact=False)),
             ((4, 4), dict(distance=(0, 12))), ((4, 4), dict(distance=(9, 11), exact=False)))  # the layers near the goal
    for (m, n), kw in cases:
        got = fp.labelled_boards(m, n, 200, seed=3, **kw)
        parts = list(fp.labelled_chunks(m, n, 200, seed=3, **kw))
        assert len(parts) == 4
        for k, array in enumerate(got):
            assert (np.concatenate([p[1 + k] for p in parts]) == array).all()
        assert (fp.distance(got[0]) == got[1]).all()


def test_uniform_table_draws_cover_every_rank_on_any_thread_count():
    import numba

    space = fp.distance_table(2, 3).space
    boards, d = fp.labelled_boards(2, 3, 360 * 200, seed=9)
    counts = np.bincount(space.ranks(boards.reshape(len(boards), -1)), minlength=360)
    # every rank drawn, none far from its share of 200 (a binomial's spread is about 14)
    assert counts.size == 360 and counts.min() > 120 and counts.max() < 280
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = fp.labelled_boards(2, 3, 5000, seed=9)
    finally:
        numba.set_num_threads(before)
    assert (one[0] == boards[:5000]).all() and (one[1] == d[:5000]).all()


@pytest.mark.parametrize("shape", [(2, 4), (4, 2), (2, 2)])
def test_uniform_table_draws_pass_a_chi_square_over_every_rank(shape):
    from scipy import stats

    m, n = shape
    table = fp.distance_table(m, n)
    per_rank = 30
    boards, d = fp.labelled_boards(m, n, table.size * per_rank, seed=21)
    ranks = table.space.ranks(boards.reshape(len(boards), -1))
    assert (np.asarray(table.depths)[ranks] == d).all()
    observed = np.bincount(ranks, minlength=table.size)
    assert observed.size == table.size
    assert stats.chisquare(observed).pvalue > 1e-4


@pytest.mark.parametrize("shape", [(3, 4), (2, 6), (3, 3), (2, 2)])
def test_drawn_ranks_are_the_ranks_of_the_boards_written(shape):
    # the rank x * P >> 32 and the board built from the digits read off x are one state of the space
    from fastpuzzle.distances.ranking import StateSpace

    space = StateSpace(*shape)
    size, reject_below, prefix, packed = labels._draw_constants(space)
    assert int(size) == space.size and int(reject_below) == (1 << 32) % space.size
    count = 20_000
    boards = np.empty((count, space.cells), np.uint8)
    ranks = np.empty(count, np.int64)
    labels._ranks_block(5, 0, count, space.cells, space.k, size, reject_below, prefix, packed, space.row_parity,
                        boards, ranks)
    assert (np.sort(boards, axis=1) == np.arange(space.cells)).all()
    assert (space.ranks(boards) == ranks).all()
    assert np.unique(ranks).size > 0.9 * min(count, space.size)


def test_bad_arguments():
    with pytest.raises(TypeError):
        fp.labelled_boards(3, 3, None)
    with pytest.raises(ValueError):
        fp.labelled_boards(3, 3, -1)
    with pytest.raises(TypeError):
        fp.labelled_boards(3, 3, 5, exact="yes")
    with pytest.raises(ValueError, match="no 3x3 board"):
        fp.labelled_boards(3, 3, 5, distance=40)
    with pytest.raises(ValueError):
        fp.labelled_boards(3, 3, 5, time_limit=0)
    b, d = fp.labelled_boards(3, 3, 0)
    assert b.shape == (0, 3, 3) and d.shape == (0,)


def test_cli_writes_label_pairs(tmp_path, capsys):
    from fastpuzzle.cli import main

    out = tmp_path / "boards.npy"
    assert main(["generate", "--shape", "2x3", "--count", "50", "--seed", "3", "--out", str(out), "--labels"]) == 0
    boards, d = np.load(out), np.load(tmp_path / "boards.labels.npy")
    want_b, want_d = fp.labelled_boards(2, 3, 50, seed=3)
    assert (boards == want_b).all() and (d == want_d).all() and (fp.distance(boards) == d).all()
    target = tmp_path / "d.npy"
    assert main(["generate", "--shape", "3x3", "--count", "20", "--distance", "4:5", "--out", str(out),
                 "--labels", str(target)]) == 0
    assert set(np.load(target).tolist()) <= {4, 5}
    assert main(["generate", "--shape", "2x3", "--count", "5", "--scramble", "3", "--out", str(out), "--labels"]) == 2
    assert "excludes --scramble" in capsys.readouterr().err
