"""The judge format: ``n``, then two ``n x n`` grids, repeated; answer ``TAK`` or ``NIE`` per case.

The input of the classic reachability problem.  One compiled pass over the
raw bytes (a memory-mapped file is read in place, never copied) parses every
number and folds it at once into the case's parity tree, so no grid is
stored: the tree is a seen-mask of the values (``n*n`` bits) plus, per level
up, one parity bit per block of ``64**l`` values, and the tiles seen before a
value that are larger than it are the bits above it, word by word up the
tree (the layout of :func:`fastpuzzle.solvability.inversion_kernels.tree_levels`).  Its
top word lives in a register.  The seen-mask also validates: a value whose
bit is already set is a duplicate, found at the very number that repeats.

The kernels allocate nothing: the tree's words and offsets are passed in,
sized once for the largest case the input can hold.  Loading them from
Numba's cache then needs none of Numba's array-creation code, a tenth of a
second of every judged run's start-up.

Before a case's buffers are allocated, its ``n`` is checked against the
bytes left in the input (two grids of ``n*n`` numbers take at least
``4*n*n`` bytes after ``n``), so a lone ``30000`` is refused at once instead
of allocating a gigabyte.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, jit_inner
from ..boards import cell_colour
from ..solvability.inversion_kernels import TREE_MAX_LEVELS, fill_tree_levels, parity64
from ..errors import OptionTypeError
from .errors import BoardFileError
from .source import strip_bom

__all__ = ["judge", "judge_verdicts", "judge_prefix", "JUDGE_MAX_SIDE"]

_J_OK, _J_CHAR, _J_SIDE, _J_EOF, _J_RANGE, _J_DUP, _J_BIG, _J_SHORT = 0, 1, 2, 3, 4, 5, 6, 7

#: Largest judge board side (n*n cells are counted in int64, the tree in uint64 words).
JUDGE_MAX_SIDE = 46340
_JUDGE_MAX_SIDE = JUDGE_MAX_SIDE  # the kernel's global


@jit_inner
def _is_space(c):
    return c == 32 or c == 10 or c == 13 or c == 9


@jit_inner
def _number(buf, pos, cap):
    """``(value, end)`` of the digits at ``buf[pos:]``; the value stops growing
    past ``cap`` (so it cannot overflow) and ``end == pos`` means no digit."""
    L = buf.shape[0]
    v = 0
    while pos < L:
        d = np.int64(buf[pos]) - 48
        if d < 0 or d > 9:
            break
        if v <= cap:
            v = v * 10 + d
        pos += 1
    return v, pos


@jit
def _scan_short_case(buf, pos, N, case, err):
    """The first error of a case whose input is too short to hold it: a bad
    character or value on the way, else the end of input (same codes as
    :func:`_judge_case`), found without storing the numbers."""
    L = buf.shape[0]
    for k in range(2 * N):
        while pos < L and _is_space(buf[pos]):
            pos += 1
        if pos >= L:
            err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, k // N, k
            return
        start = pos
        v, pos = _number(buf, pos, N)
        if pos == start or (pos < L and not _is_space(buf[pos])):
            err[0], err[1], err[2], err[3] = _J_CHAR, case, pos, k // N
            return
        if v >= N:
            err[0], err[1], err[2], err[3], err[4] = _J_RANGE, case, start, k // N, v
            return
    err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, 1, 2 * N  # not reached: the input is short


@jit
def _read_grid(buf, pos, N, words, offsets, levels, case, g, err):
    """Parse one grid of ``N`` numbers at ``buf[pos:]`` into the parity tree.

    Returns ``(end, acc, blank)``: the position after the grid, an XOR
    accumulator whose popcount parity is the grid's inversion parity (the
    blank counted as the smallest value) and the blank's cell; ``end < 0``
    on an error (described in ``err``).
    """
    L = buf.shape[0]
    top = levels - 1  # the top level: one word, kept in a register (if above level 0)
    for w in range(offsets[max(top, 1)]):
        words[w] = 0
    top_word = np.uint64(0)
    acc = np.uint64(0)
    blank = 0
    for i in range(N):
        while pos < L and _is_space(buf[pos]):
            pos += 1
        if pos >= L:
            err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, g, g * N + i
            return -1, acc, blank
        start = pos
        v, pos = _number(buf, pos, N)
        if pos == start or (pos < L and not _is_space(buf[pos])):
            err[0], err[1], err[2], err[3] = _J_CHAR, case, pos, g
            return -1, acc, blank
        if v >= N:  # beyond N the value is refused; the message re-reads its digits
            err[0], err[1], err[2], err[3], err[4] = _J_RANGE, case, start, g, v
            return -1, acc, blank
        k = v >> 6
        bit = np.uint64(v & 63)
        word = words[k]
        if (word >> bit) & np.uint64(1):
            err[0], err[1], err[2], err[3], err[4] = _J_DUP, case, start, g, v
            return -1, acc, blank
        acc ^= word >> bit  # values above v in its own word
        words[k] = word | (np.uint64(1) << bit)
        if v == 0:
            blank = i
        p = k  # v's block at the level above
        for level in range(1, top):
            k = offsets[level] + (p >> 6)
            bit = np.uint64(p & 63)
            acc ^= (words[k] >> bit) >> np.uint64(1)  # blocks above v's in the same word
            words[k] ^= np.uint64(1) << bit
            p >>= 6
        if top > 0:
            acc ^= (top_word >> np.uint64(p)) >> np.uint64(1)
            top_word ^= np.uint64(1) << np.uint64(p)
    return pos, acc, blank


@jit_inner  # called once: written into _judge_bytes, not compiled apart
def _judge_case(buf, pos, case, words, offsets, err):
    """Parse and answer the case whose ``n`` starts at or after ``buf[pos]``.

    The invariant of a grid -- inversion parity (blank as the smallest value)
    XOR the colour (row + col) of the blank's cell -- is conserved by every
    move and differs between the two components of the state graph (n >= 2;
    for n = 1 both grids are the lone blank), so the answer is TAK iff the
    two invariants match.  ``words`` holds the tree of the largest case
    the input can hold (see :func:`_tree_words`), ``offsets`` its levels.
    Returns ``(answer, new_pos)``: 1 = TAK, 0 = NIE, -1 = end of input,
    -2 = error, with ``err`` = [code, case, byte position, grid, value].
    """
    L = buf.shape[0]
    while pos < L and _is_space(buf[pos]):
        pos += 1
    if pos >= L:
        return -1, pos
    start = pos
    n, pos = _number(buf, pos, _JUDGE_MAX_SIDE)
    if pos == start or (pos < L and not _is_space(buf[pos])):
        err[0], err[1], err[2] = _J_CHAR, case, pos
        return -2, pos
    if n < 1:
        err[0], err[1], err[2], err[4] = _J_SIDE, case, start, n
        return -2, pos
    if n > _JUDGE_MAX_SIDE:
        err[0], err[1], err[2] = _J_BIG, case, start
        return -2, pos
    N = n * n
    if L - pos < 4 * N:  # too short for 2N numbers (a separator and a digit each): allocate nothing;
        err[0], err[1], err[2], err[3] = _J_SHORT, case, pos, N  # the caller finds the error (_scan_short_case)
        return -2, pos
    levels = fill_tree_levels(N, offsets)
    # np.int64, not the literals 0 and 1: Numba would compile _read_grid once for each
    pos, acc_a, blank_a = _read_grid(buf, pos, N, words, offsets, levels, case, np.int64(0), err)
    if pos < 0:
        return -2, err[2]
    pos, acc_b, blank_b = _read_grid(buf, pos, N, words, offsets, levels, case, np.int64(1), err)
    if pos < 0:
        return -2, err[2]
    differ = parity64(acc_a ^ acc_b) ^ cell_colour(blank_a, n) ^ cell_colour(blank_b, n)
    return (1 if differ == 0 else 0), pos


@jit
def _judge_bytes(buf, out, words, offsets, err):
    """The judge format straight from raw bytes, one pass, case after case.
    Returns the number of cases; stops at the first error (``err[0] != 0``)."""
    pos = np.int64(0)  # not literals: Numba would compile _judge_case for them too
    case = np.int64(0)
    while True:
        ans, pos = _judge_case(buf, pos, case, words, offsets, err)
        if ans < 0:
            return case
        out[case] = ans
        case += 1


def _tree_words(n_bytes):
    """Words of the parity tree of the largest case ``n_bytes`` of input can
    hold: a case of ``N = n*n`` cells takes at least ``4*N`` bytes (checked
    before its tree is built), and a tree of ``N`` cells has at most
    ``N/64 + N/64**2 + ... + TREE_MAX_LEVELS`` (rounded up, level by level)
    ``<= N // 63 + TREE_MAX_LEVELS + 1`` words."""
    return min(n_bytes // 4, JUDGE_MAX_SIDE * JUDGE_MAX_SIDE) // 63 + TREE_MAX_LEVELS + 1


def _token(buf, pos) -> str:
    """The number written at ``buf[pos]``, as the user wrote it (shortened past 30 digits)."""
    end = pos
    while end < buf.shape[0] and 48 <= buf[end] <= 57 and end - pos < 31:
        end += 1
    text = bytes(buf[pos:end]).decode("ascii")
    return text if len(text) <= 30 else f"{text[:30]}... (a number of more than 30 digits)"


_REASONS = {
    _J_CHAR: lambda facts: f"unexpected {facts['byte']} (expected a non-negative integer)",
    _J_BIG: lambda facts: f"board side n = {facts['token']} is too large (at most {JUDGE_MAX_SIDE})",
    _J_SIDE: lambda facts: f"board side n = {facts['token']}, expected n >= 1",
    _J_EOF: lambda facts: f"the input ends after {facts['value']} of the case's numbers (two grids of n*n)",
    _J_RANGE: lambda facts: f"{facts['which']} grid holds {facts['token']}, outside 0..n*n-1 (not a permutation)",
    _J_DUP: lambda facts: (
        f"{facts['which']} grid holds {'the blank (0)' if facts['value'] == 0 else 'tile ' + str(facts['value'])}"
        " twice (not a permutation)"
    ),
}


def judge(data, *, name="<stdin>") -> list[str]:
    """Answers (``"TAK"``/``"NIE"``) of the judge format, one per case.

    The input is repeated until its end: ``n``, then two ``n x n`` grids
    (0 = blank).  Each grid is validated (a permutation of ``0..n*n-1``); bad
    input raises :class:`~fastpuzzle.errors.BoardFileError` naming the
    line, the case and the problem.  A leading UTF-8 byte order mark is
    skipped.  A ``uint8`` array (a memory-mapped file) is read in place.

    Examples
    --------
    >>> judge(b"3\\n1 2 3\\n4 5 6\\n7 8 0\\n1 2 3\\n4 5 6\\n8 7 0\\n2\\n1 2\\n3 0\\n0 1\\n3 2\\n")
    ['NIE', 'TAK']
    """
    verdicts = judge_verdicts(data, name=name)
    return ["TAK" if v else "NIE" for v in verdicts.tolist()]


def judge_verdicts(data, *, name="<stdin>") -> np.ndarray:
    """:func:`judge` as a ``uint8`` array (1 = TAK, 0 = NIE), for writers
    that format many answers at once.

    Examples
    --------
    >>> judge_verdicts(b"2\\n1 2\\n3 0\\n0 1\\n3 2\\n").tolist()
    [1]
    """
    buf = _judge_buffer(data)
    out, k, err = _judged(buf)
    if err[0] != _J_OK:
        _refuse(buf, err, name)
    return out[:k]


def _judge_buffer(data):
    """``data`` as the judge reads it: a one-dimensional ``uint8`` array, byte order mark removed."""
    if not isinstance(data, (bytes, bytearray, memoryview, np.ndarray)):
        raise OptionTypeError("data", type(data).__name__, "must be bytes (or a uint8 array) for the judge")
    buf = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    if buf.dtype != np.uint8 or buf.ndim != 1:
        raise OptionTypeError("data", f"{buf.dtype} of {buf.ndim} dimension(s)", "must be bytes or a one-dimensional uint8 array for the judge")
    return strip_bom(buf)


def _judged(buf, scan_short=True):
    """``(verdicts, cases, err)`` of the judge's pass over ``buf`` (``scan_short``: a case cut
    short is scanned for its first bad number)."""
    out = np.empty(buf.shape[0] // 5 + 1, np.uint8)  # a case takes at least 5 bytes ("1 0 0")
    err = np.zeros(5, np.int64)
    words = np.empty(_tree_words(buf.shape[0]), np.uint64)
    k = _judge_bytes(buf, out, words, np.zeros(TREE_MAX_LEVELS + 1, np.int64), err)
    if err[0] == _J_SHORT and scan_short:  # a kernel of its own, compiled only when an input is short
        _scan_short_case(buf, np.int64(err[2]), np.int64(err[3]), np.int64(err[1]), err)
    return out, k, err


def _refuse(buf, err, name):
    code, case, pos, grid, value = (int(v) for v in err)
    line = int(np.count_nonzero(buf[:pos] == 10)) + 1
    facts = {"value": value, "grid": grid, "which": "first" if grid == 0 else "second",
             "byte": _describe_byte(buf, pos), "token": _token(buf, pos) if pos < buf.shape[0] else ""}
    raise BoardFileError(name, _REASONS[code](facts), line=line, case=case + 1)


def judge_prefix(data, *, name="<stdin>") -> None:
    """Raise what :func:`judge_verdicts` would for an input that begins with ``data`` (bytes read
    so far from a stream), where the rest cannot change it: a bad number, a duplicate or a side
    out of range in a case wholly read.  A stream that goes wrong early is then refused there,
    not after it was read to its end (``yes 7 | fastpuzzle reach --judge`` would fill the memory).
    A case longer than ``data`` is judged once it has all arrived (its first error in reading
    order may lie past the cut).

    Examples
    --------
    >>> judge_prefix(b"2\\n1 2\\n3 0\\n0 1")  # cut short: nothing wrong yet
    >>> judge_prefix(b"2\\n1 2\\n2 0\\n0 1\\n3 2\\n2\\n")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.BoardFileError: <stdin>: line 3 (case 1): first grid holds tile 2 twice (not a permutation)
    """
    buf = _judge_buffer(data)
    text = data if isinstance(data, (bytes, bytearray)) else buf.tobytes()  # searched in place, not copied
    skipped = len(text) - buf.shape[0]  # a byte order mark
    cut = max(text.rfind(c) for c in (b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c")) + 1 - skipped
    if cut <= 0:  # no whole number yet (or no number at all: the reader refuses that at its first byte)
        return
    _, _, err = _judged(buf[:cut], scan_short=False)
    if err[0] not in (_J_OK, _J_EOF, _J_SHORT):  # found by the pass, in a case the cut left whole
        _refuse(buf[:cut], err, name)


def _describe_byte(data, pos):
    b = int(data[pos]) if pos < len(data) else None
    if b is None:
        return "end of input"
    return repr(chr(b)) if 32 <= b < 127 else f"byte 0x{b:02x}"
