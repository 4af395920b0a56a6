"""The options every solver front checks (``solve``, ``solve_many``, their Dask twins, the command line).

The rules for single values (whole numbers, seconds, flags) live in :mod:`fastpuzzle.options`;
these are the solvers' own: which heuristic, method and pruning, and which budgets go together.
"""

from __future__ import annotations

from .. import options
from ..errors import OptionError
from ..moves import PRUNE_LENGTH

__all__ = ["PRUNE", "check_options", "check_prune", "refuse_node_budget"]

#: What IDA* prunes, by name: the longest duplicate move sequence left out
#: (:func:`fastpuzzle.moves.move_automaton`).  ``"undo"`` only forbids undoing
#: the previous move, the rule of Korf's published node counts.
PRUNE = dict(zip(options.PRUNE_RULES, (PRUNE_LENGTH, 2)))


def check_options(*, heuristic="linear_conflict", method="auto", max_nodes=None, time_limit=None, database=None):
    """Check the options every solver front takes; returns ``(max_nodes, time_limit)`` normalised.

    Raises
    ------
    OptionTypeError
        An option of the wrong type (``max_nodes`` 1.5, '10' or True, ...).
    OptionError
        An unknown heuristic or method, ``max_nodes < 1``, a ``time_limit``
        that is not a positive number, a ``database`` without ``heuristic="pdb"``
        or with ``method="constructive"``.

    Examples
    --------
    >>> check_options(heuristic="manhattan", method="ida", max_nodes=10, time_limit=2)
    (10, 2.0)
    >>> check_options(max_nodes=0)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: max_nodes must be a whole number >= 1, got 0
    """
    options.choice(heuristic, "heuristic", options.HEURISTICS)
    options.choice(method, "method", options.METHODS)
    if database is not None and heuristic != "pdb":
        raise OptionError("database", database, "needs heuristic='pdb'")
    if database is not None and method == "constructive":
        raise OptionError("database", database, "does not apply to method='constructive' (it reads no database)")
    return options.node_budget(max_nodes), options.seconds(time_limit)


def check_prune(prune) -> int:
    """The longest pruned move sequence for the ``prune`` option (see :data:`PRUNE`).

    Examples
    --------
    >>> check_prune("undo")
    2
    >>> check_prune("none")
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: prune must be one of 'automaton', 'undo', got 'none'
    """
    return PRUNE[options.choice(prune, "prune", options.PRUNE_RULES)]


def refuse_node_budget(method, max_nodes):
    """``max_nodes`` asked of the constructive solver: refused, since it
    searches no nodes (``time_limit`` applies to it; so does
    ``solve_constructive(max_moves=...)``).

    Examples
    --------
    >>> refuse_node_budget("constructive", None)
    >>> refuse_node_budget("constructive", 10)
    Traceback (most recent call last):
    ...
    fastpuzzle.errors.OptionError: max_nodes does not apply to method='constructive' (it searches no nodes); give time_limit, or use solve_constructive(board, max_moves=...), got 10
    """
    if method == "constructive" and max_nodes is not None:
        raise OptionError("max_nodes", max_nodes, "does not apply to method='constructive' (it searches no nodes); "
                          "give time_limit, or use solve_constructive(board, max_moves=...)")
