"""The move model's helpers (moves.py) and the custom-goal relabelling (boards.py),
against plain-Python definitions."""

import numpy as np
import pytest

from fastpuzzle.boards import cell_colours, goal_board, goal_cells, relabel_for_goal, relabel_table
from fastpuzzle.errors import OptionError, OptionTypeError
from fastpuzzle.generate import random_permutations, random_solvable
from fastpuzzle.moves import (
    AUTOMATON_START, COL_STEP, MOVE_BYTES, MOVE_CHARS, ROW_STEP, UNDO, apply_moves, move_letters, move_codes,
    build_move_automaton, move_automaton, slide_codes, step_cell, step_offset, transposed_code, undo_code,
)  # fmt: skip

from . import naive

LETTER_STEP = naive.MOVE_STEP


def test_step_tables_agree_with_the_letters():
    for code, letter in enumerate(MOVE_CHARS):
        dr, dc = LETTER_STEP[letter]
        assert (ROW_STEP[code], COL_STEP[code]) == (dr, dc)
        assert step_cell(5, 7, code) == (5 + dr, 7 + dc)
        assert step_offset(code, 9) == dr * 9 + dc
        assert chr(MOVE_BYTES[code]) == letter


def test_undo_and_transpose():
    for code in range(4):
        assert undo_code(code) == UNDO[code]
        dr, dc = LETTER_STEP[MOVE_CHARS[code]]
        assert LETTER_STEP[MOVE_CHARS[undo_code(code)]] == (-dr, -dc)
        # on the transposed board rows and columns swap
        assert LETTER_STEP[MOVE_CHARS[transposed_code(code)]] == (dc, dr)


# ------------------------------------------------------------------ the move automaton


def automaton_depths(start, m, n, table):
    """Breadth-first search from ``start`` that makes only the moves ``table``
    accepts: the depth at which each state is first reached.  A state is
    expanded with every automaton state that reaches it at that first depth
    (a later arrival is a longer path, which no shortest path goes through)."""
    depth = {start: 0}
    layer = {(start, AUTOMATON_START)}
    d = 0
    while layer:
        d += 1
        nxt = set()
        for state, q in layer:
            z = state.index(0)
            r, c = divmod(z, n)
            for code in range(4):
                rr, cc = r + int(ROW_STEP[code]), c + int(COL_STEP[code])
                if not (0 <= rr < m and 0 <= cc < n) or table[q][code] < 0:
                    continue
                t = list(state)
                t[z], t[rr * n + cc] = t[rr * n + cc], 0
                t = tuple(t)
                if depth.setdefault(t, d) == d:
                    nxt.add((t, table[q][code]))
        layer = nxt
    return depth


@pytest.mark.parametrize("m,n", [(2, 3), (3, 2), (2, 4), (4, 2), (3, 3)])
@pytest.mark.slow
def test_automaton_reaches_every_state_at_its_depth(m, n, rng):
    """Sound pruning: the automaton-restricted search reaches every state of
    the component, each at its breadth-first distance."""
    table = move_automaton().tolist()
    starts = [tuple(goal_board(m, n).ravel().tolist())]
    if m * n < 9:
        starts.append(tuple(rng.permutation(m * n).tolist()))
    for start in starts:
        assert automaton_depths(start, m, n, table) == naive.bfs_distances(start, m, n)


def test_automaton_prunes():
    """The plain rule is the automaton of 2-move sequences; the default one
    prunes more (fewer sequences of 12 moves on the 4x4 board) and rejects
    the same moves wherever it is, as the box rule makes it board-free."""
    undo = move_automaton(2)
    for state in range(1, 5):
        assert [undo[state, code] < 0 for code in range(4)] == [code == UNDO[state - 1] for code in range(4)]
    assert not (undo[AUTOMATON_START] < 0).any()

    def sequences(table, length):
        count = {(cell, AUTOMATON_START): 1 for cell in range(16)}
        for _ in range(length):
            grown = {}
            for (cell, q), k in count.items():
                r, c = divmod(cell, 4)
                for code in range(4):
                    rr, cc = r + int(ROW_STEP[code]), c + int(COL_STEP[code])
                    if 0 <= rr < 4 and 0 <= cc < 4 and table[q, code] >= 0:
                        key = (rr * 4 + cc, int(table[q, code]))
                        grown[key] = grown.get(key, 0) + k
            count = grown
        return sum(count.values())

    assert sequences(move_automaton(), 12) < 0.9 * sequences(undo, 12)
    table = move_automaton()
    state = AUTOMATON_START
    for code in move_codes("DRULD"):
        state = table[state, code]
    assert table[state, move_codes("R")[0]] < 0  # "RDLURD" goes round the same 2x2 block, and is smaller


def _accepted(table, length):
    """Every code sequence of at most ``length`` moves the automaton accepts (on the unbounded plane)."""
    out, layer = [], [((), AUTOMATON_START)]
    for _ in range(length):
        layer = [(seq + (code,), int(table[q, code])) for seq, q in layer for code in range(4) if table[q, code] >= 0]
        out.extend(seq for seq, _ in layer)
    return out


@pytest.mark.slow
def test_stored_automaton_agrees_with_a_fresh_build():
    """The default table ships with the package; the generator is its definition.  A
    sequence of at most L moves holds only forbidden sequences of at most L moves, so the
    stored table must accept exactly the sequences of <= 10 moves a fresh 10-move build
    accepts (and reject more of the longer ones); the full rebuild and comparison is
    ``python -m bench.check_automaton`` (minutes and gigabytes: a bench check, not a test)."""
    stored = move_automaton()
    assert stored.shape[1] == 4 and not stored.flags.writeable
    fresh = build_move_automaton(10)
    assert _accepted(stored, 10) == _accepted(fresh, 10)
    assert len(_accepted(stored, 12)) < len(_accepted(fresh, 12))


def test_automaton_check_compares_the_rebuild_with_the_stored_table(monkeypatch, capsys):
    """``python -m bench.check_automaton`` (the full rebuild, minutes) exits 1 on a difference;
    the rebuild is replaced here by the stored table and by a table one entry off."""
    from bench import check_automaton

    assert check_automaton.main(["--length", "6"]) == 0 and "21 states" in capsys.readouterr().out
    monkeypatch.setattr(check_automaton, "PEAK_BYTES", {14: 1 << 70})  # the memory check comes first: exit 2
    assert check_automaton.main([]) == 2 and "would need" in capsys.readouterr().err
    monkeypatch.setattr(check_automaton, "PEAK_BYTES", {})
    monkeypatch.setattr(check_automaton, "build_move_automaton", lambda length: move_automaton())
    assert check_automaton.main([]) == 0 and "equals the stored table: True" in capsys.readouterr().out
    wrong = move_automaton().copy()
    wrong[AUTOMATON_START, 0] = -1
    monkeypatch.setattr(check_automaton, "build_move_automaton", lambda length: wrong)
    assert check_automaton.main([]) == 1


def test_automaton_refuses_bad_lengths():
    with pytest.raises(OptionError, match="max_length must be a whole number >= 2, got 1"):
        move_automaton(1)
    with pytest.raises(OptionTypeError, match="whole number"):
        move_automaton(2.0)
    with pytest.raises(OptionTypeError, match="whole number"):
        build_move_automaton(True)


@pytest.mark.parametrize("m,n", [(1, 6), (6, 1), (1, 2), (2, 1)])
def test_slide_codes_solve_every_line_board(m, n):
    for start in range(m * n):
        for to in range(m * n):
            board = goal_board(m, n).ravel()
            board = np.insert(board[board != 0], start, 0).reshape(m, n)
            target = np.insert(goal_board(m, n).ravel()[:-1], to, 0).reshape(m, n)
            codes = slide_codes(m, n, start, to)
            assert len(codes) == abs(start - to)
            assert naive.apply_moves(board.tolist(), move_letters(codes)) == target.tolist()


def test_slide_codes_refuses_a_board_with_two_rows_and_columns():
    with pytest.raises(ValueError, match="one row or one column"):
        slide_codes(2, 3, 0, 1)


@pytest.mark.parametrize("m,n", [(1, 5), (2, 3), (4, 4), (7, 3), (16, 16)])
def test_cell_colours(m, n):
    expected = [(r + c) % 2 for r in range(m) for c in range(n)]
    colours = cell_colours(m, n)
    assert colours.dtype == np.uint8 and colours.tolist() == expected


@pytest.mark.parametrize("m,n", [(2, 2), (3, 3), (3, 5), (4, 4)])
def test_relabelled_boards_reach_the_default_goal_by_the_same_moves(m, n, rng):
    goal = random_permutations(m, n, seed=int(rng.integers(1 << 30)))
    flat = goal.ravel()
    blank = int(np.flatnonzero(flat == 0)[0])
    flat[blank], flat[-1] = flat[-1], 0  # blank in the last cell, as the default goal has it
    for _ in range(20):
        moves = "".join(rng.choice(list("ULRD"), size=12))
        try:
            board = np.array(naive.apply_moves(goal.tolist(), moves))
        except (ValueError, IndexError):
            continue
        renamed = relabel_for_goal(board, goal)
        # undoing the walk on the renamed board reaches the default goal
        undo = "".join({"U": "D", "D": "U", "L": "R", "R": "L"}[ch] for ch in reversed(moves))
        assert (apply_moves(renamed, undo) == goal_board(m, n)).all()
    assert (relabel_for_goal(goal, goal) == goal_board(m, n)).all()


def test_relabel_table_and_goal_cells_are_inverse_forms(rng):
    for m, n in [(2, 2), (3, 4), (5, 5)]:
        goal = random_solvable(m, n, seed=int(rng.integers(1 << 30)))
        cells = goal_cells(goal)
        flat = goal.ravel()
        assert all(flat[cells[t]] == t for t in range(m * n))
        target = random_permutations(m, n, seed=int(rng.integers(1 << 30)))
        # move the target's blank onto the goal's blank cell
        tb, gb = int(np.flatnonzero(target.ravel() == 0)[0]), int(cells[0])
        target.ravel()[[tb, gb]] = target.ravel()[[gb, tb]]
        table = relabel_table(goal, target)
        assert (table[flat] == target.ravel()).all() and table[0] == 0
        batch = random_solvable(m, n, count=5, seed=1, goal=goal)
        assert (relabel_for_goal(batch, goal, target) == table[batch]).all()


def test_relabel_table_refuses_to_move_the_blank():
    with pytest.raises(ValueError, match="cannot move the blank"):
        relabel_table([[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="shape"):
        relabel_table(goal_board(2, 2), goal_board(2, 3))


@pytest.mark.parametrize("m,n", [(1, 5), (3, 3), (2, 4), (4, 3), (5, 5)])
def test_the_three_views_of_manhattan_distance_agree_with_the_reference(m, n):
    from fastpuzzle.manhattan import cell_distances, manhattan_table, tile_distances

    boards = random_permutations(m, n, count=20, seed=m * 10 + n)
    goal = boards[0]
    g = [int(v) for v in goal.ravel()]
    table, cells = manhattan_table(goal), cell_distances(m, n)
    for b in boards:
        flat = [int(v) for v in b.ravel()]
        want = naive.manhattan(flat, m, n, g)
        assert int(tile_distances(b, goal).sum()) == int(table[flat, np.arange(m * n)].sum()) == want
        assert int(sum(cells[i, g.index(t)] for i, t in enumerate(flat) if t)) == want
    assert tile_distances(boards, goal).shape == (20, m * n)  # a batch, flat


def test_count_only_solution_checks_a_huge_board_in_linear_memory():
    from fastpuzzle.search.solution import Solution

    board = random_solvable(400, 400, seed=3)  # a (cell, tile) table would take 200 GB
    count = naive.manhattan_grid(board.tolist(), goal_board(400, 400).tolist())
    assert Solution(np.zeros(0, np.uint8), status="found", move_count=count).verify(board)
    assert not Solution(np.zeros(0, np.uint8), status="found", move_count=count - 2).verify(board)
