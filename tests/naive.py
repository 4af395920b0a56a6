"""Slow, obviously-correct references.  Every fast kernel is compared with these.

Plain Python on purpose: no NumPy tricks, no Numba.
"""

from __future__ import annotations

from collections import deque


def cells_of(board):
    """Row-major list of ints of a 2-d board (list of lists or array)."""
    return [int(v) for row in board for v in row]


def inversions(board):
    """O(N^2) inversion count, blank (0) skipped."""
    tiles = [v for v in cells_of(board) if v != 0]
    return sum(1 for i in range(len(tiles)) for j in range(i + 1, len(tiles)) if tiles[i] > tiles[j])


def blank_row(board):
    for r, row in enumerate(board):
        for v in row:
            if int(v) == 0:
                return r
    raise ValueError("no blank")


def invariant(board):
    """The textbook rule: width odd -> inversions; width even -> inversions +
    blank row; taken mod 2."""
    n = len(board[0])
    value = inversions(board)
    if n % 2 == 0:
        value += blank_row(board)
    return value % 2


def tile_order(board):
    return [v for v in cells_of(board) if v != 0]


def reachable(a, b):
    """Reachability by the rules: one row/column -> same tile order; else equal invariants."""
    m, n = len(a), len(a[0])
    if m == 1 or n == 1:
        return tile_order(a) == tile_order(b)
    return invariant(a) == invariant(b)


def goal(m, n):
    cells = list(range(1, m * n)) + [0]
    return [cells[r * n:(r + 1) * n] for r in range(m)]


def neighbours(state, m, n):
    """States one blank move away from ``state`` (a tuple of m*n cells)."""
    z = state.index(0)
    r, c = divmod(z, n)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < m and 0 <= cc < n:
            t = rr * n + cc
            s = list(state)
            s[z], s[t] = s[t], s[z]
            out.append(tuple(s))
    return out


def bfs_distances(start, m, n):
    """Breadth-first distances from ``start`` (a tuple) to every reachable state."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        d = dist[s] + 1
        for t in neighbours(s, m, n):
            if t not in dist:
                dist[t] = d
                queue.append(t)
    return dist
