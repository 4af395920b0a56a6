"""Board files: the one reader and the one writer of fastpuzzle.

========================  =====================================================
:mod:`.errors`            ``BoardFileError``, the shape parser, sizes checked
:mod:`.source`            paths, standard input, streams; the byte order mark
:mod:`.text`              one board per line, or grids (a compiled tokeniser)
:mod:`.npy`               ``.npy`` headers checked before anything is allocated
:mod:`.read`              ``load_boards``, ``iter_boards``, ``count_boards``
:mod:`.write`             ``AtomicOutput`` and the board writers
:mod:`.judging`           the judge format (``TAK``/``NIE``): ``judge``, ``judge_verdicts``
========================  =====================================================

Names load lazily: ``fastpuzzle.io.errors`` (stdlib only) is what the
command line needs to parse its arguments.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "BoardFileError": "errors", "parse_shape": "errors", "check_file_allocation": "errors",
    "parse_text": "text", "read_text_boards": "text",
    "load_boards": "read", "read_boards": "read", "iter_boards": "read", "count_boards": "read",
    "AtomicOutput": "write", "OutputInterrupted": "write", "NpyWriter": "write", "TextWriter": "write",
    "format_boards": "write", "write_boards": "write", "writer_for": "write", "write_text": "write",
    "judge": "judging", "judge_verdicts": "judging", "is_npy_name": "npy", "read_input": "source",
}

__all__ = sorted(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
