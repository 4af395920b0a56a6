"""Plots of a benchmark run: ``python bench/plot.py [RESULTS.json] [--out DIR]``.

Reads the JSON written by ``python -m bench`` / ``fastpuzzle bench`` (default
``docs/bench.json``, the copy committed for the README) and writes
``bench_throughput.png`` (every rate, in items per second, log scale) and
``bench_ratios.png`` (every side-by-side speed-up of a rate against its baseline) into
``--out`` (default ``docs/``), plus SVG twins with ``--svg``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


def rate(row) -> tuple[float, str] | None:
    """``(items per second, item)`` for a throughput row (``"M boards/s"`` -> ``(v * 1e6, "boards")``)."""
    unit = str(row.get("unit") or "").strip()
    value = row.get("value")
    if not unit.endswith("/s") or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return None
    head = unit[:-2].strip()
    scale = 1.0
    parts = head.split(None, 1)
    if len(parts) == 2 and parts[0] in PREFIX:
        scale, head = PREFIX[parts[0]], parts[1]
    elif len(head) > 1 and head[0] in ("k", "M", "G") and head[1:] in ("B", "boards", "nodes", "moves"):
        scale, head = PREFIX[head[0]], head[1:]
    return value * scale, head or "items"


def _label(row) -> str:
    name = row["name"].strip()
    if name.startswith("is_solvable vs "):  # "is_solvable vs X" -> the baseline is in the note
        name = "is_solvable, 4x4"
    return f"{row['family']}: {name}"


def _baseline(row) -> str:
    b = row.get("baseline")
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        # a number (the baseline's own rate): its name, if any, is in the note
        note = str(row.get("note") or "")
        if "baseline:" in note:
            return note.split("baseline:", 1)[1].split("(")[0].strip().rstrip(",;")
        return f"{b:.4g} {row.get('unit', '')}"
    return str(b or "?")


def _colours(rows):
    import matplotlib.pyplot as plt

    fams = list(dict.fromkeys(r["family"] for r in rows))
    cmap = plt.get_cmap("tab10")
    return {f: cmap(i % 10) for i, f in enumerate(fams)}


def plot(doc: dict, out_dir: str, svg: bool = False) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = doc.get("machine", {})
    subtitle = (f"{doc.get('mode', '?')} run, {doc.get('created', '')[:10]}; {m.get('cores', '?')} cores, "
                f"{m.get('cpu', '?')}; numpy {m.get('numpy', '?')}, numba {m.get('numba', '?')}")
    rows = doc.get("rows", [])
    written = []
    os.makedirs(out_dir, exist_ok=True)
    colour = _colours(rows)  # one colour per family in every chart

    # Rows named "... vs ..." repeat a rate to carry a second ratio: plotted once, as a ratio.
    tput = [(r, *rate(r)) for r in rows if rate(r) is not None and " vs " not in r["name"]]
    # Ratios of rates are speed-ups (ours / baseline); ratios of times or memory are defined
    # per benchmark (see the table), so only the former share one axis.
    ratios = [r for r in rows if rate(r) is not None and isinstance(r.get("ratio"), (int, float))
              and math.isfinite(r["ratio"]) and r["ratio"] > 0]
    charts = [
        ("bench_throughput", tput, "items per second (log scale)", "Throughput"),
        ("bench_ratios", ratios, "speed-up: our rate / the baseline's rate on the same data, same run (log scale)",
         "Side-by-side speed-ups"),
    ]
    for stem, items, xlabel, title in charts:
        if not items:
            continue
        plain = [t[0] if isinstance(t, tuple) else t for t in items]
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(items) + 1.4))
        y = list(range(len(items)))[::-1]
        if stem == "bench_throughput":
            values = [t[1] for t in items]
            notes = [f"{t[1]:.3g} {t[2]}/s" for t in items]
            labels = [_label(t[0]) for t in items]
        else:
            values = [r["ratio"] for r in items]
            notes = [f"{r['ratio']:.3g}x vs {_baseline(r)}" for r in items]
            labels = [_label(r) for r in items]
            ax.axvline(1.0, color="k", lw=0.8)
        ax.barh(y, values, color=[colour[r["family"]] for r in plain])
        ax.set_xscale("log")
        ax.set_yticks(y, labels, fontsize=8)
        for yy, v, note in zip(y, values, notes):
            ax.text(v, yy, " " + note, va="center", fontsize=7)
        lo, hi = min(values), max(values)
        ax.set_xlim(lo / 3, hi * 60)
        ax.set_xlabel(xlabel)
        ax.set_title(f"{title}\n{subtitle}", fontsize=9)
        fig.tight_layout()
        for ext in ("png", "svg") if svg else ("png",):
            path = os.path.join(out_dir, f"{stem}.{ext}")
            fig.savefig(path, dpi=110)
            written.append(path)
        plt.close(fig)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python bench/plot.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="?", default=os.path.join(ROOT, "docs", "bench.json"),
                   help="JSON from python -m bench (default docs/bench.json)")
    p.add_argument("--out", default=os.path.join(ROOT, "docs"), help="folder for the images (default docs/)")
    p.add_argument("--svg", action="store_true", help="also write SVG")
    args = p.parse_args(argv)
    try:
        with open(args.results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot: cannot read {args.results}: {e}", file=sys.stderr)
        return 2
    for path in plot(doc, args.out, args.svg):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
