"""The answer budget (spyglass/budget.py): one algorithm for every tool's answer — the text
within max_chars, structured content within 4×, the most relevant results kept, what was
left out counted per file, and guidance naming the parameters of the asking front end."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass import budget, surface
from spyglass.query import results as res
from spyglass.query.facade import CodeIntel
from spyglass.query.results import Omitted, SourceSpan
from spyglass.render import render
from spyglass.types import CodeLocation, Coverage, Provenance, ToolResult

MakeRepo = Callable[..., Path]
PROV = Provenance("o/r", "main", "abc", "2026-01-01T00:00:00Z", None, "0.25",
                  (("python", "1"),), (("python", "1"),))


def loc(path: str, line: int, uncertain: bool = False, evidence: str = "") -> CodeLocation:
    return CodeLocation("o/r", "main", path, line, line, f"pkg.mod.sym{line}", "call",
                        "cached-index", None, False, uncertain, evidence or f"site {line}")


def answer(results: list[object], *extra: tuple[str, object],
           truncated: bool = False) -> ToolResult:
    return ToolResult(tuple(results), truncated, Coverage(analysed=1), PROV, tuple(extra))


def omitted(result: ToolResult) -> Omitted:
    found = [v for k, v in result.extra if k == "omitted"]
    assert len(found) == 1 and isinstance(found[0], Omitted)
    return found[0]


def many(n: int = 600, files: int = 30) -> list[object]:
    """n sites over `files` files; the first half certain (the query layer ranks them so)."""
    return [loc(f"pkg/m{i % files:02d}.py", 1 + i, uncertain=i >= n // 2) for i in range(n)]


# -- the algorithm -------------------------------------------------------------------------
@pytest.mark.parametrize("front", ["mcp", "cli", "http"])
@pytest.mark.parametrize("max_chars", [1000, 8000])
def test_text_and_structured_content_fit_and_keep_the_ranked_prefix(front: budget.Front,
                                                                    max_chars: int) -> None:
    tool = surface.TOOLS["code_references"]
    results = many()
    fitted = budget.fit(answer(results), tool, max_chars, front)
    text, data = budget.sizes(fitted, tool, front)
    assert text <= max_chars and data <= surface.STRUCTURED_FACTOR * max_chars
    assert fitted.truncated
    n = len(fitted.results)
    assert 0 < n < len(results) and list(fitted.results) == results[:n]  # ranking kept
    info = omitted(fitted)
    assert (info.shown, info.results, info.files) == (n, len(results) - n, 30)
    assert sum(f.results for f in info.by_file) == len(results) * len(info.by_file) // 30
    listed = {f.path for f in info.by_file}
    assert sum(f.shown for f in info.by_file) == sum(
        1 for r in fitted.results if isinstance(r, CodeLocation) and r.path in listed)
    assert text > max_chars // 2 or data > surface.STRUCTURED_FACTOR * max_chars // 2  # used
    assert len(budget.fit(answer(results), tool, 0, front).results) == len(results)  # 0: none


def test_guidance_names_the_front_ends_parameters() -> None:
    tool = surface.TOOLS["code_references"]
    results = many()
    mcp = render(budget.fit(answer(results), tool, 2000, "mcp"), tool.name)
    cli = render(budget.fit(answer(results), tool, 2000, "cli"), tool.name, people=True)
    assert "narrow with path (the definition's file, when the name has several), exact_only (" \
           "certain results only)" in mcp
    assert "or raise max_chars" in mcp and "--" not in mcp.split("narrow with")[1]
    assert "narrow with --exact (certain results only)" in cli and "raise --max-chars" in cli
    assert "results by file (30 files, first 10 listed; in rank order):\n  pkg/m00.py  20 (" \
        in mcp
    blast = surface.TOOLS["code_blast_radius"]
    text = render(budget.fit(answer(results), blast, 2000, "cli"), blast.name, people=True)
    assert "TARGETS (fewer targets, or path:line ranges), --depth (fewer hops" in text
    http = omitted(budget.fit(answer(results), blast, 2000, "http"))
    assert [n.split(" ")[0] for n in http.narrow] == ["target", "depth"]  # query parameters
    diagnostics = surface.TOOLS["code_diagnostics"]
    assert budget.narrowing(diagnostics, "mcp") == (
        ("paths (fewer files or a sub-folder)",), "max_chars")
    assert budget.narrowing(diagnostics, "cli")[0] == ("PATHS (fewer files or a sub-folder)",)
    assert budget.narrowing(surface.TOOLS["code_explore"], "cli") == (
        ("--path (a file or sub-folder)",), "--budget")


def test_small_answers_pass_unchanged() -> None:
    tool = surface.TOOLS["code_references"]
    small = answer(many(5, 2))
    assert budget.fit(small, tool, 8000, "mcp") is small
    assert budget.fit(small, tool, 0, "mcp") is small


def test_an_answer_the_query_layer_cut_says_how_to_narrow() -> None:
    tool = surface.TOOLS["code_find_symbol"]
    fitted = budget.fit(answer(many(5, 2), truncated=True), tool, 8000, "cli")
    assert fitted.truncated and len(fitted.results) == 5
    text = render(fitted, tool.name, people=True)
    assert "truncated: the answer reached a limit of the request" in text
    assert "narrow with --kind (one kind)" in text


def test_sections_are_cut_with_the_results_and_commands_stay() -> None:
    tool = surface.TOOLS["code_suggest_tests"]
    results = many(300, 10)
    command = res.TestCommand("pytest", "pytest tests", 300, "pyproject.toml")
    result = answer(results, ("tests", tuple(results)), ("commands", (command,)),
                    ("notes", tuple(f"note {i}" for i in range(50))))
    fitted = budget.fit(result, tool, 8000, "mcp")
    extra = dict(fitted.extra)
    assert extra["commands"] == (command,)
    tests = extra["tests"]
    assert isinstance(tests, tuple) and 0 < len(tests) < 300 and tests == tuple(results[
        :len(tests)])
    cut = dict(omitted(fitted).sections)
    assert cut["tests"] == 300 - len(tests) and "notes" in cut
    assert "run: pytest tests" in render(fitted, tool.name)


def test_a_source_span_too_long_for_the_budget_keeps_its_first_lines() -> None:
    tool = surface.TOOLS["code_context"]
    text = "".join(f"line {i} " + "x" * 70 + "\n" for i in range(1, 401))
    span = SourceSpan("a.py", 1, 400, "f" * 40, text, False)
    fitted = budget.fit(answer([span]), tool, 8000, "mcp")
    out = render(fitted, tool.name)
    assert len(out) <= 8000
    (shown,) = fitted.results
    assert isinstance(shown, SourceSpan) and shown.truncated
    assert shown.text == text[:len(shown.text)] and shown.text.endswith("\n")
    assert shown.end_line == shown.start_line + shown.text.count("\n") - 1 < 400
    assert f"continue from line {shown.end_line + 1}" in out


def test_explore_budget_is_its_token_budget() -> None:
    tool = surface.TOOLS["code_explore"]
    assert budget.chars_of(tool, {"budget": 500}) == 500 * budget.CHARS_PER_TOKEN
    assert budget.chars_of(surface.TOOLS["code_structure"], {"max_chars": 0}) == 0
    assert budget.chars_of(surface.TOOLS["code_structure"], {}) == surface.DEFAULT_CHARS


def test_every_tool_has_a_budget_parameter() -> None:
    for tool in surface.TOOLS.values():
        p = budget.budget_param(tool)
        assert p is not None, tool.name
        assert p.name == "budget" or (p.default == surface.DEFAULT_CHARS and p.cli is not None
                                      and p.http is not None), tool.name


# -- the front ends ------------------------------------------------------------------------
def _wide_repo(make_repo: MakeRepo) -> Path:
    users = {f"pkg/use{i:02d}.py": "from pkg.core import helper\n\n\n" + "".join(
        f"def f{j}():\n    return helper()\n\n\n" for j in range(15)) for i in range(20)}
    return make_repo({"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n",
                      **users})


def test_cli_answers_within_max_chars(make_repo: MakeRepo) -> None:
    root = _wide_repo(make_repo)
    run = [sys.executable, "-m", "spyglass", "-C", str(root)]
    assert subprocess.run([*run, "index"], capture_output=True, check=False).returncode == 0
    proc = subprocess.run([*run, "refs", "helper", "--max-chars", "1500"], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.rstrip("\n")) <= 1500
    assert "raise --max-chars" in proc.stdout and "320" in proc.stdout  # of 320 sites
    data = subprocess.run([*run, "refs", "helper", "--json", "--max-chars", "1500"],
                          capture_output=True, text=True, check=False).stdout
    body = json.loads(data)
    assert body["truncated"] and body["omitted"]["raise_budget"] == "--max-chars"
    assert len(json.dumps(body, indent=None)) <= 4 * 1500
    whole = subprocess.run([*run, "refs", "helper", "--json", "--max-chars", "0"],
                           capture_output=True, text=True, check=False).stdout
    assert len(json.loads(whole)["results"]) == 320


def test_mcp_text_and_structured_content_within_the_budget(make_repo: MakeRepo) -> None:
    """The MCP handler's own path (budget, render, wire), as the server answers."""
    import anyio

    from spyglass.config import load_config
    from spyglass.mcp.backend import Backend
    from spyglass.mcp.tools import build_tools

    root = _wide_repo(make_repo)
    CodeIntel(root).index()
    backend = Backend(root, root, load_config(repo_root=root), True)
    (tool,) = build_tools(backend, ["code_references"])

    async def call() -> object:
        return await tool.fn(ctx=None, name="helper", max_chars=2000)
    result = anyio.run(call)
    text = result.content[0].text  # type: ignore[attr-defined]
    structured = result.structured_content  # type: ignore[attr-defined]
    assert len(text) <= 2000 and len(json.dumps(structured)) <= 8000
    assert structured["truncated"] and structured["omitted"]["raise_budget"] == "max_chars"
    assert "raise max_chars" in text
