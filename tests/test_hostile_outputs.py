"""Outputs that share an inode with an input or another name, pipes named as paths, odd names.

Promises checked: an output never truncates an inode that other names or the
input share (it is written beside and renamed); a memory-mapped input stays
readable; ``/dev/stdout``, ``/proc/self/fd/1`` and pipes are written in place;
a path ending in ``/`` is refused; file names are shown exactly.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.atomic import write_text
from fastpuzzle.cli import main as cli_main
from fastpuzzle.io.read import load_boards
from fastpuzzle.io.write import write_boards

from .hostile import one_line_error, tried

ROOT = Path(__file__).resolve().parents[1]


def _cli(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "fastpuzzle", *args], capture_output=True, env=env,
                          timeout=300, **kw)  # fmt: skip


def _leftovers(d):
    return [p for p in os.listdir(d) if p.endswith(".tmp")]


def _bad_late(path, count=40):
    """A .npy whose last board is not a permutation (found only at the end)."""
    boards = fp.random_solvable(3, 3, count=count, seed=4)
    boards[-1, 0, 0] = boards[-1, 0, 1]
    np.save(path, boards)


def test_failed_check_leaves_hard_linked_output(tmp_path):  # issue 20, defect 1
    old = tmp_path / "old.npy"
    np.save(old, np.ones(7, bool))
    os.link(old, tmp_path / "link.npy")
    before = old.read_bytes()
    _bad_late(tmp_path / "badlate.npy")
    code = cli_main(["check", str(tmp_path / "badlate.npy"), "--out", str(old)])
    assert code == 2
    assert old.read_bytes() == before and (tmp_path / "link.npy").read_bytes() == before
    assert _leftovers(tmp_path) == []
    tried("outputs", 2)


@pytest.mark.parametrize("command", ["solve", "check"])
@pytest.mark.slow
def test_output_is_the_hard_linked_input(tmp_path, command):  # defect 2: refused, both names intact
    src = tmp_path / "hl.npy"
    boards = fp.random_solvable(3, 3, count=30, seed=5)
    np.save(src, boards)
    os.link(src, tmp_path / "hl2.npy")
    for out in ("hl.npy", "hl2.npy"):
        run = _cli([command, "hl.npy", "--out", out], cwd=tmp_path)
        assert run.returncode == 2 and b"is also the input" in run.stderr, run.stderr.decode()
    assert np.array_equal(np.load(tmp_path / "hl2.npy"), boards) and np.array_equal(np.load(src), boards)
    assert _leftovers(tmp_path) == []
    tried("outputs")


def test_check_output_is_its_input(tmp_path, capsys):  # defect 2: check in.npy --out in.npy keeps the input
    src = tmp_path / "in.npy"
    boards = fp.random_solvable(3, 3, count=30, seed=6)
    np.save(src, boards)
    assert cli_main(["check", str(src), "--out", str(src)]) == 2
    assert "is also the input" in capsys.readouterr().err
    assert np.array_equal(np.load(src), boards)
    tried("outputs")


def test_memory_mapped_input_survives_rewrite(tmp_path):  # defect 2, API
    path = tmp_path / "x.npy"
    boards = fp.random_solvable(4, 4, count=500, seed=7)
    np.save(path, boards)
    os.link(path, tmp_path / "y.npy")
    b = load_boards(str(path))
    total = int(np.asarray(boards, np.int64).sum())
    write_boards(str(path), boards[:2])
    assert int(np.asarray(b, np.int64).sum()) == total  # no SIGBUS, the old inode is still mapped
    assert np.array_equal(np.load(tmp_path / "y.npy"), boards)
    assert np.array_equal(load_boards(str(path)), boards[:2])
    tried("outputs", 2)


def test_hard_link_write_text_renames(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old\n")
    os.link(a, b)
    write_text(a, "new\n")
    assert a.read_text() == "new\n" and b.read_text() == "old\n"
    tried("outputs")


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="needs /dev/stdout")
@pytest.mark.parametrize("name, command", [("/dev/stdout", "generate"), ("/proc/self/fd/1", "generate"),
                                           ("/dev/stdout", "check"), ("/dev/stdout", "solve"),
                                           ("/proc/self/fd/1", "distances")])
@pytest.mark.slow
def test_stdout_by_name_into_a_pipe(tmp_path, name, command):  # defect 21
    if name.startswith("/proc") and not os.path.exists("/proc/self/fd/1"):
        pytest.skip("no /proc")
    boards = tmp_path / "b.txt"
    write_boards(str(boards), fp.random_solvable(3, 3, count=2, seed=1))
    args = {"generate": ["generate", "--shape", "3x3", "--count", "2", "--seed", "1"],
            "check": ["check", str(boards)], "solve": ["solve", str(boards)],
            "distances": ["distances", "2x3"]}[command]  # fmt: skip
    if command == "check":
        args = ["check", str(tmp_path / "b.npy")]
        np.save(tmp_path / "b.npy", fp.random_solvable(3, 3, count=2, seed=1))
    run = _cli([*args, "--out", name])  # standard output is a pipe here
    assert run.returncode == 0, run.stderr.decode()
    assert len(run.stdout) > 0
    if command == "generate":
        assert len(run.stdout.decode().split("\n")) >= 2
    tried("outputs")


@pytest.mark.skipif(sys.platform == "win32", reason="a shell")
def test_stdout_by_name_redirected_to_a_file(tmp_path):  # defect 21
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    (tmp_path / "keep.txt").write_text("first\n")
    cmd = f"{sys.executable} -m fastpuzzle generate --shape 3x3 --count 2 --seed 1 --out /dev/stdout >> keep.txt"
    run = subprocess.run(cmd, shell=True, capture_output=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    lines = (tmp_path / "keep.txt").read_text().splitlines()
    assert lines[0] == "first" and len(lines) == 3
    tried("outputs")


@pytest.mark.parametrize("suffix", ["good.txt/", "newname/"])
def test_trailing_slash_refused(tmp_path, suffix, capsys):  # defect 29
    (tmp_path / "good.txt").write_text("keep\n")
    code = cli_main(["generate", "--shape", "3x3", "--count", "2", "--out", f"{tmp_path}/{suffix}"])
    err = capsys.readouterr().err
    assert code == 2 and one_line_error(err) and "directory" in err.lower()
    assert (tmp_path / "good.txt").read_text() == "keep\n"
    assert sorted(os.listdir(tmp_path)) == ["good.txt"]
    with pytest.raises(OSError):
        write_text(f"{tmp_path}/{suffix}", "x")
    tried("outputs", 2)
