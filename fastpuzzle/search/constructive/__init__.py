"""Constructive solver for boards of any size (valid, not shortest, moves).

Optimal search stops being possible past the 24-puzzle.  This solver places
the board block by block, the classic way, with fixed move patterns and no
search over the state space:

1. While the unsolved region is larger than 2 x 2, solve its top row or its
   left column, whichever is longer (the region stays near-square, so blank
   trips stay short): :mod:`.lines`.
2. The final 2 x 2 is turned once at most.

Tiles travel along staircase paths where they can (3 moves per step) and
straight lines otherwise (the standard 5-move cycle); where it looks cheaper
two tiles travel as a pair (:mod:`.tiles`).  The blank travels by
Manhattan-shortest L-shaped paths, with a breadth-first search of *cells* as
the fallback (:mod:`.routes`).  The kernel state and the one-move primitives
are in :mod:`.state`; the public wrapper in :mod:`.solver`.

The kernel is compiled in pieces (one module per stage, each piece cached
on disk by Numba, every piece with a single signature) and driven from
Python one line at a time, so no compiled function holds the whole solver
and the first call compiles each piece once.  Pieces that only other pieces
call are compiled without a C entry point (:func:`fastpuzzle._jit.jit_inner`).
"""

from .solver import relabelled_manhattan, solve_constructive, write_solution

__all__ = ["solve_constructive", "write_solution", "relabelled_manhattan"]
