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


# --- constructive solver references -------------------------------------

MOVE_STEP = {"U": (-1, 0), "L": (0, -1), "R": (0, 1), "D": (1, 0)}
CODE_LETTER = "ULRD"


def apply_moves(board, moves):
    """Board (list of lists) after the blank makes ``moves`` (a string of
    U/D/L/R or a sequence of codes 0..3); raises ValueError on a move that
    leaves the board, naming its index."""
    grid = [[int(v) for v in row] for row in board]
    m, n = len(grid), len(grid[0])
    r, c = next((i, j) for i in range(m) for j in range(n) if grid[i][j] == 0)
    for k, mv in enumerate(moves):
        letter = mv if isinstance(mv, str) else CODE_LETTER[int(mv)]
        dr, dc = MOVE_STEP[letter]
        rr, cc = r + dr, c + dc
        if not (0 <= rr < m and 0 <= cc < n):
            raise ValueError(f"move {k} leaves the board")
        grid[r][c], grid[rr][cc] = grid[rr][cc], 0
        r, c = rr, cc
    return grid


def manhattan(board, goal_grid):
    """Sum over tiles of the Manhattan distance to their cell in ``goal_grid``."""
    where = {}
    for i, row in enumerate(goal_grid):
        for j, v in enumerate(row):
            where[int(v)] = (i, j)
    total = 0
    for i, row in enumerate(board):
        for j, v in enumerate(row):
            if int(v) != 0:
                gi, gj = where[int(v)]
                total += abs(i - gi) + abs(j - gj)
    return total
