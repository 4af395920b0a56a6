"""Edges of every public function: empty batches, one-row boards, NumPy-integer sides, dtypes
that cannot hold the cells, sizes refused before allocating, inline boards with rows.

Promise checked: an empty batch gives an empty answer; a bad argument is a
``ValueError``/``TypeError`` (an ``AllocationError`` for sizes) naming it,
raised before anything large is allocated; the command line exits 2 with one
line.
"""

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import pdb
from fastpuzzle.cli import main as cli_main
from fastpuzzle.memory import AllocationError

from .hostile import one_line_error, tried

EMPTY_SHAPES = [(0, 1, 5), (0, 5, 1), (0, 3, 3), (0, 2, 2), (0, 1, 20), (0, 4, 4)]


def _empty_calls(z):
    m, n = z.shape[1:]
    calls = {
        "is_solvable": lambda: fp.is_solvable(z),
        "reachable": lambda: fp.reachable(z, z),
        "reachable to one goal": lambda: fp.reachable(z, fp.goal_board(m, n)),
        "inversions": lambda: fp.inversions(z),
        "solve_many": lambda: fp.solve_many(z).lengths,
        "solve_many constructive": lambda: fp.solve_many(z, method="constructive").lengths,
    }
    if m * n <= 16:
        calls["distance"] = lambda: fp.distance(z)
    if m * n <= 9:
        calls["table.lookup"] = lambda: fp.distance_table(m, n).lookup(z)
    if (m, n) == (3, 3):
        calls["pdb.lookup"] = lambda: pdb.build_partition((3, 3), [(1, 2, 3, 4), (5, 6, 7, 8)]).lookup(z)
    return calls


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64])
def test_empty_batches_give_empty_answers(shape, dtype):  # issue 20, defects 16, 26
    z = np.zeros(shape, dtype)
    for name, call in _empty_calls(z).items():
        out = np.asarray(call())
        assert out.shape == (0,), name
        tried("edges")


@pytest.mark.parametrize("distance", [5, (50, 55), (0, 3)])
def test_random_solvable_count_zero_with_distance(distance):  # defect 25
    out = fp.random_solvable(4, 4, count=0, distance=distance)
    assert out.shape == (0, 4, 4) and out.dtype == np.uint8
    tried("edges")


def test_cli_reach_on_empty_one_row_npy(tmp_path, capsys):  # defect 16, CLI
    np.save(tmp_path / "e.npy", np.zeros((0, 1, 5), np.uint8))
    code = cli_main(["reach", str(tmp_path / "e.npy"), "1 2 3 4 0"])
    captured = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in captured.err
    if code == 2:
        assert one_line_error(captured.err)
    # no boards: refused with one line, as a text file without boards is (no silent empty answer)
    assert cli_main(["check", str(tmp_path / "e.npy")]) == 2
    assert one_line_error(capsys.readouterr().err)
    tried("edges", 2)


@pytest.mark.parametrize("m, n, dtype", [(20, 20, np.uint8), (4, 4, bool), (12, 12, np.int8), (3, 3, np.float32),
                                         (300, 300, np.int16)])  # fmt: skip
def test_goal_board_dtype_must_hold_the_cells(m, n, dtype):  # defect 8
    with pytest.raises((ValueError, TypeError), match="dtype"):
        fp.goal_board(m, n, dtype=dtype)
    tried("edges")


def test_goal_board_dtype_that_fits():
    g = fp.goal_board(16, 16, dtype=np.uint8)
    assert g.dtype == np.uint8 and int(g.max()) == 255 and fp.is_solvable(g)
    assert fp.goal_board(12, 12, dtype=np.int16).max() == 143


@pytest.mark.parametrize("call", [lambda: fp.goal_board(10**6, 10**6), lambda: fp.random_solvable(10**6, 10**6),
                                  lambda: fp.scramble(10**6, 10**6, 1)])  # fmt: skip
def test_huge_goal_refused_before_allocating(call):  # defect 19
    with pytest.raises(AllocationError):
        call()
    tried("edges")


def test_huge_distance_table_refused_before_the_goal():  # defect 19
    with pytest.raises(ValueError, match="at most 12 cells"):
        fp.distance_table(10**6, 10**6)
    tried("edges")


@pytest.mark.parametrize("side", [np.uint8(16), np.int8(16), np.uint16(16), np.int64(16)])
def test_numpy_integer_sides(side):  # defect 23
    b = fp.random_solvable(side, side, seed=1)
    assert b.shape == (16, 16) and fp.is_solvable(b)
    g = fp.goal_board(np.uint8(200), np.uint8(200))
    assert g.shape == (200, 200) and g.dtype == np.uint16
    assert fp.scramble(side, np.uint8(2), 3, seed=1).shape == (16, 2)
    tried("edges", 3)


@pytest.mark.parametrize("a, b, want", [("1/0/2/3", "1/2/3/0", "reachable"), ("1 2 3/4 5 0", "1 2 3/4 0 5", "reachable"),
                                        ("1 2;3 0", "2 1;3 0", "unreachable"), ("1,2/3,0", "1 2 3 0", "reachable")])  # fmt: skip
def test_inline_rows_give_the_shape(a, b, want, capsys):  # defect 3
    assert cli_main(["reach", a, b]) == 0
    assert capsys.readouterr().out.split() == [want]
    tried("edges")


@pytest.mark.parametrize("args, needle", [(["reach", "1 2/3", "1 2 3 0"], "same length"),
                                          (["reach", "1 0/2 3", "1 2 3 0", "--shape", "1x4"], "--shape"),
                                          (["reach", "-1 2 3 0", "1 2 3 0"], "-1"),
                                          (["check", "no\nsuch.txt"], "'no\\nsuch.txt'")])  # fmt: skip
def test_inline_and_name_errors(args, needle, capsys):  # defect 29
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and needle in err and "cannot open" not in err.replace("'no\\nsuch.txt': cannot open", "")
    tried("edges")


def test_one_cell_boards_message():  # defect 29
    with pytest.raises(ValueError, match="1x1 = 1 cell") as info:
        fp.reachable(np.zeros((3, 1, 1)), np.zeros((3, 1, 1)))
    assert " a have" not in str(info.value)
    tried("edges")


@pytest.mark.parametrize("partition, error", [([], ValueError), ([(1.0, 2)], TypeError), ([(True, 2)], TypeError),
                                              ("ab", TypeError), ([3], TypeError), ([()], ValueError),
                                              ([(1, 2), (2, 3)], ValueError), ([(np.float64(1), 2)], TypeError)])  # fmt: skip
def test_build_partition_arguments(partition, error):  # defect 28 (pdb.build_partition)
    with pytest.raises(error):
        pdb.build_partition((3, 3), partition)
    tried("edges")


@pytest.mark.parametrize("shape", [(3, 3.0), (True, 3), "33", (3,), 3])
def test_build_partition_shape(shape):
    with pytest.raises((TypeError, ValueError)):
        pdb.build_partition(shape, [(1, 2)])
    tried("edges")


def test_build_partition_too_large_is_an_allocation_error():  # defect 20
    with pytest.raises(AllocationError, match="10 tiles"):
        pdb.build_partition((4, 4), [tuple(range(1, 11))])
    db = pdb.build_partition((np.int64(2), np.uint8(3)), [(1, 2, 3)])
    assert db.shape == (2, 3)
    tried("edges")


@pytest.mark.parametrize("call", [lambda: fp.random_solvable(4, 4, count=40_000_000, distance=5),
                                  lambda: fp.random_solvable(3, 3, count=30_000_000, distance=(3, 20)),
                                  lambda: fp.scramble(3, 3, 10, count=20_000_000, return_moves=True)])  # fmt: skip
def test_peak_memory_checked_not_just_the_output(call, monkeypatch):  # defect 18
    """With 1 GiB available: each output fits, its real peak does not."""
    import fastpuzzle.memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 30)
    with pytest.raises(AllocationError):
        call()
    tried("edges")


def test_grids_larger_than_the_layout_prefix(tmp_path):  # defect 24
    from fastpuzzle.io.read import iter_boards
    from fastpuzzle.io.write import write_boards

    boards = fp.random_solvable(1000, 1000, count=3, seed=2)
    path = tmp_path / "g.txt"
    write_boards(str(path), boards, fmt="grids")
    assert path.stat().st_size > 3 * (1 << 20)  # each grid is larger than the 1 MB prefix
    got = np.concatenate([b for _, b in iter_boards(str(path), text_block_bytes=8 << 20)])
    assert got.shape == (3, 1000, 1000) and (got == boards).all()
    tried("edges")
