"""Named pattern databases and their disk cache.

Named databases are cached on disk (``$FASTPUZZLE_CACHE`` or
``~/.cache/fastpuzzle``), one directory per name holding ``meta.json`` and
``tables.npy``, and memory-mapped when loaded.  A build writes through temp
files of unique names and renames them into place, and builds of the same
name in one process take turns (a lock per name), so threads that all ask for
a missing database build it once.

===========  ======  =========================================  ============
name         board   patterns (default goal, blank last)        table bytes
===========  ======  =========================================  ============
``4-4``      3x3     1 2 3 4 / 5 6 7 8                          6 048
``5-5-5``    4x4     1 2 3 5 6 / 4 7 8 11 12 / 9 10 13 14 15    1.6 M
``6-6-3``    4x4     1 2 5 6 9 13 / 3 4 7 8 11 12 / 10 14 15    11.5 M
``7-8``      4x4     9..15 / 1..8                               577 M
``6-6-6-6``  5x5     four 6-tile blocks                         510 M
``7-8x2``    4x4     ``7-8``, and 1 2 3 5 6 9 13 / the rest     1.1 G
``6-6-6-6x2`` 5x5    ``6-6-6-6``, and four other 6-tile blocks  1.0 G
===========  ======  =========================================  ============

The ``x2`` databases hold two partitions (``groups``): the bound is the larger of their sums,
reflections included (see ``docs/pdb.md`` for the nodes they save).  Their first partition is a
named database: when that one is cached, its tables are copied and only the second is built.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import warnings
from pathlib import Path

import numpy as np

from ... import options
from ...boards import as_goal, goal_board
from ...cachefile import CorruptCacheError, open_array, regular_file, usable_directory
from ...errors import OptionError, OptionTypeError, ShapeError, StaleDatabaseError
from ...memory import check_allocation
from ...options import cache_dir
from .heuristic import FORMAT_VERSION, PatternDatabase, reflection_applies
from .ranking import placement_count

__all__ = [
    "DATABASES", "cache_dir", "resolve_name", "build", "load", "available", "choose_database",
]  # fmt: skip


#: Named partitions, for the default goal (tiles 1..N-1 row-major, blank last).
DATABASES = {
    "4-4": dict(shape=(3, 3), partition=((1, 2, 3, 4), (5, 6, 7, 8))),
    "5-5-5": dict(shape=(4, 4), partition=((1, 2, 3, 5, 6), (4, 7, 8, 11, 12), (9, 10, 13, 14, 15))),
    "6-6-3": dict(shape=(4, 4), partition=((1, 2, 5, 6, 9, 13), (3, 4, 7, 8, 11, 12), (10, 14, 15))),
    "7-8": dict(shape=(4, 4), partition=((9, 10, 11, 12, 13, 14, 15), (1, 2, 3, 4, 5, 6, 7, 8))),
    "6-6-6-6": dict(
        shape=(5, 5),
        partition=((1, 2, 3, 6, 7, 8), (4, 5, 9, 10, 14, 15), (11, 12, 16, 17, 21, 22), (13, 18, 19, 20, 23, 24)),
    ),
    # a second partition, chosen among a few by the mean bound of 20,000 random boards with the first's
    "7-8x2": dict(shape=(4, 4), partition=((9, 10, 11, 12, 13, 14, 15), (1, 2, 3, 4, 5, 6, 7, 8),
                                           (1, 2, 3, 5, 6, 9, 13), (4, 7, 8, 10, 11, 12, 14, 15)), groups=(2, 2)),
    "6-6-6-6x2": dict(
        shape=(5, 5),
        partition=((1, 2, 3, 6, 7, 8), (4, 5, 9, 10, 14, 15), (11, 12, 16, 17, 21, 22), (13, 18, 19, 20, 23, 24),
                   (1, 2, 3, 4, 5, 9), (6, 7, 8, 11, 12, 13), (10, 14, 15, 19, 20, 24), (16, 17, 18, 21, 22, 23)),
        groups=(4, 4),
    ),
}

#: Preferred database per board shape, fastest first (the ``x2`` ones search fewer nodes, each
#: slower: used where named, or where the other is not built).  Databases marked
#: ``auto`` are quick enough to build on first use.
PREFERENCE = {
    (3, 3): [("4-4", True)],
    (4, 4): [("7-8", False), ("7-8x2", False), ("6-6-3", True)],
    (5, 5): [("6-6-6-6", False), ("6-6-6-6x2", False)],
}
#: Databases built (or rebuilt) on use when asked for by name: seconds of work, not minutes.
QUICK = frozenset({"4-4", "6-6-3", "5-5-5"})



def resolve_name(name: str) -> str:
    key = str(name).strip().lower()
    for prefix in ("3x3-", "4x4-", "5x5-", "15-", "24-", "8-"):
        if key.startswith(prefix) and key[len(prefix) :] in DATABASES:
            key = key[len(prefix) :]
    if key not in DATABASES:
        raise OptionError("database", name, f"is an unknown pattern database; choose one of {', '.join(DATABASES)}")
    return key


def build(name: str, *, progress: bool = True, force: bool = False, directory=None) -> PatternDatabase:
    """Build a named database (see :data:`DATABASES`) and cache it on disk.

    Returns the loaded (memory-mapped) database.  An existing cache entry is
    reused unless ``force``; one written by an older format is rebuilt.

    Examples
    --------
    >>> db = build("4-4", progress=False)
    >>> db.shape, [len(p) for p in db.partition]
    ((3, 3), [4, 4])
    """
    key = resolve_name(name)
    progress, force = options.flag(progress, "progress"), options.flag(force, "force")
    target = cache_path(key, directory)
    with _build_lock(target):
        if not force:
            try:
                return load(key, directory=directory)
            except FileNotFoundError:
                pass
            except StaleDatabaseError as error:  # never used, and the rebuild is said
                _warn_rebuilt(error)
        problem = usable_directory(target)
        if problem is not None:  # checked before minutes of work, not after
            raise OSError(f"cannot cache pattern database {key!r}: {problem}; set FASTPUZZLE_CACHE to a writable "
                          "directory")
        for stale in (target / "tables.npy", target / "meta.json"):
            if stale.is_dir() and not stale.is_symlink():  # a directory in a cached file's place
                shutil.rmtree(stale)
            elif stale.is_symlink() or (stale.exists() and not stale.is_file()):
                stale.unlink()  # a link's target is the user's (never written through); a FIFO would block the save
        spec = DATABASES[key]
        from .build import build_partition  # the builder loads only when a table is built

        first = _cached_first_partition(key) if directory is None else None
        if first is None:
            db = build_partition(spec["shape"], spec["partition"], name=key, progress=progress,
                                 groups=spec.get("groups"))  # fmt: skip
        else:  # its first partition is a cached database: only the others are built
            rest = build_partition(spec["shape"], spec["partition"][len(first.partition):], name=key,
                                   progress=progress, groups=spec["groups"][1:] if len(spec["groups"]) > 2 else None)
            db = _joined(key, first, rest)
        db.save(target)
    return load(key, directory=directory)


def _cached_first_partition(key: str):
    """The cached, intact named database that holds exactly the first partition of ``key`` (an
    ``x2`` database), or None."""
    spec = DATABASES[key]
    groups = spec.get("groups")
    if not groups:
        return None
    first = tuple(spec["partition"][: groups[0]])
    for other, other_spec in DATABASES.items():
        if other != key and other_spec["shape"] == spec["shape"] and tuple(other_spec["partition"]) == first \
                and not other_spec.get("groups"):
            try:
                return load(other)
            except (FileNotFoundError, StaleDatabaseError):
                return None  # built in full instead (a stale one is never read)
    return None


def _joined(key: str, first: PatternDatabase, rest: PatternDatabase) -> PatternDatabase:
    """One database of ``first``'s tables (copied) followed by ``rest``'s: the partitions of ``key``."""
    spec = DATABASES[key]
    check_allocation(first.nbytes + rest.nbytes, f"pattern database {key!r}")
    data = np.empty(first.nbytes + rest.nbytes, np.uint8)
    data[: first.nbytes] = first.data
    data[first.nbytes :] = rest.data
    offsets = np.concatenate([first.offsets, np.asarray(rest.offsets, np.int64) + first.nbytes])
    return PatternDatabase(key, spec["shape"], tuple(spec["partition"]), rest.goal, data, offsets, rest.reflect,
                           rest.build_seconds, build_peak_bytes=rest.build_peak_bytes,
                           build_cpu_seconds=rest.build_cpu_seconds, groups=tuple(spec["groups"]))  # fmt: skip


def _warn_rebuilt(error) -> None:
    """Say that a stale or damaged database is rebuilt (it is never used)."""
    warnings.warn(f"{error}; it is rebuilt", RuntimeWarning, stacklevel=3)


_BUILD_LOCKS: dict = {}
_BUILD_LOCKS_GUARD = threading.Lock()


def _build_lock(target: Path) -> threading.Lock:
    """One lock per cache directory: threads asking for the same database build it once."""
    key = os.path.abspath(target)
    with _BUILD_LOCKS_GUARD:
        return _BUILD_LOCKS.setdefault(key, threading.Lock())


def cache_path(key: str, directory=None) -> Path:
    """Directory of the named database ``key``: ``directory`` if given, else under :func:`cache_dir`."""
    directory = options.directory(directory)
    return directory if directory is not None else cache_dir() / key


def available() -> list[str]:
    """Names of the databases present in the cache."""
    return [k for k in DATABASES if (cache_path(k) / "meta.json").exists()]


def load(name: str, *, directory=None) -> PatternDatabase:
    """Load a cached database (tables memory-mapped read-only).

    Raises ``FileNotFoundError`` naming the build command when it is missing.
    """
    key = resolve_name(name)
    path = cache_path(key, directory)
    meta_path = path / "meta.json"
    if not meta_path.exists() or not (path / "tables.npy").exists():
        raise FileNotFoundError(
            f"pattern database {key!r} is not built (looked in {path}); build it with "
            f"`fastpuzzle pdb build {key}` or fastpuzzle.pdb.build({key!r})"
        )
    rebuild = f"rebuild it with `fastpuzzle pdb build {key} --force` or fastpuzzle.pdb.build({key!r}, force=True)"
    try:
        return _read_cached(key, path)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OSError, RecursionError) as exc:
        if isinstance(exc, StaleDatabaseError):
            raise
        raise StaleDatabaseError(path, f"is unreadable ({type(exc).__name__}: {exc}); {rebuild}") from None


def _read_cached(key: str, path: Path) -> PatternDatabase:
    """The database in ``path``; any inconsistency raises (turned into ValueError by :func:`load`)."""
    rebuild = f"rebuild it with `fastpuzzle pdb build {key} --force` or fastpuzzle.pdb.build({key!r}, force=True)"
    try:
        regular_file(path / "meta.json")
        meta = json.loads((path / "meta.json").read_text())
        if not isinstance(meta.get("tables"), dict):
            raise CorruptCacheError(path / "meta.json", "has no checksum of its tables (an older build)")
        data = open_array(path / "tables.npy", {}, meta["tables"])
    except CorruptCacheError as error:  # rebuilt on use for the quick ones (like a stale format)
        raise StaleDatabaseError(path, f"{error.reason}; {rebuild}") from None
    spec = DATABASES[key]
    m, n = (int(v) for v in meta["shape"])
    partition = tuple(tuple(int(t) for t in p) for p in meta["partition"])
    groups = tuple(int(g) for g in meta.get("groups", [len(partition)]))
    if meta.get("format") != FORMAT_VERSION or (m, n) != spec["shape"] or partition != spec["partition"] \
            or groups != spec.get("groups", (len(partition),)):
        raise StaleDatabaseError(path, f"is stale or foreign; {rebuild}")
    sizes = [placement_count(m * n, len(p)) for p in partition]
    offsets = np.asarray(meta["offsets"], np.int64)
    goal = as_goal(np.asarray(meta["goal"], np.int64).reshape(m, n), m, n)
    reflect = bool(meta["reflect"])
    # named databases are built for the default goal: any other goal in the description is an edit
    # (the CRC covers the tables, not the description), and the search would trust it
    if not np.array_equal(goal, goal_board(m, n)):
        raise StaleDatabaseError(path, f"describes another goal than the default one it is built for; {rebuild}")
    if offsets.tolist() != np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist() or (
        reflect and not reflection_applies(goal)
    ):
        raise StaleDatabaseError(path, f"has inconsistent metadata; {rebuild}")
    if data.dtype != np.uint8 or data.shape != (sum(sizes),):
        raise StaleDatabaseError(path, f"is truncated; {rebuild}")
    return PatternDatabase(
        key, (m, n), partition, goal, data, offsets, reflect,
        float(meta.get("build_seconds", 0.0)), path,
        int(meta.get("build_peak_bytes", 0)), float(meta.get("build_cpu_seconds", 0.0)),
        groups if len(groups) > 1 else (),
    )  # fmt: skip


def choose_database(shape, database, *, strongest=False):
    """The database for boards of ``shape``: ``database`` itself (a
    :class:`PatternDatabase` or a name, checked against the shape) or, when
    None, the first cached for the shape in :data:`PREFERENCE` (quick ones are built);
    ``strongest``: the last cached of those that are not quick first (the ``x2`` ones: their
    larger bounds steer weighted searches to shorter answers), a stale one passed over with a
    warning.

    Examples
    --------
    >>> choose_database((3, 3), build("4-4", progress=False)).name
    '4-4'
    """
    if isinstance(database, PatternDatabase):
        if tuple(database.shape) != tuple(shape):
            raise ShapeError(
                shape, f"database {database.name!r} is for {database.shape[0]}x{database.shape[1]} boards, "
                f"the boards are {shape[0]}x{shape[1]}", expected=tuple(database.shape),
            )  # fmt: skip
        return database
    if database is not None:
        if not isinstance(database, str):
            raise OptionTypeError("database", database, "must be a name, a PatternDatabase or None")
        key = resolve_name(database)
        if DATABASES[key]["shape"] != tuple(shape):
            s = DATABASES[key]["shape"]
            raise ShapeError(shape, f"database {key!r} is for {s[0]}x{s[1]} boards, the boards are {shape[0]}x{shape[1]}",
                             expected=s)  # fmt: skip
        return _load_or_build(key, key in QUICK)
    prefs = PREFERENCE.get(tuple(shape))
    if prefs is None:
        raise ShapeError(
            shape,
            f"no pattern database for {shape[0]}x{shape[1]} boards (named ones cover 3x3, 4x4 and 5x5); "
            "build one with fastpuzzle.pdb.build_partition(shape, partition) and pass it as database="
        )
    named = prefs[0][0]  # the one to build when none is
    strongest = options.flag(strongest, "strongest")
    if strongest:
        prefs = [p for p in prefs if not p[1]][::-1] + [p for p in prefs if p[1]]
    for key, auto in prefs:
        try:
            return load(key)
        except FileNotFoundError:
            continue
        except StaleDatabaseError as error:
            if auto:  # an older format or a damaged file of a quick database: rebuild it, and say so
                _warn_rebuilt(error)
                return _build_on_use(key, force=True)
            if strongest:  # a stronger one than needed: the next will do (never used, and said)
                warnings.warn(f"{error}; the next database for the shape is used", RuntimeWarning, stacklevel=2)
                continue
            raise
    for key, auto in prefs:
        if auto:
            return _build_on_use(key)
    raise FileNotFoundError(
        f"the {shape[0]}x{shape[1]} pattern database {named!r} is not built; build it once with "
        f"`fastpuzzle pdb build {named}` (takes minutes)"
    )


def _load_or_build(key: str, auto: bool) -> PatternDatabase:
    """``load(key)``; a quick (``auto``) database that is missing or stale is built."""
    try:
        return load(key)
    except (FileNotFoundError, StaleDatabaseError) as error:
        if not auto:
            raise
        if isinstance(error, StaleDatabaseError):  # a damaged or older file is never used, and never silently
            _warn_rebuilt(error)
    return _build_on_use(key, force=True)


def _build_on_use(key: str, force: bool = False) -> PatternDatabase:
    """A quick database built because a search needs it: cached, or, where the cache location is
    unusable (a file in the path, a read-only directory), built in memory only and said with a
    ``RuntimeWarning`` (as a distance table is): the search is never refused for want of a cache."""
    problem = usable_directory(cache_path(key))
    if problem is None:
        return build(key, progress=False, force=force)
    warnings.warn(f"pattern database {key!r} cannot be cached: {problem}; it is built in memory only",
                  RuntimeWarning, stacklevel=4)  # fmt: skip
    spec = DATABASES[key]
    from .build import build_partition

    return build_partition(spec["shape"], spec["partition"], name=key, progress=False, groups=spec.get("groups"))
