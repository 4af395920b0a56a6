"""Hostile inputs, twelfth pass: a hint whose first solve a budget stops, searches that need a
quick database where the cache cannot be written, a node budget on a huge board's windows, and
the sweep's file and option findings (malformed ``.npy`` headers, empty batches, NumPy's bool)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle.errors import DistanceBudgetError
from fastpuzzle.search.windows import WindowSolver
from .hostile import one_line_error, tried


@pytest.mark.parametrize("budget", [dict(max_nodes=1), dict(max_nodes=1000)])
def test_a_hint_whose_first_solve_runs_out_says_so(budget):
    tried("wave12", 1)
    board = fp.random_solvable(4, 4, seed=1)
    with pytest.raises(DistanceBudgetError):
        fp.hints(board, **budget)  # no distance known: never the length of some solution
    assert fp.hints(board).distance == fp.distance(board)


def test_a_search_needing_a_quick_database_builds_it_in_memory_where_the_cache_is_unusable(tmp_path, monkeypatch):
    tried("wave12", 2)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(blocker))
    board = fp.random_solvable(3, 3, seed=4)
    with pytest.warns(RuntimeWarning, match="built in memory only"):
        sol = fp.solve(board, heuristic="pdb")
    assert sol.status == "optimal" and sol.length == fp.distance(board)
    assert blocker.read_text() == "x"
    with pytest.raises(OSError, match="cannot cache pattern database"):  # an explicit build still refuses
        fp.pdb.build("4-4", progress=False)


def test_a_node_budget_bounds_the_windows_of_a_huge_board():
    tried("wave12", 1)
    m = n = 12
    board = fp.random_solvable(m, n, seed=3)
    codes = fp.solve(board, method="constructive").codes
    windows = WindowSolver(m, n)
    cells = board.ravel().astype(np.uint8)
    out = windows.improve(cells, codes, 8, 1, 0.0, total=5)
    assert len(windows._engines) == 1 and windows.work > 5  # stopped after the first table, not one per blank cell
    assert fp.Solution(out, status="found").verify(board) and len(out) <= len(codes)


def _npy(header: bytes, data: bytes, version=(1, 0)) -> bytes:
    width = 2 if version == (1, 0) else 4
    return b"\x93NUMPY" + bytes(version) + len(header).to_bytes(width, "little") + header + data


@pytest.mark.parametrize("raw,why", [
    (_npy(b"{'descr': '<u1', 'fortran_order': False, 'shape': (1, 2, 2), ".ljust(117) + b"\n", bytes([1, 2, 3, 0])),
     "not a valid .npy file"),  # a dict never closed: the tokenizer's own error
    (b"\x93NUMPY\x02\x00\xff\xff\xff\xff{", "claims 4,294,967,295 bytes"),  # a length that would allocate 4 GiB
    (_npy(b"{'descr': '<u1', 'fortran_order': False, 'shape': (1, 2, 2), }".ljust(100000) + b"\n", b"", (2, 0)),
     "claims 100,001 bytes"),
])  # fmt: skip
def test_a_malformed_npy_header_is_a_board_file_error(tmp_path, raw, why):
    tried("wave12", 2)
    path = tmp_path / "bad.npy"
    path.write_bytes(raw)
    with pytest.raises(fp.BoardFileError, match=why):
        fp.load_boards(str(path))
    run = subprocess.run([sys.executable, "-m", "fastpuzzle", "check", "-"], input=raw, capture_output=True,
                         timeout=120)  # fmt: skip
    assert run.returncode == 2 and one_line_error(run.stderr.decode()), run.stderr[-500:]


def test_a_cached_table_with_a_spoiled_header_is_corrupt_not_a_crash(tmp_path):
    tried("wave12", 2)
    from fastpuzzle.cachefile import CorruptCacheError, open_array, save_checked

    path = str(tmp_path / "t.npy")
    save_checked(path, np.arange(5, dtype=np.uint8), {"kind": "demo"})
    raw = bytearray(open(path, "rb").read())
    raw[raw.index(b"}")] = ord(" ")
    open(path, "wb").write(bytes(raw))
    with pytest.raises(CorruptCacheError, match="unreadable"):
        open_array(path, {"kind": "demo"})
    raw[8:10] = (60000).to_bytes(2, "little")  # a header longer than the file
    open(path, "wb").write(bytes(raw))
    with pytest.raises(CorruptCacheError, match="claims 60,000 bytes"):
        open_array(path, {"kind": "demo"})


def test_an_empty_batch_writes_and_reads_back(tmp_path):
    tried("wave12", 1)
    path = str(tmp_path / "empty.npy")
    fp.write_boards(path, np.zeros((0, 3, 3), np.uint8))
    assert np.load(path).shape == (0, 3, 3) and fp.load_boards(path).shape == (0, 3, 3)


@pytest.mark.parametrize("kwargs,error", [(dict(chunk=-1), fp.OptionError), (dict(chunk=0), fp.OptionError),
                                          (dict(chunk=1.5), fp.OptionTypeError), (dict(newline=2), fp.OptionTypeError)])
def test_write_solution_checks_its_options(kwargs, error):
    import io

    from fastpuzzle.search.constructive import write_solution

    tried("wave12", 1)
    sol = fp.solve([[1, 2], [0, 3]])
    with pytest.raises(error):
        write_solution(sol, io.BytesIO(), **kwargs)
    with pytest.raises(fp.OptionTypeError, match="must be a Solution"):
        write_solution("DR", io.BytesIO())
    out = io.BytesIO()
    assert write_solution(sol, out, chunk=1, newline=np.True_) == 1 and out.getvalue() == b"R\n"


def test_numpys_bool_is_a_flag():
    tried("wave12", 1)
    board = [[1, 2], [3, 0]]
    assert fp.is_solvable(board, check=np.True_) and fp.is_solvable(board, check=np.bool_(False))
    with pytest.raises(fp.OptionTypeError):
        fp.is_solvable(board, check=np.int64(1))


def test_a_quick_database_asked_for_by_name_is_rebuilt_when_spoiled(tmp_path, monkeypatch):
    tried("wave12", 1)
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path))
    db = fp.pdb.build("5-5-5", progress=False)
    tables = tmp_path / "5-5-5" / "tables.npy"
    del db
    raw = bytearray(tables.read_bytes())
    raw[-1] ^= 0xFF
    tables.write_bytes(bytes(raw))
    board = fp.random_solvable(4, 4, seed=2, distance=20)
    with pytest.warns(RuntimeWarning, match="it is rebuilt"):
        sol = fp.solve(board, heuristic="pdb", database="5-5-5")
    assert sol.status == "optimal" and sol.length == 20


def test_a_warning_on_the_command_line_is_one_line(tmp_path):
    tried("wave12", 1)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    env = dict(os.environ, FASTPUZZLE_CACHE=str(blocker))
    run = subprocess.run([sys.executable, "-m", "fastpuzzle", "solve", "-", "--heuristic", "pdb"],
                         input="1 2 3\n4 5 6\n0 7 8\n", capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stderr.strip().splitlines()
    assert lines and all(line.startswith("fastpuzzle solve: warning: ") for line in lines), run.stderr


def test_goal_is_keyword_only_everywhere():
    tried("wave12", 4)
    board, goal = [[1, 2], [0, 3]], [[1, 2], [3, 0]]
    for call in (lambda: fp.hints(board, goal), lambda: fp.count_optimal(board, goal),
                 lambda: fp.optimal_solutions(board, goal), lambda: fp.distance_table(2, 2, goal)):  # fmt: skip
        with pytest.raises(TypeError):
            call()
    assert fp.hints(board, goal=goal).distance == 1 and fp.count_optimal(board, goal=goal) == 1


@pytest.mark.parametrize("shape,distance", [((3, 3), 99), ((4, 4), 81), ((2, 3), (30, 40))])
def test_a_distance_no_board_has_is_refused_for_no_boards_too(shape, distance):
    tried("wave12", 1)
    with pytest.raises(fp.OptionError, match="names no"):
        fp.random_solvable(*shape, count=0, distance=distance)
    assert fp.random_solvable(*shape, count=0, distance=3).shape == (0, *shape)


def test_a_batch_result_indexes_like_a_sequence():
    tried("wave12", 1)
    r = fp.solve_many(fp.random_solvable(2, 2, count=3, seed=1))
    assert [s.length for s in r[1:]] == [s.length for s in list(r)[1:]] and r[-1].length == r[2].length
    with pytest.raises(IndexError, match="board index 5 out of range for 3 boards"):
        r[5]
    for bad in ("a", 1.0, True):
        with pytest.raises(fp.OptionTypeError):
            r[bad]


def test_small_refusals_of_the_sweep(tmp_path):
    tried("wave12", 6)
    from fastpuzzle.search.heuristics import search_tables

    assert fp.parse_scramble("\ufeff1 2/3 0").tolist() == [[1, 2], [3, 0]]  # a byte order mark, as every reader
    with pytest.raises(fp.OptionError, match="must name a directory"):
        fp.pdb.load("4-4", directory="")
    with pytest.raises(fp.OptionTypeError):
        fp.pdb.build("4-4", directory=5, progress=False)
    with pytest.raises(fp.OptionError):
        search_tables(0, 0, np.zeros((0, 0), int))
    with pytest.raises(fp.ShapeError):
        search_tables(3, 3, [[1, 2], [3, 0]])
    with pytest.raises(fp.BoardError, match="masked"):
        fp.is_solvable(np.ma.array([[1, 2], [3, 0]], mask=[[0, 1], [0, 0]]))
    assert fp.is_solvable(np.ma.array([[1, 2], [3, 0]]))  # nothing masked: an array like any other


@pytest.mark.parametrize("cell,scale", [(9999, 16), (1e-300, 1), (40, 1000)])
def test_a_picture_too_large_or_too_small_to_rasterise_is_refused_before_drawing(cell, scale):
    tried("wave12", 1)
    with pytest.raises(fp.OptionError):
        fp.draw(fp.goal_board(3, 3), cell=cell).png(scale=scale)


def test_a_picture_is_saved_in_the_format_its_name_says(tmp_path):
    tried("wave12", 2)
    pytest.importorskip("cairosvg")
    pytest.importorskip("PIL")
    picture = fp.draw([[1, 2], [3, 0]])
    picture.save(tmp_path / "p.png")
    picture.save(str(tmp_path / "p.svg"))
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG" and (tmp_path / "p.svg").read_text().startswith("<svg")
    with pytest.raises(fp.OptionError, match="writes a GIF"):
        fp.animate([[1, 2], [0, 3]], "R").save_gif(str(tmp_path / "a.svg"))
    assert not (tmp_path / "a.svg").exists()


def test_environment_options_of_the_wrong_type_are_type_errors():
    tried("wave12", 3)
    from fastpuzzle.env import SlidingPuzzleEnv, SlidingPuzzleVectorEnv

    for num_envs in (2.5, True):
        with pytest.raises(fp.OptionTypeError):
            SlidingPuzzleVectorEnv(num_envs, 3, 3)
    for kwargs in (dict(illegal=np.array(["stay"])), dict(render_mode=np.array(["ansi"]))):
        with pytest.raises(fp.OptionTypeError):
            SlidingPuzzleEnv(3, 3, **kwargs)


def test_dask_readers_name_a_bad_path_argument(tmp_path):
    tried("wave12", 2)
    pytest.importorskip("dask")
    from fastpuzzle import distributed

    for call in (lambda: distributed.from_npy(5), lambda: distributed.from_zarr(None)):
        with pytest.raises(fp.OptionTypeError, match="path"):
            call()
    path = tmp_path / "i1.npy"
    np.save(path, np.array([[[1, 2, 3], [4, 5, 6], [7, 8, -1]]], np.int8))
    run = subprocess.run([sys.executable, "-m", "fastpuzzle", "check", str(path), "--dask"], capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert run.returncode == 2 and one_line_error(run.stderr) and f"{path}: board 0" in run.stderr, run.stderr


def test_a_judged_stream_that_goes_wrong_early_is_refused_before_its_end():
    tried("wave12", 2)
    code = ("import sys\nw = sys.stdout.buffer\nw.write(b'7\\n' * (1 << 20))\nw.flush()\n"
            "import time\ntime.sleep(120)\n")  # 2 MiB, then a stream that never ends
    feeder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        run = subprocess.run([sys.executable, "-m", "fastpuzzle", "reach", "--judge"], stdin=feeder.stdout,
                             capture_output=True, text=True, timeout=100)  # fmt: skip
    finally:
        feeder.kill()
        feeder.wait()
    assert run.returncode == 2 and one_line_error(run.stderr) and "tile 7 twice" in run.stderr, run.stderr
    good = b"2\n1 2\n3 0\n0 1\n3 2\n" * 200_000  # 3.8 MB of good cases through the probes
    run = subprocess.run([sys.executable, "-m", "fastpuzzle", "reach", "--judge"], input=good, capture_output=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0 and run.stdout == b"TAK\n" * 200_000


def test_an_output_whose_neighbour_cannot_be_made_says_so(tmp_path, monkeypatch):
    tried("wave12", 1)
    from fastpuzzle.atomic import AtomicOutput

    real_open = os.open

    def refuse_temp(path, flags, *args):
        if str(path).endswith(".tmp"):
            raise OSError(2, "No such file or directory", path)
        return real_open(path, flags, *args)

    target = tmp_path / "exists.txt"
    target.write_text("old")
    monkeypatch.setattr(os, "open", refuse_temp)
    with pytest.raises(OSError, match="cannot create a file beside it"):
        with AtomicOutput(str(target)) as f:
            f.write(b"new")
    assert target.read_text() == "old"


def test_an_interrupt_python_cannot_pass_on_still_ends_the_run_as_interrupted():
    tried("wave12", 1)
    code = (
        "import sys\nsys.argv = ['fastpuzzle', 'check', '-']\nimport fastpuzzle.cli as cli\n"
        "import fastpuzzle.cli.check as check\n"
        "class Finaliser:\n    def __del__(self):\n        raise KeyboardInterrupt\n"
        "def run(args):\n    Finaliser()  # dropped at once: its interrupt is unraisable\n    print('done')\n    return 0\n"
        "check.run = run\nsys.exit(cli.main())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 130 and one_line_error(out.stderr) and "interrupted by SIGINT" in out.stderr, out.stderr


def test_the_inline_trim_leaves_functions_without_a_module_alone():
    tried("wave12", 1)
    import numba

    from fastpuzzle import _jit

    assert _jit.share_inline_copies()
    namespace = {}
    exec("def helper(a):\n    return a + 1\n", namespace)  # generated code: its __module__ is None
    helper = numba.njit(inline="always")(namespace["helper"])
    caller = numba.njit(lambda a: helper(a) * 2)
    assert namespace["helper"].__module__ is None and caller(3) == 8


def test_a_users_sigint_handler_without_a_module_is_left_alone():
    tried("wave12", 1)
    import signal

    handler = eval("lambda signum, frame: None", {})
    old = signal.signal(signal.SIGINT, handler)
    try:
        assert fp.solve(fp.random_solvable(3, 3, seed=3)).solved
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_judged_pipe_and_file_of_the_same_bytes_get_the_same_answer(tmp_path):
    tried("wave12", 2)
    case = b"2\n1 2\n3 0\n0 1\n3 2\n"
    data = case * ((2**20 - 100_000) // len(case)) + b"300\n5 5 99999 " + b"1 " * 600_000  # cut inside a long case
    path = tmp_path / "d.txt"
    path.write_bytes(data)
    by_file = subprocess.run([sys.executable, "-m", "fastpuzzle", "reach", "--judge", str(path)], capture_output=True,
                             text=True, timeout=300)  # fmt: skip
    by_pipe = subprocess.run([sys.executable, "-m", "fastpuzzle", "reach", "--judge"], input=data, capture_output=True,
                             timeout=300)  # fmt: skip
    assert by_file.returncode == by_pipe.returncode == 2
    assert by_file.stderr.split(": line ", 1)[1] == by_pipe.stderr.decode().split(": line ", 1)[1]  # past the name
    assert "tile 5 twice" in by_file.stderr
    from fastpuzzle.io.judging import judge_prefix

    for bad in ("text", 12345, np.array([50, 32], np.int64)):
        with pytest.raises(fp.OptionTypeError):
            judge_prefix(bad)


def test_a_header_over_the_cap_says_so(tmp_path):
    tried("wave12", 1)
    header = b"{'descr': '<u1', 'fortran_order': False, 'shape': (1, 2, 2), }".ljust(70_000) + b"\n"
    path = tmp_path / "big.npy"
    path.write_bytes(_npy(header, bytes([1, 2, 3, 0]), (2, 0)) + bytes(1_000_000))
    with pytest.raises(fp.BoardFileError, match="more than a header takes"):
        fp.load_boards(str(path))
