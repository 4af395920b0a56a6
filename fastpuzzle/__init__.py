"""fastpuzzle: a NumPy/Numba compute engine for sliding-tile puzzles.

Boards are integer arrays, ``(m, n)`` for one board and ``(B, m, n)`` for a
batch; ``0`` is the blank.  See the README for a tour.
"""

from . import moves
from .boards import as_boards, board_dtype, goal_board
from .moves import apply_moves, decode_moves, encode_moves
from .solvability import inversions, invariant, is_solvable, reachable
from .generate import random_permutations, random_solvable, scramble
from .textio import load_boards, write_boards
from .search import heuristics
from .search.solution import Solution
from .search.solve import SolveManyResult, solve, solve_many
from .distances import distance, distance_table

__version__ = "0.1.0"

__all__ = [
    "goal_board", "board_dtype", "as_boards",
    "inversions", "invariant", "is_solvable", "reachable",
    "apply_moves", "encode_moves", "decode_moves", "moves",
    "random_solvable", "random_permutations", "scramble", "load_boards", "write_boards",
    "solve", "solve_many", "SolveManyResult", "Solution", "heuristics",
    "distance_table", "distance",
]
