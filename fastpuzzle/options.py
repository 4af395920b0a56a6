"""The one home of option checks: whole numbers, counts, budgets, seconds, threads,
flags, names, chunk sizes and the cache directory.

Every public function, the Dask twins and the command line check their options
here, so an option means the same thing, and is refused with the same words,
wherever it is given. Each check returns the value normalised (a Python
``int``, a ``float``, ``None``) or raises :class:`~fastpuzzle.errors.OptionTypeError`
(a ``TypeError``: ``1.5`` for a count, ``True`` for a number, ``'10'``) or
:class:`~fastpuzzle.errors.OptionError` (a ``ValueError``: out of range). Both
carry ``.option``, ``.value`` and ``.reason``.

Standard library only (NumPy scalars are recognised by their ``__index__``),
so the command line checks its arguments before any kernel loads.

Examples
--------
>>> whole(5, "count"), seconds(2, "time_limit"), threads(None)
(5, 2.0, None)
>>> node_budget(0)
Traceback (most recent call last):
...
fastpuzzle.errors.OptionError: max_nodes must be a whole number >= 1, got 0
"""

from __future__ import annotations

import math
import numbers
import operator
import os
from pathlib import Path

from .errors import OptionError, OptionTypeError

__all__ = [
    "HEURISTICS", "METHODS", "PRUNE_RULES", "MAX_WHOLE", "MAX_NODES", "whole", "positive", "count", "node_budget", "seconds", "threads", "flag",
    "choice", "seed", "array", "cache_dir",
]  # fmt: skip

#: The solvers' names, here so that the command line lists them without loading a kernel.
HEURISTICS = ("linear_conflict", "manhattan", "pdb")
METHODS = ("auto", "ida", "anytime", "constructive")
#: What IDA* prunes (:data:`fastpuzzle.search.checks.PRUNE` gives each its length).
PRUNE_RULES = ("automaton", "undo")
#: Largest count, node budget or seed (the kernels count in int64).
MAX_WHOLE = (1 << 63) - 1
#: Node budgets above this are no budget at all (the kernels add to it in int64).
MAX_NODES = 1 << 62


def _is_bool(value) -> bool:
    # NumPy's bool has no __index__ in NumPy 2 but does in 1.x: known by its type, whatever its name
    # (``bool_`` in 1.x, ``bool`` in 2.x; named, not imported: the command line's parser loads no NumPy)
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool", "bool8"))


def whole(value, name: str, *, least: int = 0, most: int = MAX_WHOLE, none: bool = False):
    """``value`` as a Python ``int`` in ``least .. most`` (``None`` passes when ``none``).

    Any integer type is taken (``int``, NumPy integers); ``bool``, ``float``
    (even ``2.0``) and strings are refused.

    Examples
    --------
    >>> whole(3, "count"), whole(None, "seed", none=True)
    (3, None)
    >>> whole(1.5, "count")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: count must be a whole number >= 0, got 1.5
    """
    if value is None and none:
        return None
    rule = f"must be {'None or ' if none else ''}a whole number >= {least}"
    if _is_bool(value):
        raise OptionTypeError(name, value, rule)
    try:
        number = operator.index(value)
    except TypeError:
        raise OptionTypeError(name, value, rule) from None
    if number < least:
        raise OptionError(name, value, rule)
    if number > most:
        raise OptionError(name, value, f"must be at most {most:,}")
    return number


def positive(value, name: str, *, none: bool = False):
    """A whole number >= 1: a chunk size, a window, a block count.

    Examples
    --------
    >>> positive(64, "chunk_boards")
    64
    >>> positive(-1, "window")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: window must be a whole number >= 1, got -1
    """
    return whole(value, name, least=1, none=none)


def count(value, name: str = "count", *, none: bool = False):
    """A number of boards: a whole number >= 0 (``None`` passes when ``none``).

    Examples
    --------
    >>> count(0), count(None, none=True)
    (0, None)
    """
    return whole(value, name, least=0, none=none)


def node_budget(value, name: str = "max_nodes"):
    """A node budget: ``None`` (no budget) or a whole number >= 1; budgets past
    :data:`MAX_NODES` are no budget in practice and are capped there.

    Examples
    --------
    >>> node_budget(None), node_budget(10), node_budget(10**30)
    (None, 10, 4611686018427387904)
    """
    if value is None:
        return None
    return min(whole(value, name, least=1, most=1 << 200), MAX_NODES)


def seconds(value, name: str = "time_limit"):
    """A time limit: ``None`` (no limit) or a finite number of seconds > 0, as a ``float``.

    Any real number type is taken (``2**64`` too); ``inf``, ``nan``, integers
    past any float, zero, negatives, ``bool`` and strings are refused (no
    limit is ``None``).

    Examples
    --------
    >>> seconds(None), seconds(1), seconds(2**64)
    (None, 1.0, 1.8446744073709552e+19)
    >>> seconds(float("nan"))
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: time_limit must be None or a finite number of seconds > 0, got nan
    """
    if value is None:
        return None
    rule = "must be None or a finite number of seconds > 0"
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise OptionTypeError(name, value, rule)
    try:
        limit = float(value)
    except OverflowError:  # an int beyond any float
        raise OptionError(name, value, rule) from None
    except TypeError:  # a Real that is no number of seconds (NumPy's timedelta64)
        raise OptionTypeError(name, value, rule) from None
    if not math.isfinite(limit) or limit <= 0:
        raise OptionError(name, value, rule)
    return limit


def threads(value, name: str = "threads"):
    """Worker threads: ``None`` (all of Numba's threads) or a whole number >= 1
    (``1``: one thread, no parallel kernel).

    Examples
    --------
    >>> threads(None), threads(2)
    (None, 2)
    >>> threads(True)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: threads must be None or a whole number >= 1, got True
    """
    return whole(value, name, least=1, none=True)


def flag(value, name: str, *, none: bool = False):
    """``True`` or ``False`` (NumPy's bool too) as a Python ``bool``; ``None``
    passes when ``none`` (an automatic choice).

    Examples
    --------
    >>> flag(True, "progress"), flag(None, "cache", none=True)
    (True, None)
    >>> flag(1, "progress")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: progress must be True or False, got 1
    """
    if value is None and none:
        return None
    if not _is_bool(value):
        raise OptionTypeError(name, value, f"must be {'None, ' if none else ''}True or False")
    return bool(value)


def seed(value, name: str = "seed"):
    """A source of randomness: ``None``, a whole number >= 0, or a NumPy
    ``SeedSequence`` or ``Generator`` (passed through, recognised by name).

    Examples
    --------
    >>> seed(None), seed(7)
    (None, 7)
    >>> seed(True)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionTypeError: seed must be None, a whole number >= 0, a numpy.random.SeedSequence or a numpy.random.Generator, got True
    """
    rule = "must be None, a whole number >= 0, a numpy.random.SeedSequence or a numpy.random.Generator"
    if value is None:
        return None
    kind = type(value)
    if kind.__name__ in ("Generator", "SeedSequence") and kind.__module__.startswith("numpy"):
        return value
    if _is_bool(value) or not hasattr(value, "__index__"):
        raise OptionTypeError(name, value, rule)
    return whole(value, name, most=1 << 4096)


def choice(value, name: str, choices):
    """One of the names in ``choices`` (strings).

    Examples
    --------
    >>> choice("ida", "method", ("auto", "ida"))
    'ida'
    >>> choice("fast", "method", ("auto", "ida"))
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: method must be one of 'auto', 'ida', got 'fast'
    """
    rule = f"must be one of {', '.join(map(repr, choices))}"
    if not isinstance(value, str):
        raise OptionTypeError(name, value, rule)
    if value not in choices:
        raise OptionError(name, value, rule)
    return value


def array(value, name: str):
    """``value`` as a NumPy array (imported here: the rest of this module needs none); a ragged
    sequence is refused by the option's name, where NumPy's own message names none.

    Examples
    --------
    >>> array([0, 1], "moves").tolist()
    [0, 1]
    >>> array([[0], [1, 2]], "moves")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: moves must be an array of one shape (rows of one length), got 'a ragged sequence'
    """
    import numpy as np

    try:
        return np.asarray(value)
    except (ValueError, TypeError):  # inhomogeneous shapes, or an element NumPy cannot take
        raise OptionError(name, "a ragged sequence", "must be an array of one shape (rows of one length)") from None


def cache_dir() -> Path:
    """Directory of the caches (pattern databases, distance tables):
    ``$FASTPUZZLE_CACHE`` or ``~/.cache/fastpuzzle``.

    Examples
    --------
    >>> isinstance(cache_dir(), Path)
    True
    """
    env = os.environ.get("FASTPUZZLE_CACHE")  # '~' expanded, a relative path taken from the working directory
    return Path(os.path.abspath(os.path.expanduser(env))) if env else Path.home() / ".cache" / "fastpuzzle"


def directory(value, name: str = "directory"):
    """A directory argument as a :class:`~pathlib.Path` (``~`` expanded), or ``None``: a string
    or path-like, not empty, without NUL.

    Examples
    --------
    >>> directory(None) is None, directory("/tmp/x").name
    (True, 'x')
    >>> directory("")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: directory must name a directory, got ''
    """
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise OptionTypeError(name, value, "must be a directory name (str or path-like) or None")
    text = os.fspath(value)
    if not isinstance(text, str):
        raise OptionTypeError(name, value, "must be a directory name (str or path-like) or None")
    if not text.strip() or "\0" in text:
        raise OptionError(name, value, "must name a directory")
    return Path(os.path.expanduser(text))
