"""Multi-tile pattern databases (``fastpuzzle.search.pdb.slides``): tables against a plain
breadth-first search, the bound against the multi-tile tables on every board of small shapes, and
optimal multi-tile solves with them (the 15-puzzle's in the slow tier: its tables take a minute)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.search.solve import FOLDED_NOTE
from fastpuzzle.notation import count_moves
from fastpuzzle.search import ida
from fastpuzzle.search.pdb import slides

from .naive import partial_rank, slide_pattern_distances


@pytest.mark.parametrize("shape, pattern, blank", [((2, 3), (0, 1), 5), ((3, 3), (0, 4, 6), 8), ((3, 3), (2, 3), 4),
                                                   ((2, 4), (7, 0, 5), 3)])  # fmt: skip
def test_tables_against_plain_bfs(shape, pattern, blank):
    m, n = shape
    want = slide_pattern_distances(m, n, pattern, blank)
    table = slides.build_slide_table(m, n, pattern, blank)
    assert table.size == len(want)  # every placement reached
    for (placed, z), d in want.items():
        assert table[partial_rank([*placed, z], m * n)] == d


def test_bit_count_ranking_equals_the_ranking():
    from fastpuzzle.search.pdb.ranking import placement_weights, rank_placement, rank_placement_bits

    rng = np.random.default_rng(0)
    for n_cells, k in [(16, 7), (9, 4), (25, 6), (62, 3)]:
        w = placement_weights(n_cells, k)
        for _ in range(200):
            p = rng.choice(n_cells, k, replace=False).astype(np.int64)
            assert rank_placement_bits(p, k, w) == rank_placement(p, k, w)


def _goal(m, n, blank):
    """A goal with its blank on ``blank`` and the tiles 1.. in row-major order around it."""
    cells = np.zeros(m * n, np.int64)
    cells[[c for c in range(m * n) if c != blank]] = np.arange(1, m * n)
    return cells.reshape(m, n)


@pytest.mark.parametrize("shape, blank", [((3, 3), 8), ((3, 3), 4), ((3, 3), 0), ((2, 4), 7), ((4, 2), 1)])
def test_bound_is_admissible_on_every_board(shape, blank):
    """On every board of the shape: the bound never exceeds the multi-tile distance, is reached
    somewhere off the goal and beats the single-tile bound over the longest slide on average."""
    m, n = shape
    goal = _goal(m, n, blank)
    table = fp.distance_table(m, n, goal=goal, metric="mtm")
    boards = table.space.boards(np.arange(table.size)).reshape(table.size, m * n)
    depths = np.asarray(table.depths[: table.size]).astype(np.int64)
    tables = slides.slide_tables(goal, slides.slide_patterns(goal, 3), cache=False)
    assert len(tables[1]) >= 2 + 2 * (m == n and blank in (0, 4, 8))  # the symmetries keeping the blank: read too
    bound = slides.slide_bounds(boards, tables)
    assert (bound <= depths).all()
    assert ((bound == depths) & (depths > 0)).any()
    single = -(-np.asarray(fp.heuristics.linear_conflict(boards.reshape(-1, m, n), goal=goal), np.int64) // (max(m, n) - 1))
    assert bound.mean() > single.mean()


@pytest.mark.parametrize("shape, blank, count", [((3, 3), 8, 60), ((3, 3), 4, 40), ((2, 4), 0, 40)])
def test_solves_with_slide_databases_are_optimal(shape, blank, count):
    m, n = shape
    goal = _goal(m, n, blank)
    table = fp.distance_table(m, n, goal=goal, metric="mtm")
    with_slides = ida.Heuristic(m, n, goal, "linear_conflict", metric="mtm",
                                slides=slides.slide_tables(goal, slides.slide_patterns(goal, 3), cache=False))
    without = ida.Heuristic(m, n, goal, "linear_conflict", metric="mtm")
    boards = fp.random_solvable(m, n, count=count, seed=5, goal=goal)
    nodes = [0, 0]
    for board, want in zip(boards, table.lookup(boards).tolist()):
        for i, engine in enumerate((with_slides, without)):
            status, codes, used, _ = ida.ida_search(board.ravel().astype(np.uint8), engine)
            assert status == ida.STATUS_FOUND and count_moves(codes, metric="mtm") == want
            assert (fp.apply_moves(board, codes) == goal).all()
            nodes[i] += used
    assert nodes[0] < nodes[1]


def test_a_pattern_holding_the_blank_is_refused():
    with pytest.raises(fp.OptionError, match="pattern"):
        slides.build_slide_table(3, 3, (0, 8), 8)
    with pytest.raises(fp.OptionError, match="pattern"):
        slides.build_slide_table(3, 3, (0, 9), 8)


@pytest.mark.parametrize("goal, patterns, error", [
    (fp.goal_board(3, 3), [(0, 1), (2, 3, 4)], fp.OptionError),   # lengths differ
    (fp.goal_board(3, 3), [(0, 8)], fp.OptionError),              # the blank's cell
    (fp.goal_board(3, 3), [(0, 0)], fp.OptionError),
    (fp.goal_board(3, 3), [], TypeError),
    (fp.goal_board(3, 3), [("a", 1)], TypeError),
    (fp.goal_board(3, 3), [(0, 1.5)], TypeError),
    (np.zeros((3, 3), np.int64), None, ValueError),              # not a goal board
    (fp.goal_board(1, 5), None, ValueError),
    (fp.goal_board(8, 8), None, ValueError),
])  # fmt: skip
def test_bad_goals_and_patterns_are_refused(goal, patterns, error):
    with pytest.raises(error):
        slides.slide_tables(goal, patterns, cache=False)


@pytest.mark.parametrize("shape", [(2, 5), (5, 2)])
def test_default_solves_on_10_cells_read_the_databases_and_match_the_table(shape):
    m, n = shape
    table = fp.distance_table(m, n, metric="mtm")
    boards = fp.random_solvable(m, n, count=25, seed=6)
    many = fp.solve_many(boards, metric="mtm", threads=1)
    assert many.lengths.tolist() == table.lookup(boards).tolist()
    assert many.nodes.max() < 20_000  # the weak bound alone takes up to millions of nodes on these boards
    s = fp.solve(boards[0], metric="mtm", time_limit=30)  # built by solve_many: read under a budget too
    assert (s.length, s.status, s.note) == (int(table.lookup(boards[0])), "optimal", "")


def test_a_corrupted_cached_table_is_rebuilt_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    goal = fp.goal_board(3, 3)
    patterns = [(0, 1, 2)]
    first = slides.build_slide_table(3, 3, patterns[0], 8)
    slides.slide_tables(goal, patterns)  # built and cached
    (path,) = (tmp_path / "slides").glob("*.npy")
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    slides._JOINED.clear()  # a new process: the table is read again
    with pytest.warns(RuntimeWarning, match="corrupted"):
        data = slides.slide_tables(goal, patterns)[0]
    assert np.array_equal(data, first)
    slides._JOINED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(slides.slide_tables(goal, patterns)[0], first)  # the rebuilt copy is whole


def test_a_budgeted_solve_does_not_build_the_tables_and_says_so(tmp_path, monkeypatch):
    """Building takes longer than most budgets: ``solve`` with one goes without the tables when
    they are not built, keeps its budget, and its note says why; nothing is written."""
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    goal = _goal(3, 5, 0)  # a shape and goal no other test builds
    assert not slides.slide_tables_built(goal)
    board = fp.random_solvable(3, 5, seed=2, goal=goal)
    s = fp.solve(board, goal=goal, metric="mtm", max_nodes=50_000, method="ida")
    assert s.status == "budget" and s.note == slides.SLIDES_NOT_BUILT and s.lower_bound >= 1
    s = fp.solve(board, goal=goal, metric="mtm", max_nodes=50_000)  # "auto": the folded fallback
    assert s.status == "bounded" and s.verify(board, goal=goal) and s.lower_bound >= 1
    assert s.note.startswith(slides.SLIDES_NOT_BUILT) and s.note.endswith(FOLDED_NOTE)
    assert not (tmp_path / "slides").exists() and not slides.slide_tables_built(goal)


def test_an_unusable_cache_is_named_and_the_tables_still_serve(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(blocker))
    goal = fp.goal_board(2, 3)
    with pytest.warns(RuntimeWarning, match="cannot be cached"):
        data = slides.slide_tables(goal, [(0, 1)])[0]
    assert np.array_equal(data, slides.build_slide_table(2, 3, (0, 1), 5))


def test_command_line_builds_them(tmp_path, monkeypatch, capsys):
    from fastpuzzle.cli import main

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    assert main(["pdb", "build", "slides-3x3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("slides-3x3: patterns ") and " built in " in out
    assert len(list((tmp_path / "slides").glob("3x3-*.npy"))) == 2
    assert main(["pdb", "build", "slides-3x3"]) == 0 and "already cached" in capsys.readouterr().out
    assert main(["pdb", "build", "slides-3x3", "--force"]) == 0 and " built in " in capsys.readouterr().out
    for bad in ("slides-1x5", "slides-9x9", "slides-axb"):
        assert main(["pdb", "build", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and bad in err, err


def test_patterns_of_the_15_puzzle_and_other_shapes():
    goal = fp.goal_board(4, 4)
    tiles = [sorted(int(goal.flat[c]) for c in p) for p in slides.slide_patterns(goal)]
    assert tiles == [[1, 2, 3, 4, 5, 9], [4, 8, 12, 13, 14, 15]]
    for m, n in [(2, 7), (2, 8), (3, 5), (5, 3), (4, 4)]:
        for blank in (0, m * n - 1, n - 1):
            goal = _goal(m, n, blank)
            for p in slides.slide_patterns(goal):
                assert len(set(p)) == slides.SLIDE_TILES and blank not in p


@pytest.mark.slow
def test_15_puzzle_uniform_boards_are_solved_optimally():
    """Uniform random 15-puzzles under the multi-tile metric: optimal from ``solve`` with the default
    tables (built here in the test run's cache), and as long as with other tables (five-tile patterns),
    an independent bound; the bound below the layer of boards up to 9 slides from the goal."""
    from fastpuzzle.distances.multi import slide_neighbours

    m = n = 4
    goal = fp.goal_board(m, n)
    boards = fp.random_solvable(m, n, count=6, seed=8)
    other = ida.Heuristic(m, n, goal, "linear_conflict", metric="mtm", slides=slides.slide_tables(
        goal, [(0, 1, 2, 3, 4), (8, 11, 12, 13, 14)], cache=False))  # fmt: skip
    for board in boards:
        s = fp.solve(board, metric="mtm")
        assert s.status == "optimal" and s.length == s.lower_bound and s.verify(board)
        assert count_moves(s.moves, metric="mtm") == s.length
        status, codes, _, _ = ida.ida_search(board.ravel().astype(np.uint8), other)
        assert status == ida.STATUS_FOUND and count_moves(codes, metric="mtm") == s.length
    tables = slides.slide_tables(goal)
    frontier, seen = goal.reshape(1, -1).astype(np.uint8), {goal.astype(np.uint8).tobytes()}
    for depth in range(1, 10):
        nb = np.unique(slide_neighbours(frontier, m, n, "mtm")[0], axis=0)
        frontier = np.array([row for row in nb if row.tobytes() not in seen], np.uint8)
        seen.update(row.tobytes() for row in frontier)
        bound = slides.slide_bounds(frontier, tables)
        assert (bound <= depth).all() and (bound == depth).any()


@pytest.mark.slow
def test_12_cell_solves_match_the_single_tile_bound_where_it_finishes():
    """3x4 and 2x6 boards (their multi-tile tables take minutes): solved with the slide databases,
    as long as the search without them wherever that one finishes in its budget."""
    for m, n in [(3, 4), (2, 6), (4, 3)]:
        goal = fp.goal_board(m, n)
        weak = ida.Heuristic(m, n, goal, "linear_conflict", metric="mtm", slides=slides.no_slide_tables(m * n))
        checked = 0
        for board in fp.random_solvable(m, n, count=4, seed=5):
            s = fp.solve(board, metric="mtm")
            assert s.status == "optimal" and s.verify(board)
            status, codes, _, _ = ida.ida_search(board.ravel().astype(np.uint8), weak, max_nodes=30_000_000)
            if status == ida.STATUS_FOUND:
                assert count_moves(codes, metric="mtm") == s.length
                checked += 1
        assert checked >= 1


@pytest.mark.slow
def test_15_puzzle_multi_tile_hints_and_distances_agree_with_the_solver():
    """Hints and distances on 4x4 boards under the multi-tile metric: every hinted slide lands one
    closer and every other slide does not (each neighbour's distance solved on its own); a custom
    goal (blank first) too; 2x7 (14 cells, no table) as well."""
    from fastpuzzle.distances.multi import slide_neighbours

    for m, n, goal in [(4, 4, None), (4, 4, np.arange(16).reshape(4, 4)), (2, 7, None)]:
        target = fp.goal_board(m, n) if goal is None else goal
        for board in fp.random_solvable(m, n, count=2, seed=12, goal=target):
            h = fp.hints(board, goal=goal, metric="mtm")
            assert h.proved and h.metric == "mtm" and h.distance == fp.distance(board, goal=goal, metric="mtm")
            nb, _, code, steps = slide_neighbours(board.reshape(1, -1), m, n, "mtm")
            d = fp.distance(nb.reshape(-1, m, n), goal=goal, metric="mtm")
            assert set(d.tolist()) <= {h.distance - 1, h.distance, h.distance + 1}
            letters = [fp.moves.MOVE_CHARS[c] + (str(k) if k > 1 else "") for c, k in zip(code.tolist(), steps.tolist())]
            assert sorted(h.moves) == sorted(x for x, dx in zip(letters, d.tolist()) if dx == h.distance - 1)
