"""Pattern databases: tables against a plain 0-1 BFS, admissibility and
consistency on every 3x3 board, optimal IDA* solutions, cache, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import apply_moves, goal_board
from fastpuzzle import pdb
from fastpuzzle.solvability import is_solvable
from fastpuzzle.moves import move_automaton
from fastpuzzle.search.checks import PRUNE

from . import naive


def solve_pdb(board, **options):
    """``fp.solve`` on the pattern databases, by the engine's IDA* (the counts below are its)."""
    return fp.solve(board, heuristic="pdb", method="ida", **options)


def solve_many_pdb(boards, **options):
    return fp.solve_many(boards, heuristic="pdb", method="ida", **options)


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    """Never touch the user's cache: every test gets an empty one."""
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def bfs3():
    """Distance of every solvable 3x3 board to the default goal."""
    g = tuple(naive.cells_of(naive.goal(3, 3)))
    return naive.bfs_distances(g, 3, 3)


@pytest.fixture(scope="module")
def db44():
    return pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])


def _table_vs_naive(db, m, n, goal_cells=None):
    for p, tiles in enumerate(db.partition):
        ref = naive.pattern_distances(m, n, tiles, goal_cells)
        table = np.asarray(db.tables[p])
        assert len(ref) == table.shape[0]
        for placed, d in ref.items():
            assert table[naive.partial_rank(placed, m * n)] == d, (tiles, placed)


@pytest.mark.parametrize(
    "shape,partition",
    [
        ((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)]),
        ((3, 3), [(1, 2), (3, 6), (4, 7), (5, 8)]),
        ((3, 3), [(2, 4, 6, 8, 1)]),
        ((2, 3), [(1, 2, 3), (4, 5)]),
        ((2, 4), [(1, 5, 6), (2, 3, 4, 7)]),
        ((3, 4), [(1, 6, 11)]),
        ((4, 4), [(1, 6, 11)]),
        ((4, 4), [(7, 10, 13)]),
        ((5, 5), [(1, 7, 13), (24, 20)]),
    ],
)
@pytest.mark.slow
def test_tables_equal_naive_bfs(shape, partition):
    db = pdb.build_partition(shape, partition)
    _table_vs_naive(db, *shape)


def test_table_for_custom_goal():
    goal = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    db = pdb.build_partition((3, 3), [(1, 2, 3), (4, 8)], goal=goal)
    _table_vs_naive(db, 3, 3, tuple(goal.ravel().tolist()))


def _all_boards(m, n):
    perms = np.array(list(itertools.permutations(range(m * n))), np.uint8)
    boards = perms.reshape(-1, m, n)
    return boards[is_solvable(boards)]


@pytest.fixture(scope="module")
def all3(bfs3):
    """Every solvable 3x3 board and its distance to the goal."""
    boards = _all_boards(3, 3)
    dist = np.array([bfs3[tuple(b)] for b in boards.reshape(-1, 9).tolist()])
    return boards, dist


def _neighbours(boards, code):
    """Boards after blank move ``code`` (vectorised), and which boards allow it."""
    m, n = boards.shape[1:]
    flat = boards.reshape(len(boards), -1)
    z = np.argmax(flat == 0, axis=1)
    r, c = z // n, z % n
    rr, cc = r + [-1, 0, 0, 1][code], c + [0, -1, 1, 0][code]
    ok = (rr >= 0) & (rr < m) & (cc >= 0) & (cc < n)
    out = flat[ok].copy()
    rows = np.arange(len(out))
    t = (rr * n + cc)[ok]
    out[rows, z[ok]] = out[rows, t]
    out[rows, t] = 0
    return out.reshape(-1, m, n), ok


def _assert_odd_steps(boards, h, db):
    """Every move changes h by an odd amount: each tile belongs to a pattern,
    one tile moves, and every table entry has the parity of its placement.
    (Tables that take the minimum over blank regions are admissible but not
    consistent, so the step may exceed 1.)"""
    for code in range(4):
        moved, ok = _neighbours(boards, code)
        assert ((h[ok] - db.lookup(moved)) % 2 == 1).all()


def test_neighbours_helper_matches_apply_moves(all3):
    boards = all3[0][::5000]
    for code in range(4):
        moved, ok = _neighbours(boards, code)
        ref = [apply_moves(b, "ULRD"[code]) for b, k in zip(boards, ok) if k]
        assert np.array_equal(moved, np.array(ref))


@pytest.mark.slow
def test_admissible_on_every_3x3_board(db44, all3):
    boards, dist = all3
    h = db44.lookup(boards)
    assert db44.reflect
    assert (h <= dist).all()
    assert (h % 2 == dist % 2).all()  # each move changes one pattern by one
    # the reflected lookup is never worse than the plain sum
    plain = pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)], reflect=False)
    hp = plain.lookup(boards)
    assert (hp <= h).all() and (hp < h).any()
    # additivity: the sum of the pattern tables, looked up naively
    for b, v in zip(boards[::997], hp[::997]):
        cells = [int(x) for x in b.ravel()]
        total = 0
        for p, tiles in enumerate(plain.partition):
            placed = tuple(cells.index(t) for t in tiles)
            total += int(plain.tables[p][naive.partial_rank(placed, 9)])
        assert total == v


def test_odd_steps_on_every_3x3_board(db44, all3):
    boards = all3[0]
    _assert_odd_steps(boards, db44.lookup(boards), db44)


def test_lookup_single_and_batch(db44):
    g = goal_board(3, 3)
    assert db44.lookup(g) == 0
    out = db44.lookup(np.stack([g, g]))
    assert out.shape == (2,) and (out == 0).all()


def test_solutions_optimal_on_3x3_sample(db44, bfs3, rng):
    states = list(bfs3)
    picks = rng.choice(len(states), 150, replace=False)
    boards = np.array([states[i] for i in picks], np.uint8).reshape(-1, 3, 3)
    sols = solve_many_pdb(boards, database=db44)
    for b, s in zip(boards, sols):
        assert s.status == "optimal"
        assert s.verify(b)
        assert s.length == bfs3[tuple(int(v) for v in b.ravel())]


def test_hardest_3x3_boards(db44, bfs3):
    far = max(bfs3.values())
    hardest = [s for s, d in bfs3.items() if d == far]
    for s in hardest:
        b = np.array(s).reshape(3, 3)
        sol = solve_pdb(b, database=db44)
        assert sol.length == far and sol.verify(b)


@pytest.mark.parametrize(
    "goal",
    [
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]],  # blank first: rotate the board
        [[1, 2, 0], [3, 4, 5], [6, 7, 8]],  # blank top-right
        [[8, 7, 6], [5, 4, 3], [2, 1, 0]],  # same blank cell, relabelled
        [[3, 6, 1], [2, 5, 7], [0, 8, 4]],  # bottom-left, shuffled
    ],
)
def test_custom_goals(db44, goal, rng):
    goal = np.array(goal)
    g = tuple(int(v) for v in goal.ravel())
    dist = naive.bfs_distances(g, 3, 3)
    states = list(dist)
    for i in rng.choice(len(states), 25, replace=False):
        b = np.array(states[i]).reshape(3, 3)
        s = solve_pdb(b, goal=goal, database=db44)
        assert s.verify(b, goal=goal)
        assert s.length == dist[states[i]]


def test_goal_blank_in_the_middle_refused(db44):
    goal = np.array([[1, 2, 3], [4, 0, 5], [6, 7, 8]])
    with pytest.raises(ValueError, match="symmetry"):
        solve_pdb(goal, goal=goal, database=db44)


def test_rectangular_board_with_custom_partition(rng):
    db = pdb.build_partition((2, 4), [(1, 2, 5, 6), (3, 4, 7)])
    assert not db.reflect
    g = tuple(naive.cells_of(naive.goal(2, 4)))
    dist = naive.bfs_distances(g, 2, 4)
    states = list(dist)
    for i in rng.choice(len(states), 40, replace=False):
        b = np.array(states[i]).reshape(2, 4)
        s = solve_pdb(b, database=db)
        assert s.verify(b) and s.length == dist[states[i]]
    # a flipped goal (blank bottom-left) is reached through a mirror image
    goal = np.array(g).reshape(2, 4)[:, ::-1]
    dist = naive.bfs_distances(tuple(int(v) for v in goal.ravel()), 2, 4)
    for i in rng.choice(len(states), 20, replace=False):
        s_ = list(dist)[i]
        b = np.array(s_).reshape(2, 4)
        s = solve_pdb(b, goal=goal, database=db)
        assert s.verify(b, goal=goal) and s.length == dist[s_]


def test_partial_partition_needs_goal_check(bfs3, rng):
    # tiles outside every pattern count nothing: h == 0 is not the goal
    db = pdb.build_partition((3, 3), [(1, 2, 3)])
    states = list(bfs3)
    for i in rng.choice(len(states), 30, replace=False):
        b = np.array(states[i]).reshape(3, 3)
        s = solve_pdb(b, database=db)
        assert s.verify(b) and s.length == bfs3[states[i]]


def test_budgets(db44):
    hard = np.array([[8, 6, 7], [2, 5, 4], [3, 0, 1]])
    s = solve_pdb(hard, database=db44, max_nodes=20)
    assert s.status == "budget" and s.length == 0 and not s.solved and s.nodes == 20
    s = solve_pdb(hard, database=db44, max_nodes=10**7)
    assert s.status == "optimal" and s.length == 31
    many = solve_many_pdb(np.stack([hard, hard]), database=db44, max_nodes=20)
    assert [(x.status, x.nodes) for x in many] == [("budget", 20)] * 2


@pytest.mark.parametrize(
    "options,error,match",
    [
        (dict(max_nodes=0), ValueError, "max_nodes must be a whole number >= 1"),
        (dict(max_nodes=-5), ValueError, "max_nodes must be a whole number >= 1"),
        (dict(max_nodes="10"), TypeError, "max_nodes must be a whole number >= 1"),
        (dict(max_nodes=1.5), TypeError, "max_nodes must be a whole number >= 1"),
        (dict(max_nodes=True), TypeError, "max_nodes must be a whole number >= 1"),
        (dict(time_limit=-1), ValueError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(time_limit=float("nan")), ValueError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(time_limit=0.0), ValueError, "time_limit must be None or a finite number of seconds > 0"),
        (dict(database=5), TypeError, "database must be"),
    ],
)
def test_options_refused_like_solve(db44, options, error, match):
    board = [[1, 2, 3], [4, 5, 6], [7, 0, 8]]
    with pytest.raises(error, match=match):
        solve_pdb(board, **{"database": db44, **options})
    with pytest.raises(error, match=match):
        solve_many_pdb([board], **{"database": db44, **options})


@pytest.mark.parametrize("partition", [[(1, 2, 3, 4), (5, 6, 7, 8)], [(1, 2, 3)], [(2, 4), (6, 8)]])
@pytest.mark.parametrize("prune", ["undo", "automaton"])
@pytest.mark.slow
def test_node_counts_equal_plain_ida(partition, prune, bfs3, rng):
    """The engine with a pattern database counts nodes as a plain recursive
    IDA* with the same heuristic, move automaton and move order (the moves that
    bring their tile closer first; Korf's count), partial partitions included."""
    automaton = move_automaton(PRUNE[prune])
    db = pdb.build_partition((3, 3), partition)
    g = naive.cells_of(naive.goal(3, 3))

    memo = {}  # IDA* meets a board again at every bound: one lookup per board

    def h(cells, m, n, goal_cells):
        key = tuple(cells)
        if key not in memo:
            memo[key] = int(db.lookup(np.array(cells).reshape(m, n)))
        return memo[key]

    states = list(bfs3)
    boards = [np.array(states[i]).reshape(3, 3) for i in rng.choice(len(states), 6, replace=False)]
    many = solve_many_pdb(np.stack(boards), database=db, prune=prune)
    for b, s_many in zip(boards, many):
        length, nodes = naive.ida_nodes(naive.cells_of(b), 3, 3, g, h, automaton, toward_first=True)
        if length == 0:
            nodes = 0  # no search from the goal itself
        s = solve_pdb(b, database=db, prune=prune)
        assert (s.length, s.nodes) == (s_many.length, s_many.nodes) == (length, nodes)
        assert s.verify(b) and s.method == s_many.method == "ida"


@pytest.mark.parametrize("toward_first", [True, False])
def test_move_order_option_matches_plain_ida(toward_first, bfs3, rng):
    """``Heuristic(toward_first=False)`` (the side-by-side rows' engine) tries the moves in the
    tables' order alone, the default the moves toward the goal first: each counts nodes as a plain
    recursive IDA* in its order; a flag that is not a bool is refused."""
    from fastpuzzle.search import ida

    db = pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])
    engine = ida.Heuristic(3, 3, db.goal, "pdb", db, toward_first=toward_first)
    g = naive.cells_of(naive.goal(3, 3))
    automaton = move_automaton(PRUNE["automaton"])

    def h(cells, m, n, goal_cells):
        return int(db.lookup(np.array(cells).reshape(m, n)))

    states = list(bfs3)
    for i in rng.choice(len(states), 5, replace=False):
        b = np.array(states[i]).reshape(3, 3)
        if not b.ravel().tolist() == g:
            length, nodes = naive.ida_nodes(naive.cells_of(b), 3, 3, g, h, automaton, toward_first=toward_first)
            status, codes, count, _ = ida.ida_search(b.ravel().astype(np.uint8), engine)
            assert (len(codes), count) == (length, nodes)
    with pytest.raises(TypeError, match="toward_first"):
        ida.Heuristic(3, 3, db.goal, "pdb", db, toward_first="no")


def test_errors(db44):
    with pytest.raises(ValueError, match="the board cannot reach the goal"):
        solve_pdb([[1, 2, 3], [4, 5, 6], [8, 7, 0]], database=db44)
    with pytest.raises(ValueError, match="board 1"):
        solve_many_pdb([goal_board(3, 3), [[1, 2, 3], [4, 5, 6], [8, 7, 0]]], database=db44)
    with pytest.raises(ValueError, match="not a permutation"):
        solve_pdb([[1, 1, 3], [4, 5, 6], [8, 7, 0]], database=db44)
    with pytest.raises(ValueError, match="no pattern database for 2x5"):
        solve_pdb(goal_board(2, 5))
    with pytest.raises(ValueError, match="no pattern database for 6x6"):
        solve_pdb(goal_board(6, 6))
    with pytest.raises(ValueError, match="at most 63 cells"):
        solve_pdb(goal_board(8, 8))
    with pytest.raises(ValueError, match="is for 3x3"):
        solve_pdb(goal_board(4, 4), database=db44)
    with pytest.raises(ValueError, match="unknown pattern database"):
        solve_pdb(goal_board(4, 4), database="9-6")
    with pytest.raises(FileNotFoundError, match="fastpuzzle pdb build 7-8"):
        pdb.load("7-8")
    with pytest.raises(FileNotFoundError, match="6-6-6-6"):
        solve_pdb(goal_board(5, 5))
    with pytest.raises(ValueError, match="disjoint"):
        pdb.build_partition((3, 3), [(1, 2), (2, 3)])
    with pytest.raises(ValueError, match="outside"):
        pdb.build_partition((3, 3), [(1, 9)])
    with pytest.raises(ValueError, match="at least 2 rows"):
        pdb.build_partition((1, 5), [(1, 2)])
    with pytest.raises(ValueError, match="does not fit"):
        pdb.build_partition((3, 3), [(1, 2, 3, 4, 5, 6, 7, 8)])
    with pytest.raises(ValueError, match="batch"):
        solve_pdb(np.stack([goal_board(3, 3)] * 2), database=db44)


def test_cache_round_trip(db44, tmp_path):
    built = pdb.build("4-4", progress=False)
    assert built.path is not None and (built.path / "meta.json").exists()
    assert isinstance(built.data, np.memmap)
    assert np.array_equal(np.asarray(built.data), np.asarray(db44.data))
    assert pdb.available() == ["4-4"]
    again = pdb.load("3x3-4-4")
    assert again.reflect and again.partition == db44.partition
    # the default for 3x3 boards is this database
    s = solve_pdb([[1, 2, 3], [4, 5, 6], [0, 7, 8]])
    assert s.moves == "RR" and s.heuristic == "pdb:4-4"
    # a truncated table is refused, not read past its end
    (built.path / "tables.npy").write_bytes((built.path / "tables.npy").read_bytes()[:-10])
    with pytest.raises(ValueError):
        pdb.load("4-4")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: (d / "meta.json").write_text("{not json"),
        lambda d: (d / "meta.json").write_text("[1, 2]"),
        lambda d: (d / "meta.json").write_text('{"format": 1}'),
        lambda d: _edit_meta(d, offsets=[0, 5]),
        lambda d: _edit_meta(d, goal=[1, 1, 2, 3, 4, 5, 6, 7, 8]),
        lambda d: _edit_meta(d, goal=[1, 2, 3]),
        lambda d: _edit_meta(d, shape=[3]),
        lambda d: _edit_meta(d, partition=[[1, "x"]]),
        lambda d: (d / "tables.npy").write_bytes(b"garbage"),
        lambda d: np.save(d / "tables.npy", np.zeros(6048, np.int64)),
    ],
)
def test_corrupted_cache_gives_value_error(spoil):
    built = pdb.build("4-4", progress=False)
    spoil(built.path)
    with pytest.raises(ValueError, match="rebuild it"):
        pdb.load("4-4")


def _edit_meta(directory, **changes):
    import json

    meta = json.loads((directory / "meta.json").read_text())
    meta.update(changes)
    (directory / "meta.json").write_text(json.dumps(meta))


def test_concurrent_builds_of_one_database(tmp_path):
    """Threads that all need a missing database build it once, into one cache entry."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        dbs = list(pool.map(lambda _: pdb.build("4-4", progress=False), range(4)))
    assert all(np.array_equal(np.asarray(d.data), np.asarray(dbs[0].data)) for d in dbs)
    # no temp file left (the checksum's record beside the tables: cachefile.stamp_path)
    assert sorted(p.name for p in dbs[0].path.iterdir()) == ["meta.json", "tables.npy", "tables.npy.verified"]
    boards = np.stack([apply_moves(goal_board(3, 3), "ULDR"[: k + 1]) for k in range(4)])
    with ThreadPoolExecutor(2) as pool:
        lengths = list(pool.map(lambda b: solve_pdb(b).length, boards))
    assert lengths == [s.length for s in solve_many_pdb(boards)]


def test_15_puzzle_with_555(rng):
    """5-5-5 (built in a second or two) against the published optimal lengths
    of the easiest Korf instances, with the moves checked."""
    from pathlib import Path

    rows = [
        [int(v) for v in line.split()]
        for line in (Path(__file__).parent.parent / "bench" / "data" / "korf100_blank_last.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    easy = sorted(rows, key=lambda r: r[16])[:4]
    db = pdb.build("5-5-5", progress=False)
    assert len(rows) == 100
    h = db.lookup(np.array([r[:16] for r in rows]).reshape(-1, 4, 4))
    assert (h <= np.array([r[16] for r in rows])).all()
    for row in easy:
        b = np.array(row[:16]).reshape(4, 4)
        assert db.lookup(b) <= row[16]
        s = solve_pdb(b, database="5-5-5")
        assert s.status == "optimal" and s.verify(b) and s.length == row[16]
    # random walks: never longer than the walk, and the moves reach the goal
    g = goal_board(4, 4)
    for _ in range(10):
        walk = "".join(rng.choice(list("ULRD"), 30))
        b = g.copy()
        steps = 0
        for ch in walk:
            try:
                b = apply_moves(b, ch)
                steps += 1
            except ValueError:
                pass
        s = solve_pdb(b, database=db)
        assert s.verify(b) and s.length <= steps and db.lookup(b) <= s.length


def test_cli(tmp_path, capsys, bfs3):
    from fastpuzzle.cli import main

    assert main(["pdb", "build", "4-4", "--no-progress"]) == 0
    assert "4-4: 3x3" in capsys.readouterr().out
    assert main(["pdb", "list"]) == 0
    out = capsys.readouterr().out
    assert "4-4" in out and "cached" in out and "7-8" in out
    f = tmp_path / "boards.txt"
    f.write_text("# two boards\n8 6 7 2 5 4 3 0 1\n1 2 3 4 5 6 0 7 8\n")
    assert main(["pdb", "solve", str(f)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [int(line.split()[0]) for line in lines] == [bfs3[(8, 6, 7, 2, 5, 4, 3, 0, 1)], 2]
    assert main(["solve", str(f), "--heuristic", "pdb"]) == 0  # pdb solve is this alias: the same output
    again = capsys.readouterr().out.strip().splitlines()
    columns = [0, 1, 2, 4]  # all but the seconds
    assert [[a.split()[i] for i in columns] for a in again] == [[b.split()[i] for i in columns] for b in lines]
    f.write_text("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 8 7 0\n")
    assert main(["pdb", "solve", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "boards.txt: line 2: board 1" in err and "cannot reach the goal" in err
    f.write_text("1 2 3 4 5\n")
    assert main(["pdb", "solve", str(f)]) == 2
    assert "boards.txt: line 1:" in capsys.readouterr().err
    assert main(["pdb", "build", "9-9"]) == 2
    assert "unknown pattern database" in capsys.readouterr().err


def test_parallel_build_equals_serial():
    # threads mark successors with atomic ORs; the layers, hence the tables,
    # must not depend on how the work was split
    for shape, part in [((4, 4), [(1, 2, 3, 5, 6)]), ((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)])]:
        a = pdb.build_partition(shape, part, parallel=False)
        b = pdb.build_partition(shape, part, parallel=True)
        assert np.array_equal(np.asarray(a.data), np.asarray(b.data))
    _table_vs_naive(b, 3, 3)


def test_parallel_lookup_equals_serial(db44, all3):
    from fastpuzzle.search.pdb.heuristic import _lookup_batch, _lookup_batch_parallel

    boards = all3[0]
    tiles, sizes, weights, offsets, _, cell_map, tile_map, views, _ = db44._kernel_arrays()
    args = (boards.reshape(len(boards), -1), db44.data, tiles, sizes, weights, offsets, cell_map, tile_map, views)
    a = _lookup_batch(*args)
    b = _lookup_batch_parallel(*args)
    assert np.array_equal(a, b) and np.array_equal(a, db44.lookup(boards))


def test_5x5_with_korf_goal_against_bidirectional_bfs(rng):
    """A 24-puzzle partition of small patterns, Korf's goal (blank top-left,
    reached by rotating the board), short scrambles checked by plain BFS."""
    db = pdb.build_partition((5, 5), [(1, 2, 6), (3, 4, 5), (7, 8, 9), (10, 14, 15), (11, 12, 16), (13, 17, 18)])
    goal = np.arange(25).reshape(5, 5)
    g = tuple(range(25))
    for _ in range(6):
        b = goal.copy()
        for ch in rng.choice(list("ULRD"), 24):
            try:
                b = apply_moves(b, ch)
            except ValueError:
                pass
        s = solve_pdb(b, goal=goal, database=db)
        assert s.status == "optimal" and s.verify(b, goal=goal)
        assert s.length == naive.distance(tuple(int(v) for v in b.ravel()), g, 5, 5)


def test_heuristic_reachable_from_fp_heuristics(db44, all3):
    import fastpuzzle as fp

    boards, dist = all3
    assert np.array_equal(fp.heuristics.pattern_database(boards, database=db44), db44.lookup(boards))
    assert fp.heuristics.pattern_database(boards[0], database=db44) == db44.lookup(boards[0])
    # another goal: the bound holds for distances to that goal (distances to g equal distances from g)
    goal = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    far = naive.bfs_distances(tuple(int(v) for v in goal.ravel()), 3, 3)
    sample = boards[:: max(1, len(boards) // 500)]
    h = fp.heuristics.pattern_database(sample, goal=goal, database=db44)
    assert all(v <= far[tuple(int(x) for x in b.ravel())] for v, b in zip(h, sample))


def test_a_quick_database_of_an_older_format_is_rebuilt_on_use(tmp_path, monkeypatch):
    import json

    from fastpuzzle.search.pdb.store import StaleDatabaseError, choose_database

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    db = pdb.build("4-4", progress=False)
    meta_path = db.path / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["format"] = 0
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(StaleDatabaseError, match="stale"):
        pdb.load("4-4")
    for rebuild in (lambda: choose_database((3, 3), None), lambda: choose_database((3, 3), "4-4"),
                    lambda: pdb.build("4-4", progress=False)):
        assert rebuild().name == "4-4"
        assert json.loads(meta_path.read_text())["format"] != 0
        meta_path.write_text(json.dumps(meta))


def test_deprecated_aliases_warn_and_return_what_solve_returns(db44):
    start, goal = np.array([[8, 6, 7], [2, 5, 4], [3, 0, 1]]), goal_board(3, 3)
    with pytest.warns(DeprecationWarning, match="solve_with_pdb is deprecated"):
        old = pdb.solve_with_pdb(start, database=db44, max_nodes=10**6)
    new = solve_pdb(start, database=db44, max_nodes=10**6)
    fields = ("moves", "status", "nodes", "lower_bound", "method", "heuristic")
    assert [getattr(old, f) for f in fields] == [getattr(new, f) for f in fields] and old.length == 31
    with pytest.warns(DeprecationWarning, match="solve_many_with_pdb is deprecated"):
        many = pdb.solve_many_with_pdb(np.stack([start, goal]), database=db44)
    assert isinstance(many, fp.SolveManyResult) and many.lengths.tolist() == [31, 0]
    # iterated or indexed, the result is the list of solutions the alias used to return
    assert [s.moves for s in many] == many.moves == [new.moves, ""] and many[-1].length == 0
    assert [getattr(many[0], f) for f in fields] == [getattr(new, f) for f in fields]
    with pytest.raises(IndexError):
        many[2]  # noqa: B018


@pytest.mark.parametrize("m,n,partition", [(3, 3, [(1, 2, 3, 4), (5, 6, 7, 8)]), (4, 4, [(1, 2, 5, 6, 9), (3, 8, 15)]),
                                           (5, 5, [(1, 7, 13, 19), (24, 20, 2)]), (3, 4, [(1, 6, 11, 4)])])  # fmt: skip
def test_rank_step_equals_ranking_the_moved_board(m, n, partition, rng):
    """The engine's rank step (one move's change of a placement's table index, on the
    board and its reflection) equals ranking the board after the move from scratch."""
    from fastpuzzle.search.pdb.heuristic import rank_step
    from fastpuzzle.search.pdb.ranking import placement_weights, rank_placement
    from fastpuzzle.moves import COL_STEP, ROW_STEP

    n_cells = m * n
    pattern_of = np.full(n_cells, -1, np.int64)
    tile_weight = np.zeros(n_cells, np.int64)
    for p, tiles in enumerate(partition):
        pattern_of[list(tiles)] = p
        tile_weight[list(tiles)] = placement_weights(n_cells, len(tiles))
    square = m == n
    identity = np.arange(n_cells, dtype=np.int64)
    cell_map = np.array([(c % n) * n + c // n if square else c for c in range(n_cells)], np.int64)
    tile_map = identity.copy()  # any relabelling works: the step reads the tiles it is shown
    if square:
        tile_map = rng.permutation(n_cells).astype(np.int64)
        tile_map[tile_map == 0], tile_map[0] = tile_map[0], 0
    # the engine's views: row 0 the board, row 1 its reflection
    maps = np.stack([np.stack([pattern_of, pattern_of]), np.stack([tile_weight, tile_weight]),
                     np.stack([identity, cell_map]), np.stack([identity, tile_map])])  # the rows of pdb_kernel_tables

    def index(cells, p, r):
        where = np.zeros(n_cells, np.int64)
        for c in range(n_cells):
            t = cells[c] if r == 0 else tile_map[cells[cell_map[c]]]
            where[t] = c
        tiles = partition[p]
        return rank_placement(where[list(tiles)], len(tiles), placement_weights(n_cells, len(tiles)))

    for _ in range(300):
        cells = rng.permutation(n_cells).astype(np.int64)
        blank = int(np.flatnonzero(cells == 0)[0])
        for code in range(4):
            r0, c0 = divmod(blank, n)
            rr, cc = r0 + int(ROW_STEP[code]), c0 + int(COL_STEP[code])
            if not (0 <= rr < m and 0 <= cc < n):
                continue
            src = rr * n + cc
            moved = cells.copy()
            moved[blank], moved[src] = moved[src], 0
            for r in range(2 if square else 1):
                t = cells[src] if r == 0 else tile_map[cells[src]]
                p = pattern_of[t]
                if p < 0:
                    continue
                x, y = (src, blank) if r == 0 else (cell_map[src], cell_map[blank])
                step = rank_step(cells, x, y, t, p, r, r == 1, maps)
                assert index(cells, p, r) + step == index(moved, p, r)


@pytest.mark.parametrize("shape", [(6, 6), (5, 9)])
def test_databases_of_boards_above_32_cells_solve_optimally(shape):
    """A partition of 36 or 45 cells: the engine's lengths equal linear conflict's, every bound admissible."""
    m, n = shape
    n_cells = m * n
    db = pdb.build_partition(shape, [tuple(range(t, min(t + 2, n_cells))) for t in range(1, n_cells, 2)])
    for seed in range(3):
        board = np.asarray(fp.scramble(m, n, 16, seed=seed)).reshape(m, n)
        ours = fp.solve(board, heuristic="pdb", database=db, method="ida")
        ref = fp.solve(board, method="ida")
        assert ours.status == "optimal" and ours.verify(board) and ours.length == ref.length
        assert int(db.lookup(board[None])[0]) <= ref.length


def test_choose_database_orders_and_solve_takes_the_one_that_proves_fastest(monkeypatch):
    """``choose_database(strongest=True)`` tries the databases that are not quick to build
    strongest first (``x2`` before one partition), then the quick ones; ``solve``'s default method
    asks for the strongest on 5x5 (its hardest proofs are faster there), the fastest elsewhere."""
    from fastpuzzle.errors import StaleDatabaseError
    from fastpuzzle.search import engines
    from fastpuzzle.search.pdb import store

    tried = []

    def missing(key, **kw):
        tried.append(key)
        raise FileNotFoundError(key)

    monkeypatch.setattr(store, "load", missing)
    monkeypatch.setattr(store, "_build_on_use", missing)  # the quick one last: "built" here
    for strongest, order in ((False, ["7-8", "7-8x2", "6-6-3", "6-6-3"]), (True, ["7-8x2", "7-8", "6-6-3", "6-6-3"])):
        tried.clear()
        with pytest.raises(FileNotFoundError):
            store.choose_database((4, 4), None, strongest=strongest)
        assert tried == order
    monkeypatch.setattr(store, "PREFERENCE", {(5, 5): store.PREFERENCE[(5, 5)]})
    with pytest.raises(FileNotFoundError, match="'6-6-6-6' is not built"):  # the fastest is the one named
        store.choose_database((5, 5), None, strongest=True)
    # a stale strongest one is passed over, with a warning; asked for the fastest, it is an error
    fastest = object()

    def stale_x2(key, **kw):
        if key == "6-6-6-6x2":
            raise StaleDatabaseError(key, "damaged")
        return fastest

    monkeypatch.setattr(store, "load", stale_x2)
    with pytest.warns(RuntimeWarning, match="the next database for the shape is used"):
        assert store.choose_database((5, 5), None, strongest=True) is fastest
    assert store.choose_database((5, 5), None) is fastest
    with pytest.raises(TypeError, match="strongest"):
        store.choose_database((5, 5), None, strongest="yes")
    asked = []

    class Chosen(Exception):
        pass

    def choose(shape, database, *, strongest=False):
        asked.append(strongest)
        raise Chosen

    monkeypatch.setattr(engines, "choose_database", choose)
    monkeypatch.setattr(engines, "available", lambda: list(store.DATABASES))  # all "cached"
    board = fp.random_solvable(5, 5, seed=3)
    for kwargs, strongest in ((dict(time_limit=1.0), True), (dict(heuristic="pdb", time_limit=1.0), False),
                              (dict(heuristic="pdb", method="ida"), False),
                              (dict(metric="mtm", time_limit=1.0), False)):  # fmt: skip
        asked.clear()
        with pytest.raises(Chosen):
            fp.solve(board, **kwargs)
        assert asked == [strongest], kwargs
