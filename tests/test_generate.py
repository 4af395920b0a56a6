import math
import os
from pathlib import Path

import numba
import numpy as np
import pytest

from fastpuzzle import apply_moves, goal_board
from fastpuzzle.generate import generate_chunks, random_permutations, random_solvable, scramble

from . import naive
from .naive import naive_biased_solvable


def component(goal):
    """Every board reachable from ``goal`` (flat tuples)."""
    m, n = len(goal), len(goal[0])
    return set(naive.bfs_distances(tuple(naive.cells_of(goal)), m, n))


def chi2_critical(df, p_z=3.719):
    """Wilson-Hilferty upper quantile of chi-square (z = 3.719: p = 1e-4)."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + p_z * math.sqrt(a)) ** 3


def chi2_stat(samples, support):
    """Pearson statistic of samples (iterable of tuples) against uniform on
    ``support``; a sample outside the support is an error."""
    index = {b: i for i, b in enumerate(sorted(support))}
    counts = np.zeros(len(index))
    for s in samples:
        assert s in index, f"board {s} is outside the expected support"
        counts[index[s]] += 1
    expected = counts.sum() / len(index)
    return float(((counts - expected) ** 2 / expected).sum())


def as_tuples(batch):
    return [tuple(int(v) for v in b) for b in batch.reshape(batch.shape[0], -1)]


@pytest.mark.parametrize("m,n,per_board", [(2, 3, 150), (2, 2, 3000), (3, 2, 150)])
def test_uniform_over_all_solvable_boards(m, n, per_board):
    support = component(naive.goal(m, n))
    assert len(support) == math.factorial(m * n) // 2  # 360 for 2x3, 12 for 2x2
    count = per_board * len(support)
    boards = random_solvable(m, n, count=count, seed=2024)
    stat = chi2_stat(as_tuples(boards), support)
    assert stat < chi2_critical(len(support) - 1)
    # every board of the support shows up
    assert len(set(as_tuples(boards))) == len(support)


@pytest.mark.parametrize("m,n,per_board", [(2, 3, 150), (2, 2, 3000)])
@pytest.mark.slow
def test_uniformity_statistic_rejects_a_biased_generator(m, n, per_board):
    support = component(naive.goal(m, n))
    biased = naive_biased_solvable(m, n, per_board * len(support), seed=1)
    assert chi2_stat(biased, support) > chi2_critical(len(support) - 1)


def test_random_permutations_uniform_over_all_boards():
    import itertools

    support = set(itertools.permutations(range(4)))
    boards = random_permutations(2, 2, count=24 * 2000, seed=5)
    assert chi2_stat(as_tuples(boards), support) < chi2_critical(23)


def test_uniform_with_custom_goal():
    goal = np.array([[0, 5, 2], [4, 3, 1]])
    support = component(goal)
    boards = random_solvable(2, 3, count=150 * 360, seed=3, goal=goal)
    assert chi2_stat(as_tuples(boards), support) < chi2_critical(359)


@pytest.mark.parametrize("m,n", [(2, 2), (3, 3), (4, 4), (3, 5), (5, 2), (2, 7), (6, 6), (7, 4)])
def test_every_board_is_solvable(m, n):
    boards = random_solvable(m, n, count=300, seed=m * 10 + n)
    assert boards.shape == (300, m, n)
    for b in boards:
        assert sorted(b.ravel().tolist()) == list(range(m * n))
        assert naive.reachable(b, naive.goal(m, n))


@pytest.mark.parametrize("m,n", [(3, 3), (4, 4), (2, 5)])
def test_custom_goal(m, n, rng):
    for trial in range(5):
        goal = rng.permutation(m * n).reshape(m, n)
        boards = random_solvable(m, n, count=200, seed=trial, goal=goal)
        for b in boards:
            assert naive.reachable(b, goal)


def test_random_permutations_are_half_solvable():
    boards = random_permutations(3, 3, count=4000, seed=11)
    share = np.mean([naive.reachable(b, naive.goal(3, 3)) for b in boards])
    assert 0.45 < share < 0.55  # binomial sd 0.008: this is a 6-sigma band


@pytest.mark.parametrize("m,n", [(1, 5), (6, 1), (1, 2), (2, 1)])
def test_one_row_or_column(m, n):
    N = m * n
    boards = random_solvable(m, n, count=2000 * N, seed=9)
    flat = boards.reshape(len(boards), -1)
    tiles = list(range(1, N))
    for b in flat[:500]:
        assert [int(v) for v in b if v] == tiles
    pos = np.argmax(flat == 0, axis=1)
    counts = np.bincount(pos, minlength=N)
    expected = len(flat) / N
    if N > 1:
        assert ((counts - expected) ** 2 / expected).sum() < chi2_critical(max(N - 1, 1))


def test_one_row_custom_goal():
    goal = np.array([[3, 0, 1, 2]])
    boards = random_solvable(1, 4, count=400, seed=1, goal=goal)
    for b in boards.reshape(400, -1):
        assert [int(v) for v in b if v] == [3, 1, 2]
    assert len(set(as_tuples(boards))) == 4


def test_single_board_and_dtypes():
    b = random_solvable(3, 3, seed=1)
    assert b.shape == (3, 3) and b.dtype == np.uint8
    assert (b == random_solvable(3, 3, count=4, seed=1)[0]).all()
    big = random_solvable(17, 17, count=2, seed=1)
    assert big.dtype == np.uint16
    assert naive.reachable(big[0], naive.goal(17, 17))
    assert random_solvable(4, 4, count=0, seed=1).shape == (0, 4, 4)


def test_large_board_is_valid_and_solvable():
    b = random_solvable(100, 100, count=3, seed=4)
    assert b.dtype == np.uint16
    for x in b:
        assert (np.sort(x.ravel()) == np.arange(10000)).all()
    # a cheaper reference than O(N^2) inversions: parity by cycles, blank colour
    for x in b:
        flat = x.ravel().astype(np.int64)
        goal = goal_board(100, 100).ravel().astype(np.int64)
        where = np.empty(10000, np.int64)
        where[goal] = np.arange(10000)
        perm = where[flat]  # cell i holds the tile whose goal cell is perm[i]
        seen = np.zeros(10000, bool)
        cycles = 0
        for i in range(10000):
            if not seen[i]:
                cycles += 1
                j = i
                while not seen[j]:
                    seen[j] = True
                    j = perm[j]
        parity = (10000 - cycles) % 2
        p = int(np.flatnonzero(flat == 0)[0])
        colour = (p // 100 + p % 100 + 99 + 99) % 2
        assert parity == colour


def test_reproducible_across_thread_counts():
    count = 70000  # 4x4: large enough for the threaded kernel
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = random_solvable(4, 4, count=count, seed=123)
        sa = scramble(4, 4, 30, count=count, seed=123)
        pa = random_permutations(4, 4, count=count, seed=123)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        b = random_solvable(4, 4, count=count, seed=123)
        sb = scramble(4, 4, 30, count=count, seed=123)
        pb = random_permutations(4, 4, count=count, seed=123)
    finally:
        numba.set_num_threads(old)
    assert (a == b).all() and (sa == sb).all() and (pa == pb).all()


def test_reproducible_across_count_and_chunking():
    full = random_solvable(4, 4, count=30000, seed=77)
    assert (random_solvable(4, 4, count=12345, seed=77) == full[:12345]).all()
    chunks = list(generate_chunks(4, 4, 30000, seed=77, chunk_boards=5000))
    assert len(chunks) > 2
    assert (np.concatenate([c for _, c in chunks]) == full).all()
    assert [s for s, _ in chunks] == list(np.cumsum([0] + [len(c) for _, c in chunks[:-1]]))
    sc = scramble(3, 3, 15, count=9000, seed=5)
    got = np.concatenate([c for _, c in generate_chunks(3, 3, 9000, seed=5, scramble_moves=15, chunk_boards=1000)])
    assert (got == sc).all()


def test_seed_kinds():
    a = random_solvable(4, 4, count=10, seed=5)
    assert (random_solvable(4, 4, count=10, seed=np.random.SeedSequence(5)) == a).all()
    g1 = random_solvable(4, 4, count=10, seed=np.random.default_rng(8))
    g2 = random_solvable(4, 4, count=10, seed=np.random.default_rng(8))
    assert (g1 == g2).all()
    assert not (random_solvable(4, 4, count=10, seed=6) == a).all()
    gen = np.random.default_rng(8)
    x = random_solvable(4, 4, count=10, seed=gen)
    y = random_solvable(4, 4, count=10, seed=gen)  # the generator advanced
    assert not (x == y).all()
    with pytest.raises(TypeError):
        random_solvable(4, 4, seed="abc")
    with pytest.raises(ValueError):
        random_solvable(4, 4, seed=-1)


def test_bad_arguments():
    with pytest.raises(ValueError):
        random_solvable(1, 1)
    with pytest.raises(ValueError):
        random_solvable(3, 3, count=-1)
    with pytest.raises(ValueError, match="goal"):
        random_solvable(3, 3, goal=np.zeros((3, 3), int))
    with pytest.raises(ValueError, match="goal"):
        random_solvable(3, 3, goal=goal_board(2, 2))
    with pytest.raises(ValueError):
        scramble(3, 3, -2)


@pytest.mark.parametrize("m,n", [(3, 3), (4, 4), (2, 5), (1, 4), (5, 1)])
def test_scramble_walks(m, n):
    goal = goal_board(m, n)
    boards, walks = scramble(m, n, 25, count=200, seed=1, return_moves=True)
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    for b, w in zip(boards, walks):
        assert len(w) == 25
        assert (apply_moves(goal, w) == b).all()
        assert naive.reachable(b, naive.goal(m, n))
        if m > 1 and n > 1:
            assert all(undo[w[i]] != w[i + 1] for i in range(len(w) - 1))
    _, codes = scramble(m, n, 25, count=200, seed=1, return_moves="codes")
    assert codes.shape == (200, 25) and codes.dtype == np.uint8


def test_scramble_one_row_dead_end_takes_the_undo():
    b, w = scramble(1, 2, 5, seed=3, return_moves=True)
    assert w == "LRLRL"
    assert b.tolist() == [[0, 1]]


def test_scramble_custom_goal_and_moves_distribution(rng):
    goal = rng.permutation(12).reshape(3, 4)
    boards, walks = scramble(3, 4, 12, count=300, seed=2, goal=goal, return_moves=True)
    for b, w in zip(boards, walks):
        assert (apply_moves(goal, w) == b).all()
    # From the goal's blank corner/edge the first move is uniform among legal moves.
    _, codes = scramble(3, 3, 1, count=40000, seed=4, return_moves="codes")
    counts = np.bincount(codes[:, 0], minlength=4)  # goal blank at bottom-right: U or L
    assert counts[2] == 0 and counts[3] == 0
    assert abs(counts[0] - 20000) < 4 * math.sqrt(10000)


@pytest.mark.parametrize("m,n,kind", [(4, 4, "solvable"), (5, 5, "solvable"), (4, 4, "plain"), (3, 7, "solvable")])
def test_every_tile_equally_likely_in_every_cell(m, n, kind):
    """On boards of 16+ cells (too many to enumerate): among all boards that
    reach the goal, tile t sits in cell c in exactly (N-1)!/2 of them, so the
    (cell, tile) table must be flat.  Pearson statistic of a table with fixed
    margins: about chi-square with (N-1)^2 degrees of freedom."""
    N = m * n
    count = 1000 * N
    gen = random_solvable if kind == "solvable" else random_permutations
    flat = gen(m, n, count=count, seed=N).reshape(count, N).astype(np.int64)
    table = np.zeros((N, N))
    for c in range(N):
        table[c] = np.bincount(flat[:, c], minlength=N)
    expected = count / N
    stat = float(((table - expected) ** 2 / expected).sum())
    assert stat < chi2_critical((N - 1) ** 2)


def test_cell_table_statistic_rejects_a_slightly_biased_shuffle():
    """The same statistic flags the classic off-by-one shuffle (j drawn from
    0..i-1: Sattolo's algorithm, which makes only cyclic permutations and
    never leaves a tile in place)."""
    rng = np.random.default_rng(1)
    N, count = 16, 16000
    flat = np.tile(np.arange(N), (count, 1))
    for i in range(N - 1, 0, -1):
        j = rng.integers(0, i, size=count)  # should be 0..i
        rows = np.arange(count)
        a, b = flat[rows, i].copy(), flat[rows, j].copy()
        flat[rows, i], flat[rows, j] = b, a
    table = np.zeros((N, N))
    for c in range(N):
        table[c] = np.bincount(flat[:, c], minlength=N)
    expected = count / N
    stat = float(((table - expected) ** 2 / expected).sum())
    assert stat > chi2_critical((N - 1) ** 2)


# ---------------------------------------------------------------------------
# argument checks (issue 11): TypeError / ValueError only, before allocating
# ---------------------------------------------------------------------------

PUBLIC_MAKERS = [
    lambda **kw: random_solvable(**{"m": 3, "n": 3, **kw}),
    lambda **kw: random_permutations(**{"m": 3, "n": 3, **kw}),
    lambda **kw: scramble(**{"m": 3, "n": 3, "moves": 5, **kw}),
    lambda **kw: list(generate_chunks(**{"m": 3, "n": 3, "count": 4, **kw})),
]


@pytest.mark.parametrize("make", PUBLIC_MAKERS)
@pytest.mark.parametrize("name", ["m", "n", "count", "seed"])
@pytest.mark.parametrize("value", [True, False, 2.0, "3", 1j, [3]])
def test_wrong_types_are_type_errors(make, name, value):
    with pytest.raises(TypeError, match=name if name != "seed" else "seed"):
        make(**{name: value})


@pytest.mark.parametrize("make", PUBLIC_MAKERS)
@pytest.mark.parametrize("name,value", [("m", 0), ("n", -3), ("count", -1), ("seed", -5), ("count", 1 << 63)])
def test_out_of_range_values_are_value_errors(make, name, value):
    with pytest.raises(ValueError):
        make(**{name: value})


@pytest.mark.parametrize("value", [True, 2.5, "10", None])
def test_walk_length_must_be_an_integer(value):
    with pytest.raises(TypeError, match="moves"):
        scramble(3, 3, value)
    if value is not None:
        with pytest.raises(TypeError, match="scramble_moves"):
            list(generate_chunks(3, 3, 4, scramble_moves=value))


def test_walk_length_out_of_range():
    with pytest.raises(ValueError, match="moves"):
        scramble(3, 3, -1)
    with pytest.raises(ValueError, match="moves"):
        scramble(3, 3, 1 << 64)
    with pytest.raises(ValueError, match="scramble_moves"):
        generate_chunks(3, 3, 4, scramble_moves=-2)


@pytest.mark.parametrize("value,error", [(1, TypeError), (None, TypeError), ("moves", ValueError), ("", ValueError)])
def test_return_moves_is_checked(value, error):
    with pytest.raises(error, match="return_moves"):
        scramble(3, 3, 4, return_moves=value)


@pytest.mark.parametrize("value,error", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_chunk_boards_is_checked(value, error):
    # -1 once returned nothing at all; the check runs on the call, not at the first chunk
    with pytest.raises(error, match="chunk_boards"):
        generate_chunks(3, 3, 10, chunk_boards=value)


@pytest.mark.parametrize("kind,error", [("uniform", ValueError), (1, TypeError)])
def test_generate_chunks_kind_is_checked(kind, error):
    with pytest.raises(error, match="kind"):
        generate_chunks(3, 3, 10, kind=kind)


def test_generate_chunks_needs_a_count():
    with pytest.raises(TypeError, match="count"):
        generate_chunks(3, 3, None)


@pytest.mark.parametrize(
    "call",
    [
        lambda: random_solvable(100_000, 100_000, count=0),
        lambda: random_permutations(100_000, 100_000),
        lambda: scramble(100_000, 100_000, 0, count=0),
        lambda: generate_chunks(100_000, 100_000, 0),
        lambda: random_solvable(4, 4, count=1 << 50),
        lambda: scramble(3, 3, 1 << 29, count=1 << 20, return_moves="codes"),
    ],
)
def test_huge_requests_are_refused_with_the_bytes_before_allocating(call, monkeypatch):
    # each needs more than a 16 GiB machine has; refused before np.empty is tried
    import fastpuzzle.memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 16 << 30)
    with pytest.raises(ValueError, match=r"would need [\d,]+ bytes"):
        call()


def test_scramble_without_moves_keeps_no_walks(monkeypatch):
    # the walk is the same whether or not it is kept, and nothing of size count * moves is allocated
    import fastpuzzle.generate.api as gen

    seen = []
    real = gen._fill_scramble

    def spy(out, codes, *args):
        seen.append(codes.shape)
        return real(out, codes, *args)

    monkeypatch.setattr(gen, "_fill_scramble", spy)
    boards = scramble(3, 3, 50, count=20, seed=4)
    with_walks, codes = scramble(3, 3, 50, count=20, seed=4, return_moves="codes")
    chunked = np.concatenate([b for _, b in generate_chunks(3, 3, 20, seed=4, scramble_moves=50)])
    assert seen[0] == (0, 0) and seen[1] == (20, 50) and seen[2] == (0, 0)
    assert (boards == with_walks).all() and (chunked == boards).all()
    for board, walk in zip(boards, codes):
        assert (apply_moves(goal_board(3, 3), walk) == board).all()


def test_cli_refuses_a_huge_shape_in_one_line(tmp_path):
    # once allocated 75 GiB for the goal board before anything else
    import subprocess
    import sys

    out = tmp_path / "x.npy"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    run = subprocess.run(
        [sys.executable, "-m", "fastpuzzle", "generate", "--shape", "100000x100000", "--count", "0", "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert "would need" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
