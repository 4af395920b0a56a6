"""Shared by the hostile-input tests: a count of the cases tried, and the checks they share.

``pytest tests/test_hostile.py tests/test_outputs.py`` prints the count at the
end of the run (the hook is in ``tests/conftest.py``).
"""

import collections

#: Hostile cases tried in this test session, by family.
TRIED = collections.Counter()


def tried(family: str, k: int = 1) -> None:
    """Count ``k`` hostile cases of ``family``."""
    TRIED[family] += k


def one_line_error(stderr: str) -> bool:
    """A user-facing refusal: one line, no traceback."""
    return "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
