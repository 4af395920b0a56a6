"""fastpuzzle: a NumPy/Numba compute engine for sliding-tile puzzles.

Boards are integer arrays, ``(m, n)`` for one board and ``(B, m, n)`` for a
batch; ``0`` is the blank.  See the README for a tour.

Importing the package loads nothing else: every public name, and every
submodule (``fastpuzzle.pdb``, ``fastpuzzle.heuristics``...), is imported on
first use through the module's ``__getattr__``.  A command-line call then pays
only for what it uses; NumPy and Numba (about half a second together) load
with the first kernel.

Examples
--------
>>> import fastpuzzle as fp
>>> fp.is_solvable([[1, 2], [0, 3]])
True
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Where each public name lives (imported on first use).
_HOMES = {
    "goal_board": "boards", "board_dtype": "boards", "as_boards": "boards",
    "inversions": "solvability", "invariant": "solvability", "is_solvable": "solvability",
    "reachable": "solvability",
    "apply_moves": "moves", "encode_moves": "notation", "decode_moves": "notation",
    "invert": "notation", "simplify": "notation", "mirror": "notation", "transpose": "notation",
    "count_moves": "notation",
    "draw": "pictures", "animate": "pictures", "Board": "pictures",
    "parse_scramble": "io.scramble", "format_scramble": "io.scramble",
    "hints": "hint", "count_optimal": "hint", "optimal_solutions": "hint", "Hint": "hint",
    "random_solvable": "generate", "random_permutations": "generate", "scramble": "generate",
    "load_boards": "io.read", "write_boards": "io.write",
    "solve": "search.solve", "solve_many": "search.solve", "SolveManyResult": "search.solve",
    "Solution": "search.solution",
    "distance_table": "distances", "distance": "distances",
    "neighbours": "steps", "legal_moves": "steps", "step_boards": "steps", "random_legal_moves": "steps",
    "inverse_moves": "steps", "labelled_boards": "labels", "labelled_chunks": "labels",
    **{name: "errors" for name in (
        "FastPuzzleError", "BoardError", "UnreachableError", "ShapeError", "MoveError", "BoardFileError", "NoBoards", "OptionError",
        "OptionTypeError", "AllocationError", "StaleDatabaseError", "LayerLimitError", "DistanceBudgetError", "CorruptCacheError",
    )},  # fmt: skip
}

#: Submodules reachable as attributes of the package (``fp.heuristics`` is the
#: search heuristics).
_SUBMODULES = {"moves": "moves", "heuristics": "search.heuristics"}

__all__ = [
    "goal_board", "board_dtype", "as_boards",
    "inversions", "invariant", "is_solvable", "reachable",
    "apply_moves", "encode_moves", "decode_moves", "moves",
    "invert", "simplify", "mirror", "transpose", "count_moves",
    "draw", "animate", "Board", "parse_scramble", "format_scramble", "hints", "Hint", "count_optimal", "optimal_solutions",
    "random_solvable", "random_permutations", "scramble", "load_boards", "write_boards",
    "solve", "solve_many", "SolveManyResult", "Solution", "heuristics",
    "distance_table", "distance",
    "neighbours", "legal_moves", "step_boards", "random_legal_moves", "inverse_moves",
    "labelled_boards", "labelled_chunks",
    "FastPuzzleError", "BoardError", "UnreachableError", "ShapeError", "MoveError", "BoardFileError", "NoBoards", "OptionError",
    "OptionTypeError", "AllocationError", "StaleDatabaseError", "LayerLimitError", "DistanceBudgetError", "CorruptCacheError",
]


def __getattr__(name: str):
    """Import a public name or a submodule the first time it is asked for."""
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{_SUBMODULES[name]}", __name__)
    elif not name.startswith("__"):
        try:
            value = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise  # the submodule exists but something it imports does not
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
