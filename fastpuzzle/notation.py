"""Move strings as people write them, and the tools speedsolvers use on them.

fastpuzzle names a move by the direction the **blank** travels
(``notation="blank"``, the move model of :mod:`fastpuzzle.moves`).
Speedsolvers name the direction the **tile** travels (``notation="tile"``):
the blank going up is a tile coming down, so each letter is swapped for its
opposite (``U``<->``D``, ``L``<->``R``).  Repeats may be folded: ``R3`` is
``RRR``; in the multi-tile metric a folded run is one move (sliding three
tiles at once), which is how :func:`count_moves` counts it.

Move tools work on codes or strings and answer in kind: :func:`invert`
(the sequence that undoes), :func:`simplify` (cancel moves that undo each
other), :func:`mirror` and :func:`transpose` (the moves of the reflected
board, with its reflected goal).

Examples
--------
>>> encode_moves("R3 D2", notation="tile")
array([1, 1, 1, 0, 0], dtype=uint8)
>>> decode_moves([1, 1, 1, 0, 0], notation="tile", fold=True)
'R3D2'
"""

from __future__ import annotations

import re

import numpy as np

from .errors import OptionError, OptionTypeError
from .memory import check_allocation
from .moves import MOVE_BYTES, UNDO, check_codes, move_codes

__all__ = ["NOTATIONS", "METRICS", "encode_moves", "decode_moves", "count_moves", "folded_count", "invert", "simplify",
           "mirror", "transpose", "check_metric"]  # fmt: skip

#: The two ways to write a move.
NOTATIONS = ("blank", "tile")
#: The two ways to count moves: single-tile and multi-tile.
METRICS = ("stm", "mtm")
_TOKEN = re.compile(r"\s*([UDLRudlr])([0-9]*)\s*")  # ASCII digits only: "R٣" is no count
_SWAP = str.maketrans("UDLRudlr", "DURLDURL")
_TILE_BYTES = MOVE_BYTES[UNDO]  # the tile's letter of each blank code
_MIRROR = {"lr": np.array([0, 2, 1, 3], np.uint8), "ud": np.array([3, 1, 2, 0], np.uint8)}
_TRANSPOSE = np.array([1, 0, 3, 2], np.uint8)


def _check_notation(notation) -> str:
    if not isinstance(notation, str):
        raise OptionTypeError("notation", notation, "must be 'blank' or 'tile'")
    if notation not in NOTATIONS:
        raise OptionError("notation", notation, "must be 'blank' or 'tile'")
    return notation


def check_metric(metric) -> str:
    """The metric name, checked: ``"stm"`` (one tile a move) or ``"mtm"`` (a row or column segment a move).

    Examples
    --------
    >>> check_metric("mtm")
    'mtm'
    """
    if not isinstance(metric, str):
        raise OptionTypeError("metric", metric, "must be 'stm' (single-tile) or 'mtm' (multi-tile)")
    if metric not in METRICS:
        raise OptionError("metric", metric, "must be 'stm' (single-tile) or 'mtm' (multi-tile)")
    return metric


def _tokens(text: str):
    """``(letter, repeat)`` of each move of a move string (``"R3U"``: ``("R", 3), ("U", 1)``), checked;
    spaces between moves allowed."""
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            bad = pos + len(text[pos:]) - len(text[pos:].lstrip())
            if bad >= len(text):
                return
            raise OptionError("move string", text[bad], f"character {bad} is not a move: moves are U, D, L, R, each "
                              "optionally followed by a repeat count (R3)")  # fmt: skip
        letter, count = match.group(1), match.group(2)
        if len(count) > 100:  # int() of thousands of digits fails; any such count is past memory anyway
            raise OptionError("move string", f"{letter}{count[:6]}...",
                              f"character {match.start(2)} is a repeat count of {len(count)} digits")  # fmt: skip
        times = int(count) if count else 1
        if times == 0:
            raise OptionError("move string", f"{letter}0", f"character {match.start(2)} is a repeat count of 0")
        yield letter, times
        pos = match.end()


def _unfold(text: str) -> str:
    """``"R3U"`` -> ``"RRRU"``; spaces between moves allowed."""
    if not any(ch.isdigit() or ch.isspace() for ch in text):
        return text
    out, total = [], 0
    for letter, times in _tokens(text):
        total += times
        check_allocation(total, f"a move string of {total:,} moves")
        out.append(letter * times)
    return "".join(out)


def folded_count(moves):
    """Moves a move string holds, its repeat counts summed without writing them out (``None`` for codes):
    what a caller with a limit checks before :func:`encode_moves` unfolds a string.

    Examples
    --------
    >>> folded_count("R500000000 U"), folded_count([0, 1])
    (500000001, None)
    """
    if not isinstance(moves, str):
        return None
    return sum(times for _, times in _tokens(moves))


def encode_moves(moves, *, notation="blank") -> np.ndarray:
    """Move codes (``uint8``, 0=U 1=L 2=R 3=D of the blank) of a move string or codes.

    Parameters
    ----------
    moves : str or array_like of int
        Letters ``U D L R`` (either case), each optionally followed by a
        repeat count (``R3`` = ``RRR``), spaces allowed between moves; or
        move codes (always the blank's, whatever ``notation``).
    notation : {"blank", "tile"}
        Whether a letter names the direction of the blank or of the tile.

    Returns
    -------
    ndarray of uint8

    Raises
    ------
    ValueError
        A character that is no move (its index named), a code outside 0..3.
    TypeError
        Codes that are not a 1-d integer sequence.

    Examples
    --------
    >>> encode_moves("ULRD")
    array([0, 1, 2, 3], dtype=uint8)
    >>> encode_moves("D2 R", notation="tile").tolist()
    [0, 0, 1]
    """
    notation = _check_notation(notation)
    if isinstance(moves, str):
        text = _unfold(moves)
        return move_codes(text.translate(_SWAP) if notation == "tile" else text)
    return move_codes(moves)


def decode_moves(codes, *, notation="blank", fold=False) -> str:
    """The move string of move codes.

    Parameters
    ----------
    codes : array_like of int
        Move codes 0..3 (a 1-d sequence of integers).
    notation : {"blank", "tile"}
        Write the blank's direction or the tile's.
    fold : bool
        Fold repeats: ``RRR`` becomes ``R3`` (a multi-tile move).

    Raises
    ------
    TypeError
        Not a 1-d sequence of integers (floats, booleans, 0-d or 2-d arrays, strings).
    ValueError
        A code outside 0..3, naming the move's index.

    Examples
    --------
    >>> decode_moves([0, 0, 1, 3])
    'UULD'
    >>> decode_moves([0, 0, 1, 3], notation="tile", fold=True)
    'D2RU'
    >>> decode_moves([4])
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.MoveError: move 0 has code 4; move codes are 0..3 (U, L, R, D)
    """
    notation = _check_notation(notation)
    if not isinstance(fold, bool):
        raise OptionTypeError("fold", fold, "must be True or False")
    codes = check_codes(codes)
    letters = (_TILE_BYTES if notation == "tile" else MOVE_BYTES)[codes]
    if not fold or len(codes) == 0:
        return letters.tobytes().decode("ascii")
    starts, lengths = _runs(codes)
    return "".join(chr(letters[s]) + (str(k) if k > 1 else "") for s, k in zip(starts.tolist(), lengths.tolist()))


def _runs(codes):
    """Start and length of every run of equal codes."""
    change = np.flatnonzero(np.diff(codes.astype(np.int16))) + 1
    starts = np.concatenate([[0], change])
    return starts, np.diff(np.concatenate([starts, [len(codes)]]))


def count_moves(moves, *, metric="stm", notation="blank") -> int:
    """Number of moves in a metric: every tile move (``"stm"``), or every
    straight slide of the blank (``"mtm"``: a run ``RRR`` is one move).

    Examples
    --------
    >>> count_moves("RRRUL"), count_moves("RRRUL", metric="mtm"), count_moves("R3UL", metric="mtm")
    (5, 3, 3)
    """
    metric = check_metric(metric)
    if isinstance(moves, str) and any(ch.isdigit() for ch in moves):  # counted from the repeats: nothing unfolded
        _check_notation(notation)
        letters = [(letter.upper(), times) for letter, times in _tokens(moves)]
        if metric == "stm":
            return sum(times for _, times in letters)
        return sum(1 for k, (letter, _) in enumerate(letters) if k == 0 or letter != letters[k - 1][0])
    codes = encode_moves(moves, notation=notation)
    if metric == "stm" or len(codes) == 0:
        return int(len(codes))
    return int(np.count_nonzero(np.diff(codes.astype(np.int16)))) + 1


def _in_kind(moves, codes, notation):
    """Answer as given: a string for a string (in its notation), codes for codes."""
    return decode_moves(codes, notation=notation) if isinstance(moves, str) else codes


def invert(moves, *, notation="blank"):
    """The moves that undo ``moves`` (reversed, each move undone).

    Examples
    --------
    >>> invert("URR"), invert([0, 2]).tolist()
    ('LLD', [1, 3])
    """
    codes = encode_moves(moves, notation=notation)
    return _in_kind(moves, UNDO[codes[::-1]], notation)


def simplify(moves, *, notation="blank"):
    """The moves with every move that undoes the one before cancelled (repeatedly):
    the same effect on any board where ``moves`` are legal.

    Examples
    --------
    >>> simplify("URLDDL"), simplify("UD")
    ('DL', '')
    """
    codes = encode_moves(moves, notation=notation)
    stack = np.empty(len(codes), np.uint8)
    top = 0
    for c in codes.tolist():
        if top and stack[top - 1] == 3 - c:
            top -= 1
        else:
            stack[top] = c
            top += 1
    return _in_kind(moves, stack[:top].copy(), notation)


def mirror(moves, *, axis="lr", notation="blank"):
    """The moves on the mirrored board (``axis="lr"``: left-right, ``"ud"``: upside down).

    If ``moves`` take ``board`` to ``goal``, ``mirror(moves)`` takes the
    mirrored board to the mirrored goal.

    Examples
    --------
    >>> mirror("ULD"), mirror("ULD", axis="ud")
    ('URD', 'DLU')
    """
    if not isinstance(axis, str):
        raise OptionTypeError("axis", axis, "must be 'lr' or 'ud'")
    if axis not in _MIRROR:
        raise OptionError("axis", axis, "must be 'lr' or 'ud'")
    codes = encode_moves(moves, notation=notation)
    return _in_kind(moves, _MIRROR[axis][codes], notation)


def transpose(moves, *, notation="blank"):
    """The moves on the transposed board (rows and columns exchanged: ``U``<->``L``, ``D``<->``R``).

    Examples
    --------
    >>> transpose("URD")
    'LDR'
    """
    codes = encode_moves(moves, notation=notation)
    return _in_kind(moves, _TRANSPOSE[codes], notation)
