"""Optimal solving in the multi-tile metric (one engine, single steps costed by slides), against the
multi-tile tables (a plain BFS checks those in test_hints) and the published 4x4 layer counts."""

from __future__ import annotations

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.distances.multi import slide_neighbours


@pytest.mark.parametrize("shape, count", [((3, 3), 60), ((2, 4), 40), ((4, 2), 20)])
def test_mtm_solutions_are_as_short_as_the_table(shape, count):
    table = fp.distance_table(*shape, metric="mtm")
    goal = fp.goal_board(*shape)
    boards = fp.random_solvable(*shape, count=count, seed=11)
    for board, want in zip(boards, table.lookup(boards).tolist()):
        s = fp.solve(board, metric="mtm")
        assert (s.length, s.lower_bound, s.status, s.metric) == (want, want, "optimal", "mtm")
        assert fp.count_moves(s.moves, metric="mtm") == want  # the folded string counts as it says
        assert (fp.apply_moves(board, fp.encode_moves(s.moves)) == goal).all()
    many = fp.solve_many(boards, metric="mtm", threads=2)
    assert many.lengths.tolist() == table.lookup(boards).tolist() == [s.length for s in many.solutions()]


def test_mtm_root_bound_is_admissible_on_every_3x3_board():
    """ceil(linear conflict / longest slide) never exceeds the multi-tile distance (every 3x3 board)."""
    table = fp.distance_table(3, 3, metric="mtm")
    boards = table.space.boards(np.arange(table.size))
    h = np.asarray(fp.heuristics.linear_conflict(boards), np.int64)
    depths = np.asarray(table.depths[: table.size]).astype(np.int64)
    bound = -(-h // 2)
    assert (bound <= depths).all()
    assert (bound == depths).any() and (bound > 0).sum() == table.size - 1


@pytest.mark.slow  # the 15-puzzle's slide databases take a minute to build
def test_mtm_15_puzzle_against_the_published_layers():
    """4x4 boards 7-9 slides from the goal (the layers whose sizes OEIS A389728 gives and test_hints
    checks), solved optimally: the length is the layer."""
    m = n = 4
    goal = fp.goal_board(m, n).reshape(1, -1).astype(np.uint8)
    seen, frontier, layers = {goal.tobytes()}, goal, [goal]
    for _ in range(9):
        nb = np.unique(slide_neighbours(frontier, m, n, "mtm")[0], axis=0)
        frontier = np.array([row for row in nb if row.tobytes() not in seen], np.uint8)
        seen.update(row.tobytes() for row in frontier)
        layers.append(frontier)
    rng = np.random.default_rng(3)
    for depth in (7, 8, 9):
        for row in layers[depth][rng.choice(len(layers[depth]), 3, replace=False)]:
            s = fp.solve(row.reshape(m, n), metric="mtm", method="ida")
            assert (s.length, s.status) == (depth, "optimal")


@pytest.mark.slow  # the 15-puzzle's slide databases take a minute to build
def test_mtm_budget_states_its_bound():
    board = fp.random_solvable(4, 4, seed=1)
    s = fp.solve(board, metric="mtm", max_nodes=200, method="ida")
    assert s.status == "budget" and s.moves == "" and 1 <= s.lower_bound <= 43  # 43: the 4x4 radius


def test_mtm_options_and_command_line(tmp_path):
    with pytest.raises(ValueError):
        fp.solve(fp.goal_board(3, 3), metric="mtm", method="constructive")
    with pytest.raises(ValueError):
        fp.solve(fp.goal_board(3, 3), metric="htm")
    from fastpuzzle.cli import main

    path = tmp_path / "b.txt"
    path.write_text("4 1 2 0 5 3 7 8 6\n")
    out = tmp_path / "out.txt"
    assert main(["solve", str(path), "--metric", "mtm", "--quiet", "--out", str(out)]) in (0, None)
    length, moves = out.read_text().split()[:2]
    assert (int(length), moves) == (3, "UR2D2")


@pytest.mark.slow
def test_mtm_on_a_reflected_pattern_database_from_the_api_and_the_command_line(tmp_path, monkeypatch):
    """A database's single-tile bound taken to slides, with the board's reflection (the dual lookup),
    is as short as the multi-tile table, from ``solve`` and from ``solve --database --metric mtm``."""
    from fastpuzzle.cli import main

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    table = fp.distance_table(3, 3, metric="mtm")
    boards = fp.random_solvable(3, 3, count=300, seed=4)
    want = table.lookup(boards).tolist()
    path, out = tmp_path / "b.txt", tmp_path / "out.txt"
    path.write_text("".join(" ".join(map(str, b.ravel())) + "\n" for b in boards))
    assert main(["solve", str(path), "--heuristic", "pdb", "--database", "4-4", "--metric", "mtm", "--quiet",
                 "--out", str(out)]) in (0, None)  # fmt: skip
    lines = [line.split() for line in out.read_text().splitlines()]
    assert [int(f[0]) for f in lines] == want and {f[4] for f in lines} == {"optimal"}
    assert [fp.count_moves(f[1], metric="mtm") if f[1] != "-" else 0 for f in lines] == want
    db = fp.pdb.load("4-4")
    assert db.reflect  # the case whose reflected value was once skipped: answers a slide too long
    many = fp.solve_many(boards, metric="mtm", heuristic="pdb", database=db, method="ida", threads=1)
    assert many.lengths.tolist() == want and many.lower_bounds.tolist() == want
    s = fp.solve(boards[0], metric="mtm", heuristic="pdb", database="4-4")
    assert (s.length, s.metric, s.heuristic) == (want[0], "mtm", "pdb:4-4")
    assert (fp.apply_moves(boards[0], fp.encode_moves(s.moves)) == fp.goal_board(3, 3)).all()


def test_database_clashes_are_refused_from_the_api_and_the_command_line(tmp_path, monkeypatch, capsys):
    """A database with a method that reads none, or the multi-tile metric with a method other than
    IDA*: one error naming both options (the command line: one line, exit 2), never ignored."""
    from fastpuzzle.cli import main

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    board = [[4, 1, 2], [0, 5, 3], [7, 8, 6]]
    with pytest.raises(fp.OptionError, match="database.*method='constructive'"):
        fp.solve(board, heuristic="pdb", database="4-4", method="constructive")
    with pytest.raises(fp.OptionError, match="method.*metric='mtm'"):
        fp.solve_many([board], heuristic="pdb", database="4-4", method="anytime", metric="mtm")
    path = tmp_path / "b.txt"
    path.write_text("4 1 2 0 5 3 7 8 6\n")
    for extra, names in [(["--method", "constructive"], ("--database", "--method constructive")),
                         (["--method", "anytime", "--metric", "mtm"], ("method", "metric='mtm'"))]:  # fmt: skip
        assert main(["solve", str(path), "--heuristic", "pdb", "--database", "4-4", "--quiet", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and all(name in err for name in names), err
    assert main(["solve", str(path), "--heuristic", "pdb", "--database", "4-4", "--metric", "mtm", "--quiet"]) in (0, None)
    assert capsys.readouterr().out.split()[:2] == ["3", "UR2D2"]
