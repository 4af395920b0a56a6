"""Random-number kernels of :mod:`fastpuzzle.generate`: xoshiro256** streams,
Lemire's unbiased bounded integers, and the per-block kernels that shuffle
goals and walk the blank.

Block ``k`` of a batch gets its own stream, seeded by hashing the 128-bit key
of the user's seed together with ``k`` (:func:`stream_state`), so results do
not depend on the thread count.  The entry points (``*_serial``) fill a
batch block by block; their callers in :mod:`fastpuzzle.generate` check every
argument first, and run them on threads over whole blocks
(:func:`fastpuzzle._jit.split_threads`: no ``prange`` twin to compile).
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, jit_inner
from ..interrupt import stop_requested
from ..moves import step_cell, undo_code

_U64 = np.uint64
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@jit_inner
def mix64(z):
    """splitmix64's finaliser: a well-mixed 64-bit word of a counter (the one home of the mixer)."""
    z = (z ^ (z >> _U64(30))) * _M1
    z = (z ^ (z >> _U64(27))) * _M2
    return z ^ (z >> _U64(31))


@jit
def stream_state(k0, k1, block):
    """xoshiro256** state of stream ``block`` under key ``(k0, k1)``."""
    x = mix64(k1 ^ mix64(k0 + _U64(block) * _GOLDEN))
    x += _GOLDEN
    s0 = mix64(x)
    x += _GOLDEN
    s1 = mix64(x)
    x += _GOLDEN
    s2 = mix64(x)
    x += _GOLDEN
    s3 = mix64(x)
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


#: ``fix`` of the shuffle kernels: plain permutations, or boards that reach the goal.
PLAIN_PERMUTATIONS = 0
REACHABLE_ONLY = 1


@jit_inner  # called once: written into shuffle_serial, not compiled apart
def _shuffle_block(out, goal_flat, start, stop, k0, k1, block, fix, m, n, gr, gc):
    """Boards ``start..stop-1`` of ``out`` (B, N): shuffles of the goal.

    ``fix``: :data:`PLAIN_PERMUTATIONS`, or :data:`REACHABLE_ONLY` (parity
    fixed by swapping two fixed tiles).
    """
    N = goal_flat.shape[0]
    nn = _U64(n)
    s0, s1, s2, s3 = stream_state(k0, k1, block)
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
    s0, s1, s2, s3 = stream_state(k0, k1, block)
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
def shuffle_serial(out, goal_flat, bsize, first_block, k0, k1, fix, m, n, gr, gc):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _shuffle_block(out, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, fix, m, n, gr, gc)


@jit
def line_serial(out, tiles, bsize, first_block, k0, k1):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _line_block(out, tiles, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k)


# ---------------------------------------------------------------------------
# kernels: scrambles
# ---------------------------------------------------------------------------


@jit
def _scramble_block(out, codes, walk_length, goal_flat, start, stop, k0, k1, block, m, n, gblank):
    """Random walks of ``walk_length`` moves from the goal, no immediate undo.

    A move that undoes the previous one is only taken at a dead end (a 1-row
    or 1-column board with the blank at an end), where it is the only move.
    ``codes`` (B, walk_length) receives the walks, or is empty (0, 0) when
    the caller did not ask for them: the walk is the same either way.
    """
    N = goal_flat.shape[0]
    K = walk_length
    keep = codes.shape[0] != 0
    s0, s1, s2, s3 = stream_state(k0, k1, block)
    opts = np.empty(4, np.intp)
    for b in range(start, stop):
        a = out[b]
        for i in range(N):
            a[i] = goal_flat[i]
        r = gblank // n
        c = gblank - r * n
        prev = -1
        for k in range(K):
            if (k & 0xFFFF) == 0 and stop_requested():  # a signal: stop (the caller raises)
                return
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
                opts[0] = undo_code(prev)
                cnt = 1
            if cnt == 1:
                mv = opts[0]
            else:
                x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                j, s0, s1, s2, s3 = _bounded(x >> _U64(32), _U64(cnt), s0, s1, s2, s3)
                mv = opts[np.intp(j)]
            nr, nc = step_cell(r, c, mv)
            t = nr * n + nc
            a[r * n + c] = a[t]
            a[t] = 0
            r, c = nr, nc
            if keep:
                codes[b, k] = mv
            prev = mv


@jit
def scramble_serial(out, codes, walk_length, goal_flat, bsize, first_block, k0, k1, m, n, gblank):
    B = out.shape[0]
    nblocks = (B + bsize - 1) // bsize
    for k in range(nblocks):
        _scramble_block(
            out, codes, walk_length, goal_flat, k * bsize, min(B, (k + 1) * bsize), k0, k1, first_block + k, m, n, gblank
        )
