import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def pytest_terminal_summary(terminalreporter):
    """The number of hostile cases tried (tests/test_hostile.py, tests/test_outputs.py)."""
    from .hostile import TRIED

    if TRIED:
        families = ", ".join(f"{name} {count}" for name, count in sorted(TRIED.items()))
        terminalreporter.write_line(f"hostile cases tried: {sum(TRIED.values())} ({families})")
