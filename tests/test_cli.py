"""The command line, run as a subprocess (``python -m fastpuzzle``) from the repository root."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fastpuzzle import is_solvable
from fastpuzzle.generate import random_permutations, random_solvable
from fastpuzzle.textio import format_boards

from .naive import naive_judge, naive_reachable_from_goal

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
    for sub in ["check", "reach", "generate", "demo"]:
        p = cli(sub, "--help")
        assert p.returncode == 0 and b"usage: fastpuzzle " + sub.encode() in p.stdout


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


def test_check_text_verdicts_per_board(tmp_path):
    boards = random_permutations(3, 3, count=300, seed=4)
    f = tmp_path / "boards.txt"
    f.write_bytes(format_boards(boards, "lines"))
    p = cli("check", f)
    assert p.returncode == 0, p.stderr
    got = p.stdout.decode().split()
    assert got == ["solvable" if naive_reachable_from_goal(b.ravel(), 3, 3) else "unsolvable" for b in boards]
    # the same from standard input, as grids, with a goal file
    goal = tmp_path / "goal.txt"
    goal.write_text("0 1 2\n3 4 5\n6 7 8\n")
    p = cli("check", "-", "--goal", goal, stdin=format_boards(boards, "grids").replace(b"\n0", b"\n0"))
    assert p.returncode == 0, p.stderr
    want = [
        "reachable" if naive_reachable_from_goal(b.ravel(), 3, 3, goal=list(range(9))) else "unreachable"
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


def test_reach_two_boards(tmp_path):
    p = cli("reach", "1 2 3/4 5 6/7 8 0", "1 2 3/4 5 6/7 0 8")
    assert p.returncode == 0 and p.stdout == b"reachable\n"
    p = cli("reach", "1 2 3 4 5 6 7 8 0", "1 2 3 4 5 6 8 7 0")
    assert p.returncode == 0 and p.stdout == b"unreachable\n"
    f = tmp_path / "a.txt"
    f.write_text("1 2 3 0\n")
    p = cli("reach", f, "1 0 2 3", "--shape", "1x4")
    assert p.stdout == b"reachable\n"


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


def test_demo_runs():
    p = cli("demo", "--count", 20000)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "share solvable: generated 100.000%" in out and "boards/s" in out


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
    from fastpuzzle.textio import read_text_boards

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
