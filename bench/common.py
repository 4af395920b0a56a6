"""Shared helpers of the benchmark scripts: timing, machine description, tables."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np

#: The benchmark instances (Korf's 100, the 80-move positions, the 24-puzzle's 50, DeepCubeA's samples).
DATA = Path(__file__).resolve().parent / "data"


def median_seconds(func, repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``func()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def paired_seconds(funcs, repeats: int = 5, warmup: int = 1) -> tuple[list[float], list[float]]:
    """Side-by-side timing of ``funcs``: every round runs each of them once, in
    turn.  Returns the median wall time of each, and the median over rounds of
    each one's time divided by the first one's in the same round, so a
    neighbour's load that comes and goes weighs on both sides of a ratio."""
    for _ in range(warmup):
        for func in funcs:
            func()
    times = np.empty((repeats, len(funcs)))
    for r in range(repeats):
        for i, func in enumerate(funcs):
            start = time.perf_counter()
            func()
            times[r, i] = time.perf_counter() - start
    medians = [float(x) for x in np.median(times, axis=0)]
    ratios = [float(x) for x in np.median(times / times[:, :1], axis=0)]
    return medians, ratios


def peak_rss_kb() -> int:
    """Peak resident memory of this process in KiB.

    Reads ``VmHWM`` from ``/proc/self/status``: ``getrusage``'s ``ru_maxrss``
    keeps the high-water mark of the process image before ``exec``, so a
    child started by a big parent would report the parent's memory.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict:
    import fastpuzzle._jit  # noqa: F401  the threads' wait policy is set before Numba starts them (here)
    import numba

    return {
        "cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "threading_layer_env": os.environ.get("NUMBA_THREADING_LAYER", "default"),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
    }


def row(family, name, value, unit, ratio=None, baseline="", note=""):
    return {"family": family, "name": name, "value": value, "unit": unit,
            "ratio": ratio, "baseline": baseline, "note": note}


def print_header(title: str) -> None:
    m = machine()
    print(f"# {title}")
    print(f"# {m['cores']} cores ({m['numba_threads']} Numba threads), {m['cpu']}, "
          f"numpy {m['numpy']}, numba {m['numba']}")


def print_rows(rows) -> None:
    for r in rows:
        value = r["value"]
        shown = f"{value:,.4g}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)
        ratio = "" if r["ratio"] is None else f"  ratio {r['ratio']:.3g} vs {r['baseline']}"
        note = f"  ({r['note']})" if r["note"] else ""
        print(f"{r['name']:<48} {shown:>14} {r['unit']:<10}{ratio}{note}")


def read_instances(name: str, n_tiles: int) -> list:
    """``(board, optimal length)`` per line of ``bench/data/<name>``: ``n_tiles`` tiles, then the length."""
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            v = [int(x) for x in line.split()]
            rows.append((np.array(v[:n_tiles]), v[n_tiles]))
    return rows
