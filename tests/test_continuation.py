"""Continuing a truncated references/callers answer (`offset`, the `page` section): pages of
one ranked list that neither overlap nor skip, whether the per-answer cap
(`max_matches_per_request`) or the answer budget (`max_chars`) cut the answer; the same
parameter over the facade, MCP and the CLI (HTTP: tests/web/test_web_continuation.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass import budget, surface
from spyglass.config import load_config
from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.query.results import Page
from spyglass.render import render
from spyglass.types import CodeLocation, ToolResult

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

MakeRepo = Callable[..., Path]
FILES = 6
CALLS = 9  # calls of `Core.run` per file: 8 on annotated parameters, 1 name-matched
TARGET = "pkg.core.Core.run"


def _repo(make_repo: MakeRepo) -> Path:
    users = {f"pkg/use{i}.py": "from pkg.core import Core\n\n\n" + "".join(
        f"def f{j}():\n    obj = make()\n    return obj.run()\n\n\n" if j == 0 else
        f"def f{j}(c: Core):\n    return c.run()\n\n\n" for j in range(CALLS))
        for i in range(FILES)}
    return make_repo({"pkg/__init__.py": "", "pkg/core.py": "class Core:\n    def run(self):\n"
                      "        return 1\n", **users})


def _intel(root: Path, cap: int) -> CodeIntel:
    config = load_config(repo_root=root)
    return CodeIntel(root, config=replace(config, limits=replace(
        config.limits, max_matches_per_request=cap)))


def _page(result: ToolResult) -> Page | None:
    found = [v for k, v in result.extra if k == "page"]
    assert len(found) <= 1
    return found[0] if found and isinstance(found[0], Page) else None


def _key(c: object) -> tuple[str, int, bool, str]:
    assert isinstance(c, CodeLocation)
    return c.path, c.start_line, c.uncertain, c.symbol


@pytest.mark.parametrize("question", ["references", "callers"])
def test_pages_at_the_cap_concatenate_to_the_whole_answer(make_repo: MakeRepo,
                                                          question: str) -> None:
    root = _repo(make_repo)
    _intel(root, 100_000).index()
    whole = getattr(_intel(root, 100_000), question)(name=TARGET)
    assert not whole.truncated and _page(whole) is None  # a complete answer has no page
    n = len(whole.results)
    uncertain = [c for c in whole.results if isinstance(c, CodeLocation) and c.uncertain]
    assert n > 50 and uncertain  # certain sites first, name-matched ones after
    assert whole.results[-len(uncertain):] == tuple(uncertain)
    ci, cap = _intel(root, 7), 7
    pages: list[ToolResult] = []
    offset: int | None = 0
    while offset is not None:
        result = getattr(ci, question)(name=TARGET, offset=offset)
        page = _page(result)
        # `total` counts the sites read: past twice the cap beyond the offset it is a lower
        # bound (query/references.py reads at most that many), and the answer goes on
        assert page is not None and page.offset == offset and page.total <= n
        assert page.total == n or page.next_offset is not None
        assert page.shown == len(result.results) <= cap
        assert result.truncated == (page.next_offset is not None)
        pages.append(result)
        offset = page.next_offset
    assert len(pages) == -(-n // cap)
    joined = [_key(c) for p in pages for c in p.results]
    assert joined == [_key(c) for c in whole.results]  # no overlap, no gap, same order
    past = getattr(ci, question)(name=TARGET, offset=n + 5)
    assert past.results == () and not past.truncated
    assert _page(past) == Page(n + 5, 0, n, None)


def test_a_negative_offset_is_bad_input(make_repo: MakeRepo) -> None:
    root = _repo(make_repo)
    CodeIntel(root).index()
    with pytest.raises(BadInput, match="offset must be >= 0"):
        CodeIntel(root).references(name=TARGET, offset=-1)


@pytest.mark.parametrize("front", ["mcp", "cli", "http"])
def test_the_budget_says_where_the_next_page_starts(make_repo: MakeRepo,
                                                    front: budget.Front) -> None:
    """Cut by max_chars inside a page cut by the cap: the next page starts after the last
    result shown, and following the asks reaches every site once."""
    root = _repo(make_repo)
    ci = _intel(root, 25)
    ci.index()
    whole = _intel(root, 100_000).references(name=TARGET)
    tool = surface.TOOLS["code_references"]
    spelled = {"mcp": "offset=", "cli": "--offset ", "http": "offset="}[front]
    seen: list[tuple[str, int, bool, str]] = []
    offset: int | None = 0
    asks = 0
    while offset is not None and asks < 100:
        fitted = budget.fit(ci.references(name=TARGET, offset=offset), tool,
                            900, front)
        page = _page(fitted)
        assert page is not None and page.offset == offset and page.shown == len(fitted.results)
        text = render(fitted, tool.name, people=front == "cli")
        if page.next_offset is not None:
            assert page.ask == f"{spelled}{page.next_offset}"
            assert f"ask again with {spelled}{page.next_offset}" in text
        else:
            assert "(the last page)" in text
        seen += [_key(c) for c in fitted.results]
        offset, asks = page.next_offset, asks + 1
    assert seen == [_key(c) for c in whole.results]
    assert asks > -(-len(whole.results) // 25)  # the budget cut pages of the cap


def test_offset_on_the_cli_and_mcp(make_repo: MakeRepo) -> None:
    import anyio

    from spyglass.mcp.backend import Backend
    from spyglass.mcp.tools import build_tools

    root = _repo(make_repo)
    CodeIntel(root).index()
    whole = CodeIntel(root).callers(name=TARGET)
    lines = [(c.path, c.start_line) for c in whole.results if isinstance(c, CodeLocation)]
    run = [sys.executable, "-m", "spyglass", "-C", str(root)]
    proc = subprocess.run([*run, "callers", TARGET, "--json", "--offset", "10",
                           "--max-chars", "0"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert [(r["path"], r["start_line"]) for r in body["results"]] == lines[10:]
    assert body["page"]["offset"] == 10 and body["page"]["next_offset"] is None
    bad = subprocess.run([*run, "callers", TARGET, "--offset", "-3"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "offset" in bad.stderr and "Traceback" not in bad.stderr

    backend = Backend(root, root, load_config(repo_root=root), True)
    (tool,) = build_tools(backend, ["code_callers"])
    assert "offset" in json.dumps(tool.parameters)

    async def call() -> object:
        return await tool.fn(ctx=None, name=TARGET, offset=len(lines) - 2)
    result = anyio.run(call)
    structured = result.structured_content  # type: ignore[attr-defined]
    assert [(r["path"], r["start_line"]) for r in structured["results"]] == lines[-2:]
    assert "(the last page)" in result.content[0].text  # type: ignore[attr-defined]

