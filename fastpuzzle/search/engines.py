"""The engine a solve searches with: the heuristic for one shape and goal, the database it reads,
and how boards map onto it (pattern databases measure distance to their own goal: see GoalPlan)."""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..moves import PRUNE_LENGTH
from . import ida
from .pdb import MAX_CELLS as PDB_MAX_CELLS
from .pdb import GoalPlan, available, choose_database
from .pdb.store import PREFERENCE as PDB_PREFERENCE

__all__ = ["Search", "search_setup", "cached_database", "make_search", "AUTO_PDB_MIN_CELLS", "PROOF_ON_STRONGEST"]

#: Shapes whose proofs ``method="auto"`` runs on the strongest cached database (two partitions):
#: on 5x5 the hardest proofs dominate a budget, and there ``6-6-6-6x2`` proves the fifteen
#: Korf-Felner instances in 218 s against 244 s on 2 threads (``kf15 wall`` rows); on 4x4 ``7-8``
#: proves faster than ``7-8x2`` through the plain call (the ``ladder hard80`` rows).
PROOF_ON_STRONGEST = frozenset({(5, 5)})
#: ``method="auto"`` reads a cached pattern database from this many cells (on 3x3 linear conflict
#: proves as fast).
AUTO_PDB_MIN_CELLS = 16


class Search:
    """The engine's heuristic for one shape and goal, and how boards map onto it
    (pattern databases measure distance to their own goal: see GoalPlan)."""

    def __init__(self, m, n, target, heuristic, database, prune_length, prefer_pdb=False, metric="stm",
                 build_slides=True):  # fmt: skip
        self.plan, self.label, self.metric = None, heuristic, metric
        #: The engine of the ladder's improving searches, or a function making it on first use
        #: (:meth:`improving_engine`); None: the proof's own.
        self.improver = None
        chosen = False  # method="auto" chose the database: the improving searches may take a stronger one
        if prefer_pdb and heuristic == "linear_conflict" and database is None:
            # method="auto": the cached database that proves fastest for the shape (docs/solving.md)
            database = cached_database(m, n, target, strongest=(m, n) in PROOF_ON_STRONGEST and metric == "stm")
            heuristic = "linear_conflict" if database is None else "pdb"
            chosen = database is not None and metric == "stm"
        if heuristic != "pdb":
            self.engine = ida.Heuristic(m, n, target, heuristic, prune_length=prune_length, metric=metric,
                                        build_slides=build_slides)  # fmt: skip
            return
        if m * n > PDB_MAX_CELLS:
            raise ShapeError((m, n), f"pattern-database search handles boards of at most {PDB_MAX_CELLS} cells, got {m}x{n}",
                             expected=PDB_MAX_CELLS)  # fmt: skip
        db = choose_database((m, n), database)
        self.plan = GoalPlan(db, target)
        # moves tried in Korf's order on the user's board, whatever the symmetry
        self.engine = ida.Heuristic(m, n, db.goal, "pdb", db, prune_length=prune_length, order=self.plan.move_order,
                                    metric=metric, build_slides=build_slides)  # fmt: skip
        self.label = f"pdb:{db.name}"
        if chosen:
            self._strong = (target, db, prune_length)
            self.improver = self.improving_engine

    def improving_engine(self):
        """The engine of the ladder's improving searches: the strongest cached database where it is
        another than the proof's and shares its goal (so its frame: GoalPlan), else the proof's own.
        Made on first use (its tables are read then, in the improving searches' own time)."""
        target, db, prune_length = self._strong
        m, n = self.engine.m, self.engine.n
        strongest = cached_database(m, n, target, strongest=True)
        if strongest is None or strongest.name == db.name or not np.array_equal(strongest.goal, db.goal):
            return self.engine
        return ida.Heuristic(m, n, db.goal, "pdb", strongest, prune_length=prune_length, order=self.plan.move_order)

    def map_boards(self, flat: np.ndarray) -> np.ndarray:
        if self.plan is None:
            return flat
        m, n = self.engine.m, self.engine.n
        mapped = self.plan.map_board(flat.reshape(-1, m, n)).reshape(flat.shape)
        return np.ascontiguousarray(mapped.astype(flat.dtype))

    def unmap_codes(self, codes: np.ndarray) -> np.ndarray:
        return codes if self.plan is None else self.plan.unmap_codes(codes)


def search_setup(m, n, target, heuristic, metric="stm"):
    """The engine's heuristic as :func:`solve` builds it (``.engine``, ``.map_boards``, ``.unmap_codes``)."""
    return Search(m, n, target, heuristic, None, PRUNE_LENGTH, metric=metric)


def cached_database(m, n, target, strongest=False):
    """The cached pattern database for the shape that fits the goal (the fastest first, or the
    strongest with ``strongest``: :func:`~fastpuzzle.search.pdb.choose_database`), else None
    (linear conflict).  Only one already built: none is built here (on 3x3 linear conflict is as fast)."""
    if (m, n) not in PDB_PREFERENCE or m * n < AUTO_PDB_MIN_CELLS or not set(available()) & {k for k, _ in PDB_PREFERENCE[(m, n)]}:
        return None
    try:
        db = choose_database((m, n), None, strongest=strongest)
        GoalPlan(db, target)
    except (FileNotFoundError, ValueError):
        return None
    return db


def make_search(m, n, target, heuristic, database, prune_length, which, method, metric="stm", budget=False):
    """The search for the request; with a budget, multi-tile databases are read only when already
    built (building them takes longer than most budgets)."""
    if which not in ("ida", "anytime"):
        return None
    return Search(m, n, target, heuristic, database, prune_length, prefer_pdb=method == "auto", metric=metric,
                   build_slides=not budget)  # fmt: skip
