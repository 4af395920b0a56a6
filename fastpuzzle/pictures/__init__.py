"""Pictures of boards and solutions, as SVG (no plotting library needed).

=================  ============================================================
:mod:`.colours`    the colour schemes: plain, rows, columns, fringe, distance
:mod:`.svg`        :func:`draw` (a board or a batch; heat maps for big boards)
:mod:`.animate`    :func:`animate`: a move sequence as an animated SVG
=================  ============================================================

:class:`Board` wraps one board so that Jupyter shows it as a picture;
:class:`~fastpuzzle.Solution` shows its moves the same way (:func:`solution_svg`).
"""

from __future__ import annotations

import numpy as np

from .animate import Animation, animate
from .colours import SCHEMES, fringes
from .svg import Picture, draw

__all__ = ["draw", "animate", "Picture", "Animation", "Board", "SCHEMES", "fringes", "solution_svg"]


class Board:
    """One board that Jupyter shows as a picture (``_repr_svg_``).

    Parameters
    ----------
    board : array_like, shape (m, n)
        The board (validated).
    goal : array_like, optional
        Its goal (for the colour schemes).
    scheme : str, optional
        Colour scheme of :func:`draw`.

    Examples
    --------
    >>> b = Board([[1, 2], [0, 3]])
    >>> b.array.tolist(), b._repr_svg_().count('class="tile"')
    ([[1, 2], [0, 3]], 3)
    >>> b.move("R").array.tolist()
    [[1, 2], [3, 0]]
    """

    def __init__(self, board, *, goal=None, scheme=None):
        from ..boards import as_boards, as_goal
        from ..errors import ShapeError

        batch, single = as_boards(board, label="board")
        if not single:
            raise ShapeError(batch.shape, f"Board wraps one board (m, n), got a batch of shape {batch.shape}; "
                             "use draw() for a batch")  # fmt: skip
        self.array = batch[0]
        self.goal = as_goal(goal, *self.array.shape)
        self.scheme = scheme
        draw(self.array, scheme=scheme, goal=self.goal)  # checks the scheme now, not when shown

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __repr__(self) -> str:
        rows = " / ".join(" ".join(str(int(v)) for v in row) for row in self.array)
        return f"Board({rows})"

    def picture(self) -> Picture:
        """The board drawn with its scheme."""
        return draw(self.array, scheme=self.scheme, goal=self.goal, check=False)

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def move(self, moves, *, notation="blank") -> "Board":
        """The board after ``moves`` (a new :class:`Board`)."""
        from ..moves import apply_moves
        from ..notation import encode_moves

        return Board(apply_moves(self.array, encode_moves(moves, notation=notation)), goal=self.goal, scheme=self.scheme)

    def animate(self, moves, **options) -> Animation:
        """:func:`animate` from this board."""
        return animate(self.array, moves, goal=self.goal, scheme=self.scheme, **options)


#: Most moves :func:`solution_svg` draws as a path (about 20 bytes of SVG a move).
MAX_PATH_MOVES = 1_000_000


def solution_svg(codes, *, start=None, cell: float = 24.0) -> str:
    """SVG of a move sequence: the animation on ``start`` when given, else
    the path the blank travels (a line from a ring to a dot) and the move count.

    Examples
    --------
    >>> solution_svg(np.array([0, 1], np.uint8)).count("<polyline")
    1
    """
    if start is not None:
        return animate(start, codes).svg
    from ..errors import OptionError
    from ..moves import COL_STEP, ROW_STEP, check_codes

    codes = check_codes(codes).astype(np.int64)
    if codes.size > MAX_PATH_MOVES:  # a point each: the text grows with the moves
        raise OptionError("codes", f"{codes.size:,} moves", f"must be at most {MAX_PATH_MOVES:,} moves (a path drawn)")
    rows = np.concatenate([[0], np.cumsum(ROW_STEP[codes])])
    cols = np.concatenate([[0], np.cumsum(COL_STEP[codes])])
    rows, cols = rows - rows.min(), cols - cols.min()
    pad = cell
    width = pad * 2 + cell * int(cols.max()) + 120
    height = pad * 2 + cell * int(rows.max()) + 10
    points = " ".join(f"{pad + c * cell:g},{pad + r * cell:g}" for r, c in zip(rows.tolist(), cols.tolist()))
    x0, y0 = pad + cols[0] * cell, pad + rows[0] * cell
    x1, y1 = pad + cols[-1] * cell, pad + rows[-1] * cell
    parts = [
        f'<polyline points="{points}" fill="none" stroke="#3b528b" stroke-width="{cell * 0.18:g}" stroke-linejoin="round"/>',
        f'<circle cx="{x0:g}" cy="{y0:g}" r="{cell * 0.3:g}" fill="none" stroke="#21918c" stroke-width="3"/>',
        f'<circle cx="{x1:g}" cy="{y1:g}" r="{cell * 0.22:g}" fill="#fde725" stroke="#333333"/>',
        f'<text x="{width - 110:g}" y="{pad:g}" font-size="14" fill="#333333">{len(codes)} moves</text>',
    ]
    from .svg import svg_document

    return svg_document(parts, width, height)
