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


def pattern_distances(m, n, pattern, goal_cells=None):
    """Pattern-database values by a plain 0-1 breadth-first search.

    State: (cells of the pattern tiles in pattern order, blank cell).  Sliding
    a pattern tile costs 1, sliding any other tile costs 0.  Returns a dict
    mapping each placement (tuple of cells) to the fewest pattern-tile moves
    over all blank cells, measured to ``goal_cells`` (a row-major tuple; the
    default goal has the blank last).
    """
    if goal_cells is None:
        goal_cells = tuple(range(1, m * n)) + (0,)
    start = (tuple(goal_cells.index(t) for t in pattern), goal_cells.index(0))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        d = dist[state]
        placed, z = state
        r, c = divmod(z, n)
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            rr, cc = r + dr, c + dc
            if not (0 <= rr < m and 0 <= cc < n):
                continue
            t = rr * n + cc
            if t in placed:
                i = placed.index(t)
                nxt = (placed[:i] + (z,) + placed[i + 1:], t)
                cost = 1
            else:
                nxt = (placed, t)
                cost = 0
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                if cost == 0:
                    queue.appendleft(nxt)
                else:
                    queue.append(nxt)
    best = {}
    for (placed, _), d in dist.items():
        if placed not in best or d < best[placed]:
            best[placed] = d
    return best


def partial_rank(cells, n_cells):
    """Lexicographic rank of an ordered placement of distinct cells."""
    rank = 0
    used = []
    for i, c in enumerate(cells):
        digit = c - sum(1 for u in used if u < c)
        rank = rank * (n_cells - i) + digit
        used.append(c)
    return rank
