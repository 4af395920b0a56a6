import io
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastpuzzle.generate import random_permutations, random_solvable
from fastpuzzle.io import judge, judge_verdicts
from fastpuzzle.io import (
    BoardFileError,
    NpyWriter,
    format_boards,
    iter_boards,
    load_boards,
    parse_shape,
    parse_text,
    read_text_boards,
    write_boards,
)

from .naive import naive_judge, naive_judge_by_cycles, naive_parse_grid_text


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(-10**12, 10**12), st.sampled_from([" ", "  ", "\t", ",", " , "])), max_size=6),
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_tokenizer_matches_python_split(rows, newline, trailing):
    text = newline.join("".join(f"{v}{sep}" for v, sep in row) for row in rows)
    if trailing:
        text += newline
    vals, counts = parse_text(text.encode())
    expected = [int(t) for t in text.replace(",", " ").split()]
    assert vals.tolist() == expected
    lines = text.split(newline)
    if text.endswith(newline) or text == "":
        lines = lines[:-1]  # a final newline ends the last line; empty text has no line
    assert counts.tolist() == [len(l.replace(",", " ").split()) for l in lines]


def test_tokenizer_comments_and_errors():
    vals, counts = parse_text(b"# header\n1 2 # two\n\n3\n#x 9\n")
    assert vals.tolist() == [1, 2, 3]
    assert counts.tolist() == [-1, 2, 0, 1, -1]
    with pytest.raises(BoardFileError, match=r"f.txt: line 2, column 3: unexpected 'x'"):
        parse_text(b"1 2\n3 x\n", "f.txt")
    with pytest.raises(BoardFileError, match=r"line 1, column 3: unexpected .a."):
        parse_text(b"12a 3\n", "f")
    with pytest.raises(BoardFileError, match="too large"):
        parse_text(b"1" * 30, "f")
    with pytest.raises(BoardFileError, match="unexpected '-'"):
        parse_text(b"1 - 2", "f")


def test_shapes():
    assert parse_shape("4x4") == (4, 4) and parse_shape("3X5") == (3, 5) and parse_shape("3") == (3, 3)
    for bad in ["4x", "axb", "1x1", "0x3", "2x2x2"]:
        with pytest.raises(ValueError):
            parse_shape(bad)


@pytest.mark.parametrize("m,n", [(3, 3), (4, 4), (2, 5), (12, 12), (1, 4)])
@pytest.mark.parametrize("fmt", ["lines", "grids"])
def test_text_round_trip(tmp_path, m, n, fmt):
    boards = random_solvable(m, n, count=37, seed=m * n)
    p = tmp_path / f"b.{fmt}.txt"
    write_boards(p, boards, fmt=fmt)
    shape = None if m == n else (m, n)
    if fmt == "grids" and m > 1:
        shape = None  # grids carry their shape
    got = load_boards(str(p), shape=shape)
    assert got.shape == boards.shape and (got == boards).all()
    text = p.read_text()
    if fmt == "grids":
        ref = naive_parse_grid_text(text)
        assert len(ref) == 37 and ref[5] == boards[5].tolist()
    else:
        assert text.splitlines()[3].split() == [str(v) for v in boards[3].ravel()]


def test_grids_with_extra_blank_lines_and_comments():
    text = b"# two boards\n\n1 2 3\n4 5 6\n7 8 0\n\n\n\n8 7 6\n5 4 3\n2 1 0\n\n"
    boards, lines = read_text_boards(text, "g.txt")
    assert boards.shape == (2, 3, 3) and lines.tolist() == [3, 9]
    assert boards[1].ravel().tolist() == [8, 7, 6, 5, 4, 3, 2, 1, 0]


def test_lines_format_detection_is_not_fooled_by_square_rows():
    # four 2x2 boards, one per line: 4 lines of 4 numbers (also a 4x4 shape!)
    text = b"1 2 3 0\n0 1 2 3\n3 2 1 0\n1 0 2 3\n"
    boards, _ = read_text_boards(text, "x")
    assert boards.shape == (4, 2, 2)
    grid = format_boards(random_solvable(4, 4, count=1, seed=1), fmt="grids")
    assert read_text_boards(grid, "x")[0].shape == (1, 4, 4)


def test_text_errors_name_file_and_line(tmp_path):
    cases = [
        (b"1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8\n", "line 2: 8 numbers, expected 9 for a 3x3 board"),
        (b"1 2 3 4 5 6\n", "line 1: 6 numbers is not a square board"),
        (b"1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8 8\n", r"line 2: board 1 is not a permutation.*tile 8 appears 2 times"),
        (b"\n\n1 2 3 4 5 6 7 8 9\n", r"line 3: board 0 holds 9, outside 0..8"),
        (b"1 2 3\n4 5 6\n7 8 0\n\n1 2 3\n4 5 6\n", r"line 5: board 1 is a grid of 2 rows, expected 3"),
        (b"", "no boards"),
    ]
    for i, (text, msg) in enumerate(cases):
        p = tmp_path / f"bad{i}.txt"
        p.write_bytes(text)
        with pytest.raises(BoardFileError, match=f"{p}: {msg}" if text else msg):
            load_boards(str(p))
    with pytest.raises(BoardFileError, match="line 1: 9 numbers, expected 6"):
        read_text_boards(b"1 2 3 4 5 6 7 8 0\n", "x", shape=(2, 3), fmt="lines")


@pytest.mark.parametrize("text, token, line, column", [
    (b"+1 2 3 0\n", "+1", 1, 1),
    (b"1 2\n3 -0\n", "-0", 2, 3),
    (b"1 2 3 +0\n", "+0", 1, 7),
    (b"1 2\n+3 0\n\n0 1\n2 3\n", "+3", 2, 1),  # grids too
])
def test_a_signed_tile_is_refused_naming_its_token(text, token, line, column):
    with pytest.raises(BoardFileError) as info:
        read_text_boards(text, "x")
    error = info.value
    assert error.reason.startswith(f"'{token}' is not a tile") and (error.line, error.column) == (line, column)


def test_npy_streaming_round_trip(tmp_path):
    boards = random_permutations(4, 4, count=10007, seed=3)
    p = tmp_path / "b.npy"
    write_boards(p, boards)
    chunks = list(iter_boards(str(p), chunk_boards=1000))
    assert [s for s, _ in chunks] == list(range(0, 10007, 1000))
    assert (np.concatenate([c for _, c in chunks]) == boards).all()
    mm = load_boards(str(p), check=False)
    assert isinstance(mm, np.memmap) and (mm == boards).all()
    # a stream (like standard input) works too
    with open(p, "rb") as f:
        data = f.read()
    got = np.concatenate([c for _, c in iter_boards(io.BytesIO(data), chunk_boards=4096)])
    assert (got == boards).all()
    # one (m, n) board in a .npy file
    np.save(tmp_path / "one.npy", boards[0])
    assert load_boards(str(tmp_path / "one.npy")).shape == (1, 4, 4)


def test_npy_errors_name_the_global_board(tmp_path):
    boards = random_solvable(3, 3, count=5000, seed=1).astype(np.int64)
    boards[3456, 0, 0] = boards[3456, 0, 1]
    p = tmp_path / "bad.npy"
    np.save(p, boards)
    with pytest.raises(BoardFileError, match=r"bad.npy: board 3456 is not a permutation"):
        for _ in iter_boards(str(p), chunk_boards=1000):
            pass
    np.save(p, np.zeros((3, 4)))
    with pytest.raises(BoardFileError, match="not a permutation|appears"):
        list(iter_boards(str(p)))
    np.save(p, np.zeros(5))
    with pytest.raises(BoardFileError, match="shape"):
        list(iter_boards(str(p)))
    np.save(p, np.array([["a"]]))
    with pytest.raises(BoardFileError, match="dtype"):
        list(iter_boards(str(p)))
    good = tmp_path / "good.npy"
    np.save(good, random_solvable(3, 3, count=100, seed=1))
    data = good.read_bytes()
    (tmp_path / "cut.npy").write_bytes(data[:-20])
    with pytest.raises(BoardFileError, match="ends early"):
        list(iter_boards(str(tmp_path / "cut.npy")))
    with pytest.raises(BoardFileError, match="cannot open"):
        list(iter_boards(str(tmp_path / "missing.npy")))


def test_writers_are_atomic(tmp_path):
    p = tmp_path / "out.npy"
    with pytest.raises(RuntimeError):
        with NpyWriter(p, (10, 2, 2), np.uint8) as w:
            w.write(random_solvable(2, 2, count=4, seed=0))
            raise RuntimeError("interrupted")
    assert not p.exists() and os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="header promises"):
        with NpyWriter(p, (10,), np.bool_) as w:
            w.write(np.zeros(3, bool))
    assert os.listdir(tmp_path) == []
    write_boards(p, random_solvable(2, 2, count=3, seed=1))
    assert np.load(p).shape == (3, 2, 2)


def test_format_boards_large_values():
    b = random_permutations(20, 20, count=3, seed=2)
    text = format_boards(b, fmt="lines").decode()
    assert [list(map(int, l.split())) for l in text.splitlines()] == b.reshape(3, -1).tolist()


def _judge_input(rng, cases):
    parts = []
    for n in cases:
        parts.append(f"{n}\n")
        for _ in range(2):
            g = rng.permutation(n * n).reshape(n, n)
            parts.append("\n".join(" ".join(map(str, r)) for r in g) + "\n")
    return "".join(parts)


def test_judge_matches_reference(rng):
    text = _judge_input(rng, [1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4] * 4)
    assert judge(text.encode()) == naive_judge(text)
    ans = judge(text.encode())
    assert "TAK" in ans and "NIE" in ans
    assert judge(b"") == []
    # odd whitespace and no final newline
    assert judge(b"  2 1 2\r\n3 0\t0 1 3 2") == ["TAK"]


def test_judge_large_case_matches_core_reachable(rng):
    from fastpuzzle import reachable

    for n in (31, 64, 101):
        a, b = rng.permutation(n * n).reshape(n, n), rng.permutation(n * n).reshape(n, n)
        text = f"{n}\n" + format_boards(np.stack([a, b]), fmt="grids").decode()
        assert judge(text.encode()) == ["TAK" if reachable(a, b) else "NIE"]


def test_judge_tree_levels_match_cycle_reference(rng):
    """Sides where the parity tree gains a level (N = 64, 65, 4096, 4225,
    249001, 263169 cells: one to four levels), several cases of different
    sizes in one input, against the O(N) cycle-count reference."""
    sides = [8, 9, 2, 64, 65, 499, 513, 3]
    text = "".join(f"{n}\n" + format_boards(np.stack([rng.permutation(n * n).reshape(n, n) for _ in range(2)]), fmt="grids").decode()
                   for n in sides) + "1\n0\n0\n"
    assert judge(text.encode()) == naive_judge_by_cycles(text)
    assert judge_verdicts(text.encode()).tolist() == [int(a == "TAK") for a in naive_judge_by_cycles(text)]


def test_judge_duplicate_deep_in_a_large_grid(rng):
    n = 65
    a, b = rng.permutation(n * n), rng.permutation(n * n)
    b[4000] = b[7]
    text = f"{n}\n" + " ".join(map(str, a)) + "\n" + " ".join(map(str, b[:2000])) + "\n" + " ".join(map(str, b[2000:])) + "\n"
    what = "the blank \\(0\\)" if b[7] == 0 else f"tile {b[7]}"
    with pytest.raises(BoardFileError, match=f"line 4 \\(case 1\\): second grid holds {what} twice"):
        judge(text.encode(), name="x")


def test_judge_errors_name_the_case():
    cases = [
        (b"2\n1 2\n3 0\n1 2\n3 3\n", r"x: line 5 \(case 1\): second grid holds tile 3 twice"),
        (b"2\n1 2\n3 0\n1 2\n3 0\n2\n1 2\n3 4\n", r"line 8 \(case 2\): first grid holds 4, outside"),
        (b"3\n1 2 3\n", r"case 1\): the input ends after 3"),
        (b"2\n1 2 3 x\n", r"line 2 \(case 1\): unexpected 'x'"),
        (b"0\n", r"board side n = 0"),
        (b"1\n0\n5\n", r"must be|outside"),
    ]
    for text, msg in cases:
        with pytest.raises(BoardFileError, match=msg):
            judge(text, name="x")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.data())
def test_judge_catches_every_duplicate(n, data):
    """A grid with one cell overwritten by another cell's value is not a
    permutation; the in-place cycle walk must notice wherever it happens."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = rng.permutation(n * n), rng.permutation(n * n)
    text_ok = f"{n}\n" + " ".join(map(str, a)) + "\n" + " ".join(map(str, b)) + "\n"
    assert judge(text_ok.encode()) == naive_judge(text_ok)
    if n == 1:
        return
    i, j = data.draw(st.tuples(st.integers(0, n * n - 1), st.integers(0, n * n - 1)).filter(lambda t: t[0] != t[1]))
    bad = b.copy()
    bad[i] = bad[j]
    text = f"{n}\n" + " ".join(map(str, a)) + "\n" + " ".join(map(str, bad)) + "\n"
    v = int(bad[j])
    what = "the blank \\(0\\)" if v == 0 else f"tile {v}"
    with pytest.raises(BoardFileError, match=f"line 3 \\(case 1\\): second grid holds {what} twice"):
        judge(text.encode(), name="x")


@pytest.mark.parametrize("fmt", ["lines", "grids"])
def test_text_streams_in_blocks_with_global_lines(tmp_path, fmt):
    boards = random_solvable(3, 3, count=3000, seed=8)
    text = b"# a header line\n\n" + format_boards(boards[:1000], fmt=fmt) + (b"\n" if fmt == "grids" else b"")
    text += b"# a comment between boards\n" + (b"\n" if fmt == "grids" else b"") + format_boards(boards[1000:], fmt=fmt)
    p = tmp_path / "t.txt"
    p.write_bytes(text)
    whole = load_boards(str(p))
    assert (whole == boards).all()
    chunks = list(iter_boards(str(p), text_block_bytes=4096))
    assert len(chunks) > 5
    assert (np.concatenate([c for _, c in chunks]) == boards).all()
    assert [s for s, _ in chunks] == list(np.cumsum([0] + [len(c) for _, c in chunks[:-1]]))
    # an error deep in the file names the same line and board either way
    bad = boards.copy()
    bad[2345, 2, 2] = bad[2345, 0, 0]
    p.write_bytes(b"# header\n" + _raw_text(bad, fmt))
    with pytest.raises(BoardFileError) as whole_err:
        list(iter_boards(str(p)))
    with pytest.raises(BoardFileError) as block_err:
        list(iter_boards(str(p), text_block_bytes=4096))
    assert str(whole_err.value) == str(block_err.value)
    line = 2 + 2345 * (1 if fmt == "lines" else 4)
    assert f"line {line}: board 2345 is not a permutation" in str(block_err.value)


def _raw_text(boards, fmt):
    """Text of boards without validation (the writers refuse invalid boards)."""
    rows = [" ".join(map(str, row)) for board in boards for row in (board if fmt == "grids" else board.reshape(1, -1))]
    if fmt == "lines":
        return ("\n".join(rows) + "\n").encode()
    m = boards.shape[1]
    return "\n".join("\n".join(rows[i : i + m]) + "\n" for i in range(0, len(rows), m)).encode()


def test_textio_is_a_deprecated_alias_of_io():
    import importlib
    import sys

    import fastpuzzle.io

    sys.modules.pop("fastpuzzle.textio", None)
    with pytest.warns(DeprecationWarning, match="import the same names from fastpuzzle.io"):
        textio = importlib.import_module("fastpuzzle.textio")
    homes = fastpuzzle.io._HOMES
    for name in textio.__all__:
        assert getattr(textio, name) is getattr(importlib.import_module(f"fastpuzzle.io.{homes[name]}"), name)


def test_judge_names_one_function_and_its_module_another():
    import importlib

    import fastpuzzle.io
    from fastpuzzle.io import judge

    module = importlib.import_module("fastpuzzle.io.judging")
    assert judge is module.judge is fastpuzzle.io.judge and callable(judge)
    assert fastpuzzle.io.judge_verdicts is module.judge_verdicts
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("fastpuzzle.io.judge")  # a function, not a module
