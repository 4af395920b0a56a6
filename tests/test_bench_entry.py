"""The single benchmark entry point: ``python -m bench`` and ``fastpuzzle bench``.

The families are replaced by stand-ins (modules in ``sys.modules``) so that
these tests check the runner -- options, table, JSON, failures -- without
running a real benchmark.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

from bench import suite
from fastpuzzle.cli import bench as cli_bench
from fastpuzzle.cli import main as cli_main


@pytest.fixture
def families(monkeypatch):
    """Stand-in families: solvability (two rows), generate (raises); records the quick flag."""
    calls = []

    def fake_solvability(quick=False):
        calls.append(("solvability", quick))
        print("progress line of the family")
        return [
            {"family": "solvability", "name": "is_solvable 4x4", "value": np.float64(1.5e8), "unit": "boards/s",
             "ratio": np.float64(12.25), "baseline": "NumPy rule", "note": ""},
            {"family": "solvability", "name": "first call", "value": 0.25, "unit": "s", "ratio": None,
             "baseline": "", "note": "fresh process"},
        ]

    def fake_generate(quick=False):
        calls.append(("generate", quick))
        raise RuntimeError("stand-in failure")

    def fake_pdb(quick):
        calls.append(("pdb", quick))
        raise SystemExit("stand-in: a check inside the family failed")

    for name, fn in [("solvability", fake_solvability), ("generate", fake_generate), ("pdb", fake_pdb)]:
        mod = types.ModuleType(f"bench.bench_{name}")
        mod.run = fn
        monkeypatch.setitem(sys.modules, f"bench.bench_{name}", mod)
    return calls


def test_quick_run_prints_one_table_and_writes_json(families, tmp_path, capsys):
    out = tmp_path / "res" / "r.json"
    status = suite.main(["--quick", "--only", "solvability", "--json", str(out)])
    assert status == 0
    assert families == [("solvability", True)]
    captured = capsys.readouterr()
    printed = captured.out
    assert "progress line of the family" in captured.err and "progress line" not in printed
    table = [line for line in printed.splitlines() if "is_solvable 4x4" in line]
    assert len(table) == 1 and "12.2x" in table[0] and "NumPy rule" in table[0] and "boards/s" in table[0]
    doc = json.loads(out.read_text())
    assert doc["mode"] == "quick" and doc["families"] == ["solvability"] and doc["errors"] == {}
    assert {"cores", "cpu", "numpy", "numba", "python"} <= set(doc["machine"])
    assert [r["name"] for r in doc["rows"]] == ["is_solvable 4x4", "first call"]
    assert doc["rows"][0]["value"] == 1.5e8 and doc["rows"][1]["ratio"] is None


def test_failing_family_is_reported_and_others_still_run(families, tmp_path, capsys):
    out = tmp_path / "r.json"
    status = suite.main(["--only", "generate,solvability", "--json", str(out)])
    assert status == 1
    assert families == [("generate", False), ("solvability", False)]
    captured = capsys.readouterr()
    assert "FAILED generate: RuntimeError: stand-in failure" in captured.out
    doc = json.loads(out.read_text())
    assert doc["mode"] == "full" and set(doc["errors"]) == {"generate"} and len(doc["rows"]) == 2


def test_family_calling_sys_exit_does_not_stop_the_run(families, monkeypatch, capsys):
    monkeypatch.setattr(suite, "available", lambda: ["solvability", "pdb"])
    assert suite.main(["--quick", "--only", "pdb,solvability", "--json", "-"]) == 1
    assert families == [("pdb", True), ("solvability", True)]
    out = capsys.readouterr().out
    assert "FAILED pdb: SystemExit: stand-in" in out and "is_solvable 4x4" in out


def test_skip_and_no_json(families, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "available", lambda: ["solvability", "generate"])
    monkeypatch.setattr(suite, "DEFAULT_JSON", str(tmp_path / "never.json"))
    assert suite.main(["--skip", "generate", "--json", "-"]) == 0
    assert families == [("solvability", False)]
    assert not (tmp_path / "never.json").exists()


def test_family_not_present(monkeypatch, capsys):
    monkeypatch.setattr(suite, "available", lambda: ["solvability"])
    assert suite.main(["--only", "pdb"]) == 2
    assert "no benchmark module for pdb" in capsys.readouterr().err


def test_unknown_family_through_cli(capsys):
    # argparse's usage error, as for every subcommand: status 2, one line
    assert cli_main(["bench", "--only", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown family 'nope'" in err[0]


def test_cli_runs_the_checkout_suite(families, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli_main(["bench", "--quick", "--only", "solvability", "--json", str(out)]) == 0
    assert families == [("solvability", True)]
    assert json.loads(out.read_text())["rows"][0]["name"] == "is_solvable 4x4"


def test_cli_without_source_tree(monkeypatch, capsys):
    monkeypatch.setattr(cli_bench, "find_bench_dir", lambda: None)
    monkeypatch.setattr(cli_bench, "_SUITE", None)
    assert cli_main(["bench", "--quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "source tree (bench/)" in err[0]


def test_list_and_module_entry_point():
    root = pathlib.Path(suite.__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "bench", "--list"], capture_output=True, text=True, timeout=120,
                          cwd=root)
    assert done.returncode == 0
    listed = dict(line.split(None, 1) for line in done.stdout.splitlines())
    assert list(listed) == list(suite.FAMILIES)
    for fam in suite.available():
        assert listed[fam] == "present"


def test_table_format_handles_empty_and_odd_values():
    assert suite.format_table([]).splitlines()[0].startswith("family")
    text = suite.format_table([{"family": "x", "name": "n", "value": "1/3", "unit": "", "ratio": None}])
    assert "1/3" in text


def test_plot_reads_the_json_and_writes_images(families, tmp_path):
    import matplotlib  # noqa: F401  (in the test extra)
    from bench import plot

    assert plot.rate({"unit": "M boards/s", "value": 2.0}) == (2e6, "boards")
    assert plot.rate({"unit": "nodes/s", "value": 5}) == (5.0, "nodes")
    assert plot.rate({"unit": "ms", "value": 5.0}) is None
    assert plot.rate({"unit": "boards/s", "value": float("nan")}) is None
    out = tmp_path / "r.json"
    assert suite.main(["--only", "solvability", "--json", str(out)]) == 0
    assert plot.main([str(out), "--out", str(tmp_path / "fig"), "--svg"]) == 0
    for name in ["bench_throughput.png", "bench_ratios.png", "bench_throughput.svg"]:
        data = (tmp_path / "fig" / name).read_bytes()
        assert len(data) > 1000
    assert (tmp_path / "fig" / "bench_throughput.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.main([str(tmp_path / "missing.json")]) == 2
