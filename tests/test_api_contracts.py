"""The shape of the public API: data positional, every option keyword-only, the Dask twins
with their local functions' parameters; one options module; the big buffers named to the
memory policy before they are allocated; solutions written through the one writer."""

import inspect

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import options

#: The positional (data) parameters of each public function; everything else is keyword-only.
DATA = {
    "goal_board": ["m", "n"], "as_boards": ["boards"], "board_dtype": ["n_cells"],
    "inversions": ["boards"], "invariant": ["boards"], "is_solvable": ["boards"], "reachable": ["a", "b"],
    "apply_moves": ["board", "moves"], "encode_moves": ["moves"], "decode_moves": ["codes"],
    "random_solvable": ["m", "n"], "random_permutations": ["m", "n"], "scramble": ["m", "n", "moves"],
    "load_boards": ["path"], "write_boards": ["path", "boards"], "solve": ["board"], "solve_many": ["boards"],
    "distance_table": ["m", "n"], "distance": ["boards"],
    # the goal of a hint or a count is its data: the board to reach (the names the issue tracker fixed)
    "hints": ["board"], "count_optimal": ["board"], "optimal_solutions": ["board"],
}  # fmt: skip


def positional(func):
    return [p.name for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # fmt: skip


#: What any other public function may take positionally: data, never an option.
DATA_NAMES = {"m", "n", "board", "boards", "moves", "codes", "path", "a", "b", "count", "text"}


def test_every_public_function_takes_its_options_by_keyword():
    functions = [n for n in fp.__all__ if inspect.isfunction(getattr(fp, n))]
    assert set(DATA) <= set(functions)
    for name in functions:
        if name in DATA:
            assert positional(getattr(fp, name)) == DATA[name], name
        else:
            assert set(positional(getattr(fp, name))) <= DATA_NAMES, name
    with pytest.raises(TypeError, match="positional"):
        fp.solve([[1, 2], [0, 3]], None, "manhattan")


def test_faces_and_modules_take_options_by_keyword():
    from fastpuzzle import pdb
    from fastpuzzle.io import judging, read, write
    from fastpuzzle.search.constructive import solve_constructive

    cases = {pdb.build: ["name"], pdb.build_partition: ["shape", "partition"], pdb.solve_with_pdb: ["board"],
             pdb.solve_many_with_pdb: ["boards"], read.iter_boards: ["source"], read.count_boards: ["path"],
             write.format_boards: ["boards"], judging.judge: ["data"], judging.judge_verdicts: ["data"], solve_constructive: ["board"],
             fp.Solution.verify: ["self", "start"], fp.heuristics.manhattan: ["boards"],
             fp.heuristics.linear_conflict: ["boards"], fp.heuristics.pattern_database: ["boards"]}  # fmt: skip
    for func, data in cases.items():
        assert positional(func) == data, func.__qualname__


def test_dask_twins_take_the_local_parameters():
    fd = pytest.importorskip("fastpuzzle.distributed")
    pairs = [(fd.solve_many, fp.solve_many, {"client", "chunk_boards"}),
             (fd.random_solvable, fp.random_solvable, {"chunks", "solvable"}),
             (fd.is_solvable, fp.is_solvable, {"chunks"}), (fd.inversions, fp.inversions, {"chunks"}),
             (fd.reachable, fp.reachable, {"chunks"})]  # fmt: skip
    for twin, local, extra in pairs:
        twin_params, local_params = inspect.signature(twin).parameters, inspect.signature(local).parameters
        assert positional(twin) == positional(local), twin.__name__
        assert set(twin_params) == set(local_params) | extra, twin.__name__
        for name in set(local_params) - set(positional(local)):
            assert twin_params[name].kind == inspect.Parameter.KEYWORD_ONLY
            assert twin_params[name].default == local_params[name].default, (twin.__name__, name)


@pytest.mark.parametrize("value, want", [(None, None), (1, 1.0), (2**64, float(2**64)), (np.float32(0.5), 0.5),
                                         (np.int64(3), 3.0)])  # fmt: skip
def test_seconds_accepts(value, want):
    assert options.seconds(value) == want


@pytest.mark.parametrize("value, error", [(0, fp.OptionError), (-1, fp.OptionError), (float("nan"), fp.OptionError),
                                          (float("inf"), fp.OptionError), (2**2000, fp.OptionError),
                                          (-(2**2000), fp.OptionError), (True, fp.OptionTypeError),
                                          ("1", fp.OptionTypeError)])  # fmt: skip
def test_seconds_refuses(value, error):
    with pytest.raises(error) as info:
        options.seconds(value, "time_limit")
    assert info.value.option == "time_limit" and info.value.value is value


@pytest.mark.slow
def test_one_rule_for_each_option_everywhere():
    board = [[1, 2, 3], [4, 0, 6], [7, 5, 8]]
    assert fp.solve(board, time_limit=2**64).length == 2  # no NumPy-internal error past int64
    for call in (lambda: fp.solve(board, database="no-such-db"), lambda: fp.solve_many([board], database="4-4")):
        with pytest.raises(fp.OptionError, match="database needs heuristic='pdb'"):
            call()
    for call in (lambda t: fp.solve_many([board], threads=t), lambda t: fp.distance_table(2, 3, threads=t)):
        for bad, error in ((True, fp.OptionTypeError), (0, fp.OptionError), (1.0, fp.OptionTypeError)):
            with pytest.raises(error, match="threads"):
                call(bad)
        assert call(1) is not None
    for call in (lambda t: fp.solve(board, time_limit=t), lambda t: fp.distance_table(2, 3, time_limit=t),
                 lambda t: fp.distance(np.array([board]), time_limit=t)):  # fmt: skip
        with pytest.raises(fp.OptionError, match="time_limit"):
            call(float("nan"))
    with pytest.raises(fp.OptionTypeError, match="count"):
        fp.random_solvable(3, 3, count=2.0)
    with pytest.raises(fp.OptionError, match="seed"):
        fp.random_solvable(3, 3, seed=-1)


def test_cli_checks_through_the_options_module(capsys):
    from fastpuzzle.cli import main

    for argv in (["generate", "--shape", "3x3", "--count", "-1", "--out", "-"],
                 ["solve", "-", "--time-limit", "nan"], ["solve", "-", "--max-nodes", "1.5"]):  # fmt: skip
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert "expected a whole number >= 0, got -1" in err and "number of seconds > 0, got nan" in err


@pytest.mark.slow
def test_big_buffers_are_named_before_allocating(monkeypatch):
    import fastpuzzle.memory

    def free(n_bytes):  # what the memory policy sees as free from now on
        monkeypatch.setattr(fastpuzzle.memory, "available_memory", lambda: n_bytes)

    board, big = fp.random_solvable(4, 4, seed=3), fp.random_solvable(60, 60, seed=1)
    free(1 << 10)
    with pytest.raises(fp.AllocationError, match="IDA\\* stack"):
        fp.solve(board, method="ida", max_nodes=10)
    with pytest.raises(fp.AllocationError, match="IDA\\* moves and stacks"):
        fp.solve_many(np.stack([board] * 20), method="ida", max_nodes=10, threads=1)
    free(1 << 16)  # room for the goal boards, not for the work
    with pytest.raises(fp.AllocationError, match="constructive solver"):
        fp.solve(big, method="constructive")
    with pytest.raises(fp.AllocationError, match="distance table"):
        fp.distance_table(3, 3, cache=False)
    with pytest.raises(fp.AllocationError, match="pattern databases"):
        fp.pdb.build_partition((3, 3), [(1, 2, 3, 4, 5, 6)])


def test_write_solution_goes_through_the_one_writer(tmp_path):
    from fastpuzzle.search.constructive import write_solution

    path = tmp_path / "moves.txt"
    assert write_solution(fp.Solution(np.array([0, 1, 2, 3], np.uint8)), path) == 4
    assert path.read_text() == "ULRD\n"
    broken = fp.Solution(np.array([0, 1, 2, 3], np.uint8))
    broken.codes = np.array([0] * 10 + [9], np.uint8)  # not a move: the write fails half way
    with pytest.raises(IndexError):
        write_solution(broken, path, chunk=4)
    assert path.read_text() == "ULRD\n" and sorted(p.name for p in tmp_path.iterdir()) == ["moves.txt"]
