"""The one output layer (fastpuzzle.io.write.AtomicOutput) against special targets:
links, hard links, FIFOs, devices, sockets, directories, modes, signals."""

import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from fastpuzzle.generate import random_solvable
from fastpuzzle.io.write import AtomicOutput, NpyWriter, write_boards, write_text

from .hostile import default_signals, tried

ROOT = Path(__file__).resolve().parents[1]
BOARDS = random_solvable(3, 3, count=4, seed=1)


def leftovers(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".tmp"))


def test_regular_file_is_replaced_keeping_its_mode(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("old\n")
    os.chmod(p, 0o640)
    write_boards(p, BOARDS)
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o640 and p.read_text().count("\n") == 4
    assert leftovers(tmp_path) == []
    tried("outputs")


def test_new_file_gets_0666_less_umask(tmp_path):
    old = os.umask(0o027)
    try:
        write_text(tmp_path / "new.txt", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640
    tried("outputs")


def test_symlink_is_followed_and_kept(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "created.txt")
    write_text(dangling, "made\n")
    assert dangling.is_symlink() and (tmp_path / "created.txt").read_text() == "made\n"
    assert leftovers(tmp_path) == []
    tried("outputs", 2)


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    write_boards(fifo, BOARDS)
    reader.join(30)
    assert got and got[0].count(b"\n") == 4 and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert leftovers(tmp_path) == []
    tried("outputs")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a device node needs root")
def test_char_device_stays_a_device(tmp_path):
    null = os.stat("/dev/null")
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, null.st_rdev)
    write_boards(dev, BOARDS)
    with NpyWriter(dev, (4, 3, 3), np.uint8) as w:
        w.write(BOARDS)
    assert stat.S_ISCHR(os.stat(dev).st_mode) and os.stat(dev).st_rdev == null.st_rdev
    assert leftovers(tmp_path) == []
    tried("outputs", 2)


def test_directory_socket_empty_and_missing_parent_are_refused(tmp_path):
    with pytest.raises(IsADirectoryError) as error:
        write_text(tmp_path, "x")
    assert error.value.filename == str(tmp_path)
    sock_path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    try:
        with pytest.raises(OSError, match="socket") as error:
            write_text(sock_path, "x")
        assert error.value.filename == str(sock_path)
    finally:
        server.close()
    with pytest.raises(ValueError, match="empty"):
        write_text("", "x")
    with pytest.raises(FileNotFoundError, match="not created") as error:
        write_text(tmp_path / "no" / "such" / "f.txt", "x")
    assert not (tmp_path / "no").exists() and error.value.filename.endswith("f.txt")
    with pytest.raises(TypeError):
        write_text(3, "x")
    assert leftovers(tmp_path) == []
    tried("outputs", 5)


def test_failure_inside_the_write_keeps_the_old_file(tmp_path):
    p = tmp_path / "keep.txt"
    p.write_text("old\n")
    with pytest.raises(RuntimeError):
        with AtomicOutput(p) as f:
            f.write(b"half")
            raise RuntimeError("stop")
    assert p.read_text() == "old\n" and leftovers(tmp_path) == []
    # invalid boards never reach the file
    for bad in ([[[-1, 2], [3, 0]]], [[[1]]], [[[1, 1], [2, 0]]], np.ones((1, 2, 2), bool),
                np.array([[[1.5, 2], [3, 0]]], object), np.array([[[2**64 - 1, 1], [2, 0]]], np.uint64)):
        with pytest.raises((ValueError, TypeError)):
            write_boards(p, bad)
        tried("outputs")
    assert p.read_text() == "old\n" and leftovers(tmp_path) == []


def test_signal_handlers_are_restored(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with AtomicOutput(tmp_path / "x.txt") as f:
        assert signal.getsignal(signal.SIGTERM) is not before
        f.write(b"x")
    assert signal.getsignal(signal.SIGTERM) is before
    tried("outputs")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.slow
def test_signal_during_generate_leaves_no_temp_file(tmp_path, signum):
    out = tmp_path / "big.npy"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastpuzzle", "generate", "--shape", "6x6", "--count", "200000000", "--out", str(out),
         "--no-progress"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=default_signals,
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None and not _growing(tmp_path):
            time.sleep(0.05)
        assert _growing(tmp_path), "no temp file with data appeared"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, err
    assert leftovers(tmp_path) == [] and not out.exists()
    assert b"Traceback" not in err and b"removed" in err
    tried("signals")


def _growing(directory):
    """A temp file that already holds data: the kernels run and chunks are being written."""
    for name in leftovers(directory):
        try:
            if os.path.getsize(os.path.join(directory, name)) > (1 << 20):
                return True
        except FileNotFoundError:  # renamed or removed meanwhile
            pass
    return False
