"""The compiled step of :class:`~fastpuzzle.env.SlidingPuzzleVectorEnv`: every board in one call.

Each environment keeps, beside its board, the blank's cell, the Manhattan
distance to its goal and its step count; a move changes the distance by the
one tile it slides (a read of the table ``tile_md[tile, cell]`` of the shared
goal, or ``md[home, cell]`` with per-environment goals; no division), a
board is solved exactly when that distance is 0, so a step touches two
cells and two counters.  One compiled call (on parts of the batch, one
per thread, for large batches) moves every board and writes the rewards,
terminated, truncated, the action mask (one 32-bit word per board: the four
mask bytes of its blank's cell), which boards end their episode (with a
count returned so that Python learns whether any did without a pass of its
own) and, for ``copy=True``, the new observations, a chunk of boards at a
time while the chunk is in the cache.  The cells a move takes the blank to are
:func:`fastpuzzle.steps.move_tables` (the move model's steps).
"""

from __future__ import annotations

import numpy as np
from .._jit import jit
from ..generate.random_kernels import mix64
from ..manhattan import cell_distances

__all__ = ["REWARD_CODES", "REWARD_WEIGHTS", "StepTables", "env_step", "env_refresh", "random_actions", "first_bad_action",
           "any_bad_code"]

#: Reward names computed inside the kernel, by code.
REWARD_CODES = {"step": 0, "sparse": 1, "manhattan": 2, "none": 3}
#: The kernel's reward of each code: weights of (1, solved, decrease in Manhattan distance).
REWARD_WEIGHTS = np.array([[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])


_U = np.uint64
#: Boards :func:`env_step` moves before it copies them into the observations (with ``copy``): the
#: chunk's few kilobytes of boards and counters stay in the first-level cache.
CHUNK = 64


class StepTables:
    """The read-only tables of one board shape the kernels read.

    ``targets`` (int64 ``(N, 4)``): the cell each code takes the blank to,
    -1 off the board; ``legal32`` (uint32 ``(N,)``): the four mask bytes of
    each cell as one word; ``md`` (int16 ``(N, N)``): the Manhattan distance
    between two cells; ``moves``/``counts``: each cell's legal codes in
    ``U L R D`` order and how many there are (the random actions).
    """

    def __init__(self, m, n):
        from ..steps import move_tables

        self.targets, self.legal = move_tables(m, n)
        N = m * n
        self.legal32 = np.ascontiguousarray(self.legal).view(np.uint32).reshape(N).copy()
        self.md = cell_distances(m, n).astype(np.int16)
        self.counts = self.legal.sum(axis=1).astype(np.uint64)
        self.moves = np.zeros((N, 4), np.int64)
        for z in range(N):
            codes = np.flatnonzero(self.legal[z])
            self.moves[z, : codes.size] = codes

    def tile_distances(self, goal_where):
        """``(N, N)`` int16: the Manhattan distance of each tile on each cell to its home in the goal
        whose cells are ``goal_where`` (one read a move instead of the home's and then the distance)."""
        return self.md[np.asarray(goal_where, np.int64)].copy()


@jit(inline="always")
def _stream_base(key, counter):
    return np.uint64(key) ^ (np.uint64(counter) * np.uint64(0x9E3779B97F4A7C15))


@jit(inline="always")
def _random_pick(base, b, z, counts):
    """Environment ``b``'s pick of the stream ``base``: an index uniform among the ``counts[z]`` legal
    moves of its blank's cell ``z``."""
    r = mix64(base + b * np.uint64(0xD1B54A32D192ED03))
    return ((r >> np.uint64(32)) * counts[z]) >> np.uint64(32)  # multiply-shift: no division


@jit
def env_step(flat, blanks, manh, steps, pending, actions, targets, legal32, md, tile_md, goal_where, per_env, weights,
             limit, rewards, term, trunc, illegal, mask32, lo, hi, draw, moves, counts, key, counter, obs, copy):
    """One step of the environments ``lo .. hi`` (see the module notes); returns how many end their episode.

    The reward is ``weights @ (1, solved, decrease in Manhattan distance)``;
    ``limit`` the step count that truncates.  A tile's change in distance
    is read from ``tile_md`` (:meth:`StepTables.tile_distances` of the shared
    goal), or with ``per_env`` goals from its home in ``goal_where`` and ``md``.
    With ``draw``, the actions of each chunk of ``CHUNK`` boards are first
    drawn as :func:`random_actions` draws them (``moves``, ``counts``,
    ``key``, ``counter``) and written to ``actions``, where the chunk's step
    reads them back from the cache: a random rollout in one call (a draw
    inside the step's own loop made each board's chain of dependent reads
    longer: about a twelfth more CPU, 4x4 and 5x5).  With ``copy``, the
    boards are copied into ``obs`` (the flat cells of the step's new
    observations), ``CHUNK`` boards at a time right after that chunk moved,
    while its cells are in the cache: a copy of the whole batch afterwards
    read every board from memory again (about a seventh more CPU, the step
    and its copy).  Threads run it on parts of the batch
    (:func:`fastpuzzle._jit.split_threads`: no ``prange`` twin).
    Every value read once into a local and every output stored once: the arrays may alias as far as
    the compiler knows, so a value read back from an array is a load after a store.  Every index is
    unsigned: Numba wraps a signed index around (negative from the end) with a test at each read, and
    without them a step of a 4x4 board and its random action cost 8 ns instead of 12 (one thread)."""
    ended = 0
    w_step, w_solved, w_change = weights[0], weights[1], weights[2]
    base = _stream_base(key, counter)
    N = _U(flat.shape[1])
    cells = flat.reshape(flat.shape[0] * flat.shape[1])
    for c0 in range(lo, hi, CHUNK):
        c1 = min(c0 + CHUNK, hi)
        if draw:  # the chunk's moves first, then its step: two short loops ran faster than one long one
            for i in range(c0, c1):
                b = _U(i)
                z = _U(blanks[b])
                actions[b] = moves[z, _random_pick(base, b, z, counts)]
        # the chunk's loop written out here, not a helper: a call a board passes every array by value
        for i in range(c0, c1):
            b = _U(i)
            z = _U(blanks[b])
            t = targets[z, _U(actions[b])]
            if pending[b]:  # reset before this step (next-step autoreset): no move, reward 0
                pending[b] = False
                reward = 0.0
                solved = False
                cut = False
                bad = False
            else:
                bad = t < 0
                change = 0
                if not bad:
                    tu = _U(t)
                    tile = flat[b, tu]
                    if per_env:
                        home = _U(goal_where[b, _U(tile)])
                        change = np.int64(md[home, tu]) - np.int64(md[home, z])  # the decrease in distance
                    else:
                        change = np.int64(tile_md[_U(tile), tu]) - np.int64(tile_md[_U(tile), z])
                    flat[b, z] = tile
                    flat[b, tu] = 0
                    blanks[b] = t
                    z = tu
                h = manh[b] - change
                manh[b] = h
                s = steps[b] + 1
                steps[b] = s
                solved = h == 0  # Manhattan distance 0: every tile home
                cut = (not solved) and s >= limit
                if solved or cut:
                    pending[b] = True
                    ended += 1
                reward = w_step + w_solved * solved + w_change * change
            rewards[b] = reward
            term[b] = solved
            trunc[b] = cut
            illegal[b] = bad
            mask32[b] = legal32[z]
        if copy:  # the chunk's cells, one contiguous run of bytes (vector moves), while in the cache
            for j in range(_U(c0) * N, _U(c1) * N):
                obs[j] = cells[j]
    return ended


@jit
def env_refresh(flat, idx, goal_where, per_env, md, legal32, blanks, manh, steps, mask32):
    """Recompute the counters of the environments ``idx`` after their boards were replaced."""
    N = flat.shape[1]
    for i in range(idx.shape[0]):
        b = idx[i]
        g = np.int64(b) if per_env else np.int64(0)
        h = 0
        for c in range(N):
            tile = flat[b, c]
            if tile == 0:
                blanks[b] = c
            else:
                h += md[goal_where[g, tile], c]
        manh[b] = h
        steps[b] = 0
        mask32[b] = legal32[blanks[b]]


@jit
def random_actions(blanks, moves, counts, key, counter, out, lo, hi):
    """``out[b]`` for ``b`` in ``lo .. hi``: a move uniform among the legal ones of environment ``b``,
    from the counter-based stream ``(key, counter, b)`` (the same on any thread count)."""
    base = _stream_base(key, counter)
    for i in range(lo, hi):
        b = _U(i)  # unsigned indices: no wraparound test (env_step)
        z = _U(blanks[b])
        out[b] = moves[z, _random_pick(base, b, z, counts)]


@jit
def first_bad_action(actions, blanks, targets, pending, on_board, lo, hi):
    """The first environment of ``lo .. hi`` whose action is not a move code 0..3 or, with
    ``on_board``, takes the blank off the board (boards ``pending`` a reset are not moved: any code
    passes there); -1 when every action is good.  One compiled pass: a NumPy gather of the targets
    took a third of a 4x4 step at 100,000 boards."""
    for i in range(lo, hi):
        b = _U(i)
        a = actions[b]
        if a < 0 or a > 3:
            return i
        if on_board and not pending[b] and targets[_U(blanks[b]), _U(a)] < 0:
            return i
    return -1


@jit
def any_bad_code(actions):
    """True when some action is not a move code 0..3.

    One OR of every action as an unsigned word (a negative code has its high bits set): a loop
    with no exit, which the compiler runs on vector lanes, at a third of the CPU of
    :func:`first_bad_action`'s pass and on one thread (no hand-off to the others), so a step that
    only needs the codes checked (``illegal="stay"``) looks for the first bad one only when there is one."""
    seen = _U(0)
    for i in range(actions.shape[0]):
        seen |= _U(actions[i])
    return seen > _U(3)
