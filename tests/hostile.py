"""Shared by the hostile-input tests: a count of the cases tried, and the checks they share.

``pytest tests/test_hostile.py tests/test_outputs.py`` prints the count at the
end of the run (the hook is in ``tests/conftest.py``).
"""

import collections
import signal

#: Hostile cases tried in this test session, by family.
TRIED = collections.Counter()


def tried(family: str, k: int = 1) -> None:
    """Count ``k`` hostile cases of ``family``."""
    TRIED[family] += k


def one_line_error(stderr: str) -> bool:
    """A user-facing refusal: one line, no traceback."""
    return "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


def default_signals() -> None:
    """``preexec_fn`` of a child that is sent signals: SIGTERM, SIGINT and SIGHUP at their defaults,
    whatever the test runner inherited (``nohup`` ignores SIGHUP, a background shell SIGINT, and a
    command that finds a signal ignored rightly leaves it so)."""
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
