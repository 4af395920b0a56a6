"""Hostile inputs, eighth pass: the Dask twins' stores and chunks, and pattern databases whose
description was edited or whose files were replaced."""

import json
import os
import shutil

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import pdb
from .hostile import tried

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")

import fastpuzzle.distributed as fd  # noqa: E402


def eights(count, seed=5):
    return fp.random_solvable(3, 3, count=count, seed=seed)


# ------------------------------------------------------------------ zarr stores


def test_a_refused_overwrite_leaves_the_old_store_as_it_was(tmp_path):
    tried("wave8", 2)
    good = eights(300)
    store = tmp_path / "z1.zarr"
    fd.to_zarr(good, store, chunks=50)
    bad = good.copy()
    bad[250, 0, 0] = bad[250, 0, 1]  # a duplicate tile in the sixth chunk
    with pytest.raises(fp.BoardError) as caught:
        fd.to_zarr(bad, store, chunks=50, overwrite=True)
    assert caught.value.index == 250
    assert (fd.from_zarr(store).compute() == good).all()
    assert sorted(os.listdir(tmp_path)) == ["z1.zarr"]  # no half-written store left beside it
    other = eights(120, seed=6)
    fd.to_zarr(other, store, chunks=50, overwrite=True)  # a good overwrite replaces it
    assert (fd.from_zarr(store).compute() == other).all() and sorted(os.listdir(tmp_path)) == ["z1.zarr"]


def test_to_zarr_never_replaces_what_is_not_a_store(tmp_path):
    tried("wave8", 3)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    with pytest.raises(fp.BoardFileError, match="not a zarr store"):
        fd.to_zarr(eights(10), folder, overwrite=True)
    assert (folder / "notes.txt").read_text() == "keep me"
    plain = tmp_path / "file.zarr"
    plain.write_text("x")
    with pytest.raises(fp.BoardFileError, match="not a zarr store"):
        fd.to_zarr(eights(10), plain)
    store = tmp_path / "s.zarr"
    fd.to_zarr(eights(10), store)
    with pytest.raises(fp.OptionError, match="overwrite"):
        fd.to_zarr(eights(10), store)


def test_a_zarr_header_that_claims_a_huge_graph_is_refused_before_it_is_built(tmp_path, monkeypatch):
    from fastpuzzle import memory

    tried("wave8")
    store = tmp_path / "many.zarr"
    zarr.open_array(str(store), mode="w", shape=(10**9, 3, 3), chunks=(1, 3, 3), dtype="u1")
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 30)
    with pytest.raises(fp.AllocationError, match="graph"):
        fd.from_zarr(store)
    with pytest.raises(fp.BoardFileError, match="zarr"):
        fd.from_zarr(tmp_path / "nothing-here.zarr")


# ------------------------------------------------------------------ chunks and arguments


def test_the_twins_check_what_the_local_functions_check_before_any_task():
    tried("wave8", 5)
    with pytest.raises(fp.ShapeError):
        fd.is_solvable(np.zeros((2, 0, 3)))
    with pytest.raises(fp.BoardError):  # as fp.is_solvable refuses it
        fd.is_solvable([[[1, 2], [3]]])
    with pytest.raises(fp.AllocationError):
        fd.random_solvable(3, 3, count=10**12, chunks=10**12, seed=1)
    with pytest.raises(ValueError, match="distance"):
        fd.random_solvable(3, 3, count=5, seed=1, distance=100)  # no 8-puzzle is 100 moves away
    with pytest.raises(TypeError, match="dask array"):
        next(fd.iter_blocks(eights(4)))


def test_board_errors_of_a_dask_batch_name_the_board_in_the_whole_batch(dask_client):
    tried("wave8", 2)
    boards = eights(100)
    bad = boards.copy()
    bad[70, 0, 0] = bad[70, 0, 1]
    with pytest.raises(fp.BoardError) as caught:
        fd.solve_many(da.from_array(bad, chunks=(50, 3, 3)), client=dask_client, chunk_boards=64)
    assert caught.value.index == 70
    odd = boards.copy()
    odd[70, 0, [0, 1]] = odd[70, 0, [1, 0]]  # two tiles swapped: the other half of the state space
    with pytest.raises(fp.UnreachableError) as caught:
        fd.solve_many(da.from_array(odd, chunks=(50, 3, 3)), client=dask_client, chunk_boards=64)
    assert caught.value.index == 70


# ------------------------------------------------------------------ pattern databases


def test_an_edited_database_goal_is_never_trusted(tmp_path, monkeypatch):
    tried("wave8", 2)
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    db = pdb.build("4-4", progress=False)
    meta_path = db.path / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["goal"] = list(range(9))  # blank first: the tables are not its tables
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(fp.StaleDatabaseError, match="goal"):
        pdb.load("4-4")
    boards = fp.random_solvable(3, 3, count=4, seed=5)
    with pytest.warns(RuntimeWarning, match="rebuilt"):
        got = fp.solve_many(boards, heuristic="pdb", database="4-4")
    assert (got.lengths == fp.distance(boards)).all()


@pytest.mark.parametrize("victim", ["tables.npy", "meta.json"])
def test_a_database_file_replaced_by_a_directory_is_rebuilt(tmp_path, monkeypatch, victim):
    tried("wave8")
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    db = pdb.build("4-4", progress=False)
    path = db.path / victim
    os.unlink(path)
    path.mkdir()
    with pytest.raises(fp.StaleDatabaseError):
        pdb.load("4-4")
    with pytest.warns(RuntimeWarning, match="rebuilt"):
        again = pdb.build("4-4", progress=False)
    assert (again.path / victim).is_file()
    shutil.rmtree(tmp_path / "4-4")


def test_pdb_build_checks_its_flags():
    tried("wave8", 2)
    with pytest.raises(TypeError, match="force"):
        pdb.build("4-4", force="yes")
    with pytest.raises(TypeError, match="progress"):
        pdb.build("4-4", progress="x")
