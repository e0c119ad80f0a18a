"""Answer sizes on real corpora: for ordinary questions (a one-line change, a central class, a
whole file) every tool's text stays within the default budget and its structured content
within 4× of it, as the MCP server answers; the most relevant results come first."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from answer_size import CASES, one_line_change, questions  # bench/ (tests/corpora.py)
from corpora import params

from spyglass import budget, surface
from spyglass.query import results as res
from spyglass.query.facade import CodeIntel
from spyglass.render import render
from spyglass.types import CodeLocation, ToolResult
from spyglass.wire import result_json

CORPORA = ["cobra", "client_golang", "flask", "requests", "httpx", "trpc"]


@pytest.fixture(scope="module", params=params(CORPORA))
def changed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[str, CodeIntel, int]]:
    """A corpus, indexed, with one line of a central function edited in the working tree."""
    from accuracy.compare import prepare_root
    name = str(request.param)
    root = prepare_root(name, tmp_path_factory.mktemp(f"size-{name}"))
    ci = CodeIntel(root)
    ci.index()
    line = one_line_change(root, CASES[name]["file"], CASES[name]["line_after"])
    yield name, ci, line


def _ask(ci: CodeIntel, tool: str, values: dict[str, object], chars: int | None = None
         ) -> tuple[ToolResult, str, str]:
    declared = surface.TOOLS[tool]
    raw = ci.status() if tool == "code_status" else declared.call(ci, values)
    fitted = budget.fit(raw, declared, budget.chars_of(declared, values) if chars is None
                        else chars, "mcp")
    return fitted, render(fitted, tool), json.dumps(result_json(fitted))


def test_every_tool_answers_within_the_default_budget(changed: tuple[str, CodeIntel, int]
                                                      ) -> None:
    name, ci, line = changed
    limit = surface.DEFAULT_CHARS
    for tool, values in questions(CASES[name], line):
        result, text, data = _ask(ci, tool, values)
        assert len(text) <= limit, (tool, values, len(text))
        assert len(data) <= surface.STRUCTURED_FACTOR * limit, (tool, values, len(data))
        if result.truncated:  # what was left out, and how to ask for it, is said
            assert "raise max_chars" in text or "raise budget" in text, (tool, text[-400:])


def test_the_one_line_change_answers_fit_and_commands_stay_runnable(
        changed: tuple[str, CodeIntel, int]) -> None:
    """Issue 13: the answer for a one-line change fits in 8,000 characters of text; every
    command names few enough tests to read (one per framework and package)."""
    _, ci, _ = changed
    for tool in ("code_suggest_tests", "code_blast_radius"):
        result, text, _ = _ask(ci, tool, {"targets": [], "depth": 3})
        assert len(text) <= 8000
        commands = dict(result.extra).get("commands", ())
        assert isinstance(commands, tuple)
        assert all(len(c.command) <= 1000 for c in commands)
        frameworks = [(c.framework, c.command.split(" -run ")[0]) for c in commands]
        assert len(frameworks) == len(set(frameworks))


def test_most_relevant_results_come_first(changed: tuple[str, CodeIntel, int]) -> None:
    """Ranking happens before the budget cuts: the shown results are the best ones."""
    name, ci, _ = changed
    case = CASES[name]
    refs, _, _ = _ask(ci, "code_references", {"name": case["symbol"]}, chars=0)
    unsure = [r.uncertain for r in refs.results if isinstance(r, CodeLocation)]
    assert unsure == sorted(unsure)  # certain sites first
    shown, _, _ = _ask(ci, "code_references", {"name": case["symbol"]})
    assert shown.results == refs.results[:len(shown.results)]
    blast, _, _ = _ask(ci, "code_blast_radius", {"targets": [case["file"]], "depth": 3},
                       chars=0)
    distances = [int(r.evidence.split(":")[0].removeprefix("distance "))
                 for r in blast.results if isinstance(r, CodeLocation)]
    assert distances == sorted(distances)  # direct before transitive
    tests, _, _ = _ask(ci, "code_suggest_tests", {"targets": [], "depth": 3}, chars=0)
    files = [f for f in tests.results if isinstance(f, res.TestFile)]
    direct = [i for i, f in enumerate(files) if f.reason == "changed" or (
        f.reason == "reference" and f.evidence.count("→") == 1)]
    weak = [i for i, f in enumerate(files) if f.reason in ("convention", "package")]
    if direct and weak:
        assert max(direct) < min(weak)  # tests using the changed symbol first


def test_a_central_symbol_with_many_sites_is_counted_per_file(
        changed: tuple[str, CodeIntel, int]) -> None:
    name, ci, _ = changed
    result, text, _ = _ask(ci, "code_references", {"name": CASES[name]["symbol"]}, chars=2000)
    assert len(text) <= 2000
    omitted = dict(result.extra).get("omitted")
    if omitted is None:
        pytest.skip(f"{name}: every site fits in 2,000 characters")
    assert omitted.results > 0 and "results by file" in text  # type: ignore[attr-defined]
    assert sum(f.results for f in omitted.by_file) <= omitted.shown + omitted.results  # type: ignore[attr-defined]

