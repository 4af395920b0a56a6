"""The command line, run as a subprocess (``python -m fastpuzzle``) from the repository root."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fastpuzzle import is_solvable
from fastpuzzle.generate import random_permutations, random_solvable
from fastpuzzle.io import format_boards

from . import naive
from .naive import naive_judge

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, stdin=None, env=None):
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "fastpuzzle", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=full_env,
        timeout=300,
    )


def assert_bad_input(proc, *fragments):
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for f in fragments:
        assert f in err, err


def test_help_for_every_subcommand():
    for sub in ["check", "reach", "generate", "distances", "demo"]:
        p = cli(sub, "--help")
        assert p.returncode == 0 and b"usage: fastpuzzle " + sub.encode() in p.stdout


@pytest.mark.slow
def test_generate_then_check_npy(tmp_path):
    out = tmp_path / "b.npy"
    p = cli("generate", "--shape", "4x4", "--count", 20000, "--seed", 7, "--out", out)
    assert p.returncode == 0, p.stderr
    boards = np.load(out)
    assert boards.shape == (20000, 4, 4) and boards.dtype == np.uint8
    assert (boards == random_solvable(4, 4, count=20000, seed=7)).all()  # same seed, same boards
    mask = tmp_path / "mask.npy"
    p = cli("check", out, "--summary", "--out", mask)
    assert p.returncode == 0, p.stderr
    assert b"boards: 20000" in p.stdout and b"solvable: 20000 (100.00%)" in p.stdout
    assert np.load(mask).all() and np.load(mask).shape == (20000,)


def test_generate_is_reproducible_across_thread_counts(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    assert cli("generate", "--shape", "5x5", "--count", 30000, "--seed", 3, "--out", a, env={"NUMBA_NUM_THREADS": "1"}).returncode == 0
    assert cli("generate", "--shape", "5x5", "--count", 30000, "--seed", 3, "--out", b, env={"NUMBA_NUM_THREADS": "2"}).returncode == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.slow
def test_check_text_verdicts_per_board(tmp_path):
    boards = random_permutations(3, 3, count=300, seed=4)
    f = tmp_path / "boards.txt"
    f.write_bytes(format_boards(boards, fmt="lines"))
    p = cli("check", f)
    assert p.returncode == 0, p.stderr
    got = p.stdout.decode().split()
    assert got == ["solvable" if naive.reachable(b, naive.goal(3, 3)) else "unsolvable" for b in boards]
    # the same from standard input, as grids, with a goal file
    goal = tmp_path / "goal.txt"
    goal.write_text("0 1 2\n3 4 5\n6 7 8\n")
    p = cli("check", "-", "--goal", goal, stdin=format_boards(boards, fmt="grids").replace(b"\n0", b"\n0"))
    assert p.returncode == 0, p.stderr
    want = [
        "reachable" if naive.reachable(b, [[0, 1, 2], [3, 4, 5], [6, 7, 8]]) else "unreachable"
        for b in boards
    ]
    assert p.stdout.decode().split() == want


def test_check_npy_on_stdin_and_scramble(tmp_path):
    out = tmp_path / "s.npy"
    p = cli("generate", "--shape", "3x5", "--count", 500, "--seed", 1, "--scramble", 40, "--out", out)
    assert p.returncode == 0, p.stderr
    p = cli("check", "-", "--summary", stdin=out.read_bytes())
    assert p.returncode == 0, p.stderr
    assert b"boards: 500" in p.stdout and b"solvable: 500 (100.00%)" in p.stdout


def test_generate_permutations_text_and_mask(tmp_path):
    out = tmp_path / "p.txt"
    assert cli("generate", "--shape", "2x3", "--count", 400, "--seed", 9, "--permutations", "--out", out).returncode == 0
    mask = tmp_path / "m.npy"
    p = cli("check", out, "--shape", "2x3", "--out", mask, "--summary")
    assert p.returncode == 0, p.stderr
    boards = np.loadtxt(out, dtype=np.int64).reshape(-1, 2, 3)
    assert (np.load(mask) == is_solvable(boards)).all()
    assert 0 < np.load(mask).sum() < 400


@pytest.mark.slow
def test_reach_two_boards(tmp_path):
    p = cli("reach", "1 2 3/4 5 6/7 8 0", "1 2 3/4 5 6/7 0 8")
    assert p.returncode == 0 and p.stdout == b"reachable\n"
    p = cli("reach", "1 2 3 4 5 6 7 8 0", "1 2 3 4 5 6 8 7 0")
    assert p.returncode == 0 and p.stdout == b"unreachable\n"
    f = tmp_path / "a.txt"
    f.write_text("1 2 3 0\n")
    p = cli("reach", f, "1 0 2 3", "--shape", "1x4")
    assert p.stdout == b"reachable\n"


@pytest.mark.slow
def test_reach_judge(rng):
    parts = []
    for n in [2, 3, 4, 5, 1, 7, 8, 3, 2, 6]:
        parts.append(f"{n}\n")
        for _ in range(2):
            grid = rng.permutation(n * n).reshape(n, n)
            parts.append("".join(" ".join(map(str, row)) + "\n" for row in grid))
    text = "".join(parts)
    p = cli("reach", "--judge", stdin=text.encode())
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().split() == naive_judge(text)


@pytest.mark.slow
def test_demo_runs():
    p = cli("demo", "--count", 20000)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "share solvable: generated 100.000%" in out and "boards/s" in out
    lines = out.splitlines()
    warm = [i for i, line in enumerate(lines) if "compiling kernels, first run only" in line or "kernels loaded from the cache" in line]
    assert warm == [1], out  # said once, before any rate
    assert "nan" not in out


@pytest.mark.parametrize("compiled, said", [(7, "compiling kernels, first run only: 12.5 s"),
                                            (0, "kernels loaded from the cache: 12.50 s")])
def test_demo_says_what_the_warm_up_cost(monkeypatch, capsys, compiled, said):
    from fastpuzzle import warmup
    from fastpuzzle.cli import main

    calls = []

    def fake_warm(m, n, **kw):
        calls.append((m, n))
        return warmup.Warmup(12.5, compiled, 40 - compiled)

    monkeypatch.setattr(warmup, "warm_kernels", fake_warm)
    assert main(["demo", "--count", "3000", "--shape", "3x3"]) == 0
    out = capsys.readouterr().out
    assert calls == [(3, 3)]
    assert out.splitlines()[1].strip() == said
    assert "3,000 solvable boards" in out and "nan" not in out


def test_demo_refuses_a_count_of_zero(capsys):
    from fastpuzzle.cli import main

    assert main(["demo", "--count", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--count" in err


# ---------------------------------------------------------------- distances (in-process: main returns the status)


def _depth_rows(text):
    """``{depth: boards}`` of a printed depth table."""
    rows = [line.split() for line in text.splitlines()[2:]]
    return {int(d): int(c.replace(",", "")) for d, c, _ in rows}


def test_distances_prints_the_depth_table_of_a_plain_bfs(capsys):
    from fastpuzzle.cli import main
    from fastpuzzle.distances import table as table_module

    from . import naive

    goal_cells = (0, 3, 1, 5, 2, 4)  # blank top-left, tiles shuffled
    table_module._MEMO.clear()
    assert main(["distances", "2x3", "--goal", " ".join(map(str, goal_cells)), "--no-progress"]) == 0
    captured = capsys.readouterr()
    counts, antipodes, _ = naive.depth_table(2, 3, goal_cells)
    assert _depth_rows(captured.out) == dict(enumerate(counts))
    header = captured.out.splitlines()[0]
    assert f"radius {len(counts) - 1}," in header and f"{len(antipodes)} antipode" in header
    assert "[0 3 1 / 5 2 4]" in header
    assert captured.err == ""  # --no-progress: nothing on standard error


def test_distances_out_file_and_progress_bar_on_stderr(tmp_path, capsys):
    from fastpuzzle.cli import main
    from fastpuzzle.distances import distance_table, format_depth_table
    from fastpuzzle.distances import table as table_module

    from . import naive

    out = tmp_path / "depths.txt"
    table_module._MEMO.clear()  # searched in this test, so the bar has work to show
    assert main(["distances", "2x4", "--out", str(out), "--progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "distances 2x4" in captured.err and "20,160 boards" in captured.err and str(out) in captured.err
    text = out.read_text()
    assert text == format_depth_table(distance_table(2, 4)) + "\n"
    assert _depth_rows(text) == dict(enumerate(naive.depth_table(2, 4)[0]))
    assert sorted(os.listdir(tmp_path)) == ["depths.txt"]
    table_module._MEMO.clear()
    assert main(["distances", "2x4", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == text


@pytest.mark.parametrize("argv, fragments", [
    (["4x4"], ["4x4 has 16 cells", "at most 12 cells"]),
    (["3x5"], ["at most 12 cells"]),
    (["3x"], ["MxN"]),
    (["2x2", "--goal", "1 1 2 0"], ["--goal", "not a permutation"]),
    (["2x2", "--goal", "1 2 3 0 4"], ["--goal", "expected 4"]),
    (["2x2", "--time-limit", "0"], ["--time-limit"]),
    (["2x2", "--time-limit", "nan"], ["--time-limit"]),
])
def test_distances_refuses_in_one_line(capsys, tmp_path, argv, fragments):
    from fastpuzzle.cli import main

    out = tmp_path / "never.txt"
    assert main(["distances", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert all(f in err for f in fragments), err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_distances_time_limit_stops_in_one_line(capsys, tmp_path):
    from fastpuzzle.cli import main
    from fastpuzzle.distances import table as table_module

    out = tmp_path / "never.txt"
    table_module._MEMO.clear()
    assert main(["distances", "2x5", "--time-limit", "1e-9", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--time-limit 1e-09" in err and "depth" in err, err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- generate --distance


def test_generate_at_a_distance_matches_the_api_and_a_plain_bfs(tmp_path, capsys):
    from fastpuzzle.cli import main

    from . import naive

    out = tmp_path / "d.npy"
    assert main(["generate", "--shape", "3x3", "--count", "300", "--seed", "5", "--distance", "20", "--out", str(out)]) == 0
    boards = np.load(out)
    assert (boards == random_solvable(3, 3, count=300, seed=5, distance=20)).all()  # same seed, same boards
    depth_of = naive.depth_table(3, 3)[2]
    assert {depth_of[tuple(b.ravel().tolist())] for b in boards} == {20}
    assert "distance 20" in capsys.readouterr().err
    # a range, a goal, text to standard output
    goal_cells = (0, 1, 2, 3, 4, 5, 6, 7, 8)
    assert main(["generate", "--shape", "3x3", "--count", "50", "--seed", "9", "--distance", "25:27",
                 "--goal", "0 1 2/3 4 5/6 7 8", "--out", "-"]) == 0
    from fastpuzzle.io import read_text_boards

    printed, _ = read_text_boards(capsys.readouterr().out.encode(), "stdout")
    assert printed.shape == (50, 3, 3)
    assert (printed == random_solvable(3, 3, count=50, seed=9, goal=np.arange(9).reshape(3, 3), distance=(25, 27))).all()
    depth_of = naive.depth_table(3, 3, goal_cells)[2]
    assert {depth_of[tuple(b.ravel().tolist())] for b in printed} <= {25, 26, 27}


@pytest.mark.parametrize("extra, fragments", [
    (["--distance", "5:3"], ["--distance", "backwards"]),
    (["--distance", "x"], ["--distance", "whole number"]),
    (["--distance", "-1"], ["--distance"]),
    (["--distance", "1:2:3"], ["--distance", "LO:HI"]),
    (["--distance", "40"], ["distance", "got 40", "0 to 31"]),
    (["--distance", "3", "--scramble", "4"], ["--distance", "--scramble"]),
    (["--distance", "3", "--permutations"], ["--distance", "--permutations"]),
    (["--distance", "3", "--dask"], ["--distance", "--dask"]),
    (["--distance", "3", "--shape", "5x5"], ["--distance", "5x5"]),
])
def test_generate_distance_refuses_in_one_line(capsys, tmp_path, extra, fragments):
    from fastpuzzle.cli import main

    out = tmp_path / "never.npy"
    shape = [] if "--shape" in extra else ["--shape", "3x3"]
    assert main(["generate", *shape, "--count", "10", "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert all(f in err for f in fragments), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_bad_inputs_one_line_exit_2(tmp_path):
    assert_bad_input(cli("check", tmp_path / "missing.txt"), "missing.txt", "cannot open")
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8 x\n")
    assert_bad_input(cli("check", bad), "bad.txt", "line 2", "unexpected 'x'")
    bad.write_text("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8\n")
    assert_bad_input(cli("check", bad), "line 2", "8 numbers, expected 9")
    bad.write_text("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 0 0\n")
    assert_bad_input(cli("check", bad), "line 2: board 1 is not a permutation", "appears 2 times")
    bad.write_text("1 2 3 4 5 6 7 8 0\n")
    assert_bad_input(cli("check", bad, "--shape", "2x4"), "line 1", "expected 8")
    npy = tmp_path / "bad.npy"
    boards = random_solvable(3, 3, count=50, seed=1).astype(np.int16)
    boards[17, 1, 1] = 99
    np.save(npy, boards)
    mask = tmp_path / "mask.npy"
    assert_bad_input(cli("check", npy, "--out", mask), "bad.npy", "board 17", "99")
    assert not mask.exists() and not [x for x in os.listdir(tmp_path) if x.startswith(".mask")]
    assert_bad_input(cli("reach", "--judge", stdin=b"2\n1 2\n3 0\n1 2\n2 0\n"), "case 1", "tile 2 twice")
    assert_bad_input(cli("reach", "1 2 3 0", "1 2 3 4 5 6 7 8 0"), "3x3", "2x2")
    out = tmp_path / "never.npy"
    assert_bad_input(cli("generate", "--shape", "4x4", "--count", 10, "--goal", bad, "--out", out), "goal")
    assert not out.exists()
    assert_bad_input(cli("generate", "--shape", "4x", "--count", 3, "--out", out), "--shape", "MxN")
    assert_bad_input(cli("generate", "--shape", "4x4", "--count", -3, "--out", out), "--count")
    assert not out.exists()


def test_generate_to_stdout_with_progress_bar():
    p = cli("generate", "--shape", "3x3", "--count", 50, "--seed", 5, "--format", "grids", "--out", "-", "--progress")
    assert p.returncode == 0, p.stderr
    from fastpuzzle.io import read_text_boards

    boards, _ = read_text_boards(p.stdout, "stdout")
    assert (boards == random_solvable(3, 3, count=50, seed=5)).all()
    assert b"generate" in p.stderr and b"50" in p.stderr  # the tqdm bar went to stderr


def test_every_subcommand_is_a_module_of_the_cli_package():
    """One module per subcommand, each registering itself; no optional guard."""
    import importlib

    from fastpuzzle import cli as cli_module

    parser = cli_module.build_parser()
    names = parser._subparsers._group_actions[0].choices
    assert set(names) == set(cli_module.SUBCOMMANDS)
    for name in cli_module.SUBCOMMANDS:
        module = importlib.import_module(f"fastpuzzle.cli.{name}")
        assert callable(module.add_parser) and callable(module.run)


def test_building_the_parser_loads_no_kernel_solver_or_dask():
    """Start-up: the CLI's own modules import the standard library only until a subcommand runs."""
    code = (
        "import sys, fastpuzzle; before = set(sys.modules); "
        "from fastpuzzle.cli import build_parser; build_parser(); "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    added = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=120, check=True).stdout.split()
    heavy = ("numba", "numpy", "tqdm", "dask", "fastpuzzle.search", "fastpuzzle.pdb", "fastpuzzle.generate",
             "fastpuzzle.solvability", "fastpuzzle.io.read", "fastpuzzle.io.text")
    assert [m for m in added if m.startswith(heavy)] == []
