"""Move notation, move tools and the scramble format: round trips, laws, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastpuzzle as fp
from fastpuzzle.io.errors import BoardFileError
from fastpuzzle.notation import count_moves
from tests import naive

codes_strategy = st.lists(st.integers(0, 3), max_size=60).map(lambda c: np.array(c, np.uint8))
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def all_boards(m, n):
    """Every arrangement of an m x n board (both halves of the state space)."""
    perms = np.array(list(itertools.permutations(range(m * n))), np.uint8)
    return perms.reshape(-1, m, n)


@given(codes_strategy, st.sampled_from(["blank", "tile"]), st.booleans())
def test_decode_encode_round_trip(codes, notation, fold):
    text = fp.decode_moves(codes, notation=notation, fold=fold)
    assert np.array_equal(fp.encode_moves(text, notation=notation), codes)
    if not fold:
        assert len(text) == len(codes)


@given(codes_strategy)
def test_tile_letters_are_the_opposite_of_blank_letters(codes):
    blank = fp.decode_moves(codes)
    assert fp.decode_moves(codes, notation="tile") == "".join(OPPOSITE[ch] for ch in blank)


@given(codes_strategy)
def test_folding_counts_the_multi_tile_moves(codes):
    folded = fp.decode_moves(codes, fold=True)
    runs = [len(list(g)) for _, g in itertools.groupby(codes.tolist())]
    assert sum(ch.isalpha() for ch in folded) == len(runs) == count_moves(codes, metric="mtm")
    assert count_moves(folded, metric="stm") == len(codes)


def test_folded_examples():
    assert fp.decode_moves(fp.encode_moves("R3 D2 L", notation="tile"), notation="tile", fold=True) == "R3D2L"
    assert fp.encode_moves("u2r", notation="blank").tolist() == [0, 0, 2]
    assert fp.encode_moves("R12").tolist() == [2] * 12


@pytest.mark.parametrize("bad", [np.array([256]), [1.5], [True], [[0, 1], [2, 3]], np.array(2), [4], [-1], [300], "UD", None])
def test_decode_moves_refuses_bad_codes(bad):
    with pytest.raises((ValueError, TypeError)) as info:
        fp.decode_moves(bad)
    message = str(info.value)
    assert "move" in message
    if isinstance(info.value, ValueError):
        assert "move 0 has code" in message


@pytest.mark.parametrize("bad, where", [("UX", "1"), ("R0", "1"), ("3R", "0"), ("U-2", "1")])
def test_encode_moves_names_the_bad_character(bad, where):
    with pytest.raises(ValueError, match=where):
        fp.encode_moves(bad)


def test_encode_refuses_a_huge_fold():
    with pytest.raises(ValueError, match="bytes"):
        fp.encode_moves("R" + "9" * 30)


@given(codes_strategy)
@settings(max_examples=60)
def test_invert_and_simplify_laws(codes):
    inverse = fp.invert(codes)
    assert len(fp.simplify(np.concatenate([codes, inverse]))) == 0
    simple = fp.simplify(codes)
    assert len(simple) <= len(codes) and len(simple) % 2 == len(codes) % 2
    assert not any(int(a) + int(b) == 3 for a, b in zip(simple[:-1], simple[1:]))
    assert fp.invert(fp.decode_moves(codes)) == fp.decode_moves(inverse)


def test_tools_on_every_2x3_and_3x3_solution():
    """On sampled boards: a solution, inverted, undoes; mirrored and transposed, it solves the reflected board."""
    rng = np.random.default_rng(5)
    for m, n in ((2, 3), (3, 3), (3, 2)):
        for board in fp.random_solvable(m, n, count=30, seed=int(rng.integers(1 << 30))):
            moves = fp.solve(board).moves
            goal = fp.goal_board(m, n)
            assert np.array_equal(fp.apply_moves(goal, fp.invert(moves)), board)
            assert np.array_equal(fp.apply_moves(board, fp.simplify(moves + "UD" * 0)), goal)
            for axis, flip in (("lr", np.fliplr), ("ud", np.flipud)):
                assert np.array_equal(fp.apply_moves(flip(board), fp.mirror(moves, axis=axis)), flip(goal))
            assert np.array_equal(fp.apply_moves(board.T, fp.transpose(moves)), goal.T)
            wrapped = fp.simplify(moves[:3] + fp.invert(moves[:3]) + moves)
            assert wrapped == moves


def test_moves_applied_agree_with_the_reference():
    board = fp.random_solvable(3, 3, seed=2)
    for text in ("R2U", "DL"):
        codes = fp.encode_moves(text, notation="tile")
        try:
            want = naive.apply_moves(board.tolist(), fp.decode_moves(codes))
        except ValueError:
            continue
        assert fp.apply_moves(board, codes).tolist() == want


@pytest.mark.parametrize("shape", [(1, 2), (1, 5), (2, 2), (2, 3), (3, 2), (1, 7)])
def test_scramble_round_trip_on_every_board(shape):
    boards = all_boards(*shape)
    text = fp.format_scramble(boards)
    back = fp.parse_scramble(text)
    assert np.array_equal(back.reshape(boards.shape), boards)
    for board in boards[:: max(1, len(boards) // 50)]:
        line = fp.format_scramble(board)
        assert line.count("/") == shape[0] - 1
        assert np.array_equal(fp.parse_scramble(line), board)


@pytest.mark.slow
def test_scramble_round_trip_on_every_3x3_board():
    boards = all_boards(3, 3)
    text = fp.format_scramble(boards)
    assert np.array_equal(fp.parse_scramble(text), boards)


def test_scramble_in_the_reader_and_the_writer(tmp_path):
    boards = fp.random_solvable(4, 4, count=5, seed=1)
    path = tmp_path / "s.txt"
    fp.write_boards(path, boards, fmt="scramble")
    assert path.read_text().splitlines()[0] == fp.format_scramble(boards[0])
    assert np.array_equal(fp.load_boards(path), boards)  # recognised from the slashes
    assert np.array_equal(fp.load_boards(path, fmt="scramble"), boards)
    assert fp.format_scramble(fp.goal_board(4, 4)) == "1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0"


@pytest.mark.parametrize(
    "text, error",
    [("1 2 3/4 5/6 7 8 0", BoardFileError), ("1 2/3 0\n1 2 3/4 5 0", BoardFileError), ("1 1/3 0", BoardFileError),
     ("", ValueError), (b"1 2/3 0", TypeError), ("1 2/3 x", BoardFileError), ("1 2/3 \u00e9", ValueError)],
)
def test_parse_scramble_refuses_bad_text(text, error):
    with pytest.raises(error):
        fp.parse_scramble(text)


def _read_both(tmp_path, text):
    """``parse_scramble(text)`` and the reader on the same text as a file: each a board array or
    the error's ``(type, reason, line, column)``."""
    path = tmp_path / "s.txt"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    out = []
    for read in (lambda: fp.parse_scramble(text), lambda: fp.load_boards(path, fmt="scramble")):
        try:
            boards = np.asarray(read())
            out.append(boards.reshape(-1, *boards.shape[-2:]))
        except BoardFileError as error:
            out.append((type(error), error.reason, error.line, error.column))
    return out


# (text, the row-split board, or the error's reason start, line and column)
HOSTILE_SCRAMBLES = [
    ("1 2/3 0/", ("row 3 is empty", 1, 8)),  # a trailing slash: refused, with or without a line end
    ("1 2/3 0/\n0 1/3 2\n", ("row 3 is empty", 1, 8)),
    ("1 2/3 0 /", ("row 3 is empty", 1, 9)),
    ("/1 2/3 0", ("row 1 is empty", 1, 1)),
    ("1 2//3 0", ("row 2 is empty", 1, 4)),  # a doubled separator
    ("1 2/ /3 0", ("row 2 is empty", 1, 4)),
    ("1 2/3 0\n/\n", ("row 1 is empty", 2, 1)),  # a line of slashes only is no blank line
    ("1 2/3 0/# note", ("row 3 is empty", 1, 8)),
    ("1 2/3 -0", ("'-0' is not a tile", 1, 7)),  # a signed zero would read as the blank
    ("-00 1/2 3", ("'-0' is not a tile", 1, 1)),
    ("1 2/3 \u0661", ("unexpected '\u0661' (U+0661)", 1, 7)),  # an Arabic-Indic digit, named where it stands
    ("1 2/3 \ud800", ("unexpected byte 0xed", 1, 7)),  # a lone surrogate
    ("1 2/3 +0", ("'+0' is not a tile", 1, 7)),  # a sign names its token; the column in the line, not in the row
    ("+1 0/2 3", ("'+1' is not a tile", 1, 1)),  # a plus sign on a tile, not only on zero
    ("1 2 3 / 4 5 0 / ", ("row 3 is empty", 1, 15)),  # spaces around the slashes change nothing: the same refusal
    ("1 2 3 / 4 5 0", [[[1, 2, 3], [4, 5, 0]]]),
    ("1 2/3 0\n4 5/6 x", ("unexpected 'x'", 2, 7)),
    ("1 2/3 99999999999999999999", ("number too large", 1, 25)),
    ("1 2/3 4294967296", ("holds 4294967296, outside 0..3", 1, None)),
    ("1 2 3/4 0", ("a scramble line must hold 2 rows of 3 numbers", 1, None)),  # rows of unequal length
    ("1 2/3 0\n1 2/3/0", ("a scramble line must hold 2 rows of 2 numbers", 2, None)),
    ("0", ("a board needs at least 2 cells", 1, None)),
    ("1 2/3 0 # rows/cut\n", [[[1, 2], [3, 0]]]),  # a slash in a comment ends no row
    ("# a/b\n1 2/3 0\n", [[[1, 2], [3, 0]]]),
    ("1\t2 /\t3 0\r\n", [[[1, 2], [3, 0]]]),  # tabs, a space before the slash, a Windows line end
    ("01 02/3 00", [[[1, 2], [3, 0]]]),  # leading zeros are the same numbers
    ("1 2 0", [[[1, 2, 0]]]),  # 1xN: one row, no slash
    ("1/2/0", [[[1], [2], [0]]]),  # Nx1: one number a row
]


@pytest.mark.parametrize("text, want", HOSTILE_SCRAMBLES, ids=[repr(t) for t, _ in HOSTILE_SCRAMBLES])
def test_hostile_scrambles_read_alike_by_the_api_and_the_reader(tmp_path, text, want):
    api, reader = _read_both(tmp_path, text)
    if isinstance(want, list):
        assert np.array_equal(api, want) and np.array_equal(reader, want)
        return
    start, line, column = want
    assert isinstance(api, tuple), api
    assert api == reader  # the same refusal, at the same place
    assert api[1].startswith(start) or start in api[1], api
    assert (api[2], api[3]) == (line, column)


@pytest.mark.parametrize("shape", [(1, 2), (1, 9), (9, 1), (2, 1), (3, 4)])
def test_scramble_files_of_thin_boards_round_trip(tmp_path, shape):
    boards = fp.random_solvable(*shape, count=7, seed=2)
    path = tmp_path / "thin.txt"
    fp.write_boards(path, boards, fmt="scramble")
    assert np.array_equal(fp.load_boards(path, fmt="scramble"), boards)
    assert np.array_equal(fp.parse_scramble(path.read_text()), boards)
