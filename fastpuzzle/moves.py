"""The move model: move codes, move strings and applying moves to a board.

A move is named by the direction in which the **blank** travels: ``U``, ``D``,
``L`` or ``R``.  Kernels use compact ``uint8`` codes in Korf's operator order::

    code  0  1  2  3
    move  U  L  R  D

so the move that undoes code ``c`` is ``3 - c``.
"""

from __future__ import annotations

import functools
import gc
import pathlib

import numpy as np

from ._jit import jit
from . import options
from .boards import as_boards
from .errors import MoveError, OptionError, OptionTypeError, ShapeError
from .memory import check_allocation

__all__ = [
    "MOVE_CHARS", "MOVE_BYTES", "ROW_STEP", "COL_STEP", "move_codes", "move_letters", "check_codes", "apply_moves", "apply_codes",
    "UP_CODE", "LEFT_CODE", "RIGHT_CODE", "DOWN_CODE", "step_cell", "step_offset", "slide_codes", "UNDO", "undo_code", "transposed_code",
    "NO_PREVIOUS", "successor_tables", "neighbour_cells", "board_symmetries",
    "PRUNE_LENGTH", "AUTOMATON_START", "move_automaton", "build_move_automaton",
    "solution_parity", "round_up_to_parity",
]  # fmt: skip

#: Move letter of each code.
MOVE_CHARS = "ULRD"
#: The codes by name.
UP_CODE, LEFT_CODE, RIGHT_CODE, DOWN_CODE = 0, 1, 2, 3
#: Row and column step of the blank for each code.
ROW_STEP = np.array([-1, 0, 0, 1], np.int64)
COL_STEP = np.array([0, -1, 1, 0], np.int64)

_CODE_OF_BYTE = np.full(256, 255, np.uint8)
for _code, _ch in enumerate(MOVE_CHARS):
    _CODE_OF_BYTE[ord(_ch)] = _code
    _CODE_OF_BYTE[ord(_ch.lower())] = _code
#: ASCII byte of each code's letter: ``MOVE_BYTES[codes].tobytes()`` is the move text.
MOVE_BYTES = np.frombuffer(MOVE_CHARS.encode(), np.uint8)


def move_codes(moves) -> np.ndarray:
    """Move codes (``uint8``) of a blank-letter string, or checked codes (:func:`check_codes`);
    tile letters and folded repeats are read by :func:`fastpuzzle.notation.encode_moves`.

    Examples
    --------
    >>> move_codes("ULRD")
    array([0, 1, 2, 3], dtype=uint8)
    """
    if isinstance(moves, str):
        raw = np.frombuffer(moves.encode("ascii", errors="replace"), np.uint8)
        codes = _CODE_OF_BYTE[raw]
        bad = np.flatnonzero(codes == 255)
        if bad.size:
            i = int(bad[0])
            raise MoveError(i, moves[i], f"is {moves[i]!r}; moves are the letters U, D, L, R (the blank's direction)")
        return codes
    return check_codes(moves).astype(np.uint8)


def check_codes(codes) -> np.ndarray:
    """``codes`` as a 1-d integer array whose values are move codes 0..3.

    Examples
    --------
    >>> check_codes([0, 3]).tolist()
    [0, 3]
    """
    if isinstance(codes, (str, bytes)):
        raise OptionTypeError("move codes", type(codes).__name__, "must be an array of integers 0..3, not text")
    if isinstance(codes, np.ndarray) and codes.dtype == np.uint8 and codes.ndim == 1:
        if codes.size and int(codes.max()) > 3:  # one pass, no copy: solvers hand over millions of moves
            i = int(np.argmax(codes > 3))
            raise MoveError(i, int(codes[i]), f"has code {int(codes[i])}; move codes are 0..3 (U, L, R, D)")
        return codes
    arr = options.array(codes, "move codes")
    if arr.ndim != 1:
        raise OptionTypeError("move codes", arr.shape, "must be a 1-d sequence, not an array of shape")
    if arr.size == 0:
        return np.zeros(0, np.uint8)
    if arr.dtype.kind not in "iu":
        raise OptionTypeError("move codes", arr.dtype, "must be integers 0..3 (U, L, R, D)")
    bad = np.flatnonzero((arr < 0) | (arr > 3))
    if bad.size:
        i = int(bad[0])
        raise MoveError(i, int(arr[i]), f"has code {int(arr[i])}; move codes are 0..3 (U, L, R, D)")
    return arr


def move_letters(codes) -> str:
    """Blank-letter string of move codes (checked: see :func:`check_codes`).

    Examples
    --------
    >>> move_letters(np.array([0, 3, 1], np.uint8))
    'UDL'
    """
    return MOVE_BYTES[check_codes(codes)].tobytes().decode("ascii")


# encode_moves/decode_moves live in fastpuzzle.notation (blank or tile letters, folded repeats).

# ------------------------------------------------------------------ steps of the blank


@jit(inline="always")
def step_cell(r, c, code):
    """Cell ``(row, col)`` the blank reaches from (r, c) by move ``code``
    (may be off the board: the caller checks).

    Examples
    --------
    >>> step_cell(1, 1, 0), step_cell(1, 1, 2)
    ((0, 1), (1, 2))
    """
    if code == 0:
        return r - 1, c
    if code == 1:
        return r, c - 1
    if code == 2:
        return r, c + 1
    return r + 1, c


@jit(inline="always")
def step_offset(code, row_stride):
    """Change of the blank's flat index for move ``code`` on a board stored
    with rows ``row_stride`` cells apart (the caller checks the edges).

    Examples
    --------
    >>> [step_offset(code, 4) for code in range(4)]
    [-4, -1, 1, 4]
    """
    if code == 0:
        return -row_stride
    if code == 1:
        return -1
    if code == 2:
        return 1
    return row_stride


def slide_codes(m: int, n: int, blank_from: int, blank_to: int) -> np.ndarray:
    """Moves that slide the blank from flat cell ``blank_from`` to
    ``blank_to`` on a board of one row or one column.

    There no tile can pass another, so this straight slide is the only
    solution (and the shortest).

    Examples
    --------
    >>> move_letters(slide_codes(1, 5, 3, 0)), move_letters(slide_codes(4, 1, 1, 3))
    ('LLL', 'DD')
    """
    if m != 1 and n != 1:
        raise ShapeError((m, n), f"slide_codes needs a board of one row or one column, got {m}x{n}")
    minus, plus = (LEFT_CODE, RIGHT_CODE) if m == 1 else (UP_CODE, DOWN_CODE)
    code = plus if blank_to >= blank_from else minus
    return np.full(abs(int(blank_to) - int(blank_from)), code, np.uint8)


@jit
def apply_codes(cells, m, n, codes):
    """Apply move codes in place to the flat board ``cells``.

    Returns the index of the first illegal move (the blank would leave the
    board), or -1 when all moves were applied.
    """
    blank = 0
    for i in range(m * n):
        if cells[i] == 0:
            blank = i
            break
    r = blank // n
    c = blank - r * n
    for k in range(codes.shape[0]):
        nr, nc = step_cell(r, c, codes[k])
        if nr < 0 or nr >= m or nc < 0 or nc >= n:
            return k
        target = nr * n + nc
        cells[r * n + c] = cells[target]
        cells[target] = 0
        r, c = nr, nc
    return -1


def apply_moves(board, moves, *, check: bool = True) -> np.ndarray:
    """The board after the blank makes ``moves``.

    Parameters
    ----------
    board : array_like, shape (m, n)
        Start board (0 = blank).
    moves : str or array of move codes
        Letters ``U D L R`` (the blank's direction), or ``uint8`` codes
        (0=U, 1=L, 2=R, 3=D).

    Returns
    -------
    ndarray, shape (m, n)
        A new board; the input is not modified.

    Raises
    ------
    ValueError
        If a move would take the blank off the board (the message names the
        move's index), or if the board or the moves are malformed.

    Examples
    --------
    >>> apply_moves([[1, 2], [3, 0]], "UL")
    array([[0, 1],
           [3, 2]], dtype=uint8)
    """
    batch, single = as_boards(board, check=check, label="board")
    if not single:
        raise ShapeError(batch.shape, f"apply_moves takes one board (m, n), got a batch of shape {batch.shape}")
    codes = move_codes(moves)
    m, n = batch.shape[1:]
    cells = batch[0].ravel().copy()
    bad = apply_codes(cells, m, n, codes)
    if bad >= 0:
        letter = MOVE_CHARS[int(codes[bad])]
        raise MoveError(bad, letter, f"({letter!r}) is illegal: it takes the blank off the {m}x{n} board")
    return cells.reshape(m, n)


# ------------------------------------------------------------------ the undo rule


#: The code of the move that undoes each code (``3 - code`` in Korf's order).
UNDO = np.array([3, 2, 1, 0], np.uint8)


@jit(inline="always")
def undo_code(code):
    """The move code that undoes ``code`` (U<->D, L<->R)."""
    return 3 - code


# ------------------------------------------------------------------ the transposed board


@jit(inline="always")
def transposed_code(code):
    """The code that move ``code`` becomes on the transposed board (U<->L,
    R<->D): a solver working on the transpose replays its moves through it.

    Examples
    --------
    >>> move_letters([transposed_code(c) for c in move_codes("ULRD")])
    'LUDR'
    """
    return code ^ 1


# ------------------------------------------------------------------ successor tables

#: Previous-move slot meaning "no previous move" (the root) in :func:`successor_tables`.
NO_PREVIOUS = 4


@functools.lru_cache(maxsize=64)
def successor_tables(m: int, n: int, order: tuple = (UP_CODE, LEFT_CODE, RIGHT_CODE, DOWN_CODE)):
    """Legal successors of every blank cell after every previous move.

    The search engines generate moves from these tables alone, so a rule that
    prunes move sequences has one place to act.

    Parameters
    ----------
    m, n : int
        Board shape.
    order : tuple of the 4 codes
        The order the moves are tried in (default Korf's: U L R D).  A search
        on the image of a board under a symmetry passes the image of the
        user's order, so that it tries the moves in the same order as on the
        board itself: which solution the last iteration meets first, and
        after how many nodes, depends on it.

    Returns
    -------
    count : ndarray of int64, shape (m*n*5,)
        ``count[cell * 5 + previous]``: number of legal moves of a blank at
        ``cell`` whose previous move was ``previous`` (:data:`NO_PREVIOUS` at
        the root), without the move that undoes ``previous``.
    packed : ndarray of int64, shape (m*n*5*4,)
        ``packed[(cell * 5 + previous) * 4 + k]`` is ``4 * target + code`` for
        the ``k``-th of those moves in ``order``: ``target`` is the cell
        the blank reaches (one load gives both).

    Examples
    --------
    >>> count, packed = successor_tables(2, 2)
    >>> int(count[0 * 5 + NO_PREVIOUS]), [(int(p) >> 2, int(p) & 3) for p in packed[16:18]]
    (2, [(1, 2), (2, 3)])
    """
    order = tuple(int(c) for c in order)
    if sorted(order) != [0, 1, 2, 3]:
        raise OptionError("order", order, "must hold each of the move codes 0..3 once")
    cells = m * n
    count = np.zeros((cells, 5), np.int64)
    packed = np.zeros((cells, 5, 4), np.int64)
    for cell in range(cells):
        r, c = divmod(cell, n)
        for previous in range(5):
            k = 0
            for code in order:
                nr, nc = r + int(ROW_STEP[code]), c + int(COL_STEP[code])
                if not (0 <= nr < m and 0 <= nc < n) or (previous < 4 and code == UNDO[previous]):
                    continue
                packed[cell, previous, k] = (nr * n + nc) * 4 + code
                k += 1
            count[cell, previous] = k
    count, packed = count.ravel(), packed.ravel()
    count.setflags(write=False)
    packed.setflags(write=False)
    return count, packed


def neighbour_cells(m: int, n: int) -> np.ndarray:
    """Cell the blank reaches from each cell by each code, ``-1`` off the board.

    Examples
    --------
    >>> neighbour_cells(2, 2).tolist()
    [[-1, -1, 1, 2], [-1, 0, -1, 3], [0, -1, 3, -1], [1, 2, -1, -1]]
    """
    cell = np.arange(m * n)
    r, c = cell // n, cell % n
    nr = r[:, None] + ROW_STEP[None, :]
    nc = c[:, None] + COL_STEP[None, :]
    ok = (nr >= 0) & (nr < m) & (nc >= 0) & (nc < n)
    return np.where(ok, nr * n + nc, -1).astype(np.int64)


# ------------------------------------------------------------------ board symmetries


# The eight transforms of a board (on its last two axes).
_identity = lambda a: a  # noqa: E731 - one line each reads as a table
_flip_lr = lambda a: a[..., :, ::-1]  # noqa: E731
_flip_ud = lambda a: a[..., ::-1, :]  # noqa: E731
_rot180 = lambda a: a[..., ::-1, ::-1]  # noqa: E731
_transpose = lambda a: np.swapaxes(a, -1, -2)  # noqa: E731
_anti_transpose = lambda a: np.swapaxes(a[..., ::-1, ::-1], -1, -2)  # noqa: E731
_rot90 = lambda a: np.swapaxes(a, -1, -2)[..., :, ::-1]  # noqa: E731
_rot270 = lambda a: np.swapaxes(a, -1, -2)[..., ::-1, :]  # noqa: E731


def board_symmetries(m: int, n: int) -> list:
    """Symmetries of the ``m x n`` board: ``(name, transform, code_map)`` triples.

    ``transform`` maps a board (or a batch, on its last two axes) to its
    image; ``code_map[c]`` is the code the move ``c`` becomes on the image.
    Rectangular boards have 4 symmetries, square ones 8.

    Examples
    --------
    >>> [name for name, _, _ in board_symmetries(2, 3)]
    ['identity', 'flip-lr', 'flip-ud', 'rot180']
    >>> _, f, code_map = board_symmetries(3, 3)[4]
    >>> f(np.arange(9).reshape(3, 3))[0].tolist(), move_letters(code_map[move_codes("UR")])
    ([0, 3, 6], 'LD')
    """
    out = [
        ("identity", _identity, np.array([0, 1, 2, 3], np.uint8)),
        ("flip-lr", _flip_lr, np.array([0, 2, 1, 3], np.uint8)),
        ("flip-ud", _flip_ud, np.array([3, 1, 2, 0], np.uint8)),
        ("rot180", _rot180, np.array([3, 2, 1, 0], np.uint8)),
    ]
    if m == n:
        out += [
            ("transpose", _transpose, np.array([1, 0, 3, 2], np.uint8)),
            ("anti-transpose", _anti_transpose, np.array([2, 3, 0, 1], np.uint8)),
            ("rot90", _rot90, np.array([2, 0, 3, 1], np.uint8)),
            ("rot270", _rot270, np.array([1, 3, 0, 2], np.uint8)),
        ]
    return out


# ------------------------------------------------------------------ the move automaton

#: Longest move sequence :func:`move_automaton` compares by default.
PRUNE_LENGTH = 14
#: Start state of every automaton of :func:`move_automaton`.
AUTOMATON_START = 0
_STORED_AUTOMATON = pathlib.Path(__file__).resolve().parent / "data" / f"move_automaton_{PRUNE_LENGTH}.npy"


@functools.lru_cache(maxsize=8)
def move_automaton(max_length: int = PRUNE_LENGTH) -> np.ndarray:
    """A finite automaton over move codes that rejects duplicate move sequences.

    A sequence ``A`` of at most ``max_length`` moves is **forbidden** when an
    earlier sequence ``B`` (shorter, or as long and smaller in code order)
    has the same effect (the same permutation of cells, the blank included)
    and stays inside the box of cells ``A`` visits, so that ``B`` is legal on
    any board wherever ``A`` is.  The automaton rejects every sequence that
    contains a forbidden one.  It is sound: take the smallest shortest path
    to a state; were a forbidden ``A`` inside it, putting its ``B`` in its
    place would give a smaller legal path to the same state.  So the smallest
    shortest path to every state is accepted, with all its prefixes, and a
    search that follows the automaton still reaches every state at its true
    depth.  ``max_length=2`` gives the plain rule (never undo the previous
    move, 5 states); the default also prunes, among others, the two ways
    round a 2x2 block and the longer ways round it.

    Parameters
    ----------
    max_length : int
        Longest sequence compared (at least 2).  The default (14) is stored with the
        package; others are built (a second for 9 moves, threefold per move).

    Returns
    -------
    ndarray of int32, shape (states, 4), read-only
        ``table[state, code]``: the next state, or -1 where the move is
        pruned.  The start state is :data:`AUTOMATON_START`.

    Examples
    --------
    >>> undo = move_automaton(2)
    >>> undo.shape, int(undo[undo[AUTOMATON_START, UP_CODE], DOWN_CODE])
    ((5, 4), -1)
    >>> table = move_automaton(6)
    >>> state = AUTOMATON_START
    >>> for code in move_codes("DRULD"):  # five moves round a 2x2 block ...
    ...     state = table[state, code]
    >>> int(table[state, RIGHT_CODE])  # ... and a sixth: "RDLURD", the other way round, is smaller
    -1
    """
    max_length = _check_max_length(max_length)
    if max_length == PRUNE_LENGTH and _STORED_AUTOMATON.exists():
        table = np.load(_STORED_AUTOMATON)  # built once (two minutes), stored with the package; tests check it
        table.setflags(write=False)
        return table
    return build_move_automaton(max_length)


def _check_max_length(max_length) -> int:
    return options.whole(max_length, "max_length", least=2)


def build_move_automaton(max_length: int) -> np.ndarray:
    """Build the table of :func:`move_automaton` (seconds for 10 moves, minutes and gigabytes for 14).

    Examples
    --------
    >>> build_move_automaton(6).shape
    (21, 4)
    """
    max_length = _check_max_length(max_length)
    check_allocation(int(8e9 * 3.5 ** (max_length - 14)), f"the move automaton of {max_length} moves")  # 15: > 24 GB
    collecting = gc.isenabled()
    gc.disable()  # the build makes some 10^5 small containers: collecting them would cost more than the build
    try:
        forbidden = _duplicate_sequences(max_length)
    finally:
        if collecting:
            gc.enable()
    table = _automaton_table(forbidden)
    table.setflags(write=False)
    return table


def _automaton_table(forbidden) -> np.ndarray:
    """Aho-Corasick automaton of the ``forbidden`` code tuples: -1 where a move completes one."""
    goto, terminal = [[-1] * 4], [False]
    for seq in forbidden:
        q = 0
        for code in seq:
            if goto[q][code] < 0:
                goto.append([-1] * 4)
                terminal.append(False)
                goto[q][code] = len(goto) - 1
            q = goto[q][code]
        terminal[q] = True
    delta = [[0] * 4 for _ in goto]
    fail = [0] * len(goto)
    queue = []
    for code in range(4):
        t = goto[0][code]
        delta[0][code] = max(t, 0)
        if t > 0:
            queue.append(t)
    for q in queue:  # breadth-first: the queue grows while it is read
        terminal[q] = terminal[q] or terminal[fail[q]]
        for code in range(4):
            t = goto[q][code]
            if t >= 0:
                fail[t] = delta[fail[q]][code]
                queue.append(t)
                delta[q][code] = t
            else:
                delta[q][code] = delta[fail[q]][code]
    # Keep the states that complete no forbidden sequence, renumbered in order.
    alive = [q for q in range(len(goto)) if not terminal[q]]
    new = {q: i for i, q in enumerate(alive)}
    table = np.full((len(alive), 4), -1, np.int32)
    for q in alive:
        for code in range(4):
            t = delta[q][code]
            if not terminal[t]:
                table[new[q], code] = new[t]
    return table


def _run_automaton(table, codes: np.ndarray) -> np.ndarray:
    """States after each row of ``codes`` (all accepted)."""
    state = np.zeros(codes.shape[0], np.int64)
    for j in range(codes.shape[1]):
        state = table[state, codes[:, j]]
    return state


def _replay(codes):
    """Effect of ``codes`` on the plane: blank cell and the moved cells ``{cell: origin}``."""
    blank, where = (0, 0), {}
    for code in codes:
        nxt = (blank[0] + int(ROW_STEP[code]), blank[1] + int(COL_STEP[code]))
        where[blank], where[nxt] = where.get(nxt, nxt), where.get(blank, blank)
        blank = nxt
    return blank, {c: o for c, o in where.items() if c != o}


_ROW_STEPS, _COL_STEPS = ROW_STEP.tolist(), COL_STEP.tolist()


def _duplicate_sequences(max_length: int) -> list:
    """The forbidden sequences of :func:`move_automaton`, shortest first, each
    free of shorter forbidden ones."""
    forbidden = []
    # Effect -> [(box, codes)] of the sequences met so far, in (length, code) order.
    met = {((0, 0), frozenset()): [((0, 0, 0, 0), ())]}
    level = [((), (0, 0), {}, (0, 0, 0, 0))]  # codes, blank, {cell: origin} of moved cells, box
    for length in range(1, max_length + 1):
        table = _automaton_table(forbidden)
        states = _run_automaton(table, np.array([s[0] for s in level], np.int64).reshape(len(level), length - 1))
        rows = table.tolist()
        grown = []
        for (codes, blank, where, box), state in zip(level, states.tolist()):
            for code in range(4):
                if rows[state][code] < 0:
                    continue  # holds a shorter forbidden sequence
                nxt = (blank[0] + _ROW_STEPS[code], blank[1] + _COL_STEPS[code])
                moved = dict(where)
                moved[blank], moved[nxt] = where.get(nxt, nxt), (0, 0)  # the blank came from the origin
                if moved[blank] == blank:
                    del moved[blank]
                if nxt == (0, 0):
                    del moved[nxt]
                seq = codes + (code,)
                new_box = (min(box[0], nxt[0]), max(box[1], nxt[0]), min(box[2], nxt[1]), max(box[3], nxt[1]))
                key = (nxt, frozenset(moved.items()))
                earlier = met.setdefault(key, [])
                if any(b[0] >= new_box[0] and b[1] <= new_box[1] and b[2] >= new_box[2] and b[3] <= new_box[3]
                       for b, _ in earlier):  # fmt: skip
                    forbidden.append(seq)
                    continue
                earlier.append((new_box, seq))
                grown.append((seq, nxt, moved, new_box))
        level = grown
    return forbidden


def solution_parity(cells: np.ndarray, goal: np.ndarray, n: int):
    """Parity every solution length shares (a move changes the blank's row plus column by one):
    its distance from its goal cell, mod 2; an array for a ``(B, m*n)`` batch.

    Examples
    --------
    >>> solution_parity(np.array([[1, 2, 0, 3], [1, 2, 3, 0]]), np.array([1, 2, 3, 0]), 2).tolist()
    [1, 0]
    """
    blank, home = np.argmax(np.asarray(cells) == 0, axis=-1), int(np.argmax(np.asarray(goal).ravel() == 0))
    parity = (blank // n + blank % n + home // n + home % n) % 2  # the parity of the distance
    return int(parity) if np.ndim(parity) == 0 else parity


def round_up_to_parity(bound, parity):
    """``bound`` (or an array of bounds) rounded up to ``parity``: an admissible bound stays admissible.

    Examples
    --------
    >>> round_up_to_parity(7, 0), round_up_to_parity(7, 1)
    (8, 7)
    """
    return bound + (bound - parity) % 2
