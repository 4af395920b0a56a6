"""One entry point for every benchmark family: ``python -m bench`` or ``fastpuzzle bench``.

Each family is a module ``bench/bench_<family>.py`` exposing ``run(quick) ->
list[dict]`` (rows ``{family, name, value, unit, ratio, baseline, note}``).
Families whose module is not present in this checkout are skipped; a family
that raises is reported and makes the exit status 1, the others still run.
The rows of all families are printed as one table and written as JSON
together with the machine's description (:func:`bench.common.machine`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

# json, traceback, datetime and contextlib are imported where used: ``fastpuzzle``
# loads this file on every command to register ``bench``'s options.

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _import_path() -> None:
    """Put the repository root first, so that ``bench.bench_<family>`` and ``fastpuzzle``
    import from this checkout however the runner was started (done when running only:
    ``fastpuzzle`` loads this file to register its options on every command)."""
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)

#: Every family of the project, in the order they run (cheap ones first).
FAMILIES = ("solvability", "generate", "io", "solver", "constructive", "pdb", "distributed", "distances", "rl", "near",
            "frontier", "visual")

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(BENCH_DIR, "results", "latest.json")


def available() -> list[str]:
    """Families whose ``bench_<family>.py`` exists in this checkout."""
    return [f for f in FAMILIES if os.path.exists(os.path.join(BENCH_DIR, f"bench_{f}.py"))]


def _families_arg(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in FAMILIES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown family {', '.join(map(repr, unknown)) or repr(text)}; choose from {', '.join(FAMILIES)}"
        )
    return names


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options shared by ``python -m bench`` and ``fastpuzzle bench``."""
    p.add_argument("--quick", action="store_true", help="small sizes and few repeats (about a minute in all)")
    p.add_argument("--only", type=_families_arg, metavar="FAMILY[,FAMILY]",
                   help=f"run only these families ({', '.join(FAMILIES)})")
    p.add_argument("--skip", type=_families_arg, metavar="FAMILY[,FAMILY]", help="leave these families out")
    p.add_argument("--json", metavar="PATH", default=DEFAULT_JSON,
                   help="where to write the results (default bench/results/latest.json; '-' for none)")
    p.add_argument("--list", action="store_true", help="list the families present and exit")


def _fmt_value(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
            return f"{v:.3e}"
        return f"{v:,.4g}"
    return str(v)


def _plain(x):
    """JSON-ready copies of NumPy scalars and arrays."""
    if hasattr(x, "item") and getattr(x, "shape", None) == ():
        return x.item()
    if hasattr(x, "tolist"):
        return x.tolist()
    return str(x)


def format_table(rows: list[dict]) -> str:
    """One table: family, benchmark, throughput (value unit), ratio against its baseline."""
    head = ("family", "benchmark", "value", "unit", "ratio", "baseline / note")
    body = []
    for r in rows:
        ratio = r.get("ratio")
        ratio_s = "" if ratio is None else f"{ratio:.3g}x"
        baseline = r.get("baseline")
        baseline = _fmt_value(baseline) if isinstance(baseline, (int, float)) and baseline else str(baseline or "")
        extra = " - ".join(s for s in (baseline, str(r.get("note") or "")) if s)
        body.append((str(r.get("family", "")), str(r.get("name", "")), _fmt_value(r.get("value")),
                     str(r.get("unit", "")), ratio_s, extra))
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    widths[-1] = len(head[-1])  # the last column is not padded
    right = {2, 4}

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(head), line(["-" * w for w in widths])]
    out += [line(b) for b in body]
    return "\n".join(out)


def machine() -> dict:
    from bench.common import machine as _machine  # imports NumPy and Numba: only when running

    return _machine()


def run_families(families, quick: bool, log=None) -> dict:
    """Run ``families`` one after another; returns the result document (see :func:`main`)."""
    import contextlib
    import datetime as _dt
    import traceback

    log = sys.stderr if log is None else log
    rows, seconds, errors = [], {}, {}
    for fam in families:
        print(f"== {fam} ({'quick' if quick else 'full'}) ...", file=log, flush=True)
        t0 = time.perf_counter()
        try:
            mod = importlib.import_module(f"bench.bench_{fam}")
            with contextlib.redirect_stdout(log):  # the families' own prints: progress, not the table
                got = mod.run(quick=quick)
            for r in got:
                r = dict(r)
                r.setdefault("family", fam)
                rows.append(r)
        except (Exception, SystemExit) as exc:  # one family failing must not lose the others' numbers
            errors[fam] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=log)
        seconds[fam] = round(time.perf_counter() - t0, 3)
        print(f"== {fam}: {seconds[fam]:.1f} s", file=log, flush=True)
    return {
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "machine": machine(),
        "families": list(families),
        "seconds": seconds,
        "errors": errors,
        "rows": rows,
    }


def write_json(doc: dict, path: str) -> None:
    import json

    from fastpuzzle.io.write import write_text  # the package's one writer: temp file, rename, links kept

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # the bench asks for its results folder
    write_text(path, json.dumps(doc, indent=1, default=_plain) + "\n")


def run(args) -> int:
    """Run the benchmark families chosen by parsed ``args``; returns the exit status."""
    _import_path()
    present = available()
    if args.list:
        for f in FAMILIES:
            print(f"{f:<14} {'present' if f in present else 'not in this checkout'}")
        return 0
    wanted = args.only or list(FAMILIES)
    missing = [f for f in (args.only or []) if f not in present]
    if missing:
        print(f"bench: no benchmark module for {', '.join(missing)} in {BENCH_DIR}", file=sys.stderr)
        return 2
    families = [f for f in wanted if f in present and f not in (args.skip or [])]
    m = machine()
    print(f"# fastpuzzle benchmarks ({'quick' if args.quick else 'full'}): {', '.join(families)}")
    print(f"# {m['cores']} cores ({m['numba_threads']} Numba threads), {m['cpu']}, "
          f"python {m['python']}, numpy {m['numpy']}, numba {m['numba']}")
    doc = run_families(families, args.quick)
    print(format_table(doc["rows"]))
    total = sum(doc["seconds"].values())
    print(f"# {len(doc['rows'])} rows in {total:.1f} s (" + ", ".join(f"{k} {v:.1f} s" for k, v in doc["seconds"].items()) + ")")
    for fam, err in doc["errors"].items():
        print(f"# FAILED {fam}: {err}")
    if args.json and args.json != "-":
        write_json(doc, args.json)
        print(f"# results written to {args.json}")
        if os.path.abspath(args.json) == os.path.join(_ROOT, "docs", "bench.json"):  # the committed run
            from bench import render

            for page in render.render(render.load(args.json), root=_ROOT):
                print(f"# figures rendered into {page}")
    return 1 if doc["errors"] else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
