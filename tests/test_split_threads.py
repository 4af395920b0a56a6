"""``fastpuzzle._jit.split_threads``: parts on kept worker threads, errors handed back, nested and
concurrent calls, a forked child."""

import os
import signal
import sys
import threading

import numba
import pytest

from fastpuzzle import _jit
from fastpuzzle._jit import split_threads


@pytest.fixture
def two_threads():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one Numba thread: every call runs serially")
    threads = numba.get_num_threads()
    numba.set_num_threads(2)
    yield
    numba.set_num_threads(threads)


def test_parts_cover_the_items_in_order(two_threads):
    assert split_threads(lambda lo, hi: (lo, hi), 1000, align=64) == [(0, 512), (512, 1000)]
    for _ in range(50):  # the same workers, call after call
        assert sum(split_threads(lambda lo, hi: hi - lo, 1000, align=64)) == 1000


def test_a_part_runs_on_another_thread(two_threads):
    names = split_threads(lambda lo, hi: threading.current_thread().name, 10)
    assert names[0] == threading.current_thread().name and names[1] != names[0]


@pytest.mark.parametrize("failing", [0, 1])
def test_an_error_in_any_part_is_raised_and_the_workers_go_on(two_threads, failing):
    def work(lo, hi):
        if (lo > 0) == bool(failing):
            raise KeyError(lo)
        return hi - lo

    for _ in range(3):
        with pytest.raises(KeyError):
            split_threads(work, 10)
    assert sum(split_threads(lambda lo, hi: hi - lo, 10)) == 10


def test_nested_calls_run_serially_inside_a_part(two_threads):
    def outer(lo, hi):
        return split_threads(lambda a, b: threading.current_thread().name, 10)

    inner = split_threads(outer, 10)
    assert len(set(inner[1])) == 1  # the second part's own calls stay on its thread


def test_concurrent_callers_all_get_their_parts(two_threads):
    out = {}

    def caller(k):
        out[k] = [sum(split_threads(lambda lo, hi: hi - lo, 777 + k)) for _ in range(200)]

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out[k] == [777 + k] * 200 for k in range(4))


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="fork")
def test_a_forked_child_makes_its_own_workers(two_threads):
    split_threads(lambda lo, hi: 0, 10)  # the parent's workers exist
    assert _jit._WORKERS
    pid = os.fork()
    if pid == 0:  # the child: its parts must not wait for the parent's threads
        code = 1
        signal.alarm(60)  # a hang ends the child (the default action of SIGALRM), not the test run
        try:
            code = 0 if sum(split_threads(lambda lo, hi: hi - lo, 10)) == 10 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
