"""Deprecated: the board files' face under its older name; use :mod:`fastpuzzle.io`.

Every name here is the same object as in :mod:`fastpuzzle.io` (and
``fastpuzzle.load_boards``/``write_boards``); importing this module warns
(``DeprecationWarning``).  It will be removed in a later release.

Examples
--------
>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", DeprecationWarning)
...     from fastpuzzle.textio import load_boards
>>> import fastpuzzle.io
>>> load_boards is fastpuzzle.io.load_boards
True
"""

from __future__ import annotations

import warnings

from .io.errors import BoardFileError, parse_shape
from .io.judging import judge
from .io.read import count_boards, iter_boards, load_boards, read_boards
from .io.text import parse_text, read_text_boards
from .io.write import NpyWriter, TextWriter, format_boards, write_boards, writer_for

__all__ = [
    "BoardFileError", "parse_text", "read_text_boards", "read_boards", "load_boards", "iter_boards",
    "count_boards", "write_boards", "writer_for", "NpyWriter", "TextWriter", "format_boards", "judge", "parse_shape",
]  # fmt: skip

warnings.warn("fastpuzzle.textio is deprecated: import the same names from fastpuzzle.io", DeprecationWarning,
              stacklevel=2)  # fmt: skip
