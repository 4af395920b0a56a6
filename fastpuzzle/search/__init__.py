"""Search for move sequences: heuristics, optimal IDA*, and other solvers."""

from .solution import Solution

__all__ = ["Solution"]
