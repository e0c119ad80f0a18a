"""Test suggestions as agents run them: test files ranked by evidence, each with its test
ids and a short chain; the default answer budget reaches the best files (issue 28)."""

from __future__ import annotations

from pathlib import Path

from fixture import commit_all, write_files

from spyglass import budget, surface
from spyglass.query.facade import CodeIntel
from spyglass.query.results import TestFile
from spyglass.render import render

HELPERS = 6  # definitions of the target file
FILES = 14  # test files, each reaching some of them
TESTS = 25  # tests per file: the old per-test answer held about 20 tests in 8,000 chars


def _repo(root: Path) -> CodeIntel:
    files = {"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
             "pkg/__init__.py": "",
             "pkg/testing.py": "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n"
                                       for i in range(HELPERS))}
    for n in range(FILES):
        # file n reaches helpers 0..(n % HELPERS): the reach differs from file to file
        used = range(n % HELPERS + 1)
        body = "from pkg.testing import " + ", ".join(f"helper_{i}" for i in used) + "\n\n\n"
        for t in range(TESTS):
            call = f"helper_{t % len(used)}({t})"
            body += f"def test_case_{t}_with_a_longish_name():\n    assert {call}\n\n\n"
        files[f"tests/test_area_{n:02d}.py"] = body
    write_files(root, files)
    commit_all(root)
    ci = CodeIntel(root)
    ci.index()
    return ci


def test_a_whole_file_ranks_test_files_by_how_many_of_its_definitions_they_reach(
        tmp_path: Path) -> None:
    ci = _repo(tmp_path / "repo")
    result = ci.suggest_tests(["pkg/testing.py"])
    files = [f for f in result.results if isinstance(f, TestFile)]
    assert len(files) == FILES
    reach = {f.path: int(f.path[-5:-3]) % HELPERS + 1 for f in files}
    order = [reach[f.path] for f in files]
    assert order == sorted(order, reverse=True)  # more definitions reached: earlier
    first = files[0]
    assert len(first.tests) == TESTS and first.command.startswith("pytest ")
    assert "→" in first.evidence and "pkg.testing.helper_" in first.evidence


def test_the_default_budget_reaches_the_ten_best_test_files(tmp_path: Path) -> None:
    ci = _repo(tmp_path / "repo")
    tool = surface.TOOLS["code_suggest_tests"]
    whole = ci.suggest_tests(["pkg/testing.py"])
    for front in ("mcp", "cli"):
        fitted = budget.fit(whole, tool, surface.DEFAULT_CHARS, front)
        text = render(fitted, tool.name, people=front == "cli")
        assert len(text) <= surface.DEFAULT_CHARS
        best = [f.path for f in whole.results[:10]]  # type: ignore[attr-defined]
        assert all(p in text for p in best), front
        shown = [f.path for f in fitted.results]  # type: ignore[attr-defined]
        assert shown[:10] == best
        # one runnable command per framework invocation, whatever the budget kept
        assert text.count("run: pytest") == 1


def test_each_note_is_said_once(tmp_path: Path) -> None:
    ci = _repo(tmp_path / "repo")
    text = render(ci.suggest_tests(["pkg/testing.py"]), "code_suggest_tests")
    lines = [line.split(": ", 1)[-1] for line in text.splitlines()
             if line.startswith(("note:", "limitation:"))]
    assert len(lines) == len(set(lines))
