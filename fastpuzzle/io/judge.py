"""The judge format: ``n``, then two ``n x n`` grids, repeated; answer ``TAK`` or ``NIE`` per case.

The input of the classic reachability problem.  A compiled kernel parses the
raw bytes and answers each case in the same pass.  Before a case's buffers
are allocated, its ``n`` is checked against the bytes left in the input (two
grids of ``n*n`` numbers take at least ``4*n*n - 1`` bytes), so a lone
``30000`` is refused at once instead of allocating a gigabyte.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..inversion_kernels import _invariant_tree, _popcount64, tree_levels
from .errors import BoardFileError
from .source import strip_bom
from .text import parse_text

__all__ = ["judge", "JUDGE_MAX_SIDE"]

_J_OK, _J_CHAR, _J_SIDE, _J_EOF, _J_RANGE, _J_DUP, _J_BIG = 0, 1, 2, 3, 4, 5, 6

#: Largest judge board side (n*n cells must fit the uint32 grid buffer).
JUDGE_MAX_SIDE = 46340
_JUDGE_MAX_SIDE = JUDGE_MAX_SIDE  # the kernel's global


@jit
def _is_space(c):
    return c == 32 or c == 10 or c == 13 or c == 9


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
        v = 0
        while pos < L:
            e = np.int64(buf[pos]) - 48
            if e < 0 or e > 9:
                break
            if v < N:
                v = v * 10 + e
            pos += 1
        if pos == start or (pos < L and not _is_space(buf[pos])):
            err[0], err[1], err[2], err[3] = _J_CHAR, case, pos, k // N
            return
        if v >= N:
            err[0], err[1], err[2], err[3], err[4] = _J_RANGE, case, start, k // N, v
            return
    err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, 1, 2 * N  # not reached: the input is short


@jit
def _judge_case(buf, pos, case, scratch, err):
    """Parse and answer the case whose ``n`` starts at or after ``buf[pos]``.

    ``buf`` must end with white space (a sentinel: digit loops need no bounds
    check).  Each grid is parsed into the compact ``uint32`` buffer
    ``cells`` with a range check, then the core branch-free parity-tree kernel
    (:func:`fastpuzzle.inversion_kernels._invariant_tree`) gives its
    invariant: inversion parity XOR the colour (row + col) of the blank's
    cell, conserved by every move and different between the two components
    of the state graph (n >= 2; for n = 1 both grids are the lone blank).  The
    tree's bottom level is the set of values seen, so a grid is a permutation
    iff it has ``n*n`` bits set: duplicates cost one popcount pass over
    ``n*n/64`` words.

    ``scratch`` = (cells, colour, words, offsets, n of colour) is reused
    between cases of the same size.  Returns ``(answer, new_pos, scratch)``:
    1 = TAK, 0 = NIE, -1 = end of input, -2 = error, with ``err`` =
    [code, case, byte position, grid, value] (for a duplicate: the grid's
    first and last byte in ``err[2]``, ``err[4]``).
    """
    cells, colour, words, offsets, cur_n = scratch
    L = buf.shape[0]
    while pos < L and _is_space(buf[pos]):
        pos += 1
    if pos >= L:
        return -1, pos, scratch
    start = pos
    n = 0
    while True:
        e = np.int64(buf[pos]) - 48
        if e < 0 or e > 9:
            break
        if n <= _JUDGE_MAX_SIDE:
            n = n * 10 + e
        pos += 1
    if pos == start or not _is_space(buf[pos]):
        err[0], err[1], err[2] = _J_CHAR, case, pos
        return -2, pos, scratch
    if n < 1:
        err[0], err[1], err[2], err[4] = _J_SIDE, case, start, n
        return -2, pos, scratch
    if n > _JUDGE_MAX_SIDE:
        err[0], err[1], err[2] = _J_BIG, case, start
        return -2, pos, scratch
    N = n * n
    if L - pos < 4 * N:  # too short for 2N numbers (a separator and a digit each): find the error, allocate nothing
        _scan_short_case(buf, pos, N, case, err)
        return -2, pos, scratch
    if n != cur_n:
        cur_n = n
        if cells.shape[0] < N:
            cells = np.empty(N, np.uint32)
        colour = np.empty(N, np.uint8)
        for i in range(N):
            colour[i] = ((i // n) + (i % n)) & 1
        offsets = tree_levels(N)
        words = np.empty(offsets[offsets.shape[0] - 1], np.uint64)
        scratch = (cells, colour, words, offsets, cur_n)
    grid = cells[:N]
    inv = 0
    for g in range(2):
        grid_start = pos
        for i in range(N):
            while pos < L and _is_space(buf[pos]):
                pos += 1
            if pos >= L:
                err[0], err[1], err[2], err[3], err[4] = _J_EOF, case, pos, g, g * N + i
                return -2, pos, scratch
            start = pos
            v = 0
            while True:
                e = np.int64(buf[pos]) - 48
                if e < 0 or e > 9:
                    break
                if v < N:  # beyond N the value is refused; the message re-reads its digits
                    v = v * 10 + e
                pos += 1
            if pos == start or not _is_space(buf[pos]):
                err[0], err[1], err[2], err[3] = _J_CHAR, case, pos, g
                return -2, pos, scratch
            if v >= N:
                err[0], err[1], err[2], err[3], err[4] = _J_RANGE, case, start, g, v
                return -2, pos, scratch
            grid[i] = v
        inv ^= _invariant_tree(grid, colour, words, offsets)
        seen = 0
        for w in range(offsets[1]):
            seen += _popcount64(words[w])
        if seen != N:
            err[0], err[1], err[2], err[3], err[4] = _J_DUP, case, grid_start, g, pos
            return -2, pos, scratch
    return (1 if inv == 0 else 0), pos, scratch


@jit
def _judge_bytes(buf, out, err):
    """The judge format straight from raw bytes, one pass, case after case.
    Returns the number of cases; stops at the first error (``err[0] != 0``)."""
    pos = 0
    case = 0
    scratch = (np.empty(0, np.uint32), np.empty(0, np.uint8), np.empty(0, np.uint64), np.zeros(2, np.int64), -1)
    while True:
        ans, pos, scratch = _judge_case(buf, pos, case, scratch, err)
        if ans < 0:
            return case
        out[case] = ans
        case += 1


def _duplicate_message(buf, lo, hi):
    """(line, value) of the first repeated value in the grid text ``buf[lo:hi]``."""
    vals, counts = parse_text(buf[lo:hi])
    first = {}
    for k, v in enumerate(vals.tolist()):
        if v in first:
            tok_line = int(np.searchsorted(np.cumsum(np.maximum(counts, 0)), k, side="right"))
            return int(np.count_nonzero(buf[:lo] == 10)) + 1 + tok_line, v
        first[v] = k
    return int(np.count_nonzero(buf[:lo] == 10)) + 1, -1


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


def judge(data, name="<stdin>") -> list[str]:
    """Answers (``"TAK"``/``"NIE"``) of the judge format, one per case.

    The input is repeated until its end: ``n``, then two ``n x n`` grids
    (0 = blank).  Each grid is validated (a permutation of ``0..n*n-1``); bad
    input raises :class:`~fastpuzzle.io.errors.BoardFileError` naming the
    line, the case and the problem.  A leading UTF-8 byte order mark is skipped.

    Examples
    --------
    >>> judge(b"3\\n1 2 3\\n4 5 6\\n7 8 0\\n1 2 3\\n4 5 6\\n8 7 0\\n2\\n1 2\\n3 0\\n0 1\\n3 2\\n")
    ['NIE', 'TAK']
    """
    if not isinstance(data, (bytes, bytearray, memoryview, np.ndarray)):
        raise TypeError(f"judge reads bytes (or a uint8 array), got {type(data).__name__}")
    buf = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    if buf.dtype != np.uint8 or buf.ndim != 1:
        raise TypeError(f"judge reads bytes or a one-dimensional uint8 array, got {buf.dtype} of {buf.ndim} dimension(s)")
    buf = strip_bom(buf)
    if buf.shape[0] and int(buf[-1]) not in (32, 10, 13, 9):
        buf = np.concatenate([buf, np.frombuffer(b"\n", np.uint8)])  # the kernel wants a trailing sentinel
    out = np.empty(buf.shape[0] // 5 + 1, np.uint8)  # a case takes at least 5 bytes ("1 0 0")
    err = np.zeros(5, np.int64)
    k = _judge_bytes(buf, out, err)
    if err[0] != _J_OK:
        code, case, pos, grid, value = (int(v) for v in err)
        line = int(np.count_nonzero(buf[:pos] == 10)) + 1
        if code == _J_DUP:
            line, value = _duplicate_message(buf, pos, value)
        facts = {"value": value, "grid": grid, "which": "first" if grid == 0 else "second",
                 "byte": _describe_byte(buf, pos), "token": _token(buf, pos) if pos < buf.shape[0] else ""}
        raise BoardFileError(name, _REASONS[code](facts), line=line, case=case + 1)
    return ["TAK" if v else "NIE" for v in out[:k]]


def _describe_byte(data, pos):
    b = int(data[pos]) if pos < len(data) else None
    if b is None:
        return "end of input"
    return repr(chr(b)) if 32 <= b < 127 else f"byte 0x{b:02x}"
