"""The one error hierarchy: every class exported, the built-in base it promises, its facts as
attributes, and pickled intact (errors cross Dask workers)."""

import pickle

import numpy as np
import pytest

import fastpuzzle as fp
from fastpuzzle import errors

# (class, built-in base it promises, an instance, the attributes it carries)
CASES = [
    (fp.BoardError, ValueError, fp.BoardError("boards", 3, "holds 9"), {"label": "boards", "index": 3, "reason": "holds 9"}),
    (fp.UnreachableError, ValueError, fp.UnreachableError(2), {"index": 2}),
    (fp.BoardFileError, ValueError, fp.BoardFileError("b.txt", "bad", line=2, index=1, column=4),
     {"path": "b.txt", "reason": "bad", "line": 2, "index": 1, "column": 4, "case": None}),
    (fp.NoBoards, ValueError, fp.NoBoards("e.txt", "no boards found"), {"path": "e.txt", "reason": "no boards found"}),
    (fp.OptionError, ValueError, fp.OptionError("threads", -1, "must be >= 1"),
     {"option": "threads", "value": -1, "reason": "must be >= 1"}),
    (fp.OptionTypeError, TypeError, fp.OptionTypeError("seed", 1.5, "must be a whole number"),
     {"option": "seed", "value": 1.5, "reason": "must be a whole number"}),
    (fp.AllocationError, ValueError, fp.AllocationError("a table", 10**15, 10**9),
     {"what": "a table", "n_bytes": 10**15, "available": 10**9}),
    (fp.StaleDatabaseError, ValueError, fp.StaleDatabaseError("/c/4-4", "is stale"), {"path": "/c/4-4", "reason": "is stale"}),
    (fp.LayerLimitError, ValueError, fp.LayerLimitError((4, 4), 30, 23, 10**8, 10**7),
     {"shape": (4, 4), "depth": 30, "reached": 23, "size": 10**8, "limit": 10**7}),
    (fp.DistanceBudgetError, RuntimeError, fp.DistanceBudgetError(np.array([1]), np.array([3, -1])), {}),
]


def test_every_class_is_exported_once():
    defined = {name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, Exception)}
    assert defined - {"_OptionFacts"} == set(errors.__all__)
    for name in errors.__all__:
        assert name in fp.__all__ and getattr(fp, name) is getattr(errors, name)
        assert getattr(fp, name).__module__ == "fastpuzzle.errors"


@pytest.mark.parametrize("cls, base, error, facts", CASES, ids=[c[0].__name__ for c in CASES])
def test_class_base_facts_and_pickle(cls, base, error, facts):
    assert isinstance(error, cls) and isinstance(error, base) and isinstance(error, fp.FastPuzzleError)
    for name, value in facts.items():
        assert getattr(error, name) == value
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error)
    for name, value in facts.items():
        assert getattr(again, name) == value


def test_raised_where_promised():
    with pytest.raises(fp.BoardError) as info:
        fp.is_solvable([[[1, 2], [3, 0]], [[1, 1], [3, 0]]])
    assert info.value.index == 1
    with pytest.raises(fp.UnreachableError) as info:
        fp.solve([[2, 1], [3, 0]])
    assert info.value.index is None
    with pytest.raises(fp.AllocationError) as info:
        fp.random_solvable(1000, 1000, count=10**12)
    assert info.value.n_bytes >= 10**18


def test_constructive_solver_raises_unreachable():
    board = fp.goal_board(6, 6)
    board[0, 0], board[0, 1] = board[0, 1], board[0, 0]
    with pytest.raises(fp.UnreachableError):
        fp.solve(board, method="constructive")


def test_board_file_error_from_the_reader(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1 2 3 0\n1 1 3 0\n")
    with pytest.raises(fp.BoardFileError) as info:
        fp.load_boards(path)
    assert info.value.path == str(path) and info.value.line == 2
    path.write_text("# nothing\n")
    with pytest.raises(fp.NoBoards):
        fp.load_boards(path)
