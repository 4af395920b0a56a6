"""Random boards: uniform over the boards that can reach a goal, and scrambles.

:func:`random_solvable` draws a uniformly random permutation of the goal's
cells (Fisher-Yates with Lemire's unbiased bounded integers) and, when the
result lies in the other half of the state space, swaps two fixed tiles.  The
swap is an involution that flips the parity invariant and keeps the blank in
place, so it maps the unreachable boards one-to-one onto the reachable ones and
the result stays uniform over all boards that can reach the goal.  The parity
is known for free: every Fisher-Yates step with ``j != i`` is a transposition,
and moving the blank one step is also a transposition, so a board reaches the
goal iff (number of transpositions) and (rows + columns the blank moved) have
the same parity.

:func:`scramble` walks the blank randomly from the goal, never undoing the
previous move.

Reproducibility: a batch is cut into blocks whose size depends only on the
board shape (never on the thread count).  Block ``k`` gets its own
xoshiro256** stream, seeded by hashing the 128-bit key derived from the
user's seed together with ``k``.  The same seed therefore gives the same boards
with any number of threads, and a prefix of a batch does not depend on how
many boards follow it (``random_solvable(m, n, 10, seed=s)[:5]`` equals
``random_solvable(m, n, 5, seed=s)``).
"""

from __future__ import annotations

import numba
import numpy as np

from ._jit import jit, pjit, use_threads
from .boards import _check_shape, as_goal, board_dtype
from .moves import MOVE_CHARS, _step

__all__ = ["random_solvable", "scramble", "random_permutations", "seed_key", "block_boards"]

_U64 = np.uint64
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

#: A block holds about this many cells (at least one board): big enough that
#: seeding a stream is negligible, small enough to spread over threads.
BLOCK_CELLS = 1 << 16


def block_boards(m: int, n: int) -> int:
    """Boards per random stream for ``m x n`` boards (depends on the shape only).

    Examples
    --------
    >>> block_boards(4, 4), block_boards(100, 100), block_boards(300, 300)
    (4096, 6, 1)
    """
    return max(1, BLOCK_CELLS // (m * n))


# ---------------------------------------------------------------------------
# random streams
# ---------------------------------------------------------------------------


def seed_key(seed) -> tuple[int, int]:
    """The 128-bit key ``(k0, k1)`` of a seed.

    ``seed`` may be None (fresh entropy from the OS), an int, a
    :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`
    (which is advanced by one draw of two words, like any use of a generator).

    Examples
    --------
    >>> seed_key(5) == seed_key(np.random.SeedSequence(5))
    True
    """
    if isinstance(seed, np.random.Generator):
        words = seed.integers(0, 1 << 64, size=2, dtype=np.uint64, endpoint=False)
    elif isinstance(seed, np.random.SeedSequence):
        words = seed.generate_state(2, np.uint64)
    elif seed is None or isinstance(seed, (int, np.integer)):
        if seed is not None and int(seed) < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        words = np.random.SeedSequence(None if seed is None else int(seed)).generate_state(2, np.uint64)
    else:
        raise TypeError(
            f"seed must be None, an int, a numpy.random.SeedSequence or a numpy.random.Generator, "
            f"got {type(seed).__name__}"
        )
    return int(words[0]), int(words[1])


@jit
def _mix64(z):
    z = (z ^ (z >> _U64(30))) * _M1
    z = (z ^ (z >> _U64(27))) * _M2
    return z ^ (z >> _U64(31))


@jit
def _stream(k0, k1, block):
    """xoshiro256** state of stream ``block`` under key ``(k0, k1)``."""
    x = _mix64(k1 ^ _mix64(k0 + _U64(block) * _GOLDEN))
    x += _GOLDEN
    s0 = _mix64(x)
    x += _GOLDEN
    s1 = _mix64(x)
    x += _GOLDEN
    s2 = _mix64(x)
    x += _GOLDEN
    s3 = _mix64(x)
    return s0, s1, s2, s3


@jit
def _rotl(x, k):
    return (x << _U64(k)) | (x >> _U64(64 - k))


@jit
def _next(s0, s1, s2, s3):
    """One xoshiro256** output and the new state."""
    r = _rotl(s1 * _U64(5), 7) * _U64(9)
    t = s1 << _U64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return r, s0, s1, s2, s3


@jit
def _bounded(x, s, s0, s1, s2, s3):
    """Uniform integer in ``[0, s)`` from the 32 random bits ``x`` (Lemire).

    ``s <= 2**32``.  The rare rejected draws take fresh 32-bit words from the
    stream, so the result is exactly uniform.
    """
    p = x * s
    low = p & _MASK32
    if low < s:
        t = (_TWO32 - s) % s
        while low < t:
            r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            p = (r >> _U64(32)) * s
            low = p & _MASK32
    return p >> _U64(32), s0, s1, s2, s3


# ---------------------------------------------------------------------------
# kernels: random boards
# ---------------------------------------------------------------------------


@jit
def _shuffle_block(out, goal_flat, start, stop, k0, k1, block, fix, m, n, gr, gc):
    """Boards ``start..stop-1`` of ``out`` (B, N): shuffles of the goal.

    ``fix``: 0 = plain permutations, 1 = reachable from the goal (parity fixed
    by swapping two fixed tiles).
    """
    N = goal_flat.shape[0]
    nn = _U64(n)
    s0, s1, s2, s3 = _stream(k0, k1, block)
    for b in range(start, stop):
        a = out[b]
        for i in range(N):
            a[i] = goal_flat[i]
        parity = 0
        blank = 0
        i = N - 1
        while i >= 1:
            r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            j, s0, s1, s2, s3 = _bounded(r & _MASK32, _U64(i + 1), s0, s1, s2, s3)
            jj = np.intp(j)
            if jj != i:
                parity ^= 1
                v = a[i]
                a[i] = a[jj]
                a[jj] = v
            if a[i] == 0:
                blank = i
            i -= 1
            if i >= 1:
                j, s0, s1, s2, s3 = _bounded(r >> _U64(32), _U64(i + 1), s0, s1, s2, s3)
                jj = np.intp(j)
                if jj != i:
                    parity ^= 1
                    v = a[i]
                    a[i] = a[jj]
                    a[jj] = v
                if a[i] == 0:
                    blank = i
                i -= 1
        if fix:
            br = np.intp(_U64(blank) // nn)
            bc = blank - br * n
            colour = (br + bc + gr + gc) & 1
            if parity != colour:
                # A fixed pair of cells, chosen by the blank's cell only: the
                # map is an involution, hence a bijection onto reachable boards.
                if blank >= 2:
                    v = a[0]
                    a[0] = a[1]
                    a[1] = v
                else:
                    v = a[N - 2]
                    a[N - 2] = a[N - 1]
                    a[N - 1] = v


@jit
def _line_block(out, tiles, start, stop, k0, k1, block):
    """1-row / 1-column boards: the blank in a uniform cell, tiles in goal order."""
    N = tiles.shape[0] + 1
    s0, s1, s2, s3 = _stream(k0, k1, block)
    for b in range(start, stop):
        r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        p, s0, s1, s2, s3 = _bounded(r & _MASK32, _U64(N), s0, s1, s2, s3)
        pos = np.intp(p)
        a = out[b]
        for i in range(pos):
            a[i] = tiles[i]
        a[pos] = 0
        for i in range(pos + 1, N):
            a[i] = tiles[i - 1]


@jit
def _shuffle_serial(out, goal_flat, bsize, first_block, k0, k1, fix, m, n, gr, gc):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _shuffle_block(out, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, fix, m, n, gr, gc)


@pjit
def _shuffle_parallel(out, goal_flat, bsize, first_block, k0, k1, fix, m, n, gr, gc):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in numba.prange(nblocks):
        _shuffle_block(out, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, fix, m, n, gr, gc)


@jit
def _line_serial(out, tiles, bsize, first_block, k0, k1):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _line_block(out, tiles, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k)


@pjit
def _line_parallel(out, tiles, bsize, first_block, k0, k1):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in numba.prange(nblocks):
        _line_block(out, tiles, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k)


# ---------------------------------------------------------------------------
# kernels: scrambles
# ---------------------------------------------------------------------------


@jit
def _scramble_block(out, codes, goal_flat, start, stop, k0, k1, block, m, n, gblank):
    """Random walks of ``codes.shape[1]`` moves from the goal, no immediate undo.

    A move that undoes the previous one is only taken at a dead end (a 1-row
    or 1-column board with the blank at an end), where it is the only move.
    """
    N = goal_flat.shape[0]
    K = codes.shape[1]
    s0, s1, s2, s3 = _stream(k0, k1, block)
    opts = np.empty(4, np.intp)
    for b in range(start, stop):
        a = out[b]
        for i in range(N):
            a[i] = goal_flat[i]
        r = gblank // n
        c = gblank - r * n
        prev = -1
        for k in range(K):
            cnt = 0
            # Korf order 0=U, 1=L, 2=R, 3=D; the undo of code c is 3 - c.
            if r > 0 and prev != 3:
                opts[cnt] = 0
                cnt += 1
            if c > 0 and prev != 2:
                opts[cnt] = 1
                cnt += 1
            if c < n - 1 and prev != 1:
                opts[cnt] = 2
                cnt += 1
            if r < m - 1 and prev != 0:
                opts[cnt] = 3
                cnt += 1
            if cnt == 0:  # dead end: only the undo is legal
                opts[0] = 3 - prev
                cnt = 1
            if cnt == 1:
                mv = opts[0]
            else:
                x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                j, s0, s1, s2, s3 = _bounded(x >> _U64(32), _U64(cnt), s0, s1, s2, s3)
                mv = opts[np.intp(j)]
            nr, nc = _step(r, c, mv)
            t = nr * n + nc
            a[r * n + c] = a[t]
            a[t] = 0
            r, c = nr, nc
            codes[b, k] = mv
            prev = mv


@jit
def _scramble_serial(out, codes, goal_flat, bsize, first_block, k0, k1, m, n, gblank):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _scramble_block(out, codes, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, m, n, gblank)


@pjit
def _scramble_parallel(out, codes, goal_flat, bsize, first_block, k0, k1, m, n, gblank):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in numba.prange(nblocks):
        _scramble_block(out, codes, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, m, n, gblank)


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def _check_count(count):
    if count is None:
        return None
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"count must be None or a non-negative integer, got {count!r}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    return int(count)


def _prepare(m, n, goal):
    _check_shape(m, n)
    m, n = int(m), int(n)
    g = as_goal(goal, m, n)
    return m, n, np.ascontiguousarray(g.ravel())


def _fill_random(out, goal_flat, m, n, key, first_block, fix):
    """Fill ``out`` (B, N) with blocks ``first_block ...`` of the stream ``key``."""
    B, N = out.shape
    if B == 0:
        return out
    k0, k1 = _U64(key[0]), _U64(key[1])
    bsize = block_boards(m, n)
    par = use_threads(B * N) and B > bsize
    if fix and (m == 1 or n == 1):
        tiles = goal_flat[goal_flat != 0].copy()
        (_line_parallel if par else _line_serial)(out, tiles, bsize, first_block, k0, k1)
        return out
    gb = int(np.flatnonzero(goal_flat == 0)[0])
    gr, gc = gb // n, gb % n
    kern = _shuffle_parallel if par else _shuffle_serial
    kern(out, goal_flat, bsize, first_block, k0, k1, 1 if fix else 0, m, n, gr, gc)
    return out


def random_solvable(m, n, count=None, seed=None, goal=None, distance=None):
    """Boards drawn uniformly from all ``m x n`` boards that can reach ``goal``.

    Parameters
    ----------
    m, n : int
        Rows and columns.
    count : int, optional
        Number of boards.  None gives one ``(m, n)`` board.
    seed : None, int, SeedSequence or Generator
        Source of randomness.  The same seed gives the same boards whatever
        the thread count, and the first ``k`` boards of a batch do not depend
        on the batch size.
    goal : array_like (m, n), optional
        Target board (default: tiles in row-major order, blank last).
    distance : int or (int, int), optional
        Only boards at exactly this optimal distance from ``goal`` (or with a
        distance in ``lo .. hi``), uniform among them; see
        :mod:`fastpuzzle.distances.sample`.  Exact for boards of at most 12
        cells, by rejection (optimal solves) on 4x4.

    Returns
    -------
    ndarray
        ``(m, n)`` or ``(count, m, n)`` in the smallest unsigned dtype.

    Notes
    -----
    For ``m, n >= 2`` half of all permutations reach the goal; a random
    permutation on the wrong side has two fixed tiles swapped (a bijection),
    so every reachable board has probability ``2 / (m n)!``.  On a board with
    one row or one column no tile can pass another: the reachable boards keep
    the goal's tile order and differ only in the blank's cell, which is
    drawn uniformly.

    Examples
    --------
    >>> b = random_solvable(4, 4, count=3, seed=7)
    >>> b.shape, b.dtype
    ((3, 4, 4), dtype('uint8'))
    >>> bool((random_solvable(4, 4, count=3, seed=7) == b).all())
    True
    """
    count = _check_count(count)
    m, n, goal_flat = _prepare(m, n, goal)
    key = seed_key(seed)
    B = 1 if count is None else count
    if distance is not None:
        from .distances import sample

        lo, hi = sample.check_distance(distance, m, n)
        out = sample.random_at_distance(m, n, B, key, goal_flat.reshape(m, n), lo, hi)
        return out[0] if count is None else out
    out = np.empty((B, m * n), board_dtype(m * n))
    _fill_random(out, goal_flat, m, n, key, 0, True)
    out = out.reshape(B, m, n)
    return out[0] if count is None else out


def random_permutations(m, n, count=None, seed=None, goal=None):
    """Uniformly random ``m x n`` boards, reachable or not (about half are not
    when ``m, n >= 2``).  Same seeding rules as :func:`random_solvable`.

    Examples
    --------
    >>> random_permutations(2, 2, count=2, seed=1).shape
    (2, 2, 2)
    """
    count = _check_count(count)
    m, n, goal_flat = _prepare(m, n, goal)
    key = seed_key(seed)
    B = 1 if count is None else count
    out = np.empty((B, m * n), board_dtype(m * n))
    _fill_random(out, goal_flat, m, n, key, 0, False)
    out = out.reshape(B, m, n)
    return out[0] if count is None else out


def _fill_scramble(out, codes, goal_flat, m, n, key, first_block):
    B, N = out.shape
    if B == 0:
        return
    k0, k1 = _U64(key[0]), _U64(key[1])
    bsize = block_boards(m, n)
    par = use_threads(B * max(N, codes.shape[1])) and B > bsize
    gb = int(np.flatnonzero(goal_flat == 0)[0])
    (_scramble_parallel if par else _scramble_serial)(out, codes, goal_flat, bsize, first_block, k0, k1, m, n, gb)


def scramble(m, n, moves, count=None, seed=None, goal=None, return_moves=False):
    """Random walks of ``moves`` blank moves from ``goal``.

    No move undoes the one before it (except at the dead end of a board with
    one row or one column, where the undo is the only legal move).  Every
    result can reach ``goal`` by construction.

    Parameters
    ----------
    m, n : int
        Rows and columns.
    moves : int
        Length of each walk (>= 0).
    count : int, optional
        Number of boards; None gives one ``(m, n)`` board.
    seed : None, int, SeedSequence or Generator
        As for :func:`random_solvable`.
    goal : array_like (m, n), optional
        Start of the walks (default goal board).
    return_moves : bool or "codes"
        ``True``: also return the walks as move strings (a ``str`` for one
        board, else a list).  ``"codes"``: as a ``uint8`` array
        ``(count, moves)`` of move codes (0=U, 1=L, 2=R, 3=D).

    Returns
    -------
    boards : ndarray
        ``(m, n)`` or ``(count, m, n)``.
    walks : str, list of str or ndarray
        Only with ``return_moves``.  Letters name the direction the blank
        moved, so ``apply_moves(goal, walk)`` gives the board.

    Examples
    --------
    >>> from fastpuzzle import apply_moves, goal_board
    >>> board, walk = scramble(3, 3, 20, seed=1, return_moves=True)
    >>> len(walk)
    20
    >>> bool((apply_moves(goal_board(3, 3), walk) == board).all())
    True
    """
    count = _check_count(count)
    if isinstance(moves, bool) or not isinstance(moves, (int, np.integer)) or moves < 0:
        raise ValueError(f"moves must be a non-negative integer, got {moves!r}")
    if return_moves not in (False, True, "codes"):
        raise ValueError(f"return_moves must be False, True or 'codes', got {return_moves!r}")
    m, n, goal_flat = _prepare(m, n, goal)
    key = seed_key(seed)
    B = 1 if count is None else count
    out = np.empty((B, m * n), board_dtype(m * n))
    codes = np.empty((B, int(moves)), np.uint8)
    _fill_scramble(out, codes, goal_flat, m, n, key, 0)
    out = out.reshape(B, m, n)
    boards = out[0] if count is None else out
    if not return_moves:
        return boards
    if return_moves == "codes":
        return boards, (codes[0] if count is None else codes)
    table = np.frombuffer(MOVE_CHARS.encode(), np.uint8)
    text = table[codes]
    strings = [row.tobytes().decode("ascii") for row in text]
    return boards, (strings[0] if count is None else strings)


def generate_chunks(m, n, count, seed=None, goal=None, scramble_moves=None, chunk_boards=None, kind="solvable"):
    """Yield ``(start, boards)`` chunks of one batch, identical to the batch
    made in one call with the same seed (chunks are whole stream blocks).

    ``kind`` is ``"solvable"`` or ``"permutations"``; with ``scramble_moves``
    set the boards are scrambles of that length.  Used by the command line to
    write huge files with a progress bar and bounded memory.

    Examples
    --------
    >>> parts = [b for _, b in generate_chunks(4, 4, 10000, seed=1, chunk_boards=4096)]
    >>> [len(b) for b in parts]
    [4096, 4096, 1808]
    >>> bool((np.concatenate(parts) == random_solvable(4, 4, count=10000, seed=1)).all())
    True
    """
    count = _check_count(count)
    m, n, goal_flat = _prepare(m, n, goal)
    key = seed_key(seed)
    bsize = block_boards(m, n)
    if chunk_boards is None:
        chunk_boards = max(1, (1 << 22) // (m * n))
    chunk_boards = max(bsize, (chunk_boards // bsize) * bsize)  # whole blocks
    dtype = board_dtype(m * n)
    for start in range(0, count, chunk_boards):
        B = min(chunk_boards, count - start)
        out = np.empty((B, m * n), dtype)
        first = start // bsize
        if scramble_moves is not None:
            codes = np.empty((B, int(scramble_moves)), np.uint8)
            _fill_scramble(out, codes, goal_flat, m, n, key, first)
        else:
            _fill_random(out, goal_flat, m, n, key, first, kind == "solvable")
        yield start, out.reshape(B, m, n)
