"""Boards as SVG: :func:`draw` and the :class:`Picture` it returns.

Pure Python and NumPy: the SVG is written as text, so no plotting library is
needed (a rasteriser such as ``cairosvg`` only for :meth:`Picture.png`).  A
tile is a rounded square coloured by a scheme (:mod:`.colours`) with its
number; the blank is a dark empty cell.  Boards wider or taller than
:data:`NUMBERS_MAX_SIDE` cells are drawn as a heat map: one small square per
cell, no numbers, coloured by how far each tile is from home unless another
scheme is asked for.
"""

from __future__ import annotations

import math
import numbers as _numbers
import os

import numpy as np

from ..boards import as_boards, as_goal
from ..errors import OptionError, OptionTypeError, ShapeError
from .colours import BLANK_COLOUR, SCHEMES, text_colour, tile_colours, tile_values

__all__ = ["Picture", "draw", "NUMBERS_MAX_SIDE", "MAX_DRAWN_CELLS", "MAX_NUMBERED_CELLS", "check_scheme", "board_svg", "svg_document"]

#: Boards with a side longer than this are drawn as heat maps (no numbers).
NUMBERS_MAX_SIDE = 24
#: Most cells one picture draws (each is an SVG element: about 60 bytes, 64 MB in all).
MAX_DRAWN_CELLS = 1_000_000
#: Most cells one picture draws with their numbers (a tile and its text: about 300 bytes).
MAX_NUMBERED_CELLS = 250_000
_GAP = 0.06  # gap between tiles, as a fraction of the cell


class Picture:
    """An SVG picture: shown inline by Jupyter, written by :meth:`save`.

    Attributes
    ----------
    svg : str
        The SVG document.
    width, height : float
        Its size in pixels (user units).

    Examples
    --------
    >>> p = draw([[1, 2], [3, 0]])
    >>> p.svg.startswith("<svg"), p._repr_svg_() == p.svg
    (True, True)
    """

    def __init__(self, svg: str, width: float, height: float):
        self.svg, self.width, self.height = svg, float(width), float(height)

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.width:g}x{self.height:g} px, {len(self.svg):,} bytes of SVG>"

    def save(self, path) -> None:
        """Write the picture to ``path`` (through :mod:`fastpuzzle.atomic`: all or nothing): PNG
        when the name ends in ``.png`` (:meth:`png`), else the SVG."""
        from ..atomic import AtomicOutput, write_text

        if str(os.fspath(path) if isinstance(path, os.PathLike) else path).lower().endswith(".png"):
            data = self.png()
            with AtomicOutput(path) as f:
                f.write(data)
        else:
            write_text(path, self.svg)

    def png(self, *, scale: float = 1.0) -> bytes:
        """The picture rasterised to PNG bytes (needs ``cairosvg``: ``pip install cairosvg``).

        The size is checked first: at least one pixel and at most :data:`MAX_PNG_SIDE` a side,
        the RGBA surface within the memory available.
        """
        scale = check_scale(scale)
        width, height = math.ceil(self.width * scale), math.ceil(self.height * scale)
        if min(self.width, self.height) * scale < 1 or max(width, height) > MAX_PNG_SIDE:
            raise OptionError("scale", scale, f"would make the picture {self.width * scale:.3g}x{self.height * scale:.3g} "
                              f"pixels: a PNG side must be 1 to {MAX_PNG_SIDE:,} pixels (change scale or cell)")  # fmt: skip
        from ..memory import check_allocation

        check_allocation(8 * width * height, f"a {width:,}x{height:,} pixel PNG")  # the surface and its encoding
        try:
            import cairosvg
        except ImportError:  # pragma: no cover - depends on the installation
            raise ImportError("Picture.png needs cairosvg (pip install cairosvg); .svg needs nothing") from None
        return cairosvg.svg2png(bytestring=self.svg.encode(), scale=float(scale))


#: Largest side of a rasterised picture, in pixels (cairo's own limit).
MAX_PNG_SIDE = 32767


def check_scale(scale) -> float:
    """A rasterising scale: a number in (0, 16].

    Examples
    --------
    >>> check_scale(2)
    2.0
    """
    if isinstance(scale, bool) or not isinstance(scale, _numbers.Real) or not (0 < scale <= 16):
        raise OptionError("scale", scale, "must be a number in (0, 16]")
    return float(scale)


def check_scheme(scheme, *, large: bool = False) -> str:
    """The scheme name, ``None`` giving ``"plain"`` (``"distance"`` for heat maps)."""
    if scheme is None:
        return "distance" if large else "plain"
    if not isinstance(scheme, str):
        raise OptionTypeError("scheme", scheme, f"must be one of {', '.join(SCHEMES)}")
    if scheme not in SCHEMES:
        raise OptionError("scheme", scheme, f"must be one of {', '.join(SCHEMES)}")
    return scheme


def _check_optional_positive(value, name, kind=_numbers.Real):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        raise OptionTypeError(name, value, "must be a positive number or None")
    if not (0 < value < 10_000):
        raise OptionError(name, value, "must be positive (and below 10000)")
    return value


def board_svg(board, goal, scheme, cell, x0, y0, show_numbers, parts) -> None:
    """Append the SVG elements of one board, top-left corner at ``(x0, y0)``, to ``parts``."""
    m, n = board.shape
    values, levels = tile_values(board, goal, scheme)
    palette = tile_colours(scheme, levels)
    flat = board.ravel()
    vals = values.ravel()
    if not show_numbers:  # heat map: squares edge to edge
        parts.append(f'<rect x="{x0:g}" y="{y0:g}" width="{n * cell:g}" height="{m * cell:g}" fill="{BLANK_COLOUR}"/>')
        for i in np.flatnonzero(flat).tolist():
            r, c = divmod(i, n)
            parts.append(f'<rect x="{x0 + c * cell:g}" y="{y0 + r * cell:g}" width="{cell:g}" height="{cell:g}" '
                         f'fill="{palette[vals[i]]}"/>')  # fmt: skip
        return
    gap = cell * _GAP
    side = cell - 2 * gap
    radius = cell * 0.12
    digits = len(str(m * n - 1))
    font = cell * min(0.45, 1.25 / digits)
    parts.append(f'<rect x="{x0:g}" y="{y0:g}" width="{n * cell:g}" height="{m * cell:g}" fill="{BLANK_COLOUR}" rx="{radius:g}"/>')
    for i, tile in enumerate(flat.tolist()):
        if tile == 0:
            continue
        r, c = divmod(i, n)
        fill = palette[vals[i]]
        x, y = x0 + c * cell + gap, y0 + r * cell + gap
        parts.append(
            f'<g class="tile" data-tile="{tile}"><rect x="{x:g}" y="{y:g}" width="{side:g}" height="{side:g}" rx="{radius:g}" '
            f'fill="{fill}"/><text x="{x + side / 2:g}" y="{y + side / 2:g}" font-size="{font:.3g}" '
            f'fill="{text_colour(fill)}" text-anchor="middle" dominant-baseline="central">{tile}</text></g>'
        )


def svg_document(parts, width, height) -> str:
    """The SVG document around ``parts`` (a white background)."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
            f'<rect width="{width:g}" height="{height:g}" fill="#ffffff"/>')  # fmt: skip
    return head + "".join(parts) + "</svg>"


def layout(count, m, n, cell, columns):
    """``(columns, rows, pad, width, height)`` of a grid of ``count`` boards."""
    if columns is None:
        columns = max(1, int(np.ceil(np.sqrt(count * m / n))))
    columns = min(int(columns), count)
    rows = -(-count // columns)
    pad = cell * 0.5
    width = pad + columns * (n * cell + pad)
    height = pad + rows * (m * cell + pad)
    return columns, rows, pad, width, height


def draw(boards, *, scheme=None, goal=None, cell=None, numbers=None, columns=None, check=True) -> Picture:
    """A board, or a batch of boards side by side, as an SVG picture.

    Parameters
    ----------
    boards : array_like, shape (m, n) or (B, m, n)
        Boards (0 = blank).
    scheme : str, optional
        Tile colours: ``"plain"``, ``"rows"`` / ``"columns"`` (by goal row or
        column), ``"fringe"`` (the line a reduction solver finishes it in) or
        ``"distance"`` (how far the tile is from home).  Default ``"plain"``,
        ``"distance"`` for heat maps.
    goal : array_like (m, n), optional
        The goal the schemes refer to (default: tiles in order, blank last).
    cell : float, optional
        Side of a cell in pixels (default 40; smaller for big boards, so a
        picture stays about 600 pixels wide).
    numbers : bool, optional
        Write the tile numbers (default: unless a side exceeds
        :data:`NUMBERS_MAX_SIDE`, which gives a heat map).
    columns : int, optional
        Boards per row of a batch (default: about square).
    check : bool
        Validate the boards.

    Returns
    -------
    Picture
        ``.svg`` holds the document; Jupyter shows it inline.

    Examples
    --------
    >>> p = draw([[1, 2, 3], [4, 0, 5], [7, 8, 6]], scheme="rows")
    >>> p.width, p.height, p.svg.count('class="tile"')
    (160.0, 160.0, 8)
    >>> draw([[1, 2], [3, 0]], scheme="sunset")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: scheme must be one of plain, rows, columns, fringe, distance, got 'sunset'
    """
    if not isinstance(check, bool):
        raise OptionTypeError("check", check, "must be True or False")
    raw = boards if isinstance(boards, np.ndarray) else None
    if not check and raw is not None and raw.dtype.kind in "iu" and raw.ndim in (2, 3) and raw.size \
            and (raw.min() < 0 or raw.max() >= raw.shape[-2] * raw.shape[-1]):
        as_boards(raw, label="boards")  # a value the conversion would wrap: refused by board and value
    batch, _ = as_boards(boards, check=check, label="boards")
    count, m, n = batch.shape
    if count == 0:
        raise ShapeError((0, m, n), "boards is an empty batch: nothing to draw")
    if count * m * n > MAX_DRAWN_CELLS:
        raise ShapeError((count, m, n), f"boards hold {count * m * n:,} cells; a picture draws at most {MAX_DRAWN_CELLS:,}",
                         expected=MAX_DRAWN_CELLS)  # fmt: skip
    if numbers is not None and not isinstance(numbers, bool):
        raise OptionTypeError("numbers", numbers, "must be True, False or None")
    show = max(m, n) <= NUMBERS_MAX_SIDE if numbers is None else numbers
    if show and count * m * n > MAX_NUMBERED_CELLS:
        raise ShapeError((count, m, n), f"boards hold {count * m * n:,} cells; a picture with numbers draws at most "
                         f"{MAX_NUMBERED_CELLS:,} (numbers=False draws up to {MAX_DRAWN_CELLS:,})",
                         expected=MAX_NUMBERED_CELLS)  # fmt: skip
    scheme = check_scheme(scheme, large=not show)
    cell = _check_optional_positive(cell, "cell")
    columns = _check_optional_positive(columns, "columns", _numbers.Integral)
    target = as_goal(goal, m, n, check=check)
    if cell is None:
        cell = 40.0 if max(m, n) <= 15 else max(1.0, 600.0 / max(m, n))
    columns, _, pad, width, height = layout(count, m, n, cell, columns)
    parts: list = []
    for k in range(count):
        r, c = divmod(k, columns)
        board_svg(batch[k], target, scheme, cell, pad + c * (n * cell + pad), pad + r * (m * cell + pad), show, parts)
    return Picture(svg_document(parts, width, height), width, height)
