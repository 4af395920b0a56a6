"""Every notebook under ``notebooks/`` runs top to bottom without an error.

Each one runs in a fresh Jupyter kernel started in ``notebooks/`` with this
checkout's package first on the path and a non-interactive matplotlib
backend.  A cell that raises (including the notebooks' own ``assert``
checks against breadth-first search) fails the test.
"""

from __future__ import annotations

import os
import pathlib

import pytest

import ipykernel  # noqa: F401  (the notebooks' kernel; all four are in the test extra)
import matplotlib  # noqa: F401
import nbclient
import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds per cell: a hang fails, a slow loaded machine does not


def test_notebooks_are_present():
    names = [p.name for p in NOTEBOOKS]
    assert names[:3] == ["01_solvability.ipynb", "02_generation.ipynb", "03_search.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
@pytest.mark.slow
def test_notebook_runs(path, monkeypatch, tmp_path):
    # The kernel is a child process: it inherits these.  Each notebook starts
    # from an empty cache, so what another notebook or test built cannot
    # change what it does.
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    # One more cell tells which package the kernel imported: this checkout's.
    check = nbformat.v4.new_code_cell("import fastpuzzle; print(fastpuzzle.__file__)")
    nb.cells.append(check)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    printed = "".join(o.get("text", "") for o in check.outputs).strip()
    assert pathlib.Path(printed).resolve().parent == ROOT / "fastpuzzle"
