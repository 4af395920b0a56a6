"""The README and the docs pages: figures current, links alive, examples running, length kept.

- Every figure between markers equals what ``python -m bench.render`` writes from
  ``docs/bench.json`` (one benchmark run, so no two pages disagree).
- Every relative link of ``README.md``, ``ARCHITECTURE.md`` and ``docs/*.md`` points at an
  existing file.
- Every Python example of the pages listed in :data:`EXAMPLE_PAGES` runs (``>>>`` blocks as
  doctests, others as scripts, one namespace per page, in a temporary directory); a line
  ``<!-- example: skip -->`` before a block leaves it out, and ``<!-- example: run -->`` before a
  ``bash`` block runs it with ``fastpuzzle`` as ``python -m fastpuzzle``.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from bench import render

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "ARCHITECTURE.md", *(ROOT / "docs").glob("*.md")])
#: Pages whose examples this file runs (the others test their own examples).
EXAMPLE_PAGES = ["README.md", "docs/core.md", "docs/generation.md", "docs/files.md", "docs/solving.md",
                 "docs/cli.md", "docs/dask.md", "docs/pictures.md"]
MAX_README_LINES = 300

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"(?:^<!-- example: (?P<mark>[^>]*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```",
                    re.S | re.M)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- figures -----------------------------------------------------------------------------------

def test_figures_match_bench_json():
    stale = render.render(render.load(), root=str(ROOT), write=False)
    assert not stale, f"figures out of date with docs/bench.json in {stale}: run `python -m bench.render`"


def test_every_named_figure_has_its_row_in_the_committed_run():
    doc = render.load()
    if doc.get("mode") != "full":
        pytest.skip("docs/bench.json is not a full run: its row names carry other sizes")
    families = set(doc.get("families") or ())
    missing = [k for k, fig in render.FIGURES.items()
               if fig.family in families and render.format_figure(doc, fig) == render.MISSING
               and not _written_by_bench(fig)]
    assert not missing, (f"rows gone from docs/bench.json (renamed?) for {missing}: "
                         "give these FIGURES in bench/render.py the new row names")


def _written_by_bench(fig) -> bool:
    """A row added since the committed run: the row is not in the run and its name stands,
    quoted whole, in a bench script (``bench/*.py`` but the renderer), so the next full run
    writes it. A renamed row fails: the old name is in neither."""
    if render.find_row(render.load(), fig.family, fig.name) is not None:
        return False  # the row is there, so its figure is missing for another reason
    quoted = (f'"{fig.name}"', f"'{fig.name}'")
    return any(q in p.read_text(encoding="utf-8") for p in (ROOT / "bench").glob("*.py")
               if p.name != "render.py" for q in quoted)


_NUM = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
#: Shapes of a measured figure typed by hand: a rate, CPU time, a speed-up, a short duration.
HAND_TYPED = re.compile(
    rf"{_NUM}\s*(?:[kMG]\s*)?(?:boards|nodes|moves|cells)(?:/s| per (?:CPU[- ])?second)"
    rf"|{_NUM}\s*(?:s|seconds|ms)\s+(?:of\s+)?CPU\b|{_NUM}\s*CPU[- ]s(?:econds)?\b"
    rf"|{_NUM}\s*(?:x|times)\s+(?:faster|slower)\b|{_NUM}\s*(?:ms|µs|us|ns)\b")
#: Figures that are not this project's measurements (published ones, with their source on the page).
PUBLISHED = ()


def hand_typed_figures(text: str) -> list[str]:
    """The figures of ``text`` of the shapes of :data:`HAND_TYPED` outside the render markers
    and code blocks."""
    text = render._TABLE.sub("", render._FIG.sub("", text))
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [m[0] for m in HAND_TYPED.finditer(text) if not any(p in m[0] for p in PUBLISHED)]


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_measured_figures_stand_between_markers(page):
    found = hand_typed_figures(page.read_text(encoding="utf-8"))
    assert not found, (f"{_rel(page)}: figures typed by hand {found}: put each between "
                       "<!-- fig:KEY --><!-- /fig --> markers (bench/render.py FIGURES) from its bench row")


def test_hand_typed_figures_are_found():
    assert hand_typed_figures("runs at 12.5 M boards/s, 3,000 nodes/s, 4.2 s of CPU, 2x faster, 50 ns") == [
        "12.5 M boards/s", "3,000 nodes/s", "4.2 s of CPU", "2x faster", "50 ns"]
    assert hand_typed_figures("a <!-- fig:x -->12 M boards/s<!-- /fig --> b\n```\n3 ms\n```\n") == []
    assert hand_typed_figures("a 5-5-5, CPU seconds; 240 MB per table; 17 antipodes") == []


def test_renderer_fills_markers_and_tolerates_missing_families():
    doc = {"machine": {"cores": 4, "numba_threads": 4, "cpu": "X", "python": "3", "numpy": "2", "numba": "1"},
           "families": ["solver"], "rows": [
               {"family": "solver", "name": "Korf's 100, linear conflict: CPU", "value": 12.34, "unit": "s"},
               {"family": "solver", "name": "rate", "value": 2.5e8, "unit": "nodes/s", "ratio": 1.5}]}
    text = ("a <!-- fig:solver.korf_lc_cpu -->old<!-- /fig --> b <!-- fig:pdb.korf_78_cpu -->0.5 s<!-- /fig -->"
            " c <!-- fig:solver|rate -->x<!-- /fig --> d <!-- fig:solver|rate|ratio --><!-- /fig -->\n"
            "<!-- table:family:solver -->\nold table\n<!-- /table -->\n"
            "<!-- table:family:distances -->\n<!-- /table -->\n<!-- fig:machine --><!-- /fig -->\n")
    out = render.render_text(text, doc)
    assert "<!-- fig:solver.korf_lc_cpu -->12.3 s<!-- /fig -->" in out
    assert f"<!-- fig:pdb.korf_78_cpu -->{render.MISSING}<!-- /fig -->" in out
    assert "<!-- fig:solver|rate -->250 M nodes/s<!-- /fig -->" in out
    assert "<!-- fig:solver|rate|ratio -->1.50x<!-- /fig -->" in out
    assert "old table" not in out and "| rate | 250 M nodes/s | 1.50x |" in out
    assert "no `distances` rows" in out and "4 cores (4 Numba threads), X" in out
    assert render.render_text(out, doc) == out  # rendering is idempotent
    assert render.render_text(text, {}).count(render.MISSING) >= 4  # an empty run crashes nothing


def test_renderer_refuses_unknown_figure_names():
    with pytest.raises(KeyError):
        render.render_text("<!-- fig:no.such.figure --><!-- /fig -->", {})


def test_render_check_command_agrees(tmp_path):
    res = subprocess.run([sys.executable, "-m", "bench.render", "--check"], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stdout + res.stderr


def test_bench_run_into_docs_renders_the_pages(tmp_path, monkeypatch):
    from bench import suite

    fake = types.ModuleType("bench.bench_solvability")
    fake.run = lambda quick=False: [{"family": "solvability", "name": "fresh process: import fastpuzzle",
                                     "value": 0.5, "unit": "s"}]
    monkeypatch.setitem(sys.modules, "bench.bench_solvability", fake)
    monkeypatch.setattr(suite, "_ROOT", str(tmp_path))
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("import: <!-- fig:solvability.import --><!-- /fig -->\n")
    assert suite.main(["--only", "solvability", "--json", str(tmp_path / "docs" / "bench.json")]) == 0
    assert page.read_text() == "import: <!-- fig:solvability.import -->0.50 s<!-- /fig -->\n"
    assert suite.main(["--only", "solvability", "--json", str(tmp_path / "elsewhere.json")]) == 0


# --- links and length --------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_relative_links_point_at_files(page):
    broken = []
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # not inside code
    for target in _LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor of the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if path.exists():
            continue
        broken.append(target)
    assert not broken, f"{_rel(page)}: links to missing files: {broken}"


def test_architecture_table_has_one_row_per_module():
    """Every module under fastpuzzle/ has its row (a package's ``__init__``/``__main__`` the
    package's row), once, and every row names a module that exists."""
    rows = re.findall(r"^\| [^|]+ \| `(fastpuzzle/[^`]+)` \|", (ROOT / "ARCHITECTURE.md").read_text(), re.M)
    assert len(rows) == len(set(rows)), sorted({r for r in rows if rows.count(r) > 1})
    modules = set()
    for path in (ROOT / "fastpuzzle").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if path.name in ("__init__.py", "__main__.py") and rel.count("/") > 1:
            rel = rel.rsplit("/", 1)[0] + "/"
        modules.add(rel)
    assert sorted(modules - set(rows)) == [], "modules without a row in ARCHITECTURE.md"
    assert sorted(set(rows) - modules) == [], "rows of modules that do not exist"


def test_readme_is_short_and_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.count("\n") <= MAX_README_LINES
    first_block = _FENCE.search(text)["body"]
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines()]
    # .ci/run installs and tests exactly as these lines say
    assert commands == ['pip install -e . && fastpuzzle demo', 'pip install -e ".[test]" && pytest']


# --- examples ----------------------------------------------------------------------------------

def _blocks(page: Path):
    for m in _FENCE.finditer(page.read_text(encoding="utf-8")):
        yield (m["mark"] or "").strip(), m["lang"], m["body"], page.read_text(encoding="utf-8")[:m.start()].count("\n") + 1


@pytest.mark.parametrize("name", EXAMPLE_PAGES)
@pytest.mark.slow
def test_examples_run(name, tmp_path, monkeypatch):
    page = ROOT / name
    if not page.exists():
        pytest.fail(f"{name} is missing")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FASTPUZZLE_CACHE", str(tmp_path / "cache"))  # pattern databases built here
    namespace: dict = {"__name__": "__docs__"}
    parser, ran = doctest.DocTestParser(), 0
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for mark, lang, body, line in _blocks(page):
        if mark == "skip":
            continue
        if lang == "bash" and mark == "run":
            script = re.sub(r"(?m)^(\s*(?:[^#\n]*\|\s*)?)fastpuzzle ", r"\1" + sys.executable + " -m fastpuzzle ",
                            body)
            res = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert res.returncode == 0, f"{name}:{line}: {res.stderr[-2000:]}"
        elif lang == "python" and ">>>" in body:
            test = parser.get_doctest(body, namespace, f"{name}:{line}", str(page), line)
            runner = doctest.DocTestRunner(optionflags=flags)
            out: list[str] = []
            runner.run(test, out=out.append, clear_globs=False)
            namespace.update(test.globs)  # a DocTest runs on a copy: carry the names to the next block
            assert runner.failures == 0, "".join(out)
        elif lang == "python":
            exec(compile(body, f"{name}:{line}", "exec"), namespace)
        else:
            continue
        ran += 1
    assert ran, f"{name} has no runnable example"
