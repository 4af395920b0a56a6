"""Hostile arguments to the Dask twins (issue 20, items 9-12, 17, 27, 28): each is refused
before a task is scheduled, with the options module's errors, or checked inside the tasks.

The tests that need a cluster share the suite's one (``dask_client``); the rest run on the
synchronous scheduler."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import fastpuzzle as fp  # noqa: E402
import fastpuzzle.distributed as fd  # noqa: E402


@pytest.fixture
def client(dask_client):
    return dask_client  # the suite's one cluster (tests/conftest.py)


def eights(count, seed=5):
    return fp.random_solvable(3, 3, count=count, seed=seed)


BAD_COUNTS = [(-1, fp.OptionError), (0, fp.OptionError), (1.5, fp.OptionTypeError), (True, fp.OptionTypeError),
              ("x", fp.OptionTypeError)]  # fmt: skip


def test_solve_many_options_and_clients(client):
    boards = eights(40)
    local = fp.solve_many(boards, prune="undo")
    for bad, error in BAD_COUNTS:  # item 9: refused before any future exists
        with pytest.raises(error, match="chunk_boards"):
            fd.solve_many(boards, client=client, chunk_boards=bad)
    # the next valid call is not poisoned by the refused ones; an address works like the client
    for who in (client, client.scheduler.address):
        r = fd.solve_many(boards, client=who, chunk_boards=16, prune="undo")
        assert r.lengths.tolist() == local.lengths.tolist() and r.moves == local.moves
    with pytest.raises(fp.OptionError, match="client"):
        fd.solve_many(boards, client="threads")
    with pytest.raises(fp.OptionTypeError, match="client"):
        fd.solve_many(boards, client=42)
    # the local function's options, the same rules (items 27 and the missing parameters)
    with pytest.raises(fp.OptionError, match="database needs heuristic='pdb'"):
        fd.solve_many(boards, client=client, database="4-4")
    with pytest.raises(fp.OptionError, match="prune"):
        fd.solve_many(boards, client=client, prune="none")
    with pytest.raises(fp.OptionTypeError, match="progress"):
        fd.solve_many(boards, client=client, progress=1)
    r = fd.solve_many(boards[:8], client=client, heuristic="pdb", database="4-4", time_limit=2**64, chunk_boards=3)
    assert r.lengths.tolist() == local.lengths[:8].tolist() and r.heuristic == "pdb:4-4"


def test_iter_blocks_and_compute_take_the_same_schedulers(client):
    x = fd.as_dask_boards(eights(100), chunks=30)
    want = fp.is_solvable(eights(100))
    for bad, error in BAD_COUNTS:  # item 10: window >= 1, with a client or not
        for scheduler in (None, client):
            with pytest.raises(error, match="window"):
                fd.iter_blocks(fd.is_solvable(x), scheduler=scheduler, window=bad)
    for scheduler in (None, "synchronous", client, client.scheduler.address):  # item 28: compute == iter_blocks
        got = np.concatenate([b for _, b in fd.iter_blocks(fd.is_solvable(x), scheduler=scheduler, window=1)])
        assert (got == want).all()
        (computed,) = fd.compute(fd.is_solvable(x), scheduler=scheduler)
        assert (computed == want).all()
    for bad, error in (("nonsense", fp.OptionError), (3, fp.OptionTypeError)):
        with pytest.raises(error, match="scheduler"):
            fd.compute(fd.is_solvable(x), scheduler=bad)
        with pytest.raises(error, match="scheduler"):
            fd.iter_blocks(x, scheduler=bad)


@pytest.mark.parametrize("bad, error", BAD_COUNTS)
def test_chunks_checked_by_every_twin(tmp_path, bad, error):
    boards = eights(10)
    path = tmp_path / "b.npy"
    np.save(path, boards)
    calls = [lambda: fd.is_solvable(boards, chunks=bad), lambda: fd.inversions(boards, chunks=bad),
             lambda: fd.reachable(boards, boards, chunks=bad), lambda: fd.as_dask_boards(boards, chunks=bad),
             lambda: fd.random_solvable(3, 3, count=10, chunks=bad), lambda: fd.from_npy(path, chunks=bad)]  # fmt: skip
    for call in calls:  # item 28: 0 is not "the default", True is not 1
        with pytest.raises(error, match="chunks"):
            call()


def test_from_npy_rechecks_the_header_in_its_tasks(tmp_path):
    path = tmp_path / "r.npy"
    np.save(path, eights(1000))
    lazy = fd.is_solvable(fd.from_npy(path, chunks=300))
    np.save(path, eights(10))  # item 11: fewer boards than the graph declares
    with pytest.raises(fp.BoardFileError, match="changed since the graph was built"):
        lazy.compute(scheduler="synchronous")
    np.save(path, eights(1000).astype(np.uint16))  # the same count, another dtype
    with pytest.raises(fp.BoardFileError, match="uint16"):
        lazy.compute(scheduler="synchronous")
    np.save(path, eights(1000))
    assert lazy.compute(scheduler="synchronous").all()


def test_to_zarr_validates_like_every_writer(tmp_path):
    pytest.importorskip("zarr")
    for bad, error in ((np.full((5, 3, 3), 1.5), TypeError), (np.full((5, 3, 3), -1), fp.BoardError),
                       (np.full((5, 3, 3), 9), fp.BoardError)):  # fmt: skip
        with pytest.raises(error):  # item 12: 1.5 is not written as 1, -1 not as 255
            fd.to_zarr(bad, tmp_path / "bad.zarr", overwrite=True)
    boards = eights(7)
    boards[5, 0, :2] = 4  # one duplicate tile in board 5 of chunk 2
    with pytest.raises(fp.BoardError) as info:
        fd.to_zarr(boards, tmp_path / "dup.zarr", chunks=2, overwrite=True)
    assert info.value.index == 5
    good = eights(7)
    fd.to_zarr(good, tmp_path / "good.zarr", chunks=3)
    assert (fd.from_zarr(tmp_path / "good.zarr").compute() == good).all()


def test_lazy_random_solvable_refuses_a_graph_too_large():
    with pytest.raises(fp.AllocationError, match="a graph of"):  # item 17: before any graph exists
        fd.random_solvable(4, 4, count=10**15)
    with pytest.raises(fp.OptionError, match="count"):
        fd.random_solvable(4, 4, count=2**63)
    with pytest.raises(fp.OptionError, match="count is required"):
        fd.random_solvable(4, 4)


def test_random_solvable_at_a_distance():
    x = fd.random_solvable(3, 3, count=50, seed=4, distance=(3, 5), chunks=20)
    boards = x.compute(scheduler="synchronous")
    assert boards.shape == (50, 3, 3) and set(fp.distance(boards).tolist()) <= {3, 4, 5}
    again = fd.random_solvable(3, 3, count=50, seed=4, distance=(3, 5), chunks=20).compute(scheduler="synchronous")
    assert (again == boards).all()
    with pytest.raises(fp.OptionError, match="distance"):
        fd.random_solvable(3, 3, count=5, distance=3, solvable=False)
