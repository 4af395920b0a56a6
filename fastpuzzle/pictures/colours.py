"""Colour schemes of the pictures: one value per tile, then one colour per value.

A scheme gives every tile a number from the goal and the board alone:

=============  ===============================================================
``plain``      one colour for every tile
``rows``       the tile's goal row (a speedsolver solves row by row)
``columns``    the tile's goal column
``fringe``     the "fringe" the tile belongs to: the row or column a reduction
               solver finishes next (the longer side first, down to 2x2)
``distance``   how far the tile is from home (Manhattan distance): 0 is home
=============  ===============================================================

Categories (rows, columns, fringes) take evenly spaced hues; distances a
sequential ramp from dark blue (home) to yellow (farthest possible).  Colours
are computed here (``#rrggbb``), never named, so every renderer shows the same.
"""

from __future__ import annotations

import colorsys

import numpy as np

from ..boards import goal_cells
from ..errors import BoardError
from ..manhattan import tile_distances

__all__ = ["SCHEMES", "BLANK_COLOUR", "PLAIN_COLOUR", "tile_values", "tile_colours", "text_colour", "fringes", "hex_colour"]

#: The scheme names :func:`tile_colours` knows.
SCHEMES = ("plain", "rows", "columns", "fringe", "distance")
#: Colour of the blank cell.
BLANK_COLOUR = "#2b2b2b"
#: Colour of every tile under ``scheme="plain"``.
PLAIN_COLOUR = "#f0d9a8"
# A perceptual ramp (the stops of viridis), for distances.
_RAMP = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], np.float64)


def hex_colour(rgb) -> str:
    """``#rrggbb`` of an RGB triple in 0..255.

    Examples
    --------
    >>> hex_colour((255, 0, 16))
    '#ff0010'
    """
    r, g, b = (int(round(float(v))) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def fringes(m: int, n: int) -> np.ndarray:
    """Fringe number of every cell, ``(m, n)``: the order in which a reduction
    solver finishes the rows and columns (the longer side's first line first,
    until a 2x2 block is left, which is the last fringe).

    Examples
    --------
    >>> fringes(3, 3).tolist()
    [[0, 0, 0], [1, 2, 2], [1, 2, 2]]
    >>> fringes(2, 4).tolist()
    [[0, 1, 2, 2], [0, 1, 2, 2]]
    """
    out = np.zeros((m, n), np.int64)
    top, left, k = 0, 0, 0
    while m - top > 2 or n - left > 2:
        if m - top >= n - left:
            out[top, left:] = k
            top += 1
        else:
            out[top:, left] = k
            left += 1
        k += 1
    out[top:, left:] = k
    return out


def tile_values(board: np.ndarray, goal: np.ndarray, scheme: str):
    """``(values, levels)``: the scheme's number of the tile in each cell,
    ``(m, n)`` int64, and how many numbers the scheme can give (the blank's
    number is meaningless: it is drawn as the blank).

    Examples
    --------
    >>> from fastpuzzle.boards import goal_board
    >>> values, levels = tile_values(np.array([[0, 1], [2, 3]]), goal_board(2, 2), "distance")
    >>> values.tolist(), levels
    ([[0, 1], [2, 1]], 3)
    """
    m, n = goal.shape
    tiles = board.ravel().astype(np.int64)
    if tiles.size and (tiles.min() < 0 or tiles.max() >= m * n):  # unchecked boards (check=False) too
        bad = int(tiles[(tiles < 0) | (tiles >= m * n)][0])
        raise BoardError("board", None, f"holds {bad}, outside 0..{m * n - 1} (the tiles of a {m}x{n} board)")
    home = goal_cells(goal)[tiles]  # goal cell of the tile in each cell
    row, col = home // n, home % n
    if scheme == "plain":
        return np.zeros((m, n), np.int64), 1
    if scheme == "rows":
        return row.reshape(m, n), m
    if scheme == "columns":
        return col.reshape(m, n), n
    if scheme == "fringe":
        f = fringes(m, n)
        return f.ravel()[home].reshape(m, n), int(f.max()) + 1
    return tile_distances(board, goal).reshape(m, n), m + n - 1  # the blank: 0


def _category(i: int, levels: int):
    hue = (i / max(levels, 1)) * 0.85  # stop short of red again
    return tuple(255 * v for v in colorsys.hls_to_rgb(hue, 0.72, 0.65))


def _ramp(t: float):
    x = min(max(t, 0.0), 1.0) * (len(_RAMP) - 1)
    i = min(int(x), len(_RAMP) - 2)
    return tuple(_RAMP[i] + (x - i) * (_RAMP[i + 1] - _RAMP[i]))


def tile_colours(scheme: str, levels: int) -> list:
    """The ``#rrggbb`` colour of each value ``0 .. levels-1`` of a scheme.

    Examples
    --------
    >>> tile_colours("plain", 1)
    ['#f0d9a8']
    >>> tile_colours("distance", 3)
    ['#440154', '#21918c', '#fde725']
    """
    if scheme == "plain":
        return [PLAIN_COLOUR] * levels
    if scheme == "distance":
        return [hex_colour(_ramp(i / max(levels - 1, 1))) for i in range(levels)]
    return [hex_colour(_category(i, levels)) for i in range(levels)]


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``.

    Examples
    --------
    >>> text_colour("#ffffff"), text_colour("#000000")
    ('#000000', '#ffffff')
    """
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"
