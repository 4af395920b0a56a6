"""Hints, optimal-solution counts and the multi-tile metric, against a plain BFS written here."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.hint import optimal_solutions

LETTERS = "ULRD"
STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))  # U L R D, the blank's direction


def plain_bfs(m, n, goal=None, mtm=False, max_depth=None):
    """Distance and number of shortest paths of every board reaching ``goal``, by breadth-first search."""
    goal = tuple(range(1, m * n)) + (0,) if goal is None else tuple(int(v) for v in np.ravel(goal))
    dist, count, queue = {goal: 0}, {goal: 1}, collections.deque([goal])
    while queue:
        s = queue.popleft()
        if max_depth is not None and dist[s] >= max_depth:
            continue
        for _, u in successors(s, m, n, mtm):
            if u not in dist:
                dist[u], count[u] = dist[s] + 1, 0
                queue.append(u)
            if dist[u] == dist[s] + 1:
                count[u] += count[s]
    return dist, count


def successors(s, m, n, mtm):
    """``(move, board)`` for every move: the letter, with the slide length in the multi-tile metric."""
    b = s.index(0)
    for letter, (dr, dc) in zip(LETTERS, STEPS):
        t, (r, c), pos, k = list(s), divmod(b, n), b, 0
        while True:
            r, c, k = r + dr, c + dc, k + 1
            if not (0 <= r < m and 0 <= c < n):
                break
            nxt = r * n + c
            t[pos], t[nxt], pos = t[nxt], 0, nxt
            yield (letter + (str(k) if k > 1 else "")), tuple(t)
            if not mtm:
                break


@pytest.fixture(scope="module")
def bfs3x3():
    return {metric: plain_bfs(3, 3, mtm=metric == "mtm") for metric in ("stm", "mtm")}


def check_hints_everywhere(m, n, metric, dist):
    boards = np.array(list(dist), np.uint8).reshape(-1, m, n)
    got = fp.hints(boards, metric=metric)
    for board, hint in zip(dist, got):
        d = dist[board]
        want = tuple(mv for mv, u in successors(board, m, n, metric == "mtm") if dist[u] == d - 1)
        assert (hint.distance, hint.moves, hint.proved) == (d, want, True), board


@pytest.mark.parametrize("metric", ["stm", "mtm"])
@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (2, 2), (1, 4)])
def test_hints_on_every_small_board(shape, metric):
    dist, _ = plain_bfs(*shape, mtm=metric == "mtm")
    check_hints_everywhere(*shape, metric, dist)


@pytest.mark.parametrize("metric", ["stm", "mtm"])
@pytest.mark.slow
def test_hints_on_every_3x3_board(bfs3x3, metric):
    check_hints_everywhere(3, 3, metric, bfs3x3[metric][0])


def test_hints_with_a_custom_goal():
    goal = np.array([[0, 1, 2], [3, 4, 5]])
    dist, _ = plain_bfs(2, 3, goal)
    boards = np.array(list(dist), np.uint8).reshape(-1, 2, 3)
    for board, hint in zip(dist, fp.hints(boards, goal=goal)):
        assert hint.distance == dist[board]


@pytest.mark.parametrize("metric", ["stm", "mtm"])
@pytest.mark.slow
def test_counts_and_enumeration_on_every_2x3_board(metric):
    dist, count = plain_bfs(2, 3, mtm=metric == "mtm")
    for board in dist:
        b = np.array(board).reshape(2, 3)
        assert fp.count_optimal(b, metric=metric) == count[board]
        sols = optimal_solutions(b, metric=metric, limit=5)
        assert len(sols) == min(5, count[board]) and len(set(sols)) == len(sols)
        for s in sols:
            assert fp.count_moves(s, metric=metric) == dist[board]
            assert np.array_equal(fp.apply_moves(b, fp.encode_moves(s)), fp.goal_board(2, 3))


def test_counts_on_sampled_3x3_boards(bfs3x3):
    for metric in ("stm", "mtm"):
        dist, count = bfs3x3[metric]
        keys = list(dist)
        for i in np.random.default_rng(1).choice(len(keys), 60, replace=False).tolist():
            assert fp.count_optimal(np.array(keys[i]).reshape(3, 3), metric=metric) == count[keys[i]]


def test_15_puzzle_hints_near_the_goal():
    dist, _ = plain_bfs(4, 4, max_depth=9)
    rng = np.random.default_rng(2)
    keys = [k for k in dist if 3 <= dist[k] <= 8]
    for i in rng.choice(len(keys), 8, replace=False).tolist():
        board = keys[i]
        hint = fp.hints(np.array(board).reshape(4, 4))
        want = tuple(mv for mv, u in successors(board, 4, 4, False) if dist.get(u, 99) == dist[board] - 1)
        assert (hint.distance, hint.moves, hint.proved) == (dist[board], want, True)


def test_hints_beyond_16_cells_are_a_bound():
    board = fp.apply_moves(fp.goal_board(5, 5), "ULLURDDR")
    hint = fp.hints(board)
    assert hint.distance >= 2 and len(hint.moves) == 1 and hint.distance % 2 == 0
    assert not hint.proved


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (1, 5), (3, 3)])
def test_mtm_tables_against_plain_bfs(shape, bfs3x3):
    dist = bfs3x3["mtm"][0] if shape == (3, 3) else plain_bfs(*shape, mtm=True)[0]
    table = fp.distance_table(*shape, metric="mtm")
    assert table.metric == "mtm"
    want = np.bincount(np.fromiter(dist.values(), np.int64))
    assert table.counts.tolist() == want.tolist()
    boards = np.array(list(dist), np.uint8).reshape(-1, *shape)
    assert np.array_equal(table.lookup(boards), np.fromiter(dist.values(), np.int64))
    assert np.array_equal(fp.distance(boards, metric="mtm"), np.fromiter(dist.values(), np.int64))


def test_mtm_8_puzzle_figures(bfs3x3):
    """The multi-tile 8-puzzle: radius 24 with a single antipode (also counted by the BFS above)."""
    table = fp.distance_table(3, 3, metric="mtm")
    dist = bfs3x3["mtm"][0]
    assert table.radius == max(dist.values()) == 24
    assert len(table.antipodes) == 1 and dist[tuple(table.antipodes[0].ravel().tolist())] == 24
    stm = fp.distance_table(3, 3)
    assert (stm.counts.sum(), stm.radius) == (table.counts.sum(), 31)


def test_random_solvable_at_an_mtm_distance(bfs3x3):
    dist = bfs3x3["mtm"][0]
    boards = fp.random_solvable(3, 3, count=50, seed=4, distance=(10, 12), metric="mtm")
    assert all(10 <= dist[tuple(b.ravel().tolist())] <= 12 for b in boards)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: fp.hints([[1, 2], [3, 0]], metric="htm"), ValueError),
        (lambda: fp.hints([[2, 1], [3, 0]]), ValueError),
        (lambda: fp.hints(fp.goal_board(5, 5), metric="mtm"), ValueError),
        (lambda: fp.hints([[1, 2], [3, 0]], time_limit=-1), ValueError),
        (lambda: fp.count_optimal(fp.goal_board(4, 4)), ValueError),
        (lambda: fp.count_optimal(np.zeros((2, 2, 2), np.uint8)), ValueError),
        (lambda: optimal_solutions([[1, 2], [3, 0]], limit=0), ValueError),
        (lambda: fp.distance_table(2, 2, metric=1), TypeError),
        (lambda: fp.distance(fp.goal_board(5, 5), metric="mtm"), ValueError),
        (lambda: fp.distance(fp.goal_board(4, 4), metric="mtm", table=True), ValueError),
    ],
)
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()


def test_goal_gives_an_empty_hint():
    for shape in itertools.product((2, 3), (2, 3)):
        hint = fp.hints(fp.goal_board(*shape))
        assert (hint.distance, hint.moves) == (0, ())


@pytest.mark.slow  # about 15 s: 1.8 million boards and their 8 million slides
@pytest.mark.parametrize("shape", [(2, 5), (5, 2)])
def test_mtm_10_cell_tables_satisfy_bellman_everywhere(shape):
    """Every board: 0 only at the goal, every slide changes the depth by at most 1, and some slide
    lowers it -- the conditions that make a depth array the breadth-first distances."""
    from fastpuzzle.distances.multi import slide_neighbours

    m, n = shape
    table = fp.distance_table(m, n, metric="mtm")
    depths = np.asarray(table.depths[: table.size]).astype(np.int64)
    assert (depths == 0).sum() == 1 and depths[table.space.goal_rank] == 0
    boards = table.space.boards(np.arange(table.size)).reshape(table.size, m * n)
    nb, source, _, _ = slide_neighbours(boards, m, n, "mtm")
    nd = depths[table.space.ranks(nb)]
    assert np.abs(nd - depths[source]).max() <= 1
    lower = np.zeros(table.size, bool)
    lower[source[nd == depths[source] - 1]] = True
    assert lower[depths > 0].all()
    stm = fp.distance_table(m, n)
    assert (depths <= np.asarray(stm.depths[: stm.size])).all()  # a single-tile move is a multi-tile move


def test_15_puzzle_hints_against_the_solver_on_each_neighbour():
    """Boards 20-30 moves out: the hint's distance and moves against every neighbour solved
    optimally with linear conflict (a heuristic independent of the hint's pattern databases)."""
    rng = np.random.default_rng(5)
    for _ in range(5):
        board, previous = fp.goal_board(4, 4), None
        for _ in range(34):  # a random walk that never undoes its last move
            options = [(mv, u) for mv, u in successors(tuple(board.ravel().tolist()), 4, 4, False)
                       if previous is None or mv != "DRLU"[LETTERS.index(previous)]]  # fmt: skip
            previous, u = options[rng.integers(len(options))]
            board = np.array(u).reshape(4, 4)
        near = {mv: fp.solve(np.array(u).reshape(4, 4), heuristic="linear_conflict", method="ida").length
                for mv, u in successors(tuple(board.ravel().tolist()), 4, 4, False)}  # fmt: skip
        hint = fp.hints(board)
        best = min(near.values())
        assert (hint.distance, hint.proved) == (best + 1, True)
        assert hint.moves == tuple(mv for mv in LETTERS if near.get(mv) == best)


def published_mtm_counts():
    """``{sequence: (shape, counts)}`` read from bench/data/oeis_mtm.txt."""
    import pathlib

    out, name = {}, None
    for line in (pathlib.Path(__file__).parent.parent / "bench" / "data" / "oeis_mtm.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        first, second = line.split()
        if first.startswith("A"):
            name = first
            out[name] = (tuple(int(v) for v in second.split("x")), [])
        else:
            assert int(first) == len(out[name][1])
            out[name][1].append(int(second))
    return out


def test_mtm_layers_of_the_15_puzzle_match_oeis_a389728():
    """The multi-tile move model's 4x4 layers (breadth first over slide_neighbours, the generator
    of the MTM tables) against the first published terms; the whole space is beyond a table."""
    from fastpuzzle.distances.multi import slide_neighbours

    (m, n), published = published_mtm_counts()["A389728"]
    goal = fp.goal_board(m, n).reshape(1, -1).astype(np.uint8)
    seen, frontier, counts = {goal.tobytes()}, goal, [1]
    for _ in range(9):  # 55,000 boards
        nb = np.unique(slide_neighbours(frontier, m, n, "mtm")[0], axis=0)
        fresh = [row for row in nb if row.tobytes() not in seen]
        seen.update(row.tobytes() for row in fresh)
        frontier = np.array(fresh, np.uint8)
        counts.append(len(fresh))
    assert counts == published[: len(counts)]
