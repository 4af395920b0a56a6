"""``fastpuzzle draw`` and ``--format scramble`` on the command line (in process: one import)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.cli import main


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_draw_an_inline_board_to_a_file(tmp_path, capsys):
    cairosvg = pytest.importorskip("cairosvg")
    Image = pytest.importorskip("PIL.Image")
    target = tmp_path / "board.svg"
    code, _, err = run(capsys, "draw", "1 2 3/4 0 6/7 5 8", "--scheme", "rows", "--out", target)
    assert code == 0, err
    svg = target.read_text()
    assert svg == fp.draw([[1, 2, 3], [4, 0, 6], [7, 5, 8]], scheme="rows").svg
    px = np.asarray(Image.open(io.BytesIO(cairosvg.svg2png(bytestring=svg.encode()))).convert("RGB")).astype(int)
    assert np.abs(px[20 + 40 + 20, 20 + 40 + 20] - [0x2B, 0x2B, 0x2B]).max() <= 2  # the blank, in the centre


def test_draw_a_file_an_index_and_an_animation(tmp_path, capsys):
    boards = fp.random_solvable(3, 3, count=4, seed=1)
    source = tmp_path / "b.txt"
    fp.write_boards(source, boards, fmt="scramble")
    code, out, err = run(capsys, "draw", source)
    assert code == 0 and out.count('class="tile"') == 32, err
    code, out, _ = run(capsys, "draw", source, "--index", 2)
    assert out.strip() == fp.draw(boards[2:3]).svg
    code, out, _ = run(capsys, "draw", source, "--index", 0, "--moves", "solve")
    assert code == 0 and f"move {fp.solve(boards[0]).length}/" in out
    pytest.importorskip("PIL")
    pytest.importorskip("cairosvg")
    gif = tmp_path / "s.gif"
    assert run(capsys, "draw", "1 2 3/4 0 6/7 5 8", "--moves", "LU", "--notation", "tile", "--out", gif)[0] == 0
    assert gif.read_bytes()[:3] == b"GIF"


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["draw", "1 2 3/4 0 6/7 5 8", "--moves", "UUU"], "move 1 is illegal"),
        (["draw", "1 2 3/4 0 6"], "outside 0..5"),
        (["draw", "no-such-file.txt"], "no such file"),
        (["draw", "1 2 3/4 0 6/7 5 8", "--index", "3"], "holds 1 boards"),
        (["draw", "1 2 3/4 0 6/7 5 8", "--scheme", "sunset"], "invalid choice"),
        (["draw", "1 2 3/4 5/6 7 8 0"], "every row must have the same length"),
    ],
)
def test_draw_bad_input_is_one_line(capsys, args, fragment):
    code, _, err = run(capsys, *args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_generate_and_check_in_the_scramble_format(tmp_path, capsys):
    target = tmp_path / "s.txt"
    code, _, err = run(capsys, "generate", "--shape", "4x4", "--count", 3, "--seed", 2, "--format", "scramble", "--out", target)
    assert code == 0, err
    lines = target.read_text().splitlines()
    assert len(lines) == 3 and all(line.count("/") == 3 for line in lines)
    assert np.array_equal(fp.load_boards(target), fp.random_solvable(4, 4, count=3, seed=2))
    code, out, _ = run(capsys, "check", target, "--format", "scramble")
    assert code == 0 and out.split() == ["solvable"] * 3
