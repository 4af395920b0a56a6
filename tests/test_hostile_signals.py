"""Signals: SIGTERM, SIGINT and SIGHUP stop compiled work (IDA*, scrambles, table builds) promptly.

Each case starts a process on work that would run for hours, waits until it
has installed its handlers and entered the kernel, sends the signal and
expects the process to end on its own: exit 128 + the signal number from the
command line, ``KeyboardInterrupt`` from the API, no output file and no
temporary file left.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from fastpuzzle.generate import scramble

from .hostile import default_signals, one_line_error, tried

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a stopped process may take to end (generous: the machine may be loaded).
STOP_WAIT = 60

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals")


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


def _catches(pid, signum) -> bool:
    """The process has a handler for ``signum`` (``SigCgt`` in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(mask >> (signum - 1) & 1)


def _stop(proc, signum, settle=1.0):
    """Send ``signum`` once ``proc`` runs its command (it catches SIGTERM from then on)
    and has had ``settle`` s to enter its kernel."""
    deadline = time.monotonic() + STOP_WAIT
    while not _catches(proc.pid, signal.SIGTERM):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the process never installed its handlers"
        time.sleep(0.05)
    time.sleep(settle)
    assert proc.poll() is None, "the work ended before the signal: not long enough to test"
    proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=STOP_WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"still running {STOP_WAIT} s after {signal.Signals(signum).name}")
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", signal.SIGTERM)])
@pytest.mark.parametrize("work", ["solve", "scramble"])
@pytest.mark.slow
def test_cli_signal_stops_kernel(tmp_path, work, signum):
    out = tmp_path / "out.txt"
    if work == "solve":
        board = scramble(6, 6, 400, seed=3)
        (tmp_path / "b66.txt").write_text(" ".join(map(str, board.ravel())) + "\n")
        args = ["solve", str(tmp_path / "b66.txt"), "--method", "ida", "--out", str(out)]
    else:
        args = ["generate", "--shape", "3x3", "--count", "50", "--scramble", "1000000000", "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "fastpuzzle", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(), cwd=tmp_path, preexec_fn=default_signals)  # fmt: skip
    rc, _, err = _stop(proc, signum)
    assert rc == 128 + signum, err
    assert one_line_error(err) and signal.Signals(signum).name in err
    assert os.listdir(tmp_path) == (["b66.txt"] if work == "solve" else [])
    tried("signals")


API_SCRIPT = """
import os, signal, sys, threading, time
import numpy as np
import fastpuzzle as fp
work = sys.argv[1]
board = fp.scramble(6, 6, 400, seed=3)
fp.solve(fp.scramble(6, 6, 10, seed=1), method="ida")  # kernels and tables ready before the timer
fp.scramble(3, 3, 1 << 16)
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    if work == "solve":
        fp.solve(board, method="ida")
    elif work == "solve_many":
        fp.solve_many(np.stack([board, board]), method="ida", threads=2)
    else:
        fp.scramble(3, 3, 10 ** 9, count=50)
except KeyboardInterrupt as error:
    print("interrupted", type(error).__name__, getattr(error, "signum", None))
"""


@pytest.mark.parametrize("work", ["solve", "solve_many", "scramble"])
@pytest.mark.slow
def test_api_ctrl_c_stops_kernel(work):
    script = textwrap.dedent(API_SCRIPT)
    run = subprocess.run([sys.executable, "-c", script, work], capture_output=True, env=_env(), timeout=300,
                         preexec_fn=default_signals)  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert run.stdout.decode().split() == ["interrupted", "Interrupted", str(int(signal.SIGINT))]
    tried("signals")


def test_handlers_restored_and_flag_cleared():
    from fastpuzzle.interrupt import interruptible, pending

    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    with interruptible():
        with interruptible():
            assert pending() == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    # a short scramble still answers (the flag is clear after the guard)
    assert scramble(3, 3, 1 << 17, count=2, seed=1).shape == (2, 3, 3)
    assert np.array_equal(scramble(3, 3, 5, seed=2), scramble(3, 3, 5, seed=2))
    tried("signals")


def test_user_handler_left_alone():
    """A SIGTERM handler the caller set is not replaced during a long call."""
    from fastpuzzle.interrupt import interruptible

    seen = []
    old = signal.signal(signal.SIGTERM, lambda s, f: seen.append(s))
    try:
        with interruptible():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
        for _ in range(100):  # Python runs the handler between bytecodes of the main thread
            if seen:
                break
            time.sleep(0.01)
    finally:
        signal.signal(signal.SIGTERM, old)
    assert seen == [signal.SIGTERM]
    tried("signals")


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/proc/self/status").exists(), reason="FIFOs, /proc")
@pytest.mark.slow
def test_sigterm_ends_a_dask_check_whose_workers_block_in_a_read(tmp_path):
    """The header is read from a FIFO once; the tasks open it again and wait for a writer that
    never comes. SIGTERM must end the process, not leave it kept alive by those threads."""
    pytest.importorskip("dask")
    import threading

    np.save(tmp_path / "ok.npy", np.array([[[1, 2], [3, 0]]] * 3, np.uint8))
    fifo = tmp_path / "q.npy"
    os.mkfifo(fifo)
    threading.Thread(target=lambda: fifo.write_bytes((tmp_path / "ok.npy").read_bytes()), daemon=True).start()
    proc = subprocess.Popen([sys.executable, "-m", "fastpuzzle", "check", str(fifo), "--dask", "--summary"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=tmp_path,
                            preexec_fn=default_signals)  # fmt: skip
    rc, _, err = _stop(proc, signal.SIGTERM, settle=3.0)
    assert rc == 128 + signal.SIGTERM and one_line_error(err)
    tried("signals")


BUDGETED_SCRIPT = """
import os, signal, sys, threading, time
import fastpuzzle as fp
from fastpuzzle.search import portfolio
shape, at = int(sys.argv[1]), float(sys.argv[2])
portfolio.HANDOFF_SHARE = 0.002  # the improving searches beside the proof from 2 s of the 1000 on
fp.solve(fp.random_solvable(shape, shape, seed=2), time_limit=1.0)  # kernels ready before the timer
board = fp.random_solvable(shape, shape, seed=1)
sent = []
threading.Timer(at, lambda: (sent.append(time.monotonic()), os.kill(os.getpid(), signal.SIGINT))).start()
try:
    fp.solve(board, time_limit=1000.0)
except KeyboardInterrupt as error:
    print("interrupted", type(error).__name__, round(time.monotonic() - sent[0], 3))
"""


@pytest.mark.parametrize("shape,at", [(5, 0.3), (5, 3.0), (8, 0.5), (8, 4.0)])
@pytest.mark.slow
def test_a_budgeted_solve_stops_at_a_signal_in_every_phase(shape, at):
    """The ladder (5x5: the proof on both threads, then beside the improving searches) and the
    anytime search (8x8: beams, windows, the bound) end at SIGINT, far inside their 1000 s budget
    (windows and beams look at the flag between their searches)."""
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(BUDGETED_SCRIPT), str(shape), str(at)],
                         capture_output=True, env=_env(), timeout=600, preexec_fn=default_signals)  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    word, kind, after = run.stdout.decode().split()
    assert (word, kind) == ("interrupted", "Interrupted") and float(after) < STOP_WAIT, after
    tried("signals")
