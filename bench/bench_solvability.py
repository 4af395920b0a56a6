"""Solvability and inversion-count benchmarks (the core engine).

Run: ``python bench/bench_solvability.py [--quick]``.  Prints, with the JIT
warm, boards/s of ``is_solvable`` against a read-only loop over the same
array (the memory-bandwidth bound), a NumPy-vectorised rule and the
plain-Python rule; 10x10 throughput; one 1000 x 1000 board against
``np.sort``; and the first call in a fresh process with the cache warm.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from numba import prange

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fastpuzzle as fp
from fastpuzzle._jit import jit, pjit
from bench.common import median_seconds, paired_seconds, print_header, print_rows, row

FAMILY = "solvability"


@pjit
def _read_only(flat, out):
    """Reads every byte of every board and nothing more: the bandwidth bound."""
    for b in prange(flat.shape[0]):
        acc = 0
        for j in range(flat.shape[1]):
            acc ^= flat[b, j]
        out[b] = acc & 1


@jit
def _read_words(words, out):
    """Reads the array as 64-bit words, one thread: the bound a kernel that
    loads its boards word by word could reach (the byte loop above is slower
    than memory)."""
    acc = np.uint64(0)
    for i in range(words.shape[0]):
        acc ^= words[i]
    out[0] = acc


def as_words(flat: np.ndarray) -> np.ndarray:
    """The whole 64-bit words of a C-contiguous batch, flattened (the tail
    bytes past the last whole word left out)."""
    raw = flat.reshape(-1)
    return raw[: raw.size // 8 * 8].view(np.uint64)


def numpy_rule(boards: np.ndarray) -> np.ndarray:
    """The textbook rule, vectorised in NumPy chunk by chunk (the baseline)."""
    count, m, n = boards.shape
    flat = boards.reshape(count, m * n)
    upper = np.triu(np.ones((m * n, m * n), bool), 1)
    out = np.empty(count, bool)
    goal_parity = 0 if n % 2 else (m - 1) % 2
    for lo in range(0, count, 20_000):
        x = flat[lo:lo + 20_000]
        tiles = x != 0
        greater = (x[:, :, None] > x[:, None, :]) & upper & tiles[:, None, :]
        inv = greater.sum(axis=(1, 2))
        if n % 2 == 0:
            inv = inv + np.argmax(x == 0, axis=1) // n
        out[lo:lo + 20_000] = (inv % 2) == goal_parity
    return out


def python_rule(board) -> bool:
    """The plain-Python rule of the sources, one board at a time."""
    m, n = len(board), len(board[0])
    cells = [v for r in board for v in r]
    tiles = [v for v in cells if v]
    inv = sum(1 for i in range(len(tiles)) for j in range(i + 1, len(tiles)) if tiles[i] > tiles[j])
    if n % 2:
        return inv % 2 == 0
    return (inv + (m - 1 - cells.index(0) // n)) % 2 == 0


def random_boards(count, m, n, seed=0):
    rng = np.random.default_rng(seed)
    dtype = fp.board_dtype(m * n)
    return rng.permuted(np.tile(np.arange(m * n, dtype=dtype), (count, 1)), axis=1).reshape(count, m, n)


def first_call_seconds() -> tuple[float, float]:
    """(import seconds, first is_solvable call seconds) in a fresh process."""
    code = (
        "import time; t0 = time.perf_counter(); import fastpuzzle as fp, numpy as np; t1 = time.perf_counter();"
        "fp.is_solvable(np.arange(16, dtype=np.uint8).reshape(1, 4, 4)); t2 = time.perf_counter();"
        "print(t1 - t0, t2 - t1)"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=root)  # fills the cache
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=root)
        runs.append([float(x) for x in out.stdout.split()])
    imp, call = np.median(np.array(runs), axis=0)
    return float(imp), float(call)


def first_demo_seconds() -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``python -m fastpuzzle demo`` in a fresh
    process with an empty Numba cache: what a user's first run costs."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(cache, "numba"), FASTPUZZLE_CACHE=os.path.join(cache, "fp"),
                   PYTHONPATH=root)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fastpuzzle", "demo"], check=True, capture_output=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


#: Shapes of the side-by-side ratio table, and their batch sizes (full, quick).
RATIO_SHAPES = {(3, 3): (10_000_000, 1_000_000), (4, 4): (10_000_000, 1_000_000), (5, 5): (4_000_000, 400_000),
                (8, 8): (1_000_000, 200_000), (10, 10): (1_000_000, 100_000)}


def ratio_rows(quick: bool) -> list[dict]:
    """``is_solvable`` (validated and not) as a share of a read-only pass over
    the same array, for every shape of :data:`RATIO_SHAPES`, side by side in
    one run: each round runs the read-only pass and the calls in turn, and the
    ratio is the median over rounds.  Boards of 65..128 cells also get the
    path they took before the lane kernels took them (validation pass, then
    ``bitmask128`` one board at a time)."""
    import numba

    rows = []
    repeats = 3 if quick else 7
    note = f"{numba.get_num_threads()} threads, {os.cpu_count()} cores, ratio: median over rounds side by side"
    for (m, n), sizes in RATIO_SHAPES.items():
        count = sizes[1] if quick else sizes[0]
        boards = random_boards(count, m, n)
        flat = boards.reshape(count, m * n)
        sink = np.empty(count, np.uint8)
        fp.is_solvable(boards[:1000]); fp.is_solvable(boards)  # warm every kernel
        calls = {"validated": lambda: fp.is_solvable(boards), "check=False": lambda: fp.is_solvable(boards, check=False)}
        if m * n > 64:
            calls["validated, before (bitmask128)"] = lambda: fp.invariant(boards, method="bitmask128")
        words, word_sink = as_words(flat), np.empty(1, np.uint64)
        times, ratios = paired_seconds([lambda: _read_only(flat, sink), lambda: _read_words(words, word_sink),
                                        *calls.values()], repeats)  # fmt: skip
        for what, t, r in zip(calls, times[2:], ratios[2:]):
            rows.append(row(FAMILY, f"ratio {m}x{n}: is_solvable {what}, {count:,} boards", count / t / 1e6,
                            "M boards/s", 1.0 / r, "read-only loop", note))
        if m * n <= 25:  # the word-read bound, for the shapes the issue names
            rows.append(row(FAMILY, f"ratio {m}x{n}: is_solvable validated vs 64-bit word read, {count:,} boards",
                            count / times[2] / 1e6, "M boards/s", ratios[1] / ratios[2], "64-bit word read, one thread",
                            note + f"; word read {count / times[1] / 1e6:,.0f} M boards/s"))
    return rows


def parity_1000_rows(repeats: int) -> list[dict]:
    """One 1000x1000 board: np.sort of it against the exact counts and the
    parity kernels, side by side in one run (median over rounds of each
    call's time over np.sort's in the same round)."""
    big = random_boards(1, 1000, 1000)
    cells = big.ravel()
    calls = {f"inversions 1000x1000, {method}": (lambda method=method: fp.inversions(big, method=method, check=False))
             for method in ("merge", "fenwick", "radix")}
    calls["parity 1000x1000, tree"] = lambda: fp.invariant(big, method="tree", check=False)
    calls["parity 1000x1000, cycles"] = lambda: fp.invariant(big, method="cycles", check=False)
    calls["is_solvable 1000x1000, validated, tree checked (before)"] = lambda: _tree_checked(big)
    calls["is_solvable 1000x1000, validated"] = lambda: fp.is_solvable(big)
    assert fp.is_solvable(big) == (_tree_checked(big) == fp.invariant(fp.goal_board(1000, 1000)))
    times, ratios = paired_seconds([lambda: np.sort(cells), *calls.values()], repeats)
    rows = [row(FAMILY, "np.sort of one 1000x1000 board", times[0] * 1e3, "ms")]
    for name, t, r in zip(calls, times[1:], ratios[1:]):
        rows.append(row(FAMILY, name, t * 1e3, "ms", r, "np.sort", f"{os.cpu_count()} cores, ratio: median over rounds"))
    return rows


def _tree_checked(big: np.ndarray) -> int:
    """The validated 1000x1000 path before the cycle walkers: the parity tree
    with its seen-mask as validation."""
    from fastpuzzle.solvability import inversion_kernels as inv
    from fastpuzzle.boards import cell_colours

    m, n = big.shape[-2:]
    out = np.empty(1, np.uint8)
    if inv.batch_invariant_tree_checked(big.reshape(1, m * n), cell_colours(m, n), inv.tree_levels(m * n), out) >= 0:
        raise ValueError("not a permutation")
    return int(out[0])


def import_seconds(runs: int = 7) -> float:
    """Median wall time of ``python -c "import fastpuzzle"`` in fresh processes."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import fastpuzzle"], check=True, cwd=root)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def run(quick: bool = False) -> list[dict]:
    rows = ratio_rows(quick)
    t_import = import_seconds(3 if quick else 7)
    rows.append(row(FAMILY, "python -c 'import fastpuzzle', wall time", t_import, "s",
                    note="median of fresh processes, interpreter start included"))
    repeats = 3 if quick else 7
    count = 1_000_000 if quick else 10_000_000
    boards = random_boards(count, 4, 4)
    flat = boards.reshape(count, 16)
    sink = np.empty(count, np.uint8)

    fp.is_solvable(boards[:1000]); fp.is_solvable(boards)  # warm both kernels
    t_read = median_seconds(lambda: _read_only(flat, sink), repeats)
    t_fast = median_seconds(lambda: fp.is_solvable(boards, check=False), repeats)
    t_checked = median_seconds(lambda: fp.is_solvable(boards), repeats)
    t_numpy = median_seconds(lambda: numpy_rule(boards[:1_000_000]), 1 if quick else 3) * count / 1_000_000
    assert (numpy_rule(boards[:20_000]) == fp.is_solvable(boards[:20_000])).all()
    py_slice = boards[:10_000 if quick else 100_000].tolist()
    t0 = time.perf_counter()
    py = [python_rule(b) for b in py_slice]
    t_python = (time.perf_counter() - t0) * count / len(py_slice)
    assert py == fp.is_solvable(boards[:len(py_slice)]).tolist()

    name = f"{count:,} random 4x4 (uint8)"
    rows.append(row(FAMILY, f"is_solvable, {name}, check=False", count / t_fast / 1e6, "M boards/s",
                    t_read / t_fast, "read-only loop"))
    rows.append(row(FAMILY, "  read-only loop over the same array", count / t_read / 1e6, "M boards/s"))
    rows.append(row(FAMILY, "  is_solvable vs NumPy-vectorised rule", count / t_fast / 1e6, "M boards/s",
                    t_numpy / t_fast, "NumPy rule"))
    rows.append(row(FAMILY, "  is_solvable vs plain-Python rule", count / t_fast / 1e6, "M boards/s",
                    t_python / t_fast, "Python rule"))
    rows.append(row(FAMILY, "  NumPy-vectorised rule", count / t_numpy / 1e6, "M boards/s"))
    rows.append(row(FAMILY, "  plain-Python rule", count / t_python / 1e6, "M boards/s"))
    rows.append(row(FAMILY, f"is_solvable, {name}, validated", count / t_checked / 1e6, "M boards/s",
                    t_read / t_checked, "read-only loop"))
    small = boards[:1000]
    t_small = median_seconds(lambda: fp.is_solvable(small), 50)
    rows.append(row(FAMILY, "is_solvable, one call on 1,000 boards", t_small * 1e6, "us",
                    note="serial kernel: no thread-pool wake-up"))
    del boards, flat, sink

    count10 = 100_000 if quick else 1_000_000
    b10 = random_boards(count10, 10, 10)
    fp.is_solvable(b10)
    t10 = median_seconds(lambda: fp.is_solvable(b10, check=False), repeats)
    t10c = median_seconds(lambda: fp.is_solvable(b10), repeats)
    rows.append(row(FAMILY, f"is_solvable, {count10:,} random 10x10, check=False", count10 / t10 / 1e6, "M boards/s"))
    rows.append(row(FAMILY, f"is_solvable, {count10:,} random 10x10, validated", count10 / t10c / 1e6, "M boards/s"))
    del b10

    rows.extend(parity_1000_rows(11))  # cheap next to the rest: enough rounds for a stable median

    imp, call = first_call_seconds()
    rows.append(row(FAMILY, "fresh process: import fastpuzzle", imp, "s"))
    rows.append(row(FAMILY, "fresh process: first is_solvable call", call, "s", note="on-disk cache warm"))
    if not quick:  # compiles every kernel of the demo: half a minute of CPU
        cpu, wall = first_demo_seconds()
        rows.append(row(FAMILY, "first fastpuzzle demo, empty Numba cache", cpu, "s CPU",
                        note=f"{wall:.1f} s wall; compiling included"))
        rows.append(row(FAMILY, "first fastpuzzle demo, empty Numba cache, wall", wall, "s wall",
                        note="the wait a user sees: the solver's engine compiles in a second process alongside"))
    return rows


if __name__ == "__main__":
    print_header("solvability and inversion counts")
    print_rows(run(quick="--quick" in sys.argv))
