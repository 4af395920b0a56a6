"""``fastpuzzle bench``: run the repository's benchmark families (``bench/``).

The benchmarks are not part of the installed package: they live in the
source tree next to ``fastpuzzle/`` and are found there when the package is
installed in editable mode (``pip install -e .``) or run from a checkout.
"""

from __future__ import annotations

import importlib.util
import os

from .common import CLIError

_SUITE = None


def find_bench_dir() -> str | None:
    """The checkout's ``bench/`` directory, beside the package (never the current directory's:
    a command must not run code from wherever it is started)."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.exists(os.path.join(here, "bench", "suite.py")):
        return os.path.join(here, "bench")
    return None


def _load_suite(*, strict: bool = False):
    """``bench/suite.py`` loaded from its file (cheap: standard library only until it runs).

    A suite that fails to load leaves the other commands whole: ``None``, or with ``strict``
    (``fastpuzzle bench`` itself) a :class:`CLIError` naming the file."""
    global _SUITE
    if _SUITE is None:
        bench_dir = find_bench_dir()
        if bench_dir is None:
            return None
        path = os.path.join(bench_dir, "suite.py")
        try:
            spec = importlib.util.spec_from_file_location("_fastpuzzle_bench_suite", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            if not (callable(getattr(mod, "add_arguments", None)) and callable(getattr(mod, "run", None))):
                raise ImportError("it defines no add_arguments and run")
        except Exception as error:  # noqa: BLE001 - any failure of a file outside the package
            if strict:
                raise CLIError(f"{path}: the benchmark suite does not load: {type(error).__name__}: {error}") from None
            return None
        _SUITE = mod
    return _SUITE


def add_parser(subparsers) -> None:
    """Register ``bench`` (its options come from the checkout's ``bench/suite.py``)."""
    p = subparsers.add_parser(
        "bench",
        help="run the benchmark families and print one table (needs the source tree)",
        description="Run every benchmark family present in the checkout's bench/ (solvability, generate, io, "
        "solver, constructive, pdb, distributed), print one table of throughput and side-by-side ratios, "
        "and write the rows as JSON with the machine's description.",
    )
    suite = _load_suite()
    if suite is not None:
        suite.add_arguments(p)
    else:  # the usual options, so that the error shown is the missing source tree
        p.add_argument("--quick", action="store_true")
        p.add_argument("--list", action="store_true")
        for opt in ("--only", "--skip", "--json"):
            p.add_argument(opt)
    p.set_defaults(run=run)


def run(args) -> int:
    """Run ``bench``."""
    suite = _load_suite(strict=True)
    if suite is None:
        raise CLIError(
            "the benchmarks live in the source tree (bench/), which this installation lacks; "
            "clone the repository, run 'pip install -e .' there and then 'fastpuzzle bench' "
            "(or 'python -m bench' from the checkout)"
        )
    return suite.run(args)
