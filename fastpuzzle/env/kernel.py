"""The compiled step of :class:`~fastpuzzle.env.SlidingPuzzleVectorEnv`: every board in one call.

Each environment keeps, beside its board, the blank's cell, the number of
tiles off their goal cell and the Manhattan distance; a move changes all
three by the one tile it slides, so a step touches two cells and a few
counters and "solved" is ``wrong == 0``.  The cells a move takes the blank to
are :func:`fastpuzzle.steps.move_tables` (the move model's steps).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import jit, pjit
from ..steps import kth_legal, legal_count

__all__ = ["REWARD_CODES", "env_step", "env_step_serial", "env_refresh", "random_actions", "random_actions_parallel"]

#: Reward names computed inside the kernel, by code.
REWARD_CODES = {"step": 0, "sparse": 1, "manhattan": 2, "none": 3}


@jit(inline="always")
def _dist(a, b, n):
    ra, ca = a // n, a - (a // n) * n
    rb, cb = b // n, b - (b // n) * n
    return abs(ra - rb) + abs(ca - cb)


@jit(inline="always")
def _one(b, flat, blanks, goal_where, per_env, actions, targets, legal_of_cell, n, skip, stay, reward_code,
         wrong, manh, steps, max_steps, rewards, term, trunc, illegal, mask):
    if skip[b]:  # autoreset on this step (next-step mode): the board was just reset
        rewards[b] = 0.0
        term[b] = False
        trunc[b] = False
        illegal[b] = False
        z = blanks[b]
        for k in range(4):
            mask[b, k] = legal_of_cell[z, k]
        return
    g = np.int64(b) if per_env else np.int64(0)
    z = blanks[b]
    t = targets[z, actions[b]]
    h_change = 0
    if t < 0:
        illegal[b] = True
    else:
        illegal[b] = False
        tile = flat[b, t]
        home = goal_where[g, tile]
        wrong[b] += np.int64(home == t) - np.int64(home == z)
        h_change = _dist(z, home, n) - _dist(t, home, n)
        manh[b] += h_change
        flat[b, z] = tile
        flat[b, t] = 0
        blanks[b] = t
        z = t
    steps[b] += 1
    solved = wrong[b] == 0 and z == goal_where[g, 0]
    term[b] = solved
    trunc[b] = (not solved) and max_steps > 0 and steps[b] >= max_steps
    if reward_code == 0:
        rewards[b] = -1.0
    elif reward_code == 1:
        rewards[b] = 1.0 if solved else 0.0
    elif reward_code == 2:
        rewards[b] = -float(h_change)
    else:
        rewards[b] = 0.0
    for k in range(4):
        mask[b, k] = legal_of_cell[z, k]


@pjit
def env_step(flat, blanks, goal_where, per_env, actions, targets, legal_of_cell, n, skip, stay, reward_code,
             wrong, manh, steps, max_steps, rewards, term, trunc, illegal, mask):
    """One step of every environment (threads); see the module notes."""
    for b in prange(flat.shape[0]):
        _one(b, flat, blanks, goal_where, per_env, actions, targets, legal_of_cell, n, skip, stay, reward_code,
             wrong, manh, steps, max_steps, rewards, term, trunc, illegal, mask)


@jit
def env_step_serial(flat, blanks, goal_where, per_env, actions, targets, legal_of_cell, n, skip, stay, reward_code,
                    wrong, manh, steps, max_steps, rewards, term, trunc, illegal, mask):
    """:func:`env_step` on one thread (small batches)."""
    for b in range(flat.shape[0]):
        _one(b, flat, blanks, goal_where, per_env, actions, targets, legal_of_cell, n, skip, stay, reward_code,
             wrong, manh, steps, max_steps, rewards, term, trunc, illegal, mask)


@jit
def env_refresh(flat, idx, goal_where, per_env, n, legal_of_cell, blanks, wrong, manh, steps, mask):
    """Recompute the counters of the environments ``idx`` after their boards were replaced."""
    N = flat.shape[1]
    for i in range(idx.shape[0]):
        b = idx[i]
        g = np.int64(b) if per_env else np.int64(0)
        w = 0
        h = 0
        for c in range(N):
            tile = flat[b, c]
            if tile == 0:
                blanks[b] = c
            else:
                home = goal_where[g, tile]
                w += home != c
                h += _dist(c, home, n)
        wrong[b] = w
        manh[b] = h
        steps[b] = 0
        for k in range(4):
            mask[b, k] = legal_of_cell[blanks[b], k]


@jit(inline="always")
def _mix(x):
    """splitmix64's finaliser: a well-mixed 64-bit word of a counter."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@jit(inline="always")
def _random_one(b, blanks, targets, base, out):
    r = _mix(base + np.uint64(b) * np.uint64(0xD1B54A32D192ED03))
    z = blanks[b]
    count = legal_count(targets, z)
    pick = np.int64(((r >> np.uint64(32)) * np.uint64(count)) >> np.uint64(32))  # multiply-shift: no division
    out[b] = kth_legal(targets, z, pick)


@jit
def random_actions(blanks, targets, key, counter, out):
    """``out[b]``: a move uniform among the legal ones of environment ``b``,
    from the counter-based stream ``(key, counter, b)`` (the same on any thread count)."""
    base = np.uint64(key) ^ (np.uint64(counter) * np.uint64(0x9E3779B97F4A7C15))
    for b in range(blanks.shape[0]):
        _random_one(b, blanks, targets, base, out)


@pjit
def random_actions_parallel(blanks, targets, key, counter, out):
    """:func:`random_actions` on the threads (the same moves)."""
    base = np.uint64(key) ^ (np.uint64(counter) * np.uint64(0x9E3779B97F4A7C15))
    for b in prange(blanks.shape[0]):
        _random_one(b, blanks, targets, base, out)
