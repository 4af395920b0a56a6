"""The boards near the goal, layer by layer: exact draws of easy puzzles on 13 to 16 cells.

Boards of more than 12 cells have no whole-space table, and drawing random
boards and solving them (:mod:`~fastpuzzle.distances.sample`) never meets a
board at a small distance: on 4x4 about 1 board in 10^6 lies within 30 moves
of the goal. But the first layers of the breadth-first search from the goal
are small (4x4: 1, 2, 4, 10, 24, ... 10.8 million boards at distance 23), so
they are enumerated exactly: a board is packed into one ``uint64`` (4 bits
per cell), layer ``d + 1`` is the set of neighbours of layer ``d`` minus
layer ``d - 1`` (the move graph is bipartite, so no neighbour of layer ``d``
lies in layer ``d`` itself), and each layer is kept sorted and unique. A draw
is then a uniform index into the layers ``lo .. hi``: exact, with no
rejection.

Layers are built until one would hold more than :data:`MAX_LAYER` boards;
a request past that depth is refused (:class:`LayerLimitError`) with the
depth reached. The layers of the goals asked for last stay in memory (up to
:data:`CACHE_BYTES`), so repeated draws cost one gather.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..errors import LayerLimitError
from ..errors import OptionError, ShapeError
from ..memory import check_allocation
from ..moves import NO_PREVIOUS, successor_tables

__all__ = ["MAX_NEAR_CELLS", "MAX_LAYER", "layers_near_goal", "unpack_boards"]

#: Boards of at most 16 cells pack into one ``uint64`` (4 bits per cell).
MAX_NEAR_CELLS = 16
#: The largest layer built: 4x4 reaches distance 23 (10.8 million boards; about
#: 0.5 GB at the peak, 3 s of CPU), the next layer would hold 19.8 million.
MAX_LAYER = 12_000_000
#: Marks a move off the board in the neighbour array (no board packs to it: 16 cells of 15).
_NONE = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


@jit
def _pack(flat, out):
    for b in range(flat.shape[0]):
        v = np.uint64(0)
        for c in range(flat.shape[1]):
            v |= np.uint64(flat[b, c]) << np.uint64(4 * c)
        out[b] = v


@jit
def _unpack(packed, n_cells, out):
    for b in range(packed.shape[0]):
        v = packed[b]
        for c in range(n_cells):
            out[b, c] = (v >> np.uint64(4 * c)) & np.uint64(15)


@jit
def _neighbours(layer, n_cells, count, packed, no_previous, out):
    """The four neighbours of every board of ``layer`` (``_NONE`` for moves off the board);
    ``count``/``packed``: :func:`fastpuzzle.moves.successor_tables` read at ``no_previous``."""
    for i in range(layer.shape[0]):
        s = layer[i]
        blank = 0
        for c in range(n_cells):
            if (s >> np.uint64(4 * c)) & np.uint64(15) == 0:
                blank = c
                break
        row = (blank * 5 + no_previous) * 4  # every legal move: no move to undo
        k_legal = count[blank * 5 + no_previous]
        for k in range(4):
            if k < k_legal:
                cell = packed[row + k] >> 2
                tile = (s >> np.uint64(4 * cell)) & np.uint64(15)
                # the tile slides from ``cell`` into the blank: its nibble moves
                out[4 * i + k] = (s & ~(np.uint64(15) << np.uint64(4 * cell))) | (tile << np.uint64(4 * blank))
            else:
                out[4 * i + k] = _NONE


def pack_boards(flat) -> np.ndarray:
    """Boards ``(B, N)`` with ``N <= 16`` as ``uint64`` codes (cell ``c`` in bits ``4c .. 4c+3``)."""
    flat = np.ascontiguousarray(flat)
    out = np.empty(flat.shape[0], np.uint64)
    _pack(flat, out)
    return out


def unpack_boards(codes, m: int, n: int, dtype=np.uint8) -> np.ndarray:
    """Boards ``(B, m, n)`` of ``uint64`` codes (the inverse of the packing above)."""
    codes = np.ascontiguousarray(codes, np.uint64)
    out = np.empty((codes.shape[0], m * n), dtype)
    _unpack(codes, m * n, out)
    return out.reshape(-1, m, n)


_CACHE: dict = {}
#: Bytes the layers of recent goals may keep beyond the last goal's (a random-goal curriculum
#: draws for a few goals in turn: one per orbit of the blank's cell under the board's symmetries).
CACHE_BYTES = 1 << 30


def layers_near_goal(goal, depth: int, *, hint: str = "") -> list[np.ndarray]:
    """The layers ``0 .. depth`` of the breadth-first search from ``goal``.

    Parameters
    ----------
    goal : ndarray (m, n)
        A valid goal board of at most :data:`MAX_NEAR_CELLS` cells (validated
        by the caller).
    depth : int
        The last distance wanted.
    hint : str
        Appended to the message of a :class:`LayerLimitError`.

    Returns
    -------
    list of ndarray of uint64
        ``layers[d]``: the packed boards at optimal distance ``d``, sorted.

    Raises
    ------
    LayerLimitError
        When a layer up to ``depth`` would hold more than :data:`MAX_LAYER` boards.

    Examples
    --------
    >>> from fastpuzzle.boards import goal_board
    >>> [len(layer) for layer in layers_near_goal(goal_board(4, 4), 6)]
    [1, 2, 4, 10, 24, 54, 107]
    """
    goal = np.asarray(goal)
    m, n = goal.shape
    if m * n > MAX_NEAR_CELLS:
        raise ShapeError((m, n), f"layers near the goal pack boards of at most {MAX_NEAR_CELLS} cells, got {m}x{n}",
                         expected=MAX_NEAR_CELLS)  # fmt: skip
    key = (m, n, goal.astype(np.int64).tobytes())
    layers = _CACHE.pop(key, None)
    if layers is None:
        layers = [pack_boards(goal.reshape(1, -1))]
    _CACHE[key] = layers  # the most recent last
    count, packed = successor_tables(m, n)
    while len(layers) <= depth:
        last = layers[-1]
        check_allocation(3 * 4 * last.shape[0] * 8, f"the neighbours of {last.shape[0]:,} boards")
        nxt = np.empty(4 * last.shape[0], np.uint64)
        _neighbours(last, m * n, count, packed, NO_PREVIOUS, nxt)
        nxt.sort()  # sort and drop repeats: np.unique is many times slower on uint64 here
        if nxt.shape[0] > 1:
            nxt = nxt[np.concatenate(([True], nxt[1:] != nxt[:-1]))]
        if nxt.shape[0] and nxt[-1] == _NONE:
            nxt = nxt[:-1]
        if len(layers) >= 2:  # drop the boards of the layer before (bipartite graph)
            before = layers[-2]
            at = np.searchsorted(before, nxt)
            at[at == before.shape[0]] = 0
            nxt = nxt[before[at] != nxt] if before.shape[0] else nxt
        if nxt.shape[0] > MAX_LAYER:
            raise LayerLimitError((m, n), depth, len(layers) - 1, nxt.shape[0], MAX_LAYER, hint)
        layers.append(nxt)
    while len(_CACHE) > 1 and sum(sum(layer.nbytes for layer in kept) for kept in _CACHE.values()) > CACHE_BYTES:
        del _CACHE[next(iter(_CACHE))]  # the goal asked for longest ago
    return layers[: depth + 1]


def random_near_goal(goal, lo: int, hi: int, count: int, rng, *, hint: str = "", return_depths: bool = False):
    """``count`` boards uniform over the boards at distance ``lo .. hi`` of ``goal``
    (and, with ``return_depths``, the exact distance of each, ``int64``).

    Raises ``ValueError`` when no board lies in the range (the layers end
    first: only on boards with very few states) and :class:`LayerLimitError`
    past the enumerated depth.

    Examples
    --------
    >>> from fastpuzzle.boards import goal_board
    >>> b = random_near_goal(goal_board(4, 4), 3, 3, 5, np.random.default_rng(1))
    >>> b.shape
    (5, 4, 4)
    """
    goal = np.asarray(goal)
    m, n = goal.shape
    layers = layers_near_goal(goal, hi, hint=hint)
    sizes = np.array([layers[d].shape[0] for d in range(lo, hi + 1)], np.int64)
    total = int(sizes.sum())
    if total == 0:
        raise OptionError("distance", lo if lo == hi else (lo, hi), f"names no {m}x{n} board")
    js = rng.integers(0, total, size=count, dtype=np.int64)
    ends = np.cumsum(sizes)
    which = np.searchsorted(ends, js, side="right")
    codes = np.empty(count, np.uint64)
    for i, d in enumerate(range(lo, hi + 1)):
        pick = which == i
        if pick.any():
            codes[pick] = layers[d][js[pick] - (ends[i] - sizes[i])]
    boards = unpack_boards(codes, m, n, goal.dtype)
    return (boards, which.astype(np.int64) + lo) if return_depths else boards
