"""ast_query: regex predicates run on RE2, the query shape and the request time are bounded,
and a regex bomb neither freezes the server nor stops it serving (docs/security.md)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client
from serve_harness import REGEX_BOMB, make_repo, serving

from spyglass.errors import BadInput
from spyglass.mcp.server import build_server
from spyglass.query import adhoc
from spyglass.query.facade import CodeIntel


@pytest.fixture
def ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CodeIntel:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return CodeIntel(make_repo(tmp_path / "repo"))


def names(ci: CodeIntel, query: str, path: str = "a.py") -> list[str]:
    return [m.text for m in ci.ast_query(query, [path]).results]  # type: ignore[attr-defined]


def test_regex_predicates_keep_their_meaning_on_re2(ci: CodeIntel) -> None:
    ident = "((identifier) @i (#{} @i \"{}\"))"
    assert names(ci, ident.format("match?", "^[fm]$")) == ["f", "m", "f"]
    assert names(ci, ident.format("not-match?", "^[fm]$")) == ["K", "self"]
    # any-: at least one node of a quantified capture; plain: every node.
    args = "((parameters (identifier)+ @p) (#{} @p \"{}\"))"
    assert names(ci, args.format("any-match?", "^s")) == ["self"]
    assert names(ci, args.format("any-not-match?", "^s")) == []
    assert names(ci, ident.format("eq?", "K")) == ["K"]  # tree-sitter's own predicates stay
    assert names(ci, '((identifier) @i (#match? @i "^\\\\w$"))') == ["f", "K", "m", "f"]


def test_regex_bomb_answers_at_once_with_the_right_answer(ci: CodeIntel) -> None:
    began = time.monotonic()
    result = ci.ast_query(REGEX_BOMB["query"], REGEX_BOMB["paths"])
    print(f"regex bomb (facade): {time.monotonic() - began:.3f} s")
    assert result.results == () and not result.truncated
    assert names(ci, '((module) @m (#match? @m "^((.|\\n)+)+\\n$"))') != []


@pytest.mark.parametrize("query,reason", [
    ('((identifier) @i (#match? @i "(a)\\\\1"))', "RE2: no back-references"),
    ('((identifier) @i (#match? @i "(?=a)"))', "not accepted"),
    ('((identifier) @i (#match? @i "["))', "missing ]"),
    ('((identifier) @i (#lua-match? @i "a"))', "unsupported query predicate #lua-match?"),
    ('((identifier) @i (#match? @i))', "takes a capture and a string"),
    ('((identifier) @i (#match? "x" @i))', "takes a capture and a string"),
    ("(module " + "(_)? " * (adhoc.MAX_QUANTIFIERS + 1) + ")", "quantifiers"),
    ("(identifier) @i " + ";" * adhoc.MAX_QUERY_CHARS, "characters"),
    ('((identifier) @i (#match? @i "unterminated', "unterminated string"),
    ("   ", "non-empty"),
    (" ".join(f'((identifier) @i (#match? @i "a{n}"))' for n in range(adhoc.MAX_REGEXES + 1)),
     "distinct regular expressions"),
])
def test_refused_queries_say_why(ci: CodeIntel, query: str, reason: str) -> None:
    with pytest.raises(BadInput, match=reason.replace("?", r"\?").replace("[", r"\[")):
        ci.ast_query(query, ["a.py"])


def test_comments_and_strings_are_not_predicates(ci: CodeIntel) -> None:
    text, patterns = adhoc.prepare('; (#lua-match? in a comment)\n'
                                   '((identifier) @i (#eq? @i "#match? *+?"))')
    assert "spyglass-" not in text and patterns == {}
    assert names(ci, '((identifier) @i (#eq? @i "#match? *+?")) ; (#nope?)') == []


def test_the_time_budget_cuts_a_long_query_short(ci: CodeIntel, tmp_path: Path) -> None:
    (ci.root / "big.py").write_text("".join(f"x{i} = f({i})\n" for i in range(60000)))
    query = adhoc.AdHocQuery('((identifier) @i (#match? @i "^x"))', seconds=0.05)
    from spyglass.syntax.langpack import pack_for_path
    from spyglass.syntax.parsing import parse
    pack = pack_for_path("big.py")
    assert pack is not None
    tree = parse(pack, (ci.root / "big.py").read_bytes())
    found = query.captures(query.compiled(pack.name, pack.language), tree.root_node, 10**6)
    assert query.timed_out and len(found.get("i", [])) < 60000
    assert "time budget" in (query.limitation() or "")


def test_regex_bomb_over_http_then_the_server_keeps_serving(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with serving(repo, tmp_path, "web", "--port", "0") as served, \
            httpx.Client(base_url=served.url, timeout=30) as http:
        repo_id = http.get("/api/v1/code/repos").json()["repos"][0]["repo_id"]
        url = f"/api/v1/code/repos/{repo_id}/ast-query"
        assert http.post(url, json={"query": "(module) @m", "paths": ["a.py"]}).status_code == 200
        began = time.monotonic()
        bomb = http.post(url, json=REGEX_BOMB)
        elapsed = time.monotonic() - began
        assert bomb.status_code == 200, bomb.text
        assert bomb.json()["results"] == []
        page = http.get("/")  # the next request is served
        assert page.status_code == 200
        print(f"regex bomb over HTTP: {elapsed:.3f} s")


@pytest.mark.anyio
async def test_regex_bomb_over_mcp_then_the_server_keeps_serving(ci: CodeIntel) -> None:
    built = build_server(ci.root, environ={})
    async with Client(built.server, mode="legacy") as client:
        began = time.monotonic()
        result: Any = await client.call_tool("code_ast_query", REGEX_BOMB)
        elapsed = time.monotonic() - began
        assert not result.is_error and result.structured_content["results"] == []
        after = await client.call_tool("code_find_symbol", {"name": "helper"})
        assert not after.is_error
        print(f"regex bomb over MCP: {elapsed:.3f} s")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
