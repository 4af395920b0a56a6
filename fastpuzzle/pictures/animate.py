"""A solution as an animation: :func:`animate` and :class:`Animation`.

The animated SVG moves each tile with one ``animateTransform`` (SMIL, played
by every browser and by Jupyter) and shows a move counter; it loops, holding
the start and the end for a moment.  A renderer without animation (a
rasteriser, a PDF) shows the start board with ``move 0/L``.  :meth:`Animation.frame`
gives any single step as a still picture, and :meth:`Animation.save_gif`
writes a GIF where ``cairosvg`` and Pillow are installed.
"""

from __future__ import annotations

import io
import math
import numbers as _numbers
import os

import numpy as np

from ..boards import as_boards, as_goal
from ..errors import MoveError, OptionError, OptionTypeError, ShapeError
from ..moves import apply_codes
from .colours import text_colour, tile_colours, tile_values
from .svg import NUMBERS_MAX_SIDE, Picture, board_svg, check_scale, check_scheme, svg_document

__all__ = ["Animation", "animate", "MAX_ANIMATED_MOVES"]

#: Longest move sequence an animation holds (one counter element per move).
MAX_ANIMATED_MOVES = 5000
_GAP = 0.06


class Animation(Picture):
    """An animated SVG of a move sequence (a :class:`Picture` that moves).

    Attributes
    ----------
    boards : ndarray, shape (L + 1, m, n)
        The board after each number of moves, ``boards[0]`` the start.
    seconds_per_move : float
        Time each move takes.

    Examples
    --------
    >>> a = animate([[1, 2], [0, 3]], "R")
    >>> a.boards[-1].tolist(), a.svg.count("<animateTransform")
    ([[1, 2], [3, 0]], 1)
    """

    def __init__(self, svg, width, height, boards, goal, scheme, cell, seconds_per_move):
        super().__init__(svg, width, height)
        self.boards, self.seconds_per_move = boards, seconds_per_move
        self._goal, self._scheme, self._cell = goal, scheme, cell

    @property
    def length(self) -> int:
        """Number of moves."""
        return len(self.boards) - 1

    def frame(self, k: int) -> Picture:
        """The still picture after ``k`` moves, with the counter.

        Examples
        --------
        >>> animate([[1, 2], [0, 3]], "R").frame(1).svg.count("move 1/1")
        1
        """
        if isinstance(k, bool) or not isinstance(k, _numbers.Integral):
            raise OptionTypeError("frame number", k, "must be an integer")
        if not 0 <= k <= self.length:
            raise OptionError("frame", k, f"does not exist: the animation has frames 0..{self.length}")
        m, n = self.boards.shape[1:]
        cell = self._cell
        pad, width, height = _frame_size(m, n, cell)
        parts: list = []
        board_svg(self.boards[k], self._goal, self._scheme, cell, pad, pad, True, parts)
        parts.append(_counter(k, self.length, pad, m, n, cell, None))
        return Picture(svg_document(parts, width, height), width, height)

    def save_gif(self, path, *, scale: float = 1.0, progress=None) -> None:
        """Write the animation as a GIF (needs ``cairosvg`` and Pillow), through :mod:`fastpuzzle.atomic`.

        Every frame is held until the GIF is encoded (one byte a pixel, a
        palette image): that memory is checked before the first frame is drawn
        (:class:`~fastpuzzle.errors.AllocationError`).  ``progress``: an object
        with ``update(k)`` (a tqdm bar) told of each frame drawn, or None.
        """
        try:
            from PIL import Image
        except ImportError:  # pragma: no cover - depends on the installation
            raise ImportError("save_gif needs Pillow (pip install pillow) and cairosvg") from None
        from ..atomic import AtomicOutput
        from ..memory import check_allocation

        scale = check_scale(scale)
        name = os.fspath(path) if isinstance(path, os.PathLike) else path
        if isinstance(name, str) and name.lower().endswith((".svg", ".png")):  # GIF bytes under another format's name
            raise OptionError("path", name, "names another format: save_gif writes a GIF (the SVG is .svg)")
        pixels = int(math.ceil(self.width * scale) + 1) * int(math.ceil(self.height * scale) + 1)
        # each frame held as a palette image, one rasterised RGBA frame and the GIF's own copy besides
        check_allocation((self.length + 1) * pixels * 2 + 8 * pixels, f"a GIF of {self.length + 1:,} frames of "
                         f"{pixels:,} pixels")  # fmt: skip
        frames = []
        for k in range(self.length + 1):
            rgb = Image.open(io.BytesIO(self.frame(k).png(scale=scale))).convert("RGB")
            frames.append(rgb.quantize(colors=256))
            if progress is not None:
                progress.update(1)
        hold = [int(1000 * self.seconds_per_move)] * len(frames)
        hold[0] = hold[-1] = 4 * hold[0]
        buffer = io.BytesIO()
        frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=hold, loop=0)
        with AtomicOutput(path) as f:
            f.write(buffer.getvalue())


def _frame_size(m, n, cell):
    pad = cell * 0.5
    return pad, n * cell + 2 * pad, m * cell + 2 * pad + cell * 0.7


def _counter(k, length, pad, m, n, cell, timing):
    """The ``move k/L`` text; with ``timing = (values, key_times, duration)`` it shows only while current."""
    x, y = pad + n * cell / 2, pad + m * cell + cell * 0.45
    text = f"move {k}/{length}"
    if timing is None:
        return f'<text x="{x:g}" y="{y:g}" font-size="{cell * 0.35:.3g}" text-anchor="middle" fill="#333333">{text}</text>'
    values, key_times, duration = timing
    return (f'<text class="counter" x="{x:g}" y="{y:g}" font-size="{cell * 0.35:.3g}" text-anchor="middle" fill="#333333" '
            f'opacity="{1 if k == 0 else 0}">{text}<animate attributeName="opacity" values="{values}" '
            f'keyTimes="{key_times}" dur="{duration:g}s" calcMode="discrete" repeatCount="indefinite"/></text>')  # fmt: skip


def _positions(start, codes):
    """Cell of every tile after each move: ``(L + 1, m*n)`` (index = tile)."""
    m, n = start.shape
    cells = start.ravel().copy()
    where = np.empty((len(codes) + 1, m * n), np.int64)
    where[0, cells.astype(np.int64)] = np.arange(m * n)
    boards = np.empty((len(codes) + 1, m * n), start.dtype)
    boards[0] = cells
    for k in range(len(codes)):
        bad = apply_codes(cells, m, n, codes[k : k + 1])
        if bad >= 0:
            raise MoveError(k, int(codes[k]), f"is illegal: it takes the blank off the {m}x{n} board")
        boards[k + 1] = cells
        where[k + 1, cells.astype(np.int64)] = np.arange(m * n)
    return where, boards.reshape(-1, m, n)


def animate(board, moves, *, goal=None, scheme=None, cell=None, seconds_per_move=0.3, notation="blank") -> Animation:
    """A move sequence played on ``board`` as an animated SVG with a move counter.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (at most :data:`~fastpuzzle.pictures.svg.NUMBERS_MAX_SIDE` cells a side).
    moves : str, array of move codes, or Solution
        The moves (a :class:`~fastpuzzle.Solution` gives its codes).
    goal, scheme, cell
        As in :func:`~fastpuzzle.draw` (colours follow the tiles; under
        ``"distance"`` they change as the tiles move).
    seconds_per_move : float
        Time each move takes (0.01 .. 60).
    notation : str
        How a move string is written: ``"blank"`` or ``"tile"``
        (:func:`fastpuzzle.encode_moves`).

    Returns
    -------
    Animation

    Examples
    --------
    >>> a = animate([[1, 2, 3], [4, 5, 6], [0, 7, 8]], "RR")
    >>> a.length, a.frame(2).svg.count('class="tile"')
    (2, 8)
    """
    from ..notation import encode_moves, folded_count
    from ..moves import check_codes

    batch, single = as_boards(board, label="board")
    if not single:
        raise ShapeError(batch.shape, f"animate takes one board (m, n), got a batch of shape {batch.shape}")
    start = batch[0]
    m, n = start.shape
    if max(m, n) > NUMBERS_MAX_SIDE:
        raise ShapeError((m, n), f"animate draws boards of at most {NUMBERS_MAX_SIDE} cells a side, got {m}x{n}")
    total = folded_count(moves)  # a folded string's length, before it is written out
    if total is not None and total > MAX_ANIMATED_MOVES:
        raise OptionError("moves", f"{total} moves", f"must be at most {MAX_ANIMATED_MOVES} moves (what animate plays)")
    codes = getattr(moves, "codes", None)
    codes = encode_moves(moves, notation=notation) if codes is None else check_codes(codes)
    if len(codes) > MAX_ANIMATED_MOVES:
        raise OptionError("moves", f"{len(codes)} moves", f"must be at most {MAX_ANIMATED_MOVES} moves (what animate plays)")
    if isinstance(seconds_per_move, bool) or not isinstance(seconds_per_move, _numbers.Real):
        raise OptionTypeError("seconds_per_move", seconds_per_move, "must be a number")
    if not 0.01 <= seconds_per_move <= 60:
        raise OptionError("seconds_per_move", seconds_per_move, "must be between 0.01 and 60")
    scheme = check_scheme(scheme)
    target = as_goal(goal, m, n)
    if cell is None:
        cell = 40.0
    elif isinstance(cell, bool) or not isinstance(cell, _numbers.Real) or not 0 < cell < 10_000:
        raise OptionError("cell", cell, "must be a positive number of pixels")
    where, boards = _positions(start, codes)
    svg, width, height = _animated_svg(where, boards, target, scheme, float(cell), float(seconds_per_move))
    return Animation(svg, width, height, boards, target, scheme, float(cell), float(seconds_per_move))


def _animated_svg(where, boards, goal, scheme, cell, spm):
    steps = len(where) - 1
    m, n = goal.shape
    pad, width, height = _frame_size(m, n, cell)
    duration = (steps + 3) * spm
    # position k is reached at time (k + 1) * spm: one move's hold at the start, two at the end
    times = [0.0] + [(k + 1) * spm / duration for k in range(steps + 1)] + [1.0]
    key_times = ";".join(f"{t:.5f}" for t in times)
    levels_values = [tile_values(b, goal, scheme)[0].ravel() for b in boards] if scheme == "distance" else None
    values0, levels = tile_values(boards[0], goal, scheme)
    palette = tile_colours(scheme, levels)
    gap, radius = cell * _GAP, cell * 0.12
    side = cell - 2 * gap
    font = cell * min(0.45, 1.25 / len(str(m * n - 1)))
    parts = [f'<rect x="{pad:g}" y="{pad:g}" width="{n * cell:g}" height="{m * cell:g}" fill="#2b2b2b" rx="{radius:g}"/>']
    for tile in range(1, m * n):
        path = where[:, tile]
        first = int(path[0])
        fill = palette[int(values0.ravel()[first])]
        spot = [(pad + (p % n) * cell + gap, pad + (p // n) * cell + gap) for p in path.tolist()]
        motion = ""
        if (path != first).any():
            points = [spot[0]] + spot + [spot[-1]]
            values = ";".join(f"{x:g},{y:g}" for x, y in points)
            motion = (f'<animateTransform attributeName="transform" type="translate" values="{values}" '
                      f'keyTimes="{key_times}" dur="{duration:g}s" repeatCount="indefinite"/>')  # fmt: skip
        recolour = ""
        if levels_values is not None:
            fills = [palette[int(v[p])] for v, p in zip(levels_values, path.tolist())]
            if len(set(fills)) > 1:
                seq = ";".join([fills[0]] + fills + [fills[-1]])
                recolour = (f'<animate attributeName="fill" values="{seq}" keyTimes="{key_times}" dur="{duration:g}s" '
                            f'calcMode="discrete" repeatCount="indefinite"/>')  # fmt: skip
        x, y = spot[0]
        parts.append(
            f'<g class="tile" data-tile="{tile}" transform="translate({x:g},{y:g})">{motion}'
            f'<rect width="{side:g}" height="{side:g}" rx="{radius:g}" fill="{fill}">{recolour}</rect>'
            f'<text x="{side / 2:g}" y="{side / 2:g}" font-size="{font:.3g}" fill="{text_colour(fill)}" '
            f'text-anchor="middle" dominant-baseline="central">{tile}</text></g>'
        )
    for k in range(steps + 1):
        start = 0.0 if k == 0 else times[k + 1]
        end = 1.0 if k == steps else times[k + 2]
        vals, keys = ([], []) if start == 0.0 else (["0"], ["0"])
        vals.append("1")
        keys.append(f"{start:.5f}")
        if end < 1.0:
            vals.append("0")
            keys.append(f"{end:.5f}")
        parts.append(_counter(k, steps, pad, m, n, cell, (";".join(vals), ";".join(keys), duration)))
    return svg_document(parts, width, height), width, height
