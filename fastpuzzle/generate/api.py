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

import numpy as np

from .. import options
from .._jit import split_threads, use_threads
from ..boards import as_goal, board_dtype, check_shape
from ..errors import OptionError, OptionTypeError
from ..interrupt import interruptible
from ..memory import check_allocation
from ..moves import MOVE_BYTES
from ..notation import check_metric
from .random_kernels import (
    PLAIN_PERMUTATIONS, REACHABLE_ONLY, line_serial, scramble_serial, shuffle_serial,
)  # fmt: skip

__all__ = ["random_solvable", "scramble", "random_permutations", "seed_key", "block_boards"]


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
    seed = options.seed(seed)  # the one check of a seed's type and range
    if isinstance(seed, np.random.Generator):
        words = seed.integers(0, 1 << 64, size=2, dtype=np.uint64, endpoint=False)
    elif isinstance(seed, np.random.SeedSequence):
        words = seed.generate_state(2, np.uint64)
    else:
        words = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    return int(words[0]), int(words[1])



# ---------------------------------------------------------------------------
# public API (and the checks the Dask twin shares)
# ---------------------------------------------------------------------------


def check_count(count):
    """A board count: None (one board) or an integer >= 0.

    Examples
    --------
    >>> check_count(3), check_count(None)
    (3, None)
    """
    return options.count(count, none=True)


def prepare_shape_goal(m, n, goal, count=1):
    """Validated ``(m, n, goal_flat)`` for making ``count`` boards, refusing
    sizes the machine cannot hold before anything is allocated.

    Examples
    --------
    >>> prepare_shape_goal(2, 2, None)
    (2, 2, array([1, 2, 3, 0], dtype=uint8))
    """
    m, n = check_shape(m, n)
    itemsize = board_dtype(m * n).itemsize
    # The goal takes one board; goal_board builds it through an int64 range.
    check_allocation(m * n * (itemsize + 8), f"a {m}x{n} goal board")
    check_allocation(max(count, 1) * m * n * itemsize, f"{count:,} boards of {m}x{n}")
    g = as_goal(goal, m, n)
    return m, n, np.ascontiguousarray(g.ravel())


def _by_blocks(kernel, out, codes, bsize, first_block, threads):
    """``kernel(out_part, codes_part, first_block_of_part)`` on whole blocks of
    ``out`` (and of ``codes`` unless it is None or empty), on threads when
    ``threads``: block ``b`` keeps its stream whatever the split."""

    def part(lo, hi):
        c = codes if codes is None or codes.shape[0] == 0 else codes[lo:hi]
        kernel(out[lo:hi], c, first_block + lo // bsize)

    if threads:
        split_threads(part, out.shape[0], align=bsize)
    else:
        part(0, out.shape[0])


def fill_random(out, goal_flat, m, n, key, first_block, fix):
    """Fill ``out`` (B, N) with blocks ``first_block ...`` of the stream ``key``
    (arguments already validated; the Dask twin calls this per chunk)."""
    B, N = out.shape
    if B == 0:
        return out
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    bsize = block_boards(m, n)
    par = use_threads(B * N) and B > bsize
    if fix and (m == 1 or n == 1):
        tiles = goal_flat[goal_flat != 0].copy()
        _by_blocks(lambda o, _, b: line_serial(o, tiles, bsize, b, k0, k1), out, None, bsize, first_block, par)
        return out
    gb = int(np.flatnonzero(goal_flat == 0)[0])
    gr, gc = gb // n, gb % n
    fix_code = REACHABLE_ONLY if fix else PLAIN_PERMUTATIONS
    _by_blocks(lambda o, _, b: shuffle_serial(o, goal_flat, bsize, b, k0, k1, fix_code, m, n, gr, gc),
               out, None, bsize, first_block, par)
    return out


def random_solvable(m, n, *, count=None, seed=None, goal=None, distance=None, metric="stm"):
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
        cells (tables); on 13 to 16 cells exact near the goal (4x4: up to
        distance 23), and on 4x4 by rejection (optimal solves) farther out.
    metric : {"stm", "mtm"}
        The metric of ``distance``: single-tile moves, or multi-tile moves
        (a row or column segment slid at once; boards of at most 12 cells).

    Returns
    -------
    ndarray
        ``(m, n)`` or ``(count, m, n)`` in the smallest unsigned dtype.

    Raises
    ------
    TypeError
        If a side, the count or the seed is not an integer (``bool`` and
        ``float`` included) or of an accepted seed type.
    ValueError
        If a side or the count is out of range, the goal is malformed, or the
        boards would need more bytes than the memory available (checked before
        allocating).

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
    count = check_count(count)
    metric = check_metric(metric)  # checked with or without distance=
    B = 1 if count is None else count
    m, n, goal_flat = prepare_shape_goal(m, n, goal, B)
    key = seed_key(seed)
    if distance is not None:
        from ..distances import sample

        lo, hi = sample.check_distance(distance, m, n)
        out = sample.random_at_distance(m, n, B, key, goal_flat.reshape(m, n), lo, hi, metric=metric)
        return out[0] if count is None else out
    out = np.empty((B, m * n), board_dtype(m * n))
    fill_random(out, goal_flat, m, n, key, 0, True)
    out = out.reshape(B, m, n)
    return out[0] if count is None else out


def random_permutations(m, n, *, count=None, seed=None, goal=None):
    """Uniformly random ``m x n`` boards, reachable or not (about half are not
    when ``m, n >= 2``).  Same seeding rules and argument checks as
    :func:`random_solvable`.

    Examples
    --------
    >>> random_permutations(2, 2, count=2, seed=1).shape
    (2, 2, 2)
    """
    count = check_count(count)
    B = 1 if count is None else count
    m, n, goal_flat = prepare_shape_goal(m, n, goal, B)
    key = seed_key(seed)
    out = np.empty((B, m * n), board_dtype(m * n))
    fill_random(out, goal_flat, m, n, key, 0, False)
    out = out.reshape(B, m, n)
    return out[0] if count is None else out


def _fill_scramble(out, codes, walk_length, goal_flat, m, n, key, first_block):
    """Scrambles into ``out``; the walks into ``codes`` (B, walk_length), or
    nowhere when ``codes`` is empty (0, 0)."""
    B, N = out.shape
    if B == 0:
        return
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    bsize = block_boards(m, n)
    par = use_threads(B * max(N, walk_length)) and B > bsize
    gb = int(np.flatnonzero(goal_flat == 0)[0])
    with interruptible(B * walk_length >= 1 << 16):  # long walks: SIGINT/SIGTERM stop the kernel
        _by_blocks(lambda o, c, b: scramble_serial(o, c, walk_length, goal_flat, bsize, b, k0, k1, m, n, gb),
                   out, codes, bsize, first_block, par)


def _no_walks():
    return np.empty((0, 0), np.uint8)


def _check_return_moves(return_moves):
    if isinstance(return_moves, (bool, np.bool_)):
        return bool(return_moves)
    if isinstance(return_moves, str):
        if return_moves != "codes":
            raise OptionError("return_moves", return_moves, "must be False, True or 'codes'")
        return return_moves
    raise OptionTypeError("return_moves", return_moves, "must be False, True or 'codes'")


#: The longest walk :func:`scramble` takes: about half a minute a board on one core.
MAX_WALK = 10**9


def _walk_length(moves, name: str) -> int:
    """A walk's length: an integer from 0 to :data:`MAX_WALK`."""
    walk_length = options.count(moves, name)
    if walk_length > MAX_WALK:
        raise OptionError(name, moves, f"must be at most {MAX_WALK:,} moves a walk "
                          "(random_solvable draws uniform boards at once)")
    return walk_length


def scramble(m, n, moves, *, count=None, seed=None, goal=None, return_moves=False):
    """Random walks of ``moves`` blank moves from ``goal``.

    No move undoes the one before it (except at the dead end of a board with
    one row or one column, where the undo is the only legal move).  Every
    result can reach ``goal`` by construction.  The walks are kept only with
    ``return_moves`` (they take ``count * moves`` bytes).

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

    Raises
    ------
    TypeError, ValueError
        As for :func:`random_solvable`; also for ``moves`` (an integer from 0 to :data:`MAX_WALK`)
        and ``return_moves``, and when the walks asked for would not fit in
        memory.

    Examples
    --------
    >>> from fastpuzzle import apply_moves, goal_board
    >>> board, walk = scramble(3, 3, 20, seed=1, return_moves=True)
    >>> len(walk)
    20
    >>> bool((apply_moves(goal_board(3, 3), walk) == board).all())
    True
    """
    count = check_count(count)
    walk_length = _walk_length(moves, "moves")
    return_moves = _check_return_moves(return_moves)
    B = 1 if count is None else count
    m, n, goal_flat = prepare_shape_goal(m, n, goal, B)
    if return_moves:
        # codes, then (as strings) their letters and one str object each (about 60 bytes + the letters)
        per_walk = walk_length if return_moves == "codes" else 3 * walk_length + 72
        check_allocation(B * per_walk, f"{B:,} walks of {walk_length:,} moves")
    key = seed_key(seed)
    out = np.empty((B, m * n), board_dtype(m * n))
    codes = np.empty((B, walk_length), np.uint8) if return_moves else _no_walks()
    _fill_scramble(out, codes, walk_length, goal_flat, m, n, key, 0)
    out = out.reshape(B, m, n)
    boards = out[0] if count is None else out
    if not return_moves:
        return boards
    if return_moves == "codes":
        return boards, (codes[0] if count is None else codes)
    text = MOVE_BYTES[codes]
    strings = [row.tobytes().decode("ascii") for row in text]
    return boards, (strings[0] if count is None else strings)


def generate_chunks(m, n, count, *, seed=None, goal=None, scramble_moves=None, chunk_boards=None, kind="solvable"):
    """Yield ``(start, boards)`` chunks of one batch, identical to the batch
    made in one call with the same seed (chunks are whole stream blocks).

    ``kind`` is ``"solvable"`` or ``"permutations"``; with ``scramble_moves``
    set the boards are scrambles of that length (their walks are not kept).
    ``chunk_boards`` (>= 1, rounded to whole blocks) bounds the memory.  Used
    by the command line to write huge files with a progress bar.  Arguments
    are checked on the call, before the first chunk is made.

    Examples
    --------
    >>> parts = [b for _, b in generate_chunks(4, 4, 10000, seed=1, chunk_boards=4096)]
    >>> [len(b) for b in parts]
    [4096, 4096, 1808]
    >>> bool((np.concatenate(parts) == random_solvable(4, 4, count=10000, seed=1)).all())
    True
    """
    count = options.count(count)
    walk_length = None if scramble_moves is None else _walk_length(scramble_moves, "scramble_moves")
    chunk_boards = options.positive(chunk_boards, "chunk_boards", none=True)
    options.choice(kind, "kind", ("solvable", "permutations"))
    m, n, goal_flat = prepare_shape_goal(m, n, goal, 1)  # one chunk at a time is held
    key = seed_key(seed)
    bsize = block_boards(m, n)
    if chunk_boards is None:
        chunk_boards = max(1, (1 << 22) // (m * n))
    chunk_boards = max(bsize, (chunk_boards // bsize) * bsize)  # whole blocks
    check_allocation(min(chunk_boards, count) * m * n * board_dtype(m * n).itemsize, "one chunk of boards")
    return _chunks(m, n, count, goal_flat, key, bsize, chunk_boards, walk_length, kind)


def _chunks(m, n, count, goal_flat, key, bsize, chunk_boards, walk_length, kind):
    dtype = board_dtype(m * n)
    for start in range(0, count, chunk_boards):
        B = min(chunk_boards, count - start)
        out = np.empty((B, m * n), dtype)
        first = start // bsize
        if walk_length is not None:
            _fill_scramble(out, _no_walks(), walk_length, goal_flat, m, n, key, first)
        else:
            fill_random(out, goal_flat, m, n, key, first, kind == "solvable")
        yield start, out.reshape(B, m, n)
