"""Board files (the public face of :mod:`fastpuzzle.io`, kept for existing code).

Formats: ``.npy`` (a ``(B, m, n)`` or ``(m, n)`` integer array), text with one
board per line, text grids separated by blank lines, and the judge format.
See :mod:`fastpuzzle.io` for the modules and docs/reliability.md for what the
readers and writers promise.
"""

from __future__ import annotations

from .io.errors import BoardFileError, parse_shape
from .io.judge import judge
from .io.read import count_boards, iter_boards, load_boards, read_boards
from .io.text import parse_text, read_text_boards
from .io.write import NpyWriter, TextWriter, format_boards, write_boards, writer_for

__all__ = [
    "BoardFileError", "parse_text", "read_text_boards", "read_boards", "load_boards", "iter_boards",
    "count_boards", "write_boards", "writer_for", "NpyWriter", "TextWriter", "format_boards", "judge", "parse_shape",
]
