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


# raises of the built-in ValueError/TypeError that stay, each with its reason: (module, first words of the message)
PLAIN_RAISES_ALLOWED = {
    # stepping a vector environment whose ended boards were not reset (autoreset disabled) is an
    # error of call order, not of a value: no option or board to name
    ("fastpuzzle/env/vector.py", "some boards ended their episode"),
}


def _plain_raises():
    """``(module, message start, line)`` of every ``raise ValueError(...)`` / ``raise TypeError(...)``
    of the built-in classes in the package."""
    import ast
    from pathlib import Path

    root = Path(fp.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        shadowed = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            call = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(call, ast.Name) and call.id in ("ValueError", "TypeError") and call.id not in shadowed:
                args = node.exc.args if isinstance(node.exc, ast.Call) else []
                text = ""
                if args and isinstance(args[0], ast.Constant):
                    text = str(args[0].value)
                elif args and isinstance(args[0], ast.JoinedStr):
                    text = "".join(str(v.value) for v in args[0].values if isinstance(v, ast.Constant))
                found.append((path.relative_to(root.parent).as_posix(), text, node.lineno))
    return found


def test_no_bad_input_raises_a_plain_builtin_error():
    stray = [(module, line, text) for module, text, line in _plain_raises()
             if not any(module == m and text.startswith(start) for m, start in PLAIN_RAISES_ALLOWED)]  # fmt: skip
    assert not stray, "raise the classes of fastpuzzle.errors instead: " + "; ".join(f"{m}:{n} {t!r}" for m, n, t in stray)


def test_the_allow_list_names_only_raises_that_exist():
    present = {(module, text) for module, text, _ in _plain_raises()}
    for module, start in PLAIN_RAISES_ALLOWED:
        assert any(m == module and t.startswith(start) for m, t in present), (module, start)


MOVE_AND_SHAPE_CASES = [
    (fp.ShapeError, ValueError, fp.ShapeError((6, 6), "IDA* handles boards of at most 25 cells, got 6x6", expected=25),
     {"shape": (6, 6), "expected": 25}),
    (fp.MoveError, ValueError, fp.MoveError(2, "U", "('U') is illegal", board=4), {"index": 2, "move": "U", "board": 4}),
]


@pytest.mark.parametrize("cls, base, error, facts", MOVE_AND_SHAPE_CASES, ids=[c[0].__name__ for c in MOVE_AND_SHAPE_CASES])
def test_shape_and_move_errors_pickle_with_their_facts(cls, base, error, facts):
    test_class_base_facts_and_pickle(cls, base, error, facts)


def test_shape_move_and_option_errors_raised_where_promised():
    from fastpuzzle.pdb import build_partition

    with pytest.raises(fp.ShapeError) as info:
        fp.solve(np.stack([fp.goal_board(3, 3)] * 2))
    assert info.value.shape == (2, 3, 3)
    with pytest.raises(fp.MoveError) as info:
        fp.apply_moves([[1, 2], [3, 0]], "DD")
    assert info.value.index == 0 and info.value.move == "D"
    with pytest.raises(fp.MoveError) as info:
        fp.Solution(np.array([0, 7], np.uint8))
    assert (info.value.index, info.value.move) == (1, 7) and "move 1 has code 7" in str(info.value)
    with pytest.raises(fp.OptionError) as info:
        fp.inversions([[1, 2], [3, 0]], method="quick")
    assert info.value.option == "method" and info.value.value == "quick"
    with pytest.raises(fp.OptionError) as info:
        build_partition((3, 3), [(1, 2), (2, 3)])
    assert info.value.option == "partition" and info.value.value == 2
