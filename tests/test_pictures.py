"""Pictures: SVG rasterised by a real renderer (cairosvg) and checked pixel by pixel.

Every colour is predicted from the board, the goal and the scheme by the slow
reference below (goal cell of each tile, then its row, column, fringe or
Manhattan distance), not read back from the SVG.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.pictures.colours import BLANK_COLOUR, SCHEMES, tile_colours
from fastpuzzle.pictures.svg import NUMBERS_MAX_SIDE

cairosvg = pytest.importorskip("cairosvg")
Image = pytest.importorskip("PIL.Image")


def raster(svg: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(cairosvg.svg2png(bytestring=svg.encode()))).convert("RGB")).astype(int)


def rgb(hex_colour):
    return np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])


def naive_fringe(m, n, r, c):
    top = left = k = 0
    while m - top > 2 or n - left > 2:
        if m - top >= n - left:
            if r == top:
                return k
            top += 1
        else:
            if c == left:
                return k
            left += 1
        k += 1
    return k


def expected_colour(board, goal, scheme, i):
    """Colour of the tile in cell ``i``, from first principles."""
    m, n = goal.shape
    tile = int(board.ravel()[i])
    home = int(np.flatnonzero(goal.ravel() == tile)[0])
    hr, hc = divmod(home, n)
    r, c = divmod(i, n)
    value, levels = {
        "plain": (0, 1),
        "rows": (hr, m),
        "columns": (hc, n),
        "fringe": (naive_fringe(m, n, hr, hc), max(naive_fringe(m, n, a, b) for a in range(m) for b in range(n)) + 1),
        "distance": (abs(hr - r) + abs(hc - c), m + n - 1),
    }[scheme]
    return rgb(tile_colours(scheme, levels)[value])


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (2, 5)])
def test_tiles_and_blank_have_the_scheme_colours(scheme, shape):
    m, n = shape
    rng = np.random.default_rng(m * 10 + n)
    goal = fp.random_solvable(m, n, seed=7) if scheme != "plain" else None
    board = fp.random_solvable(m, n, seed=int(rng.integers(1 << 30)))
    picture = fp.draw(board, scheme=scheme, goal=goal)
    px = raster(picture.svg)
    assert px.shape[:2] == (round(picture.height), round(picture.width))
    goal = fp.goal_board(m, n) if goal is None else goal
    cell, pad = 40, 20
    for i in range(m * n):
        r, c = divmod(i, n)
        x, y = pad + c * cell + cell // 2, pad + r * cell + 6  # top middle of the tile, clear of its number
        want = rgb(BLANK_COLOUR) if board.ravel()[i] == 0 else expected_colour(board, goal, scheme, i)
        assert np.abs(px[y, x] - want).max() <= 2, (scheme, i, px[y, x], want)
    assert np.abs(px[2, 2] - 255).max() <= 1  # white margin


def test_numbers_are_drawn_in_contrast():
    board = fp.goal_board(3, 3)
    px = raster(fp.draw(board).svg)
    tile = px[20 + 8 : 20 + 32, 20 + 8 : 20 + 32]  # the inside of tile 1
    dark = (tile.sum(axis=2) < 200).sum()
    assert 10 < dark < tile.shape[0] * tile.shape[1] // 2  # a glyph, not an empty or a black square


def test_heat_map_for_large_boards():
    m = n = NUMBERS_MAX_SIDE + 6
    board = fp.random_solvable(m, n, seed=3)
    picture = fp.draw(board)
    assert "<text" not in picture.svg
    cell = 600 / n
    px = raster(picture.svg)
    goal = fp.goal_board(m, n)
    for i in np.random.default_rng(0).choice(m * n, 200, replace=False).tolist():
        r, c = divmod(i, n)
        x, y = int(cell / 2 + c * cell + cell / 2), int(cell / 2 + r * cell + cell / 2)
        want = rgb(BLANK_COLOUR) if board.ravel()[i] == 0 else expected_colour(board, goal, "distance", i)
        assert np.abs(px[y, x] - want).max() <= 2


def test_batch_is_a_grid_of_boards():
    boards = fp.random_solvable(2, 3, count=5, seed=1)
    picture = fp.draw(boards, columns=2)
    px = raster(picture.svg)
    cell, pad = 40, 20
    assert (picture.width, picture.height) == (pad + 2 * (3 * cell + pad), pad + 3 * (2 * cell + pad))
    for k, board in enumerate(boards):
        br, bc = divmod(k, 2)
        x0, y0 = pad + bc * (3 * cell + pad), pad + br * (2 * cell + pad)
        blank = int(np.flatnonzero(board.ravel() == 0)[0])
        r, c = divmod(blank, 3)
        assert np.abs(px[y0 + r * cell + 20, x0 + c * cell + 20] - rgb(BLANK_COLOUR)).max() <= 2


def test_animation_frames_are_the_boards_along_the_moves():
    board = np.array([[4, 1, 3], [7, 2, 5], [0, 8, 6]])
    solution = fp.solve(board)
    anim = fp.animate(board, solution, scheme="distance")
    assert anim.length == solution.length and np.array_equal(anim.boards[-1], fp.goal_board(3, 3))
    region = np.s_[20:140, 20:140]
    assert np.array_equal(raster(anim.svg)[region], raster(anim.frame(0).svg)[region])  # a still renderer: the start
    for k in (0, 3, anim.length):
        still = raster(fp.draw(anim.boards[k], scheme="distance").svg)
        assert np.abs(raster(anim.frame(k).svg)[region] - still[region]).max() <= 2
        assert f"move {k}/{anim.length}" in anim.svg
    # the last position of every moving tile is its cell on the final board
    for tile, values in re.findall(r'data-tile="(\d+)" transform="[^"]*"><animateTransform [^>]*values="([^"]*)"', anim.svg):
        x, y = (float(v) for v in values.split(";")[-1].split(","))
        cell = int(np.flatnonzero(anim.boards[-1].ravel() == int(tile))[0])
        assert (round((y - 20 - 2.4) / 40), round((x - 20 - 2.4) / 40)) == divmod(cell, 3)


def test_gif_has_one_frame_per_board(tmp_path):
    anim = fp.animate([[1, 2, 3], [4, 5, 6], [0, 7, 8]], "RR")
    anim.save_gif(tmp_path / "a.gif")
    gif = Image.open(tmp_path / "a.gif")
    assert gif.n_frames == 3


def test_board_wrapper_solution_and_save(tmp_path):
    b = fp.Board([[1, 2, 3], [4, 5, 6], [7, 0, 8]], scheme="rows")
    assert np.array_equal(raster(b._repr_svg_()), raster(fp.draw(b.array, scheme="rows").svg))
    s = fp.solve(b.array)
    assert "1 moves" in s._repr_svg_() and raster(s._repr_svg_()).shape[0] > 10
    target = tmp_path / "b.svg"
    fp.draw(b.array).save(target)
    assert target.read_text().startswith("<svg") and target.read_text().endswith("</svg>")


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: fp.draw([[1, 2], [3, 0]], scheme=3), TypeError),
        (lambda: fp.draw([[1, 2], [3, 0]], scheme="sunset"), ValueError),
        (lambda: fp.draw(np.zeros((0, 2, 2), np.uint8)), ValueError),
        (lambda: fp.draw([[1, 2], [3, 0]], cell=-1), ValueError),
        (lambda: fp.draw([[1, 2], [3, 0]], numbers=1), TypeError),
        (lambda: fp.draw([[1, 2], [3, 0]], columns=1.5), TypeError),
        (lambda: fp.draw([[1, 1], [3, 0]]), ValueError),
        (lambda: fp.draw(np.zeros((5000, 30, 30), np.uint16)), ValueError),
        (lambda: fp.animate([[1, 2], [3, 0]], "DD"), ValueError),
        (lambda: fp.animate([[1, 2], [3, 0]], "U", seconds_per_move=0), ValueError),
        (lambda: fp.animate([[1, 2], [3, 0]], "U").frame(2), ValueError),
    ],
)
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()
