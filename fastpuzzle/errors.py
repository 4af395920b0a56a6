"""Every exception fastpuzzle raises, in one hierarchy (standard library only).

All of them derive from :class:`FastPuzzleError`, so ``except fp.FastPuzzleError``
catches anything the package itself refuses. Each one caused by bad input is
also a ``ValueError`` or a ``TypeError``, so code written against the built-in
classes keeps working, and each carries its facts as attributes (``index``,
``reason``, ``path``...) so that callers never parse a message::

    FastPuzzleError
    ├── BoardError            (ValueError)  a board is not a valid board
    ├── UnreachableError      (ValueError)  a board cannot reach the goal
    ├── ShapeError            (ValueError)  a board shape the operation does not take
    ├── MoveError             (ValueError)  a move that is no move, or illegal where it is made
    ├── BoardFileError        (ValueError)  a file or standard input cannot be read
    │   └── NoBoards                        the input holds no board at all
    ├── OptionError           (ValueError)  an option has a bad value
    ├── OptionTypeError       (TypeError)   an option has a bad type
    ├── AllocationError       (ValueError)  a buffer larger than the memory available
    ├── StaleDatabaseError    (ValueError)  a cached database must be rebuilt
    ├── CorruptCacheError     (ValueError)  a cached file is damaged, foreign or not a regular file
    ├── LayerLimitError       (ValueError)  a distance past the layers built near the goal
    └── DistanceBudgetError   (RuntimeError) boards not solved within the budget

Every class pickles with its attributes, so errors raised inside Dask tasks
arrive intact. The command line turns any of them into one line and exit
status 2.

Examples
--------
>>> import fastpuzzle as fp
>>> try:
...     fp.is_solvable([[1, 1], [2, 0]])
... except fp.BoardError as error:
...     print(isinstance(error, ValueError), error.index, error.reason)
True None is not a permutation of 0..3: tile 1 appears 2 times; tile 3 is missing
"""

from __future__ import annotations

__all__ = [
    "FastPuzzleError", "BoardError", "UnreachableError", "ShapeError", "MoveError", "BoardFileError", "NoBoards", "OptionError",
    "OptionTypeError", "AllocationError", "StaleDatabaseError", "CorruptCacheError", "LayerLimitError", "DistanceBudgetError",
]  # fmt: skip


class FastPuzzleError(Exception):
    """The base of every exception fastpuzzle raises.

    Examples
    --------
    >>> issubclass(BoardError, FastPuzzleError), issubclass(DistanceBudgetError, FastPuzzleError)
    (True, True)
    """


class BoardError(FastPuzzleError, ValueError):
    """A board is not a valid sliding-tile board (a ``ValueError``).

    The facts travel as attributes, so callers never parse the message.

    Attributes
    ----------
    index : int or None
        Index of the offending board in the batch (``None`` for a single board).
    reason : str
        What is wrong with that board, without the label or index.
    label : str
        What the caller called the input (``"boards"``, ``"goal"``, a file name).

    Examples
    --------
    >>> from fastpuzzle.boards import as_boards
    >>> try:
    ...     as_boards([[[1, 2], [3, 0]], [[1, 1], [3, 0]]])
    ... except BoardError as error:
    ...     print(error.index, error.reason)
    1 is not a permutation of 0..3: tile 1 appears 2 times; tile 2 is missing
    """

    def __init__(self, label: str, index, reason: str):
        self.label, self.index, self.reason = label, index, reason
        where = "board" if index is None else f"board {index}"
        super().__init__(f"{label}: {where} {reason}")

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.label, self.index, self.reason))

    def renumbered(self, offset: int) -> "BoardError":
        """The same error with the index shifted by ``offset`` (a chunk's start in its batch)."""
        index = self.index if self.index is None else self.index + offset
        return type(self)(self.label, index, self.reason)


class UnreachableError(FastPuzzleError, ValueError):
    """A board cannot reach the goal (a ``ValueError``).

    Attributes
    ----------
    index : int or None
        The board's index in its batch (``None`` for a single board).
    reason : str
        The message without the board.

    Examples
    --------
    >>> UnreachableError(3).index
    3
    """

    reason = ("cannot reach the goal: it lies in the other half of the state space "
              "(an odd permutation away; for one-row/column boards, its tiles are in another order)")  # fmt: skip

    def __init__(self, index):
        self.index = index
        super().__init__(f"{'the board' if index is None else f'board {index}'} {self.reason}")

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.index,))


class ShapeError(FastPuzzleError, ValueError):
    """Boards of a shape the operation does not take (a ``ValueError``): more
    cells than a table or a kernel covers, a batch where one board is taken,
    boards unlike the goal, the table or the other batch they go with.

    Attributes
    ----------
    shape : tuple of int
        The shape given (``(m, n)`` of a board, or a batch's whole shape).
    expected : object
        What the operation takes, where one value says it: a shape, or the
        largest number of cells; ``None`` otherwise.
    reason : str
        What is wrong and what to do instead (the message).

    Examples
    --------
    >>> e = ShapeError((6, 6), "IDA* handles boards of at most 25 cells, got 6x6", expected=25)
    >>> e.shape, e.expected, str(e)
    ((6, 6), 25, 'IDA* handles boards of at most 25 cells, got 6x6')
    """

    def __init__(self, shape, reason: str, expected=None):
        self.shape = tuple(int(v) for v in shape)
        self.reason, self.expected = reason, expected
        super().__init__(reason)

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.shape, self.reason, self.expected))


class MoveError(FastPuzzleError, ValueError):
    """A move that is not a move (a letter other than U, D, L, R, a code outside
    0..3) or that takes the blank off the board (a ``ValueError``).

    Attributes
    ----------
    index : int or None
        The move's position in its sequence (``None`` for one move per board).
    move : object
        The move as given (a letter, a code).
    reason : str
        What is wrong with it (naming the move as given), without the index or the board.
    board : int or None
        Index of the board in its batch (``None`` for a single board).

    Examples
    --------
    >>> e = MoveError(3, "X", "is 'X'; moves are the letters U, D, L, R")
    >>> str(e), e.index, e.move
    ("move 3 is 'X'; moves are the letters U, D, L, R", 3, 'X')
    """

    def __init__(self, index, move, reason: str, board=None):
        self.index, self.move, self.reason, self.board = index, move, reason, board
        where = "" if board is None else f"board {board}: "
        number = "" if index is None else f" {index}"
        super().__init__(f"{where}move{number} {reason}")

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.index, self.move, self.reason, self.board))


class BoardFileError(FastPuzzleError, ValueError):
    """A board file (or standard input) cannot be read, or a size it asks for cannot be met.

    Attributes
    ----------
    path : str
        The file as the user named it (``"<stdin>"`` for standard input).
    reason : str
        What is wrong, without the path, line or board.
    line : int or None
        1-based line of a text file.
    index : int or None
        Index of the board in the file.
    column : int or None
        1-based column of a text file.
    case : int or None
        1-based case of the judge format.

    Examples
    --------
    >>> e = BoardFileError("b.txt", "holds 9, outside 0..8", line=3, index=2)
    >>> str(e), e.line, e.index
    ('b.txt: line 3: board 2 holds 9, outside 0..8', 3, 2)
    """

    def __init__(self, path, reason: str, *, line=None, index=None, column=None, case=None):
        self.path, self.reason, self.line, self.index = str(path), reason, line, index
        self.column, self.case = column, case
        where = f"line {line}: " if line is not None else ""
        if column is not None:
            where = f"line {line}, column {column}: "
        if case is not None:
            where = f"line {line} (case {case}): "
        board = f"board {index} " if index is not None else ""
        shown = self.path if self.path.isprintable() else repr(self.path)  # a newline in a name stays visible
        super().__init__(f"{shown}: {where}{board}{reason}")

    def __reduce__(self):  # picklable across Dask workers
        return (_rebuild_file_error, (type(self), self.path, self.reason, self.line, self.index, self.column, self.case))


def _rebuild_file_error(cls, path, reason, line, index, column, case):
    return cls(path, reason, line=line, index=index, column=column, case=case)


class NoBoards(BoardFileError):
    """A text holds no board at all (a :class:`BoardFileError`).

    Examples
    --------
    >>> NoBoards("empty.txt", "no boards found").path
    'empty.txt'
    """


class _OptionFacts:
    """What :class:`OptionError` and :class:`OptionTypeError` share: the option's
    name, the value given and the rule it breaks."""

    def __init__(self, option: str, value, reason: str):
        self.option, self.value, self.reason = option, value, reason
        super().__init__(f"{option} {reason}, got {value!r}")

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.option, self.value, self.reason))


class OptionError(_OptionFacts, FastPuzzleError, ValueError):
    """An option has a value outside its range (a ``ValueError``).

    Attributes
    ----------
    option : str
        The option's name as the caller spelled it (``"time_limit"``, ``"--count"``).
    value : object
        The value given.
    reason : str
        The rule it breaks (``"must be >= 1"``).

    Examples
    --------
    >>> e = OptionError("threads", -2, "must be a whole number >= 1")
    >>> str(e), e.option, e.value
    ('threads must be a whole number >= 1, got -2', 'threads', -2)
    """


class OptionTypeError(_OptionFacts, FastPuzzleError, TypeError):
    """An option has a value of the wrong type (a ``TypeError``); the same
    attributes as :class:`OptionError`.

    Examples
    --------
    >>> str(OptionTypeError("max_nodes", 1.5, "must be a whole number"))
    'max_nodes must be a whole number, got 1.5'
    """


class AllocationError(FastPuzzleError, ValueError):
    """A buffer larger than the memory available was asked for (a ``ValueError``).

    Attributes
    ----------
    what : str
        What the buffer would hold, in the caller's words.
    n_bytes : int
        The bytes it would need.
    available : int
        The bytes of memory the system could still give when asked.
    reason : str
        The message, for callers that wrap it (the file readers add the path).

    Examples
    --------
    >>> AllocationError("a table", 2**40, 2**30).n_bytes
    1099511627776
    """

    def __init__(self, what: str, n_bytes: int, available: int):
        self.what, self.n_bytes, self.available = what, int(n_bytes), int(available)
        self.reason = (
            f"{what} would need {self.n_bytes:,} bytes ({self.n_bytes / 2**30:,.1f} GiB), more than the "
            f"{self.available / 2**30:,.1f} GiB of memory available; ask for fewer or smaller boards, "
            "or work in chunks"
        )
        super().__init__(self.reason)

    def __reduce__(self):  # picklable across Dask workers
        return (type(self), (self.what, self.n_bytes, self.available))


class StaleDatabaseError(FastPuzzleError, ValueError):
    """A cached pattern database was written by another format version, for
    another partition, or is damaged: it must be rebuilt (quick ones are rebuilt
    on use).

    Attributes
    ----------
    path : str
        The database's directory.
    reason : str
        What is wrong with it, and how to rebuild it.

    Examples
    --------
    >>> str(StaleDatabaseError("/tmp/db", "is stale or foreign"))
    'cached database in /tmp/db is stale or foreign'
    """

    def __init__(self, path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"cached database in {self.path} {reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.reason))


class CorruptCacheError(FastPuzzleError, ValueError):
    """A cached file is corrupted, truncated, foreign or not a regular file
    (:mod:`fastpuzzle.cachefile`); its store rebuilds it or says how.

    Attributes
    ----------
    path : str
        The cached file.
    reason : str
        What is wrong with it.

    Examples
    --------
    >>> str(CorruptCacheError("/tmp/t.npy", "is corrupted"))
    'cached file /tmp/t.npy is corrupted'
    """

    def __init__(self, path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"cached file {self.path} {reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.reason))


class LayerLimitError(FastPuzzleError, ValueError):
    """A layer past the largest one enumerated near the goal would be needed (a ``ValueError``).

    Attributes
    ----------
    shape : tuple of int
        The board shape ``(m, n)``.
    depth : int
        The distance asked for.
    reached : int
        The last distance whose layer was built.
    size : int
        The number of boards the next layer would have had at most.
    limit : int
        The largest layer that is built.

    Examples
    --------
    >>> LayerLimitError((4, 4), 30, 23, 19_000_000, 12_000_000).reached
    23
    """

    def __init__(self, shape, depth: int, reached: int, size: int, limit: int, hint: str = ""):
        self.shape = tuple(int(v) for v in shape)
        self.depth, self.reached, self.size, self.limit = int(depth), int(reached), int(size), int(limit)
        self.hint = hint
        m, n = self.shape
        super().__init__(
            f"boards of {m}x{n} at distance {depth} lie beyond the layers enumerated near the goal: "
            f"layer {reached + 1} would hold up to {size:,} boards, more than {self.limit:,}{hint}"
        )

    def __reduce__(self):
        return (type(self), (self.shape, self.depth, self.reached, self.size, self.limit, self.hint))


class DistanceBudgetError(FastPuzzleError, RuntimeError):
    """Some boards were not solved within the budget (a ``RuntimeError``: the
    input was valid, the budget too small).

    Attributes
    ----------
    stopped : ndarray of int64
        Indices of the boards whose search hit ``max_nodes`` or ``time_limit``.
    distances : ndarray of int64
        Distances of the whole batch, -1 at the stopped boards.

    Examples
    --------
    >>> error = DistanceBudgetError([1], [4, -1])
    >>> error.stopped, str(error).split(" (")[0]
    ([1], '1 of 2 boards were not solved within the budget')
    """

    def __init__(self, stopped, distances, advice="raise max_nodes/time_limit, or pass stopped='mark' to get -1 for them"):
        self.stopped, self.distances, self.advice = stopped, distances, advice
        shown = ", ".join(str(int(i)) for i in list(stopped[:10]))
        more = "" if len(stopped) <= 10 else f" and {len(stopped) - 10} more"
        super().__init__(
            f"{len(stopped)} of {len(distances)} boards were not solved within the budget "
            f"(boards {shown}{more}); {advice}"
        )

    def __reduce__(self):
        return (type(self), (self.stopped, self.distances, self.advice))
