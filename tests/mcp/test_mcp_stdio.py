"""End to end over stdio with the official SDK client: listing, every tool, errors, limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from every_tool import exercise_every_tool
from mcp_harness import error_text, payload, stdio

from spyglass.config import ALL_TOOLS

pytestmark = pytest.mark.anyio

EXPECTED = list(ALL_TOOLS)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_lists_tools_and_answers_every_one(indexed_repo: Path, mode: str) -> None:
    async with stdio(indexed_repo, mode=mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert "code_context" in (client.instructions or "")
        await exercise_every_tool(client)


async def test_tools_list_stays_small(indexed_repo: Path) -> None:
    async with stdio(indexed_repo) as client:
        listing = await client.list_tools()
    wire = json.dumps(listing.model_dump(by_alias=True, exclude_none=True, mode="json"))
    assert len(wire) < 12_000, len(wire)


async def test_text_rendering_is_compact_and_cites(indexed_repo: Path) -> None:
    async with stdio(indexed_repo) as client:
        result = await client.call_tool("code_references", {"name": "helper"})
    text = result.content[0].text
    assert "pkg/main.py:5  call" in text
    assert "snapshot" in text.splitlines()[-1]
    assert len(text) < len(json.dumps(result.structured_content)) / 2


def not_analysed(body: dict[str, Any], path: str, language: str) -> bool:
    coverage = body["coverage"]
    return (any(language in lim for lim in coverage["limitations"])
            or path in {s["path"] for s in coverage["skipped"]})


async def test_go_symbols_or_an_explicit_limitation(indexed_repo: Path) -> None:
    from spyglass.syntax.langpack import all_packs
    packs = all_packs()
    async with stdio(indexed_repo) as client:
        found = payload(await client.call_tool("code_find_symbol", {"name": "Add"}))
        if "go" in packs:
            assert [(r["path"], r["kind"]) for r in found["results"]] == [("calc/calc.go", "func")]
            callers = payload(await client.call_tool("code_callers", {"name": "Add"}))
            assert {r["path"] for r in callers["results"]} >= {"cmd/main.go",
                                                                "calc/calc_test.go"}
        else:  # not analysed: said so, never silently empty
            assert not_analysed(found, "calc/calc.go", "Go")
        outline = payload(await client.call_tool("code_structure", {"path": "web/app.ts"}))
        if "typescript" in packs:
            assert [r["symbol"].rsplit(".", 1)[-1] for r in outline["results"]] == ["greet"]
        else:
            assert not_analysed(outline, "web/app.ts", "TypeScript")


BAD_CALLS = [
    ("code_find_symbol", {}, "name"),
    ("code_references", {}, "give a symbol name"),
    ("code_references", {"line": 3}, "line needs path"),
    ("code_references", {"name": "no_such_symbol_anywhere"}, "no definition named"),
    ("code_references", {"path": "pkg/util.py", "line": 999}, "out of range"),
    ("code_callers", {"path": "pkg/util.py", "line": 0}, "line"),
    ("code_structure", {"path": "no/such/dir"}, "does not exist"),
    ("code_context", {"spans": []}, "spans"),
    ("code_context", {"spans": [{"path": "pkg/util.py", "start_line": 50}]}, "out of range"),
    ("code_context", {"spans": [{"path": "pkg/util.py", "start_line": 5, "end_line": 2}]},
     "before start_line"),
    ("code_ast_query", {"query": "(not_a_node) @x", "paths": ["pkg"]}, "invalid tree-sitter"),
    ("code_ast_query", {"query": "   ", "paths": ["pkg"]}, "non-empty"),
    ("code_explore", {"query": ""}, "query"),
    ("code_explore", {"query": "x", "budget": 5}, "budget"),
    ("code_no_such_tool", {}, "code_no_such_tool"),
]


async def test_bad_input_is_an_error_result_that_says_what_to_change(
        indexed_repo: Path) -> None:
    async with stdio(indexed_repo) as client:
        await client.list_tools()
        for name, args, expected in BAD_CALLS:
            result = await client.call_tool(name, args)
            text = error_text(result)
            assert expected in text, (name, args, text)


async def test_limit_exceeded_is_reported(indexed_repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "host.toml"
    config.write_text("[codeintel]\nmax_files_per_request = 1\n")
    async with stdio(indexed_repo, pre=("--config", str(config))) as client:
        result = await client.call_tool("code_diagnostics", {"paths": ["pkg"]})
        many = await client.call_tool("code_context", {"spans": [
            {"path": "pkg/util.py", "start_line": 1}, {"path": "pkg/main.py", "start_line": 1}]})
    # diagnostics answers the first files and counts the rest (issue 28); other tools refuse
    assert not result.is_error
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert "the first 1 (in path order) were checked" in text and "max_files_per_request" in text
    assert "max_files_per_request" in error_text(many)
    assert "narrow the request" in error_text(many)


ATTACKS = [
    ("code_structure", {"path": "../outside"}),
    ("code_structure", {"path": "/etc"}),
    ("code_structure", {"path": "link/secret.py"}),
    ("code_context", {"spans": [{"path": "../outside/secret.py", "start_line": 1}]}),
    ("code_context", {"spans": [{"path": "/etc/passwd", "start_line": 1}]}),
    ("code_context", {"spans": [{"path": "link/secret.py", "start_line": 1}]}),
    ("code_diagnostics", {"paths": ["link"]}),
    ("code_find_symbol", {"name": "secret", "path": "../outside"}),
    ("code_references", {"path": "link/secret.py", "line": 1}),
    ("code_ast_query", {"query": "(identifier) @i", "paths": ["../outside"]}),
    ("code_explore", {"query": "secret", "path": "/tmp"}),
]


async def test_confinement_attacks_are_refused(own_indexed_repo: Path) -> None:
    outside = own_indexed_repo.parent / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    return 'TOPSECRET'\n")
    (own_indexed_repo / "link").symlink_to(outside, target_is_directory=True)
    async with stdio(own_indexed_repo) as client:
        for name, args in ATTACKS:
            result = await client.call_tool(name, args)
            text = error_text(result)
            assert "outside the repository root" in text, (name, args, text)
            assert "TOPSECRET" not in text
        inside = str(own_indexed_repo / "pkg" / "util.py")
        ok = payload(await client.call_tool("code_structure", {"path": inside}))
        assert ok["results"][0]["path"] == "pkg/util.py"


async def test_no_index_answers_from_live_parsing(fresh_repo: Path) -> None:
    async with stdio(fresh_repo) as client:
        assert [t.name for t in (await client.list_tools()).tools] == EXPECTED
        found = payload(await client.call_tool("code_find_symbol", {"name": "helper"}))
        assert found["results"][0]["source"] == "text-fallback"
        status = await client.call_tool("code_status", {})
        assert "spyglass index" in status.content[0].text
        assert payload(status)["results"][0]["indexed"] is False


async def test_index_on_request_reports_progress(fresh_repo: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with stdio(fresh_repo) as client:
        result = await client.call_tool("code_status", {"index": True},
                                        progress_callback=progress)
        report = payload(result)["results"][0]
        assert report["indexed"] is True and report["job_state"] == "completed"
        found = payload(await client.call_tool("code_find_symbol", {"name": "helper"}))
        assert found["results"][0]["source"] == "cached-index"
    assert seen and seen[-1][2] == "index complete"
    assert (fresh_repo / ".spyglass").is_dir()


async def test_worktree_mismatch_is_reported(own_indexed_repo: Path, tmp_path: Path) -> None:
    # Moved, not copied: a copied store is never trusted (tests/security/test_store_writes.py)
    moved = own_indexed_repo.rename(tmp_path / "moved")
    async with stdio(moved) as client:
        result = await client.call_tool("code_status", {})
    body = payload(result)
    assert body["provenance"]["worktree_mismatch"]
    assert body["results"][0]["worktree_mismatch"]
    assert "worktree mismatch" in result.content[0].text


async def test_start_directory_is_default_scope_and_root_is_found_above(
        indexed_repo: Path) -> None:
    async with stdio(indexed_repo, cwd=indexed_repo / "pkg") as client:
        outline = payload(await client.call_tool("code_structure", {}))
        assert {r["path"] for r in outline["results"]} == {"pkg/util.py", "pkg/main.py"}
        status = payload(await client.call_tool("code_status", {}))
        assert status["results"][0]["root"] == str(indexed_repo)
        refs = payload(await client.call_tool("code_references", {"name": "helper"}))
        assert "tests/test_util.py" in {r["path"] for r in refs["results"]}
        scoped = await client.call_tool("code_find_symbol", {"name": "test_helper"})
        assert payload(scoped)["results"] == []
        assert "pass path='.'" in scoped.content[0].text
        everywhere = payload(await client.call_tool("code_find_symbol",
                                                    {"name": "test_helper", "path": "."}))
        assert [r["path"] for r in everywhere["results"]] == ["tests/test_util.py"]


async def test_repo_policy_narrows_and_refuses(own_indexed_repo: Path) -> None:
    (own_indexed_repo / "spyglass.toml").write_text(
        '[policy]\ncapabilities = ["code_find_symbol", "code_status", "code_explore"]\n')
    async with stdio(own_indexed_repo) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["code_explore", "code_find_symbol", "code_status"]
        text = error_text(await client.call_tool("code_ast_query", {"query": "(x) @x"}))
        assert "denied by repository policy" in text
        status = payload(await client.call_tool("code_status", {}))
        assert status["results"][0]["tools"] == names


async def test_session_log_records_calls(indexed_repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    async with stdio(indexed_repo, "--session-log", str(log)) as client:
        await client.list_tools()
        await client.call_tool("code_find_symbol", {"name": "helper"})
        await client.call_tool("code_structure", {"path": "../x"})
    records = [json.loads(line) for line in log.read_text().splitlines()]
    calls = [r for r in records if r["method"] == "tools/call"]
    assert [c["tool"] for c in calls] == ["code_find_symbol", "code_structure"]
    ok, bad = calls
    assert ok["arguments"] == {"name": "helper"} and ok["error"] is None
    assert ok["result_size"] > 100 and ok["duration_ms"] >= 0 and ok["time"].endswith("Z")
    assert "outside the repository root" in bad["error"]
    assert any(r["method"] == "tools/list" for r in records)


async def test_stdout_carries_only_json_rpc(own_indexed_repo: Path, tmp_path: Path) -> None:
    err = tmp_path / "err.txt"
    (own_indexed_repo / "pkg" / "new.py").write_text("def fresh():\n    pass\n")
    async with stdio(own_indexed_repo, stderr=err) as client:
        await client.call_tool("code_status", {"index": True})
        await client.call_tool("code_diagnostics", {"paths": ["broken.py"]})
    # The client parses every stdout line as JSON-RPC and would have failed otherwise;
    # diagnostics went to stderr.
    assert "Traceback" not in err.read_text()


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_older_handshake_clients(indexed_repo: Path, version: str) -> None:
    """Raw JSON-RPC lines as an older client sends them; the server answers in its version."""
    import os
    import subprocess
    import sys

    from mcp_harness import server_env

    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": version, "capabilities": {},
                    "clientInfo": {"name": "old", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "code_find_symbol", "arguments": {"name": "helper"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", "serve"], cwd=indexed_repo,
                            env={**os.environ, **server_env(indexed_repo.parent)},
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.flush()
    answers: dict[int, Any] = {}
    try:
        for line in proc.stdout:
            message = json.loads(line)  # every stdout line is JSON-RPC
            answers[message["id"]] = message["result"]
            if len(answers) == 3:
                break
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert answers[1]["protocolVersion"] == version
    assert [t["name"] for t in answers[2]["tools"]] == EXPECTED
    call = answers[3]
    assert call["isError"] is False
    assert call["content"][0]["text"].startswith("pkg/util.py:1-2  func")
