"""The move model: move codes, move strings and applying moves to a board.

A move is named by the direction in which the **blank** travels: ``U``, ``D``,
``L`` or ``R``.  Kernels use compact ``uint8`` codes in Korf's operator order::

    code  0  1  2  3
    move  U  L  R  D

so the move that undoes code ``c`` is ``3 - c``.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .boards import as_boards

__all__ = [
    "MOVE_CHARS", "MOVE_BYTES", "ROW_STEP", "COL_STEP", "encode_moves", "decode_moves", "apply_moves", "apply_codes",
    "UP_CODE", "LEFT_CODE", "RIGHT_CODE", "DOWN_CODE", "step_cell", "step_offset", "slide_codes", "UNDO", "undo_code", "transposed_code",
]  # fmt: skip

#: Move letter of each code.
MOVE_CHARS = "ULRD"
#: The codes by name.
UP_CODE, LEFT_CODE, RIGHT_CODE, DOWN_CODE = 0, 1, 2, 3
#: Row and column step of the blank for each code.
ROW_STEP = np.array([-1, 0, 0, 1], np.int64)
COL_STEP = np.array([0, -1, 1, 0], np.int64)

_CODE_OF_BYTE = np.full(256, 255, np.uint8)
for _code, _ch in enumerate(MOVE_CHARS):
    _CODE_OF_BYTE[ord(_ch)] = _code
    _CODE_OF_BYTE[ord(_ch.lower())] = _code
#: ASCII byte of each code's letter: ``MOVE_BYTES[codes].tobytes()`` is the move text.
MOVE_BYTES = np.frombuffer(MOVE_CHARS.encode(), np.uint8)


def encode_moves(moves) -> np.ndarray:
    """Move codes (``uint8``) of a move string, or a checked copy of codes.

    Examples
    --------
    >>> encode_moves("ULRD")
    array([0, 1, 2, 3], dtype=uint8)
    """
    if isinstance(moves, str):
        raw = np.frombuffer(moves.encode("ascii", errors="replace"), np.uint8)
        codes = _CODE_OF_BYTE[raw]
        bad = np.flatnonzero(codes == 255)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"move {i} is {moves[i]!r}; moves are the letters U, D, L, R (the blank's direction)")
        return codes
    codes = np.asarray(moves)
    if codes.ndim != 1 or codes.dtype.kind not in "iu":
        raise TypeError("moves must be a string over 'UDLR' or a 1-d integer array of move codes 0..3")
    bad = np.flatnonzero((codes < 0) | (codes > 3))
    if bad.size:
        raise ValueError(f"move {int(bad[0])} has code {int(codes[bad[0]])}; move codes are 0..3 (U, L, R, D)")
    return codes.astype(np.uint8)


def decode_moves(codes) -> str:
    """Move string of an array of move codes.

    Examples
    --------
    >>> decode_moves(np.array([0, 3, 1], np.uint8))
    'UDL'
    """
    codes = np.asarray(codes, np.uint8)
    return MOVE_BYTES[codes].tobytes().decode("ascii")


# ------------------------------------------------------------------ steps of the blank


@jit(inline="always")
def step_cell(r, c, code):
    """Cell ``(row, col)`` the blank reaches from (r, c) by move ``code``
    (may be off the board: the caller checks).

    Examples
    --------
    >>> step_cell(1, 1, 0), step_cell(1, 1, 2)
    ((0, 1), (1, 2))
    """
    if code == 0:
        return r - 1, c
    if code == 1:
        return r, c - 1
    if code == 2:
        return r, c + 1
    return r + 1, c


@jit(inline="always")
def step_offset(code, row_stride):
    """Change of the blank's flat index for move ``code`` on a board stored
    with rows ``row_stride`` cells apart (the caller checks the edges).

    Examples
    --------
    >>> [step_offset(code, 4) for code in range(4)]
    [-4, -1, 1, 4]
    """
    if code == 0:
        return -row_stride
    if code == 1:
        return -1
    if code == 2:
        return 1
    return row_stride


def slide_codes(m: int, n: int, blank_from: int, blank_to: int) -> np.ndarray:
    """Moves that slide the blank from flat cell ``blank_from`` to
    ``blank_to`` on a board of one row or one column.

    There no tile can pass another, so this straight slide is the only
    solution (and the shortest).

    Examples
    --------
    >>> decode_moves(slide_codes(1, 5, 3, 0)), decode_moves(slide_codes(4, 1, 1, 3))
    ('LLL', 'DD')
    """
    if m != 1 and n != 1:
        raise ValueError(f"slide_codes needs a board of one row or one column, got {m}x{n}")
    minus, plus = (LEFT_CODE, RIGHT_CODE) if m == 1 else (UP_CODE, DOWN_CODE)
    code = plus if blank_to >= blank_from else minus
    return np.full(abs(int(blank_to) - int(blank_from)), code, np.uint8)


@jit
def apply_codes(cells, m, n, codes):
    """Apply move codes in place to the flat board ``cells``.

    Returns the index of the first illegal move (the blank would leave the
    board), or -1 when all moves were applied.
    """
    blank = 0
    for i in range(m * n):
        if cells[i] == 0:
            blank = i
            break
    r = blank // n
    c = blank - r * n
    for k in range(codes.shape[0]):
        nr, nc = step_cell(r, c, codes[k])
        if nr < 0 or nr >= m or nc < 0 or nc >= n:
            return k
        target = nr * n + nc
        cells[r * n + c] = cells[target]
        cells[target] = 0
        r, c = nr, nc
    return -1


_apply_codes = apply_codes  # the former private name, still used by modules outside the search


def apply_moves(board, moves, *, check: bool = True) -> np.ndarray:
    """The board after the blank makes ``moves``.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (0 = blank).
    moves : str or array of move codes
        Letters ``U D L R`` (the blank's direction), or ``uint8`` codes
        (0=U, 1=L, 2=R, 3=D).

    Returns
    -------
    ndarray, shape (m, n)
        A new board; the input is not modified.

    Raises
    ------
    ValueError
        If a move would take the blank off the board (the message names the
        move's index), or if the board or the moves are malformed.

    Examples
    --------
    >>> apply_moves([[1, 2], [3, 0]], "UL")
    array([[0, 1],
           [3, 2]], dtype=uint8)
    """
    batch, single = as_boards(board, check=check, label="board")
    if not single:
        raise ValueError(f"apply_moves takes one board (m, n), got a batch of shape {batch.shape}")
    codes = encode_moves(moves)
    m, n = batch.shape[1:]
    cells = batch[0].ravel().copy()
    bad = apply_codes(cells, m, n, codes)
    if bad >= 0:
        letter = MOVE_CHARS[int(codes[bad])]
        raise ValueError(f"move {bad} ({letter!r}) is illegal: it takes the blank off the {m}x{n} board")
    return cells.reshape(m, n)


# ------------------------------------------------------------------ the undo rule


#: The code of the move that undoes each code (``3 - code`` in Korf's order).
UNDO = np.array([3, 2, 1, 0], np.uint8)


@jit(inline="always")
def undo_code(code):
    """The move code that undoes ``code`` (U<->D, L<->R)."""
    return 3 - code


# ------------------------------------------------------------------ the transposed board


@jit(inline="always")
def transposed_code(code):
    """The code that move ``code`` becomes on the transposed board (U<->L,
    R<->D): a solver working on the transpose replays its moves through it.

    Examples
    --------
    >>> decode_moves([transposed_code(c) for c in encode_moves("ULRD")])
    'LUDR'
    """
    return code ^ 1
