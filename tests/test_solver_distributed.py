"""fastpuzzle.distributed.solve_many equals the local solve_many."""

import numpy as np
import pytest

import dask.array as da

import fastpuzzle as fp
import fastpuzzle.distributed as fd


@pytest.fixture
def client(dask_client):
    """The suite's one cluster (tests/conftest.py)."""
    return dask_client


def test_dask_solve_many_equals_local(client):
    boards = fp.random_solvable(3, 3, count=300, seed=11)
    local = fp.solve_many(boards)
    for x in (boards, fd.as_dask_boards(boards, chunks=70)):
        remote = fd.solve_many(x, client=client, chunk_boards=70)
        assert remote.lengths.tolist() == local.lengths.tolist()
        assert remote.nodes.tolist() == local.nodes.tolist()
        assert remote.moves == local.moves and remote.status.tolist() == local.status.tolist()


def test_dask_solve_many_custom_goal_and_budget(client):
    goal = np.arange(9).reshape(3, 3)
    boards = fp.random_solvable(3, 3, count=40, seed=2, goal=goal)
    remote = fd.solve_many(boards, client=client, goal=goal, max_nodes=50, chunk_boards=16, method="ida")
    local = fp.solve_many(boards, goal=goal, max_nodes=50, method="ida")
    assert remote.status.tolist() == local.status.tolist() and "budget" in remote.status.tolist()
    # auto: the budget buys an answer for every board, with the bound proved
    remote = fd.solve_many(boards, client=client, goal=goal, max_nodes=50, chunk_boards=16)
    local = fp.solve_many(boards, goal=goal, max_nodes=50)
    assert remote.lengths.tolist() == local.lengths.tolist() and (remote.lengths >= 0).all()
    assert remote.lower_bounds.tolist() == local.lower_bounds.tolist()
    assert (remote.lower_bounds <= remote.lengths).all() and set(remote.status) <= {"optimal", "bounded"}
    for b, s in zip(boards, remote.solutions()):
        assert not s.solved or s.verify(b, goal)


def test_dask_solve_many_unsolvable_raises_before_scheduling(client):
    boards = fp.random_solvable(3, 3, count=5, seed=1)
    flat = boards[3].reshape(-1)  # a view: swapping two tiles moves the board to the other half
    i, j = np.flatnonzero(flat != 0)[:2]
    flat[i], flat[j] = flat[j], flat[i]
    assert not fp.is_solvable(boards[3])
    with pytest.raises(ValueError, match="board 3 cannot reach the goal"):
        fd.solve_many(boards, client=client)
