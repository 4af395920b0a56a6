"""Hostile inputs, eleventh pass: distances no 4x4 board has, random-goal curricula at exact
distances, unchecked flags and counts, sizes refused before a copy, values an unchecked picture
would wrap, budget shortfalls of hints, ragged move sequences."""

import warnings

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import steps
from fastpuzzle.distances import near
from fastpuzzle.env.curriculum import orbit_start
from fastpuzzle.io.text import TEXT_BLOCK_BYTES
from fastpuzzle.errors import AllocationError, DistanceBudgetError, OptionError, OptionTypeError
from fastpuzzle.moves import board_symmetries
from fastpuzzle.pdb import build_partition, placement_count
from .hostile import one_line_error, tried


@pytest.mark.parametrize("distance", [81, (81, 90), 2**70])
def test_a_distance_past_the_4x4_radius_names_no_board(distance):
    tried("wave11", 1)
    with pytest.raises(OptionError, match="names no 4x4 board: distances run from 0 to 80"):
        fp.random_solvable(4, 4, seed=2, distance=distance)


def test_a_range_none_of_the_sample_holds_is_refused_after_the_first_solves(monkeypatch):
    tried("wave11", 1)
    from fastpuzzle.distances import sample

    solved = []

    def quick_distance(boards, **kw):  # solves in no time, never in range: time alone would not refuse
        solved.append(len(boards))
        return np.full(len(boards), 50, np.int64)

    monkeypatch.setattr(sample, "distance", quick_distance)
    with pytest.raises(OptionError, match=r"fewer than 1 in 10,00\d .* a rate too small to bound the time"):
        fp.random_solvable(4, 4, seed=2, distance=(29, 31))
    assert sum(solved) <= 1 + sample.PILOT_WITH_SAMPLE  # the database load, then the pilot: no minute of solving


@pytest.mark.parametrize("m, n", [(3, 3), (4, 4), (2, 7), (3, 5), (2, 3)])
def test_orbit_start_moves_the_blank_onto_every_cell(m, n):
    tried("wave11", 1)
    cells = np.arange(m * n).reshape(m, n)
    for cell in range(m * n):
        first, transform = orbit_start(m, n, cell)
        orbit = {int(f(cells).ravel()[cell]) for _, f, _ in board_symmetries(m, n)}
        assert first == min(orbit)
        board = np.insert(np.arange(1, m * n), first, 0).reshape(m, n)
        assert int(np.flatnonzero(transform(board).ravel() == 0)[0]) == cell


def test_random_goals_at_an_exact_distance_reuse_the_layers_of_each_orbit():
    tried("wave11", 1)
    from fastpuzzle.env import SlidingPuzzleVectorEnv

    near._CACHE.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = SlidingPuzzleVectorEnv(48, 4, 4, random_goal=True, curriculum={"distance": 9})
        obs, info = env.reset(seed=0)
        built = {id(layers) for layers in near._CACHE.values()}
        assert len(built) <= 3  # corner, edge and centre blanks of a 4x4
        obs2, info2 = env.reset(seed=1)
    assert {id(layers) for layers in near._CACHE.values()} == built  # no layer built again
    for boards, goals in ((obs, info["goal"]), (obs2, info2["goal"])):
        assert len(np.unique(np.argmax(goals.reshape(48, -1) == 0, axis=1))) > 3  # goals' blanks all over
        for board, goal in zip(boards[:12], goals[:12]):
            assert fp.solve(board, goal=goal, heuristic="linear_conflict").length == 9


def test_distance_table_ranks_take_whole_numbers_only():
    tried("wave11", 4)
    table = fp.distance_table(2, 3)
    assert len(table.boards_at(1)) == 2
    for bad in (1.5, "1", True, None):
        with pytest.raises(OptionTypeError, match="lo"):
            table.boards_at(bad)
    with pytest.raises(OptionTypeError, match="hi"):
        table.ranks_at(1, 2.0)


def test_flags_and_counts_of_the_database_builder_are_checked():
    tried("wave11", 6)
    for option, value in (("reflect", "no"), ("reflect", 1), ("parallel", "no"), ("progress", "")):
        with pytest.raises(OptionTypeError, match=option):
            build_partition((2, 3), [(1, 2)], **{option: value})
    with pytest.raises(OptionError, match="reflect"):  # refused before building
        build_partition((2, 3), [(1, 2)], reflect=True)
    for args in ((-1, 2), (3.5, 2), (10, -3), (4, 5), (True, 1)):
        with pytest.raises((OptionError, OptionTypeError)):
            placement_count(*args)
    assert placement_count(16, 7) == 57657600
    with pytest.raises(OptionTypeError, match="check"):
        fp.as_boards([[1, 2], [3, 0]], check=1)


def test_neighbours_refuse_their_output_size_before_copying_the_input(monkeypatch):
    tried("wave11", 1)

    def no_copy(*args, **kwargs):
        raise AssertionError("the input was copied before the size check")

    monkeypatch.setattr(steps, "_flat_batch", no_copy)
    with pytest.raises(AllocationError, match="successors of 1,000,000,000 boards"):
        fp.neighbours(np.broadcast_to(fp.goal_board(3, 3), (10**9, 3, 3)))


def test_messages_name_what_the_user_gave():
    tried("wave11", 4)
    with pytest.raises(OptionError) as caught:
        fp.labelled_boards(3, 3, -1)
    assert "None" not in str(caught.value)
    with pytest.raises(fp.BoardError, match="board 1 holds -1"):
        fp.draw(np.array([[[1, 2], [3, 0]], [[1, -1], [3, 0]]]), check=False)
    with pytest.raises(fp.BoardError, match="holds 300"):
        fp.draw(np.array([[1, 300], [3, 0]]), check=False)
    with pytest.raises(OptionTypeError, match="dtype"):
        fp.goal_board(3, 3, dtype="foo")


def test_a_multi_tile_hint_out_of_budget_blames_the_budget():
    tried("wave11", 1)
    board = fp.random_solvable(2, 7, seed=1)  # 14 cells: past the tables, solved by the search
    with pytest.raises(DistanceBudgetError) as caught:
        fp.hints(board, metric="mtm", max_nodes=10)
    assert list(caught.value.stopped) == [0] and "stopped='mark'" not in str(caught.value)


@pytest.mark.parametrize("name", ["encode_moves", "decode_moves", "invert", "simplify", "mirror", "transpose"])
def test_ragged_move_sequences_are_refused_by_name(name):
    tried("wave11", 1)
    with pytest.raises(OptionError, match="move codes must be an array of one shape"):
        getattr(fp, name)([[0], [1, 2]])


# -- files and the command line ------------------------------------------------------------------


def _cli(argv, capsys):
    from fastpuzzle.cli import main

    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_no_command_runs_a_bench_suite_from_the_working_directory(tmp_path, monkeypatch, capsys):
    tried("wave11", 2)
    from fastpuzzle.cli import bench as cli_bench

    (tmp_path / "bench").mkdir()
    marker = tmp_path / "ran"
    (tmp_path / "bench" / "suite.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_bench, "__file__", str(tmp_path / "installed" / "fastpuzzle" / "cli" / "bench.py"))
    monkeypatch.setattr(cli_bench, "_SUITE", None)
    assert cli_bench.find_bench_dir() is None
    assert _cli(["reach", "1 2/3 0", "1 2/3 0"], capsys)[0] == 0
    assert not marker.exists()


def test_a_broken_bench_suite_leaves_the_other_commands_whole(tmp_path, monkeypatch, capsys):
    tried("wave11", 2)
    from fastpuzzle.cli import bench as cli_bench

    (tmp_path / "suite.py").write_text("oops(\n")
    monkeypatch.setattr(cli_bench, "find_bench_dir", lambda: str(tmp_path))
    monkeypatch.setattr(cli_bench, "_SUITE", None)
    assert _cli(["reach", "1 2/3 0", "1 2/3 0"], capsys)[0] == 0
    rc, _, err = _cli(["bench", "--list"], capsys)
    assert rc == 2 and one_line_error(err) and "suite.py" in err and "SyntaxError" in err


def test_a_descriptor_the_shell_opened_for_appending_keeps_what_it_held(tmp_path, capsys):
    tried("wave11", 1)
    log = tmp_path / "log"
    log.write_text("PRE\n")
    with open(log, "a") as appending:
        rc, _, err = _cli(["generate", "--shape", "3x3", "--count", "1", "--out", f"/dev/fd/{appending.fileno()}"], capsys)
    assert rc == 0, err
    text = log.read_text()
    assert text.startswith("PRE\n") and len(text.split()) == 10


def test_long_output_names_and_failed_outputs_never_show_the_temporary_name(tmp_path, capsys):
    tried("wave11", 2)
    fine = tmp_path / ("a" * 236 + ".txt")
    rc, _, err = _cli(["generate", "--shape", "3x3", "--count", "2", "--out", str(fine)], capsys)
    assert rc == 0 and fine.exists(), err
    too_long = tmp_path / ("b" * 300 + ".txt")
    rc, _, err = _cli(["generate", "--shape", "3x3", "--count", "2", "--out", str(too_long)], capsys)
    assert rc == 2 and one_line_error(err) and ".tmp" not in err and "b" * 300 in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [fine.name]


def test_a_scramble_whose_first_row_is_long_reads_back(tmp_path, capsys):
    tried("wave11", 1)
    text = tmp_path / "s.txt"
    text.write_text("#" + "x" * 5000 + "\n1 2 3/4 5 6/7 8 0\n")
    rc, out, err = _cli(["check", str(text)], capsys)
    assert rc == 0 and out.split() == ["solvable"], err


def test_a_deeply_nested_cache_description_is_corrupt_not_a_crash(tmp_path):
    tried("wave11", 1)
    from fastpuzzle.cachefile import CorruptCacheError, read_sidecar, sidecar

    path = tmp_path / "table.npy"
    path.write_bytes(b"")
    sidecar(path).write_text("[" * 200_000)
    with pytest.raises(CorruptCacheError, match="not valid JSON"):
        read_sidecar(path)


def test_finished_work_succeeds_whatever_standard_error_is(tmp_path, monkeypatch, capsys):
    tried("wave11", 1)
    import io
    import sys

    import errno

    class Full(io.StringIO):  # standard error on a full disk (2>/dev/full)
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sys, "stderr", Full())
    from fastpuzzle.cli import main

    assert main(["generate", "--shape", "3x3", "--count", "2", "--out", str(tmp_path / "x.txt")]) == 0
    assert len((tmp_path / "x.txt").read_text().split()) == 18


def test_ctrl_c_during_start_up_is_one_line(monkeypatch, capsys):
    tried("wave11", 1)
    from fastpuzzle import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    rc, _, err = _cli(["generate", "--shape", "3x3"], capsys)
    assert rc == 130 and one_line_error(err) and "SIGINT" in err


@pytest.mark.parametrize("argv", [["generate", "--shape", "\u00b2x3"], ["generate", "--shape", "3x3", "--count", "\u0663"]])
def test_digits_other_than_ascii_are_refused_in_one_line(argv, capsys):
    tried("wave11", 1)
    rc, _, err = _cli(argv, capsys)
    assert rc == 2 and one_line_error(err) and "invalid literal" not in err


@pytest.mark.parametrize("argv", [["generate", "--shape", "2x2", "--count", "1", "--out", "-", "--quiet"],
                                  ["generate", "--shape", "2x2", "--count", "1", "--out", "-", "--no-progress"],
                                  ["solve", "-", "--no-progress"], ["solve", "-", "--quiet"]])
def test_every_command_with_a_bar_takes_both_names_of_no_bar(argv, capsys, monkeypatch):
    tried("wave11", 1)
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 2 3 0\n")))
    rc, _, err = _cli(argv, capsys)
    assert rc == 0, err


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs")
def test_check_reads_a_fifo_once_with_out(tmp_path, capsys):
    tried("wave11", 1)
    import os
    import threading

    boards = fp.random_solvable(4, 4, count=5, seed=1)
    np.save(tmp_path / "ok.npy", boards)
    fifo = tmp_path / "p.npy"
    os.mkfifo(fifo)
    feeder = threading.Thread(target=lambda: fifo.write_bytes((tmp_path / "ok.npy").read_bytes()))
    feeder.start()
    rc, out, err = _cli(["check", str(fifo), "--out", str(tmp_path / "m.npy"), "--summary"], capsys)
    feeder.join(timeout=30)
    assert rc == 0, err
    assert np.load(tmp_path / "m.npy").tolist() == [True] * 5


# -- the solvers -----------------------------------------------------------------------------------


def test_multi_tile_boards_past_the_search_get_the_folded_constructive_answer():
    tried("wave11", 3)
    board = fp.random_solvable(21, 21, seed=1)  # 441 cells: past the search's tables
    sol = fp.solve(board, metric="mtm", max_nodes=10)
    assert sol.status == "found" and sol.method == "constructive" and sol.verify(board)
    assert fp.solve_many(board[None], metric="mtm")[0].length == sol.length
    with pytest.raises(fp.ShapeError, match="at most 400 cells"):
        fp.solve(board, metric="mtm", method="ida")


def test_a_multi_tile_search_above_16_cells_with_no_budget_gets_the_default_limit():
    tried("wave11", 1)
    board = fp.scramble(4, 5, 12, seed=3)
    sol = fp.solve(board, metric="mtm")
    assert sol.status == "optimal" and "default time limit" in sol.note


def test_multi_tile_answers_under_a_budget_agree_between_solve_and_solve_many():
    tried("wave11", 1)
    board = np.array([[8, 6, 7], [3, 2, 1], [4, 0, 5]])
    one = fp.solve(board, metric="mtm", max_nodes=30)
    many = fp.solve_many(board[None], metric="mtm", max_nodes=30)[0]
    assert (one.status, one.length, one.lower_bound) == (many.status, many.length, many.lower_bound)
    assert one.status == "bounded"


def test_the_anytime_search_keeps_its_node_budget():
    tried("wave11", 3)
    board = fp.random_solvable(8, 8, count=4, seed=7)[2]
    for budget in (10, 100, 1000):
        assert fp.solve(board, max_nodes=budget).nodes <= budget + 1  # the root is counted once more


def test_odd_options_of_the_solvers_are_refused_by_name(capsys, monkeypatch):
    tried("wave11", 3)
    import io
    import sys

    with pytest.raises(OptionTypeError, match="time_limit"):
        fp.solve([[1, 2, 3], [4, 0, 6], [7, 5, 8]], time_limit=np.timedelta64(1, "s"))
    result = fp.solve_many(fp.random_solvable(3, 3, count=2, seed=1))
    with pytest.raises(OptionTypeError, match="bool"):
        result[True]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 2 3 4 0 6 7 5 8\n")))
    rc, _, err = _cli(["solve", "-", "--method", "constructive", "--count-only", "--max-nodes", "5"], capsys)
    assert rc == 2 and one_line_error(err) and "--max-nodes" in err


class _Endless(__import__("io").RawIOBase):
    """A stream without end (``/dev/zero``, ``/dev/urandom``)."""

    def __init__(self, byte):
        self.byte, self.served = byte, 0

    def readable(self):
        return True

    def readinto(self, b):
        b[:] = self.byte * len(b)
        self.served += len(b)
        assert self.served < 1 << 28, "read on without end"
        return len(b)


@pytest.mark.parametrize("argv", [["check", "-"], ["solve", "-"], ["draw", "-"], ["reach", "--judge", "-"]])
@pytest.mark.parametrize("byte", [b"\x00", b"x"])
def test_a_stream_that_cannot_hold_boards_is_refused_at_its_first_byte(argv, byte, capsys, monkeypatch):
    tried("wave11", 1)
    import io
    import sys

    stream = _Endless(byte)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    rc, _, err = _cli(argv, capsys)
    assert rc == 2 and one_line_error(err) and "line 1" in err
    assert stream.served <= 2 * TEXT_BLOCK_BYTES  # at most a block or two read, never without end


def test_a_grid_larger_than_a_block_is_read_as_a_grid(tmp_path):
    tried("wave11", 1)
    from fastpuzzle.io.read import iter_boards

    board = fp.random_solvable(600, 600, seed=1)  # 2.4 MB of text: its first MB holds 250 of its rows
    path = tmp_path / "g.txt"
    fp.write_boards(path, board[None], fmt="grids")
    parts = list(iter_boards(path, text_block_bytes=1 << 20))
    assert len(parts) == 1 and np.array_equal(parts[0][1][0], board)
    assert np.array_equal(fp.load_boards(path)[0], board)


@pytest.mark.parametrize("command", ["check", "solve"])
def test_npy_bytes_past_the_data_are_refused_on_a_stream_as_in_a_file(tmp_path, command, capsys, monkeypatch):
    tried("wave11", 1)
    import io
    import sys

    path = tmp_path / "b.npy"
    np.save(path, fp.random_solvable(3, 3, count=2, seed=1))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(path.read_bytes() + b"\0" * 32))))
    rc, _, err = _cli([command, "-"], capsys)
    assert rc == 2 and "after the data its header describes" in err


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 20])
def test_reading_a_stream_stops_early_only_on_a_first_line_no_board_has(chunk):
    tried("wave11", 1)
    import io

    from fastpuzzle.io.source import read_stream

    lines = b"\xef\xbb\xbf" + b"1 2 3 0\n" * 3000  # a byte order mark, read in pieces of any size
    assert read_stream(io.BytesIO(lines), "x", chunk=chunk) == lines
    assert read_stream(io.BytesIO(lines[7:]), "x", head=lines[:7], chunk=chunk) == lines
    commented = b"# \x00 any bytes\n" + b"\x00" * 100  # a comment holds anything; the parser refuses line 2
    assert read_stream(io.BytesIO(commented), "x", chunk=chunk) == commented
    assert len(read_stream(io.BytesIO(b"\x00" * 10**6), "x", chunk=chunk)) <= max(2 * chunk, 8)


@pytest.mark.parametrize("argv", [["check", "-", "--goal", "-"], ["solve", "-", "--goal", "-"], ["reach", "-", "-"],
                                  ["draw", "-", "--goal", "-", "--out", "x.svg"]])
def test_standard_input_named_twice_is_refused(argv, capsys, monkeypatch, tmp_path):
    tried("wave11", 1)
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 2 3 0\n")))
    rc, _, err = _cli(argv, capsys)
    assert rc == 2 and one_line_error(err) and "standard input (-), which can be read once" in err


# -- Dask and the caches ---------------------------------------------------------------------------


def test_a_link_in_the_database_cache_is_replaced_not_written_through(tmp_path, monkeypatch):
    tried("wave11", 1)
    from fastpuzzle import pdb

    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    pdb.build("4-4", progress=False)
    precious = tmp_path / "precious.npy"
    np.save(precious, np.arange(10))
    tables = tmp_path / "cache" / "4-4" / "tables.npy"
    tables.unlink()
    tables.symlink_to(precious)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pdb.build("4-4", progress=False)
    assert np.load(precious).tolist() == list(range(10)) and not tables.is_symlink()


def test_dask_boards_of_unknown_chunk_sizes_and_stores_with_no_name():
    tried("wave11", 3)
    import os

    import fastpuzzle.distributed as fd

    boards = fp.random_solvable(3, 3, count=50, seed=1)
    x = fd.as_dask_boards(boards, chunks=7)
    filtered = x[x[:, 0, 0] > 0]
    starts = [start for start, _ in fd.iter_blocks(filtered)]
    sizes = [len(block) for _, block in fd.iter_blocks(filtered)]
    assert starts == [sum(sizes[:k]) for k in range(len(sizes))]
    with pytest.raises(fp.ShapeError, match="compute_chunk_sizes"):
        fd.is_solvable(filtered)
    for path in ("", os.getcwd()):
        with pytest.raises(fp.BoardFileError, match="no name for a new store"):
            fd.to_zarr(boards, path, overwrite=True)


def test_a_directory_in_a_cached_files_place_is_cleared(tmp_path):
    tried("wave11", 1)
    from fastpuzzle.cachefile import remove_cached, save_checked, sidecar

    path = tmp_path / "t.npy"
    save_checked(path, np.arange(5, dtype=np.uint8), {"kind": "demo"})
    sidecar(path).unlink()
    sidecar(path).mkdir()
    (sidecar(path) / "x").write_text("x")  # the table was rebuilt on every call, never cached again
    remove_cached(path)
    assert not path.exists() and not sidecar(path).exists()


def test_a_refused_database_object_is_named_in_one_line():
    tried("wave11", 1)
    db = build_partition((2, 3), [(1, 2, 3), (4, 5)])
    with pytest.raises(OptionError) as caught:
        fp.solve([[1, 2, 3], [4, 0, 5]], heuristic="pdb", database=db, method="constructive")
    message = str(caught.value)
    assert "\n" not in message and "array(" not in message and "name='custom'" in message
