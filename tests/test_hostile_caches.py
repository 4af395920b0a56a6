"""The on-disk caches under attack: flipped bytes, foreign tables of the same size, trailing
bytes, FIFOs in place of files, unusable cache locations.

Promises checked (docs/reliability.md, "Caches"): a distance table that is not
whole and ours is detected, removed with a ``RuntimeWarning`` and rebuilt; a
pattern database that is not is refused with ``StaleDatabaseError`` naming the
rebuild (the quick ones are rebuilt on use); nothing blocks on a FIFO; an
unusable location is reported before the work.
"""

import json
import os
import shutil
import warnings

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import pdb
from fastpuzzle.cachefile import CorruptCacheError, cache_root, checksum, open_array, save_checked, sidecar
from fastpuzzle.distances import table as table_module
from fastpuzzle.distances.table import distance_table, table_path
from fastpuzzle.search.pdb.store import StaleDatabaseError, choose_database

from . import naive
from .hostile import tried


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    table_module._MEMO.clear()
    yield tmp_path / "cache"
    table_module._MEMO.clear()


def _fresh(m, n):
    table_module._MEMO.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = distance_table(m, n, cache=True)
    return table, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


_EXACT = {}


def _exact(m, n):
    if (m, n) not in _EXACT:
        _EXACT[m, n] = naive.bfs_distances(tuple(naive.cells_of(naive.goal(m, n))), m, n)
    return _EXACT[m, n]


@pytest.fixture(scope="module")
def bfs3():
    return _exact(3, 3)


def _assert_right(table, m, n, rng):
    boards = fp.random_solvable(m, n, count=300, seed=int(rng.integers(1 << 30)))
    truth = _exact(m, n)
    got = table.lookup(boards)
    assert [int(v) for v in got] == [truth[tuple(b.ravel())] for b in boards]


def _spoilers():
    def flip(path):
        data = bytearray(path.read_bytes())
        for k in range(5):
            data[-1 - 37 * k] ^= 0x5A
        path.write_bytes(bytes(data))

    def foreign(path):  # the 4x2 table has the same size as the 2x4 one
        other = table_path(4, 2, 7)
        shutil.copyfile(other, path)

    def foreign_both(path):
        other = table_path(4, 2, 7)
        shutil.copyfile(other, path)
        shutil.copyfile(sidecar(other), sidecar(path))

    def trailing(path):
        with open(path, "ab") as f:
            f.write(b"\0" * 8)

    def fifo(path):
        os.unlink(path)
        os.mkfifo(path)

    def side_fifo(path):
        os.unlink(sidecar(path))
        os.mkfifo(sidecar(path))

    def all_255(path):
        data = np.load(path)
        data[:] = 255
        np.save(path, data)

    return {"flip 5 bytes": flip, "foreign table": foreign, "foreign table and description": foreign_both,
            "trailing bytes": trailing, "FIFO": fifo, "FIFO description": side_fifo, "all 255": all_255,
            "no description": lambda p: os.unlink(sidecar(p))}  # fmt: skip


@pytest.mark.parametrize("spoil", list(_spoilers()))
def test_distance_table_corruption_detected_and_rebuilt(cache, spoil, rng):  # issue 20, defects 4, 15
    if spoil.startswith("FIFO") and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    distance_table(4, 2, cache=True)
    built, _ = _fresh(2, 4)
    path = table_path(2, 4, 7)
    _spoilers()[spoil](path)
    table, said = _fresh(2, 4)
    if spoil != "no description":  # a table of an older build, without one, is rebuilt silently
        assert said and "rebuilt" in said[0]
    assert table.counts.tolist() == built.counts.tolist()
    _assert_right(table, 2, 4, rng)
    again, said = _fresh(2, 4)  # the rebuilt file is whole
    assert said == [] and isinstance(again.depths, np.memmap)
    tried("caches")


def test_open_array_refusals(tmp_path):
    path = tmp_path / "t.npy"
    data = np.arange(1000, dtype=np.uint8)
    save_checked(path, data, {"kind": "demo"})
    assert np.array_equal(open_array(path, {"kind": "demo"}), data)
    with pytest.raises(CorruptCacheError, match="foreign"):
        open_array(path, {"kind": "other"})
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 1
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptCacheError, match="CRC-32"):
        open_array(path, {"kind": "demo"})
    assert checksum(data) == checksum(data.copy()) != checksum(data[::-1].copy())
    tried("caches", 3)


def test_a_checksum_is_read_once_per_file_not_once_per_process(tmp_path, monkeypatch):
    """The first open reads the whole file for its CRC and records the file's identity beside it;
    a later process (here: the in-process record cleared) skips the read for that very file, and
    any rewrite (new inode, size or time) is read and checked again."""
    import time

    from fastpuzzle import cachefile

    path = tmp_path / "t.npy"
    save_checked(path, np.arange(1000, dtype=np.uint8), {"kind": "demo"})
    reads = []
    monkeypatch.setattr(cachefile, "checksum", lambda a: reads.append(1) or checksum(a))
    open_array(path, {"kind": "demo"})
    assert reads == [1] and cachefile.stamp_path(path).exists()
    cachefile._VERIFIED.clear()
    open_array(path, {"kind": "demo"})
    assert reads == [1]  # the record matched: no second read
    time.sleep(0.05)  # past the file system's time granularity
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 1
    path.write_bytes(bytes(raw))  # in place: the same inode and size, a new modification time
    cachefile._VERIFIED.clear()
    with pytest.raises(CorruptCacheError, match="CRC-32"):
        open_array(path, {"kind": "demo"})
    cachefile.stamp_path(path).write_text("not a record")
    cachefile.remove_cached(path)
    assert not any(tmp_path.iterdir())  # the record goes with the file
    tried("caches")


def _spoil_pdb(kind, directory):
    tables = directory / "tables.npy"
    data = np.load(tables)
    if kind == "add 6 to 300":
        idx = np.random.default_rng(5).choice(data.size, 300, replace=False)
        data[idx] += 6
        np.save(tables, data)
    elif kind == "all 255":
        data[:] = 255
        np.save(tables, data)
    elif kind == "trailing":
        with open(tables, "ab") as f:
            f.write(b"\1")
    elif kind == "fifo tables":
        os.unlink(tables)
        os.mkfifo(tables)
    elif kind == "fifo meta":
        os.unlink(directory / "meta.json")
        os.mkfifo(directory / "meta.json")
    elif kind == "no checksum":
        meta = json.loads((directory / "meta.json").read_text())
        del meta["tables"]
        (directory / "meta.json").write_text(json.dumps(meta))


PDB_SPOILS = ["add 6 to 300", "all 255", "trailing", "fifo tables", "fifo meta", "no checksum"]


@pytest.mark.parametrize("kind", PDB_SPOILS)
def test_pattern_database_corruption_detected(cache, kind, bfs3):  # defects 5, 15
    db = pdb.build("4-4", progress=False)
    _spoil_pdb(kind, db.path)
    with pytest.raises(StaleDatabaseError, match="rebuild it"):
        pdb.load("4-4")
    rebuilt = choose_database((3, 3), None)  # a quick database: rebuilt on use
    boards = fp.random_solvable(3, 3, count=200, seed=11)
    sols = fp.solve_many(boards, heuristic="pdb", database=rebuilt)
    assert sols.lengths.tolist() == [bfs3[tuple(b.ravel())] for b in boards]
    assert pdb.load("4-4").data.shape == rebuilt.data.shape
    tried("caches")


@pytest.mark.parametrize("where", ["file", "dangling"])
def test_unusable_cache_location_said_before_the_work(tmp_path, monkeypatch, where, rng):  # defect 22
    blocker = tmp_path / "plain"
    blocker.write_text("x")
    if where == "file":
        monkeypatch.setenv("FASTPUZZLE_CACHE", str(blocker / "sub"))
    else:
        (tmp_path / "link").symlink_to(tmp_path / "gone" / "deeper")
        os.symlink(str(blocker), tmp_path / "gone")  # a link through a file
        monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "link"))
    table_module._MEMO.clear()
    with pytest.warns(RuntimeWarning, match="cannot be cached"):
        table = distance_table(2, 4, cache=True)
    _assert_right(table, 2, 4, rng)
    with pytest.raises(OSError, match="cannot cache pattern database"):
        pdb.build("4-4", progress=False)
    table_module._MEMO.clear()
    tried("caches", 2)


def test_cache_location_expands_home(tmp_path, monkeypatch):  # "also worth a decision"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("FASTPUZZLE_CACHE", "~/x")
    assert cache_root() == tmp_path / "x"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FASTPUZZLE_CACHE", "rel")
    assert cache_root() == tmp_path / "rel" and cache_root().is_absolute()
    tried("caches", 2)
