"""Facts about board files that every reader and the command line share
(the error itself, :class:`~fastpuzzle.errors.BoardFileError`, lives with the others).

Stdlib only (no NumPy, no Numba), so the command line can parse its
arguments without loading the compiled kernels.
"""

from __future__ import annotations

from ..errors import AllocationError, BoardFileError, OptionError, OptionTypeError, ShapeError
from ..memory import check_allocation

__all__ = ["parse_shape", "check_file_allocation"]


def parse_shape(text) -> tuple[int, int]:
    """The one shape parser: ``"4x4"`` -> ``(4, 4)``; also ``"4"`` (square) and pairs.

    Raises ``ValueError`` for anything that is not two whole numbers >= 1 making
    at least 2 cells, ``TypeError`` for a pair of non-integers.

    Examples
    --------
    >>> parse_shape("3x5"), parse_shape("4"), parse_shape((2, 3))
    ((3, 5), (4, 4), (2, 3))
    """
    if isinstance(text, (tuple, list)):
        if len(text) != 2 or any(isinstance(v, bool) or not hasattr(v, "__index__") for v in text):
            raise OptionTypeError("shape", text, "must be two integers (m, n)")
        m, n = (int(v) for v in text)
    else:
        parts = str(text).strip().lower().replace("*", "x").split("x")
        if len(parts) == 1:
            parts = parts * 2
        if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) <= 9 for p in parts):
            raise OptionError("shape", text, "must look like MxN with whole numbers (for example 4x4)")
        m, n = (int(p) for p in parts)
    if m < 1 or n < 1 or m * n < 2:
        raise ShapeError((m, n), f"shape {m}x{n} is not a board: sides must be >= 1 with at least 2 cells")
    return m, n


def check_file_allocation(nbytes: int, what: str, path="<input>") -> None:
    """:func:`fastpuzzle.memory.check_allocation` for a size read from a file: the
    refusal is a :class:`BoardFileError` naming ``path``.

    Examples
    --------
    >>> check_file_allocation(1 << 10, "a small buffer")
    >>> try:
    ...     check_file_allocation(1 << 70, "boards of 10^12 cells", "x.npy")
    ... except BoardFileError as e:
    ...     print(e.path, e.reason.split(" (")[0])
    x.npy boards of 10^12 cells would need 1,180,591,620,717,411,303,424 bytes
    """
    try:
        check_allocation(nbytes, what)
    except AllocationError as error:
        raise BoardFileError(path, error.reason) from None
