"""Inversion counts, the invariant, is_solvable and reachable against slow references."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastpuzzle as fp
from fastpuzzle.solvability import inversion_kernels as inv_kernels
from fastpuzzle.solvability import cycle_kernels, lane_kernels
from fastpuzzle.solvability import api as sv

from . import naive

SHAPES = [(1, 2), (2, 1), (1, 7), (7, 1), (2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (4, 4),
          (5, 5), (2, 9), (9, 2), (6, 7), (8, 8), (5, 13), (9, 9), (10, 10), (13, 17), (30, 30)]


def random_boards(rng, m, n, count):
    return rng.permuted(np.tile(np.arange(m * n), (count, 1)), axis=1).reshape(count, m, n)


@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.parametrize("method", ["merge", "fenwick", "radix", "bitmask", "auto"])
@pytest.mark.slow
def test_inversions_match_reference(rng, m, n, method):
    boards = random_boards(rng, m, n, 40)
    if method == "bitmask" and m * n > 64:
        with pytest.raises(ValueError, match="at most 64 cells"):
            fp.inversions(boards, method=method)
        return
    got = fp.inversions(boards, method=method)
    assert got.dtype == np.int64
    assert got.tolist() == [naive.inversions(b) for b in boards]
    assert fp.inversions(boards[3], method=method) == naive.inversions(boards[3])


@pytest.mark.parametrize("m,n", [(m, n) for m, n in SHAPES if m > 1 and n > 1])
@pytest.mark.slow
def test_invariant_and_solvability_match_reference(rng, m, n):
    boards = random_boards(rng, m, n, 60)
    expected = [naive.invariant(b) for b in boards]
    assert fp.invariant(boards).tolist() == expected
    goal_inv = naive.invariant(naive.goal(m, n))
    assert fp.is_solvable(boards).tolist() == [e == goal_inv for e in expected]


@pytest.mark.parametrize("m,n", [(m, n) for m, n in SHAPES if m == 1 or n == 1])
def test_one_row_or_column_compares_tile_order(rng, m, n):
    boards = random_boards(rng, m, n, 50)
    goal = naive.goal(m, n)
    assert fp.is_solvable(boards).tolist() == [naive.reachable(b, goal) for b in boards]
    # every board with the goal's tile order is solvable, wherever the blank is
    tiles = list(range(1, m * n))
    for z in range(m * n):
        cells = tiles[:z] + [0] + tiles[z:]
        assert fp.is_solvable(np.array(cells).reshape(m, n))
    with pytest.raises(ValueError, match="no parity invariant"):
        fp.invariant(boards)


@pytest.mark.slow
def test_parity_kernels_agree_on_sizes_where_all_apply(rng):
    # the parity kernels are independent algorithms: they must agree
    for m, n in [(2, 2), (3, 5), (4, 4), (8, 8), (5, 13), (10, 10), (8, 16), (7, 9), (20, 20), (64, 64), (65, 64), (1, 4096), (513, 513)]:
        count = 30 if m * n <= 4096 else 4
        boards = random_boards(rng, m, n, count)
        flat = boards.reshape(count, -1).astype(fp.board_dtype(m * n))
        colour = fp.boards.cell_colours(m, n)
        results = []
        kinds = [inv_kernels.PARITY_TREE]
        if m * n <= 64:
            kinds.append(inv_kernels.PARITY_BITMASK)
        if m * n <= 128:
            kinds.append(inv_kernels.PARITY_BITMASK128)
        if m * n <= 4096:
            kinds.append(inv_kernels.PARITY_WORDS)
        levels = inv_kernels.tree_levels(m * n)
        for kind in kinds:
            out = np.empty(count, np.uint8)
            inv_kernels.batch_invariant(flat, colour, kind, levels, out)
            out_par = np.empty(count, np.uint8)
            inv_kernels.batch_invariant_par(flat, colour, kind, levels, out_par)
            assert out.tolist() == out_par.tolist()
            results.append(out.tolist())
        for walkers in (cycle_kernels.batch_invariant_cycles_checked, cycle_kernels.batch_invariant_cycles_checked_par):
            out = np.empty(count, np.uint8)
            assert walkers(flat, colour, out) == -1
            results.append(out.tolist())
        assert all(r == results[0] for r in results)
        if m * n <= 1024:
            assert results[0] == [naive.invariant(b) for b in boards]
        elif m * n <= 4096:  # the O(N^2) reference takes half a second a board here
            assert results[0][:3] == [naive.invariant(b) for b in boards[:3]]
        else:
            assert results[0] == [python_cycle_invariant(b.ravel(), m, n) for b in boards[:3]] + results[0][3:]


def test_parallel_and_serial_drivers_agree(rng):
    boards = random_boards(rng, 4, 4, 5000).astype(np.uint8).reshape(5000, 16)
    for method in (0, 1, 2, 3):
        a = np.empty(5000, np.int64)
        b = np.empty(5000, np.int64)
        inv_kernels.batch_count(boards, method, a)
        inv_kernels.batch_count_par(boards, method, b)
        assert (a == b).all()


def blocked_inversions(cells):
    """O(N^2) count in NumPy blocks: slow, plain, for boards too large for naive.inversions."""
    tiles = cells[cells != 0].astype(np.int64)
    total = 0
    for lo in range(0, tiles.size, 512):
        block = tiles[lo:lo + 512]
        later = tiles[lo:]
        # pairs (i, j) with i in the block, j > i
        greater = block[:, None] > later[None, :]
        i_index = np.arange(block.size)[:, None]
        j_index = np.arange(later.size)[None, :]
        total += int((greater & (j_index > i_index)).sum())
    return total


def python_cycle_invariant(cells, m, n):
    """Permutation parity by walking cycles in plain Python, plus blank colour."""
    seen = [False] * len(cells)
    cycles = 0
    for s in range(len(cells)):
        if not seen[s]:
            cycles += 1
            i = s
            while not seen[i]:
                seen[i] = True
                i = int(cells[i])
    z = int(np.flatnonzero(cells == 0)[0])
    return ((len(cells) - cycles) + z // n + z % n) % 2


@pytest.mark.slow
def test_large_board_300x300(rng):
    board = random_boards(rng, 300, 300, 1)[0]
    count = blocked_inversions(board.ravel())
    assert fp.inversions(board, method="merge") == count
    assert fp.inversions(board, method="fenwick") == count
    assert fp.inversions(board, method="radix") == count
    width_even = 1  # 300 is even
    z = int(np.flatnonzero(board.ravel() == 0)[0])
    assert fp.invariant(board) == (count + width_even * (z // 300)) % 2


@pytest.mark.slow
def test_large_board_1000x1000(rng):
    board = random_boards(rng, 1000, 1000, 1)[0]
    merge = fp.inversions(board, method="merge")
    assert merge == fp.inversions(board, method="fenwick") == fp.inversions(board, method="radix")
    z = int(np.flatnonzero(board.ravel() == 0)[0])
    assert fp.invariant(board) == (merge + z // 1000) % 2
    assert fp.invariant(board) == python_cycle_invariant(board.ravel(), 1000, 1000)
    assert fp.invariant(board, method="cycles") == fp.invariant(board, method="tree")


def test_reversed_board_has_the_closed_form_count():
    # tiles in decreasing order: every pair is an inversion, k(k-1)/2 for k tiles
    m, n = 700, 700
    tiles = np.arange(m * n - 1, 0, -1)
    board = np.append(tiles, 0).reshape(m, n)
    k = m * n - 1
    for method in ("merge", "fenwick", "radix"):
        assert fp.inversions(board, method=method) == k * (k - 1) // 2


@pytest.mark.slow
def test_radix_within_one_board_across_threads(rng):
    for size in (2, 3, 100, 4097, 300_000):
        cells = rng.permutation(size).astype(fp.board_dtype(size))
        buf = inv_kernels.radix_buffer_size(size)
        a, b = np.empty(buf, cells.dtype), np.empty(buf, cells.dtype)
        expected = blocked_inversions(cells) if size < 5000 else fp.inversions(cells[None], method="merge")
        for parts in (1, 2, 7):
            assert inv_kernels.count_radix_par(cells, a, b, parts) == expected


def test_counts_exceed_int32():
    # 10^5 x 1 cells reversed: ~5e9 inversions, beyond int32
    k = 100_001
    board = np.append(np.arange(k - 1, 0, -1), 0).reshape(1, k)
    assert fp.inversions(board, method="merge") == (k - 1) * (k - 2) // 2 > 2**31
    assert fp.inversions(board, method="fenwick") == (k - 1) * (k - 2) // 2
    assert fp.inversions(board, method="radix") == (k - 1) * (k - 2) // 2


# -- exhaustive ground truth by breadth-first search ---------------------------

BFS_SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (1, 2), (1, 4), (4, 1), (1, 5)]


@pytest.fixture(scope="module")
def components():
    """For each shape: every permutation and its BFS component relative to the goal."""
    out = {}
    for m, n in BFS_SHAPES:
        goal = tuple(naive.cells_of(naive.goal(m, n)))
        reach = naive.bfs_distances(goal, m, n)
        perms = np.array(list(itertools.permutations(range(m * n))), dtype=np.uint8)
        in_goal_component = np.array([tuple(p) in reach for p in perms.tolist()])
        out[(m, n)] = (perms.reshape(-1, m, n), in_goal_component, len(reach))
    return out


@pytest.mark.parametrize("m,n", BFS_SHAPES)
@pytest.mark.slow
def test_is_solvable_equals_bfs_on_every_permutation(components, m, n):
    boards, truth, size = components[(m, n)]
    assert (fp.is_solvable(boards) == truth).all()
    assert (fp.reachable(boards, fp.goal_board(m, n)) == truth).all()
    if m > 1 and n > 1:
        # exactly two components of equal size
        assert size * 2 == len(boards)


@pytest.mark.parametrize("m,n", [(2, 3), (3, 3), (2, 4)])
def test_reachable_pairs_equal_bfs_components(components, rng, m, n):
    boards, truth, _ = components[(m, n)]
    i = rng.integers(0, len(boards), 3000)
    j = rng.integers(0, len(boards), 3000)
    assert (fp.reachable(boards[i], boards[j]) == (truth[i] == truth[j])).all()


@pytest.mark.parametrize("m,n", [(2, 3), (3, 3)])
def test_custom_goal_everywhere(components, rng, m, n):
    boards, truth, _ = components[(m, n)]
    for g in rng.integers(0, len(boards), 5):
        goal = boards[g]
        expected = truth == truth[g]
        assert (fp.is_solvable(boards, goal=goal) == expected).all()


# -- properties ----------------------------------------------------------------

def board_strategy(min_side=1, max_side=7):
    return st.tuples(st.integers(min_side, max_side), st.integers(min_side, max_side)).filter(
        lambda s: s[0] * s[1] >= 2
    ).flatmap(
        lambda s: st.permutations(list(range(s[0] * s[1]))).map(lambda p: np.array(p).reshape(s))
    )


@settings(max_examples=200, deadline=None)
@given(board=board_strategy(), data=st.data())
@pytest.mark.slow
def test_a_legal_move_never_changes_solvability(board, data):
    m, n = board.shape
    z = int(np.flatnonzero(board.ravel() == 0)[0])
    r, c = divmod(z, n)
    options = [code for code, (dr, dc) in enumerate(zip(fp.moves.ROW_STEP, fp.moves.COL_STEP))
               if 0 <= r + dr < m and 0 <= c + dc < n]
    code = data.draw(st.sampled_from(options))
    moved = fp.apply_moves(board, np.array([code]))
    assert fp.is_solvable(moved) == fp.is_solvable(board)
    assert fp.reachable(board, moved)


@settings(max_examples=200, deadline=None)
@given(board=board_strategy(min_side=2), data=st.data())
@pytest.mark.slow
def test_swapping_two_tiles_always_flips_solvability(board, data):
    cells = board.ravel().copy()
    tiles = [i for i in range(cells.size) if cells[i] != 0]
    i, j = data.draw(st.lists(st.sampled_from(tiles), min_size=2, max_size=2, unique=True))
    cells[i], cells[j] = cells[j], cells[i]
    swapped = cells.reshape(board.shape)
    assert fp.is_solvable(swapped) != fp.is_solvable(board)
    assert not fp.reachable(board, swapped)


@settings(max_examples=200, deadline=None)
@given(shape=st.sampled_from([(2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (1, 4), (5, 1)]), data=st.data())
def test_reachable_is_symmetric_and_transitive(shape, data):
    m, n = shape
    perm = st.permutations(list(range(m * n))).map(lambda p: np.array(p).reshape(m, n))
    a, b, c = data.draw(perm), data.draw(perm), data.draw(perm)
    assert fp.reachable(a, b) == fp.reachable(b, a) == naive.reachable(a, b)
    if fp.reachable(a, b) and fp.reachable(b, c):
        assert fp.reachable(a, c)


# -- the sources' examples -------------------------------------------------------

def test_sources_examples():
    # SOURCES item 3: this 4x4 board is solvable
    example = [[12, 1, 10, 2], [7, 11, 4, 14], [5, 0, 9, 15], [8, 13, 6, 3]]
    assert fp.is_solvable(example)
    assert fp.inversions(example) == naive.inversions(example) == 49
    # item 5's bug called the goal unsolvable; the goal is always solvable
    for m, n in [(4, 4), (3, 3), (2, 5), (1, 3), (3, 1), (5, 4)]:
        assert fp.is_solvable(fp.goal_board(m, n))
    # item 1's pitfall: counting the blank as a tile changes the answer
    board = [[1, 2, 3], [4, 5, 6], [0, 7, 8]]
    counted_with_blank = sum(1 for a, b in itertools.combinations(naive.cells_of(board), 2) if a > b)
    assert counted_with_blank % 2 == 0 and naive.inversions(board) % 2 == 0
    board = [[1, 2, 3], [4, 0, 5], [7, 8, 6]]
    assert fp.is_solvable(board)  # blank counted would give 3 + 2: still the same; check a width-4 case
    # item 1's pitfall: the row count (not the width) decides; 3x4 has odd rows, even width
    wide = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 0, 11]])
    assert fp.is_solvable(wide)  # one move from the goal
    moved_up = fp.apply_moves(wide, "U")
    assert fp.is_solvable(moved_up)
    assert naive.inversions(moved_up) % 2 == 1  # odd inversions, still solvable: width is even
    # item 3's PHP bug counted every pair; the right count only counts a > b
    pairs = len(list(itertools.combinations([v for v in naive.cells_of(example) if v], 2)))
    assert fp.inversions(example) != pairs


# -- bad input -----------------------------------------------------------------

@pytest.mark.parametrize("func", [fp.is_solvable, fp.inversions, fp.invariant])
@pytest.mark.parametrize("bad,error,message", [
    (np.arange(4), ValueError, "1 dimension"),
    (np.zeros((2, 2, 2, 2), int), ValueError, "4 dimension"),
    (np.zeros((0, 3), int), ValueError, "empty side"),
    (np.zeros((3, 0), int), ValueError, "empty side"),
    (np.zeros((1, 1), int), ValueError, "at least 2 cells"),
    (np.array([[1.5, 0], [2, 3]]), TypeError, "non-integer"),
    (np.array([["a", "b"], ["c", "d"]]), TypeError, "must hold integers"),
    (np.array([[True, False], [False, True]]), TypeError, "must hold integers"),
    (np.array([[1, 2], [3, 4]]), ValueError, "outside 0..3"),
    (np.array([[1, 2], [3, -1]]), ValueError, "outside 0..3"),
    (np.array([[1, 1], [3, 0]]), ValueError, "tile 1 appears 2 times"),
    (np.array([[1, 2], [3, 3]]), ValueError, "blank \\(0\\) is missing"),
    (np.array([[[1, 2], [3, 0]], [[1, 2], [3, 0]], [[2, 2], [3, 0]]]), ValueError, "board 2 is not a permutation"),
    (np.array([[[1, 2], [3, 0]], [[1, 9], [3, 0]]]), ValueError, "board 1 holds 9"),
])
def test_bad_input_is_named(func, bad, error, message):
    with pytest.raises(error, match=message):
        func(bad)


def test_ragged_and_object_input():
    with pytest.raises(ValueError, match="could not be read as an array"):
        fp.is_solvable([[1, 2], [3]])
    with pytest.raises(TypeError, match="not integers"):
        fp.is_solvable(np.array([[1, "x"], [3, 0]], dtype=object))
    assert fp.is_solvable(np.array([[1, 2], [3, 0]], dtype=object))


def test_floats_holding_whole_numbers_are_accepted():
    assert fp.is_solvable(np.array([[1.0, 2.0], [3.0, 0.0]]))


def test_any_integer_dtype_and_lists():
    board = [[2, 1, 3], [4, 5, 0]]
    results = {fp.inversions(np.array(board, dtype=dt)) for dt in
               (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}
    assert results == {1}
    assert fp.inversions(board) == 1


def test_large_batch_with_one_bad_board_names_it(rng):
    boards = random_boards(rng, 4, 4, 100_000).astype(np.uint8)
    boards[77_777, 0, 0] = boards[77_777, 0, 1]
    with pytest.raises(ValueError, match="board 77777 is not a permutation"):
        fp.is_solvable(boards)


def test_goal_errors():
    board = fp.goal_board(3, 3)
    with pytest.raises(ValueError, match="goal has shape 2x2"):
        fp.is_solvable(board, goal=fp.goal_board(2, 2))
    with pytest.raises(ValueError, match="goal: board is not a permutation"):
        fp.is_solvable(board, goal=np.zeros((3, 3), int))
    with pytest.raises(ValueError, match="goal must be one board"):
        fp.is_solvable(board, goal=board[None])


def test_reachable_shape_errors():
    with pytest.raises(ValueError, match="different shapes"):
        fp.reachable(fp.goal_board(3, 3), fp.goal_board(2, 2))
    with pytest.raises(ValueError, match="a holds 2 boards and b holds 3"):
        fp.reachable(np.stack([fp.goal_board(2, 2)] * 2), np.stack([fp.goal_board(2, 2)] * 3))
    # one board against a batch broadcasts either way
    batch = np.stack([fp.goal_board(2, 2)] * 3)
    assert fp.reachable(fp.goal_board(2, 2), batch).tolist() == [True] * 3


def test_unknown_method():
    with pytest.raises(fp.OptionError, match="method must be one of 'auto'") as info:
        fp.inversions(fp.goal_board(3, 3), method="quick")
    assert (info.value.option, info.value.value) == ("method", "quick")


def test_check_false_skips_permutation_check_but_agrees_on_valid_boards(rng):
    boards = random_boards(rng, 4, 4, 1000)
    assert (fp.is_solvable(boards, check=False) == fp.is_solvable(boards)).all()


@pytest.mark.parametrize("m,n", [(2, 2), (4, 4), (10, 10), (30, 30), (70, 70)])
def test_check_false_on_garbage_never_crashes(rng, m, n):
    # out-of-range and repeated values: answers are undefined, but every kernel stays in bounds
    garbage = rng.integers(0, 2**16, size=(50, m, n)).astype(np.uint16)
    garbage[:, 0, 0] = 0
    for method in ("merge", "fenwick", "radix"):
        assert fp.inversions(garbage, method=method, check=False).shape == (50,)
    for method in ("auto", "tree", "cycles"):
        assert fp.invariant(garbage, method=method, check=False).shape == (50,)
    assert fp.is_solvable(garbage, check=False).shape == (50,)


def test_empty_batch():
    assert fp.is_solvable(np.zeros((0, 3, 3), np.uint8)).shape == (0,)
    assert fp.inversions(np.zeros((0, 3, 3), np.uint8)).shape == (0,)


# -- lane kernels (boards of at most 64 cells, across boards) --------------------

LANE_SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 8), (4, 4), (3, 5), (5, 5), (4, 8), (2, 16), (5, 6),
               (6, 6), (7, 7), (8, 8), (4, 16), (5, 13), (9, 9), (10, 10), (11, 11), (8, 16), (2, 64)]


@pytest.mark.parametrize("m,n", LANE_SHAPES)
@pytest.mark.slow
def test_lane_kernels_match_reference(rng, m, n):
    # more boards than a block, and a ragged last block
    count = 2 * lane_kernels.LANE_BLOCK + 37
    boards = random_boards(rng, m, n, count).astype(np.uint8)
    expected = [naive.invariant(b) for b in boards]
    flat = boards.reshape(count, m * n)
    for threads in (False, True):
        out = np.empty(count, np.uint8)
        assert lane_kernels.lane_invariants(flat, lane_kernels.lane_words(flat), fp.boards.cell_colours(m, n),
                                            lane_kernels.lane_constants(m * n), out, threads=threads) == -1
        assert out.tolist() == expected
    assert fp.invariant(boards).tolist() == expected
    assert fp.invariant(boards, method="lanes").tolist() == expected
    one_board_kernel = "bitmask" if m * n <= 64 else "bitmask128"
    assert fp.invariant(boards.astype(np.int64), method=one_board_kernel).tolist() == expected


@pytest.mark.parametrize("m,n", LANE_SHAPES)
@pytest.mark.slow
def test_lane_path_with_custom_goal(rng, m, n):
    boards = random_boards(rng, m, n, 300).astype(np.uint8)
    goal = random_boards(rng, m, n, 1)[0]
    got = fp.is_solvable(boards, goal=goal)
    assert got.tolist() == [naive.reachable(b, goal) for b in boards]
    assert fp.is_solvable(boards[7], goal=goal) == naive.reachable(boards[7], goal)
    assert fp.reachable(boards, goal.astype(np.uint8)).tolist() == got.tolist()
    assert fp.reachable(goal.astype(np.uint8), boards).tolist() == got.tolist()
    others = random_boards(rng, m, n, 300).astype(np.uint8)
    assert fp.reachable(boards, others).tolist() == [naive.reachable(a, b) for a, b in zip(boards, others)]


@pytest.mark.parametrize("m,n", [(3, 3), (4, 4), (5, 5), (8, 8), (2, 3), (10, 10), (8, 16)])
@pytest.mark.parametrize("how", ["duplicate", "out of range", "no blank"])
@pytest.mark.slow
def test_lane_validation_raises_the_usual_error(rng, m, n, how):
    count = 3 * lane_kernels.LANE_BLOCK
    boards = random_boards(rng, m, n, count).astype(np.uint8)
    bad = int(rng.integers(count))
    if how == "duplicate":
        boards[bad].flat[0] = boards[bad].flat[1]
    elif how == "out of range":
        boards[bad].flat[int(rng.integers(m * n))] = m * n + int(rng.integers(0, min(200, 256 - m * n)))
    else:
        boards[bad][boards[bad] == 0] = 1
    with pytest.raises(fp.boards.BoardError) as from_lanes:
        fp.is_solvable(boards)
    with pytest.raises(fp.boards.BoardError) as from_gate:
        fp.as_boards(boards)
    assert (from_lanes.value.index, from_lanes.value.reason) == (from_gate.value.index, from_gate.value.reason)
    assert from_lanes.value.index == bad
    assert str(from_lanes.value) == str(from_gate.value)
    with pytest.raises(fp.boards.BoardError, match=f"board {bad} "):
        fp.invariant(boards)
    with pytest.raises(fp.boards.BoardError, match=f"^b: board {bad} "):
        fp.reachable(boards[:1].repeat(count, 0), boards)
    with pytest.raises(fp.boards.BoardError, match="^boards: board "):
        fp.is_solvable(boards[bad])  # single board: no index
    # unchecked: an answer for every board, the valid ones still right
    got = fp.is_solvable(boards, check=False)
    assert got.shape == (count,)
    keep = np.arange(count) != bad
    goal_inv = naive.invariant(naive.goal(m, n))
    assert got[keep].tolist() == [naive.invariant(b) == goal_inv for b in boards[keep]]


@pytest.mark.parametrize("m,n", [(2, 2), (3, 3), (4, 4), (5, 5), (8, 8), (10, 10), (8, 16)])
def test_lane_kernels_stay_in_bounds_on_garbage(rng, m, n):
    # valid boards, then any bytes at all, unchecked: some answer per board,
    # nothing read or written outside, and the first bad board found
    valid = random_boards(rng, m, n, 600).astype(np.uint8)
    garbage = rng.integers(0, 256, (700, m, n)).astype(np.uint8)
    boards = np.concatenate([valid, garbage])
    out = fp.is_solvable(boards, check=False)
    assert out.shape == (1300,) and out.dtype == np.bool_
    flat = boards.reshape(1300, m * n)
    expected = next(i for i, b in enumerate(flat.tolist()) if sorted(b) != list(range(m * n)))
    for threads in (False, True):  # threaded: the first bad board of the first part that has one
        inv = np.empty(1300, np.uint8)
        first_bad = lane_kernels.lane_invariants(flat, lane_kernels.lane_words(flat), fp.boards.cell_colours(m, n),
                                                 lane_kernels.lane_constants(m * n), inv, threads=threads)
        assert set(inv.tolist()) <= {0, 1}
        assert first_bad == expected


def test_lane_constants_reject_sizes():
    with pytest.raises(ValueError, match="2..128 cells"):
        lane_kernels.lane_constants(129)
    with pytest.raises(ValueError, match="at most 128 cells"):
        fp.invariant(np.zeros((1, 12, 12), np.uint16), method="lanes", check=False)


# -- large boards: validation inside the parity tree ----------------------------


@pytest.mark.parametrize("m,n", [(65, 65), (70, 61)])
@pytest.mark.slow
def test_checked_tree_matches_reference_and_validates(rng, m, n):
    assert m * n > sv.WALK_CHECKED_MIN_CELLS
    boards = random_boards(rng, m, n, 3).astype(fp.board_dtype(m * n))
    expected = [naive.invariant(b) for b in boards[:1]] + fp.invariant(boards[1:], method="cycles").tolist()
    assert fp.invariant(boards).tolist() == expected
    goal = random_boards(rng, m, n, 1)[0].astype(boards.dtype)
    assert fp.is_solvable(boards, goal=goal).tolist() == [e == naive.invariant(goal) for e in expected]
    assert fp.is_solvable(boards[0]) == (expected[0] == naive.invariant(naive.goal(m, n)))
    for how in ("duplicate", "out of range"):
        bad = boards.copy()
        if how == "duplicate":
            bad[2].flat[5] = bad[2].flat[9]
        else:
            bad[2].flat[7] = m * n + 3
        with pytest.raises(fp.boards.BoardError) as from_tree:
            fp.is_solvable(bad)
        with pytest.raises(fp.boards.BoardError) as from_gate:
            fp.as_boards(bad)
        assert str(from_tree.value) == str(from_gate.value) and from_tree.value.index == 2
        assert fp.is_solvable(bad, check=False).shape == (3,)  # unchecked: an answer, in bounds


def test_tree_checked_kernel_flags_non_permutations(rng):
    n_cells = 5000
    offsets = inv_kernels.tree_levels(n_cells)
    colour = np.zeros(n_cells, np.uint8)
    words = np.empty(offsets[-1], np.uint64)
    cells = rng.permutation(n_cells).astype(np.uint16)
    assert inv_kernels.invariant_tree_checked(cells, colour, words, offsets)[1]
    cells[10] = cells[11]
    assert not inv_kernels.invariant_tree_checked(cells, colour, words, offsets)[1]
    cells[10] = 60000
    assert not inv_kernels.invariant_tree_checked(cells, colour, words, offsets)[1]


@pytest.mark.parametrize("m,n", [(2, 2), (3, 3), (4, 4), (3, 5), (5, 5), (4, 8)])
def test_lane_values_past_the_shift_width_are_refused(rng, m, n):
    # a value v + 32 shifts like v: where v is the board's missing value the
    # seen-mask comes out full, so only the out-of-range test can refuse it
    count = lane_kernels.LANE_BLOCK + 5
    boards = random_boards(rng, m, n, count).astype(np.uint8)
    for bad, wrap in ((3, 32), (count - 2, 224)):
        flat = boards[bad].reshape(-1)
        cell = int(np.flatnonzero(flat == m * n - 1)[0])
        flat[cell] = m * n - 1 + wrap
        with pytest.raises(fp.boards.BoardError) as caught:
            fp.is_solvable(boards)
        assert caught.value.index == 3
        with pytest.raises(fp.boards.BoardError):
            fp.is_solvable(boards[bad:])
