"""The Dask twins equal the local functions, on a real LocalCluster."""

import os
import signal
import time

import numpy as np
import pytest

import dask.array as da

import fastpuzzle as fp
import fastpuzzle.distributed as fd


@pytest.fixture
def client(dask_client):
    """The suite's one cluster (tests/conftest.py)."""
    return dask_client


def boards_of(rng, count, m, n):
    return rng.permuted(np.tile(np.arange(m * n, dtype=np.uint8), (count, 1)), axis=1).reshape(count, m, n)


@pytest.mark.parametrize("m,n", [(4, 4), (3, 5), (1, 6), (6, 1)])
@pytest.mark.slow
def test_results_equal_local_functions(client, rng, m, n):
    boards = boards_of(rng, 5000, m, n)
    x = fd.as_dask_boards(boards, chunks=700)
    assert (client.compute(fd.is_solvable(x)).result() == fp.is_solvable(boards)).all()
    assert (client.compute(fd.inversions(x)).result() == fp.inversions(boards)).all()
    goal = boards[17]
    assert (client.compute(fd.is_solvable(x, goal=goal)).result() == fp.is_solvable(boards, goal=goal)).all()
    other = boards_of(rng, 5000, m, n)
    got = client.compute(fd.reachable(x, fd.as_dask_boards(other, chunks=300))).result()
    assert (got == fp.reachable(boards, other)).all()
    assert (client.compute(fd.reachable(x, other[0])).result() == fp.reachable(boards, other[0])).all()


def test_lazy_and_composable(rng):
    boards = boards_of(rng, 3000, 4, 4)
    x = fd.as_dask_boards(boards, chunks=1000)
    share = fd.is_solvable(x).mean()  # still lazy: part of a larger graph
    assert isinstance(share, da.Array)
    assert share.compute(scheduler="threads") == pytest.approx(fp.is_solvable(boards).mean())


def test_bad_input_raises_before_scheduling(client):
    with pytest.raises(ValueError, match="must be a batch"):
        fd.is_solvable(np.zeros((4, 4), np.uint8))
    with pytest.raises(TypeError, match="must hold integers"):
        fd.is_solvable(da.zeros((10, 3, 3), dtype=bool))
    with pytest.raises(ValueError, match="goal has shape 2x2"):
        fd.is_solvable(da.zeros((10, 3, 3), dtype=np.uint8), goal=fp.goal_board(2, 2))
    with pytest.raises(ValueError, match="method must be one of"):
        fd.inversions(da.zeros((10, 3, 3), dtype=np.uint8), method="nope")


def test_bad_board_in_a_chunk_names_its_batch_index(client, rng):
    boards = boards_of(rng, 1000, 3, 3)
    boards[777, 0, 0] = boards[777, 0, 1]
    with pytest.raises(ValueError, match="board 777 is not a permutation"):
        client.compute(fd.is_solvable(fd.as_dask_boards(boards, chunks=100))).result()


@pytest.mark.parametrize("m,n,count", [(4, 4, 10_000), (3, 3, 777), (1, 5, 300), (9, 9, 3000)])
def test_random_solvable_chunks_equal_local_result(client, m, n, count):
    x = fd.random_solvable(m, n, count=count, seed=2024, chunks=1000)
    assert x.shape == (count, m, n)
    got = client.compute(x).result()
    assert (got == fp.random_solvable(m, n, count=count, seed=2024)).all()
    assert fp.is_solvable(got).all()
    # chunks are reproducible: any chunking, any worker, same boards
    again = fd.random_solvable(m, n, count=count, seed=2024, chunks=5000).compute(scheduler="threads")
    assert (again == got).all()
    plain = fd.random_solvable(m, n, count=count, seed=2024, chunks=1000, solvable=False).compute(scheduler="threads")
    assert (plain == fp.random_permutations(m, n, count=count, seed=2024)).all()


def test_random_solvable_custom_goal_and_seed_kinds(client):
    goal = fp.random_solvable(3, 4, seed=1)
    seq = np.random.SeedSequence(99)
    x = client.compute(fd.random_solvable(3, 4, count=2000, seed=seq, goal=goal, chunks=300)).result()
    assert (x == fp.random_solvable(3, 4, count=2000, seed=np.random.SeedSequence(99), goal=goal)).all()
    assert fp.is_solvable(x, goal=goal).all()
    with pytest.raises(ValueError, match="count is required"):
        fd.random_solvable(3, 3, count=None)


def test_npy_and_zarr_round_trip(tmp_path, rng):
    boards = boards_of(rng, 2000, 4, 4)
    np.save(tmp_path / "b.npy", boards)
    x = fd.from_npy(tmp_path / "b.npy", chunks=512)
    assert x.chunks[0][0] == 512
    fd.to_zarr(x, tmp_path / "b.zarr")
    y = fd.from_zarr(tmp_path / "b.zarr")
    assert (y.compute() == boards).all()
    assert (fd.is_solvable(y).compute() == fp.is_solvable(boards)).all()


def _slow_copy(block):
    time.sleep(0.25)
    return block


@pytest.mark.slow
def test_killed_worker_loses_and_duplicates_nothing(client, rng):
    boards = boards_of(rng, 24_000, 4, 4)
    x = fd.as_dask_boards(boards, chunks=1000).map_blocks(_slow_copy, dtype=boards.dtype)
    future = client.compute(fd.is_solvable(x))
    pids = client.run(os.getpid)
    time.sleep(0.8)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    result = future.result(timeout=120)
    assert result.shape == (24_000,)
    assert (result == fp.is_solvable(boards)).all()
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()  # the worker really died and was replaced


def _cli(*args, cwd):
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    return subprocess.run([sys.executable, "-m", "fastpuzzle", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_cli_generate_and_check_on_the_cluster(client, tmp_path):
    address = client.scheduler.address
    local = _cli("generate", "--shape", "3x4", "--count", "20000", "--seed", "8", "--permutations",
                 "--out", "local.npy", cwd=tmp_path)
    remote = _cli("generate", "--shape", "3x4", "--count", "20000", "--seed", "8", "--permutations",
                  "--out", "remote.npy", "--scheduler", address, cwd=tmp_path)
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    boards = np.load(tmp_path / "local.npy")
    assert (np.load(tmp_path / "remote.npy") == boards).all()
    checked = _cli("check", "remote.npy", "--summary", "--scheduler", address, "--out", "mask.npy", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    expected = fp.is_solvable(boards)
    assert f"solvable: {int(expected.sum())} " in checked.stdout
    assert (np.load(tmp_path / "mask.npy") == expected).all()
    threads = _cli("check", "remote.npy", "--dask", cwd=tmp_path)
    assert threads.stdout.split() == ["solvable" if v else "unsolvable" for v in expected]


@pytest.mark.slow
def test_cli_dask_bad_board_is_one_line_and_status_2(client, tmp_path):
    boards = fp.random_solvable(3, 3, count=500, seed=1)
    boards[321, 0, 0] = boards[321, 0, 1]
    np.save(tmp_path / "bad.npy", boards)
    result = _cli("check", "bad.npy", "--scheduler", client.scheduler.address, cwd=tmp_path)
    assert result.returncode == 2
    assert "board 321 is not a permutation" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
