import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def dask_client():
    """The suite's one Dask cluster: two single-threaded worker processes
    (processes, so a test can kill one and see it replaced), started on first
    use and closed when the run ends."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=":0", silence_logs=50,
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def pytest_collection_modifyitems(items):
    """The tests on the Dask cluster run on one worker of ``pytest -n`` (``--dist loadgroup``), so
    the run starts one cluster (the mark is inert without pytest-xdist)."""
    for item in items:
        if "dask_client" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("dask"))


def pytest_sessionfinish(session):
    """A ``pytest -n`` worker hands its count of hostile cases to the controller."""
    from .hostile import TRIED

    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["hostile_tried"] = dict(TRIED)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller of ``pytest -n`` adds up its workers' counts of hostile cases."""
    from .hostile import TRIED

    TRIED.update(getattr(node, "workeroutput", {}).get("hostile_tried", {}))


def pytest_terminal_summary(terminalreporter):
    """The number of hostile cases tried (tests/test_hostile.py, tests/test_outputs.py)."""
    from .hostile import TRIED

    if TRIED:
        families = ", ".join(f"{name} {count}" for name, count in sorted(TRIED.items()))
        terminalreporter.write_line(f"hostile cases tried: {sum(TRIED.values())} ({families})")
