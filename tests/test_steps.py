"""Batched steps (fastpuzzle.steps) against the move model and a plain Python rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fastpuzzle as fp
from tests import naive


def _legal_rule(cells, m, n):
    """Plain rule: U needs a row above the blank, L a column left, R a column right, D a row below."""
    r, c = divmod(cells.index(0), n)
    return [r > 0, c > 0, c < n - 1, r < m - 1]


def _every_board(m, n):
    return np.array(list(itertools.permutations(range(m * n))), np.uint8).reshape(-1, m, n)


def test_masks_on_every_2x3_board_match_the_plain_rule():
    boards = _every_board(2, 3)  # all 720, both halves of the state space
    mask = fp.legal_moves(boards)
    succ, mask2 = fp.neighbours(boards)
    want = np.array([_legal_rule(b.ravel().tolist(), 2, 3) for b in boards])
    assert (mask == want).all() and (mask2 == want).all()
    for b in range(0, 720, 7):
        for code in range(4):
            if want[b, code]:
                assert succ[b, code].tolist() == naive.apply_moves(boards[b], [code])
            else:
                assert (succ[b, code] == boards[b]).all()


def test_neighbours_are_the_bfs_neighbours():
    boards = fp.random_solvable(3, 4, 50, seed=4)
    succ, mask = fp.neighbours(boards)
    for b in range(50):
        got = sorted(tuple(succ[b, k].ravel().tolist()) for k in range(4) if mask[b, k])
        assert got == sorted(naive.neighbours(tuple(boards[b].ravel().tolist()), 3, 4))


@pytest.mark.parametrize("shape", [(2, 3), (4, 4), (3, 7), (1, 5)])
def test_step_boards_matches_apply_moves(shape):
    m, n = shape
    boards = fp.random_solvable(m, n, 200, seed=1)
    codes = fp.random_legal_moves(boards, seed=2)
    assert fp.legal_moves(boards)[np.arange(200), codes].all()
    out = fp.step_boards(boards, codes)
    for b in range(200):
        assert (out[b] == fp.apply_moves(boards[b], codes[b : b + 1])).all()
    back = fp.step_boards(out, fp.moves.UNDO[codes])
    assert (back == boards).all()


def test_step_boards_in_place_and_illegal_rules():
    boards = fp.random_solvable(3, 3, 64, seed=3)
    codes = np.random.default_rng(0).integers(0, 4, 64)
    legal = fp.legal_moves(boards)[np.arange(64), codes]
    stayed = fp.step_boards(boards, codes, illegal="stay")
    assert (stayed[~legal] == boards[~legal]).all()
    assert not (stayed[legal] == boards[legal]).all(axis=(1, 2)).any()
    inplace = boards.copy()
    result = fp.step_boards(inplace, codes, out=inplace, illegal="stay")
    assert (inplace == stayed).all() and np.shares_memory(result, inplace)
    with pytest.raises(ValueError, match=r"board \d+"):
        fp.step_boards(boards, codes)
    with pytest.raises(ValueError, match="one move per board"):
        fp.step_boards(boards, codes[:3])
    with pytest.raises(ValueError, match="codes are 0..3"):
        fp.step_boards(boards, np.full(64, 4))
    with pytest.raises(TypeError):
        fp.step_boards(boards, np.zeros(64, np.float64))
    with pytest.raises(ValueError, match="illegal must be"):
        fp.step_boards(boards, codes, illegal="skip")


def test_random_legal_moves_cover_the_legal_ones_and_follow_the_seed():
    boards = np.broadcast_to(fp.goal_board(3, 3), (3000, 3, 3))
    codes = fp.random_legal_moves(boards, seed=9)
    counts = np.bincount(codes, minlength=4)
    assert counts[2] == counts[3] == 0 and min(counts[0], counts[1]) > 1300
    assert (fp.random_legal_moves(boards, seed=9) == codes).all()


def test_inverse_moves_undo():
    rng = np.random.default_rng(5)
    board = fp.random_solvable(4, 4, seed=5)
    for _ in range(20):
        walk = fp.scramble(4, 4, int(rng.integers(0, 12)), seed=int(rng.integers(1 << 30)), goal=board,
                           return_moves=True)
        start, moves = walk
        assert (fp.apply_moves(fp.apply_moves(board, moves), fp.inverse_moves(moves)) == board).all()
        assert (fp.apply_moves(start, fp.inverse_moves(moves)) == board).all()
    assert fp.inverse_moves(np.array([[0, 1, 2]])).tolist() == [[1, 2, 3]]
    with pytest.raises(ValueError):
        fp.inverse_moves("UX")
