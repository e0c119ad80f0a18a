"""Bound beyond loopback: every API endpoint and every MCP-HTTP request needs the admin
token, Host stays checked against an explicit allowlist, and start-up without a token is
refused (docs/security.md)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serve_harness import TOKEN, make_repo, run_cli, serving, write_config
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from spyglass.config import ALL_TOOLS
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

pytestmark = pytest.mark.anyio
ARGS: dict[str, dict[str, Any]] = {
    "code_explore": {"query": "helper"}, "code_find_symbol": {"name": "helper"},
    "code_references": {"name": "helper"}, "code_callers": {"name": "helper"},
    "code_callees": {"name": "m"}, "code_type_hierarchy": {"name": "K"},
    "code_structure": {"path": "a.py"}, "code_blast_radius": {"diff": "HEAD"},
    "code_suggest_tests": {"diff": "HEAD"}, "code_status": {"index": True},
    "code_context": {"spans": [{"path": "a.py", "start_line": 1}]},
    "code_diagnostics": {"paths": ["a.py"]},
    "code_ast_query": {"query": "(identifier) @i", "paths": ["a.py"]},
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def concrete(path: str, repo_id: str) -> str:
    return (path.replace("{repo_id}", repo_id).replace("{job_id}", "1")
            .replace("{run_id}", "workspace"))


def every_route(app: Any, repo_id: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Route):
            for method in sorted((route.methods or set()) - {"HEAD"}):
                out.append((method, concrete(route.path, repo_id)))
        elif isinstance(route, Mount):
            out.append(("GET", route.path + "/app.js"))
    return out


def test_every_web_route_beyond_loopback_needs_the_token(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    ci = CodeIntel(make_repo(tmp_path / "repo"))
    ci.config = dataclasses.replace(ci.config, admin_token=TOKEN)
    app = create_app(ci, "0.0.0.0", None)
    client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    repo_id = app.state.web.repo_id
    routes = every_route(app, repo_id)
    assert len(routes) >= 20
    page = {"/", "/repos", f"/repos/{repo_id}", "/favicon.ico", "/static/app.js"}
    for method, path in routes:
        for auth in (None, "Bearer wrong", "Basic " + TOKEN):
            r = client.request(method, path, params={"follow": "0"},
                               headers={"Authorization": auth} if auth else {})
            if path in page:
                assert r.status_code == 200, (method, path)
            else:
                assert r.status_code == 401, (method, path, auth, r.text)
                assert "admin token" in r.json()["error"]
                assert r.headers["www-authenticate"].startswith("Bearer")
        ok = client.request(method, path, params={"follow": "0"},
                            headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code not in (401, 421) and ok.status_code < 500, (method, path, ok.text)
    # Host stays checked: a foreign name is refused even with the token.
    foreign = client.get("/api/v1/code/repos", headers={"Host": "evil.example",
                                                         "Authorization": f"Bearer {TOKEN}"})
    assert foreign.status_code == 421


def test_web_beyond_loopback_without_a_token_refuses_everything(tmp_path: Path) -> None:
    ci = CodeIntel(make_repo(tmp_path / "repo"))
    ci.config = dataclasses.replace(ci.config, admin_token=None)
    client = TestClient(create_app(ci, "0.0.0.0", None), base_url="http://127.0.0.1")
    assert client.get("/api/v1/code/repos").status_code == 401


@pytest.mark.parametrize("argv", [("web", "--host", "0.0.0.0", "--port", "0"),
                                  ("serve", "--http", "0.0.0.0:0")])
def test_start_up_beyond_loopback_without_a_token_is_refused(tmp_path: Path,
                                                             argv: tuple[str, ...]) -> None:
    repo = make_repo(tmp_path / "repo")
    write_config(tmp_path)
    done = run_cli(repo, tmp_path, *argv)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "without an admin token" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


async def test_every_mcp_http_tool_beyond_loopback_needs_the_token(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write_config(tmp_path, TOKEN, 'allowed_hosts = ["spyglass.internal"]')
    with serving(repo, tmp_path, "serve", "--http", "0.0.0.0:0") as served:
        port = int(re.search(r":(\d+)/mcp", served.url).group(1))  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx.AsyncClient(timeout=60) as http:
            for n, tool in enumerate(ALL_TOOLS):
                call = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                        "params": {"name": tool, "arguments": ARGS[tool]}}
                for auth in ({}, {"Authorization": "Bearer nope"}):
                    r = await http.post(url, json=call, headers={**HEADERS, **auth})
                    assert r.status_code == 401 and "admin token" in r.json()["error"], tool
            listed = await http.post(url, json={"jsonrpc": "2.0", "id": 99,
                                                "method": "tools/list"}, headers=HEADERS)
            assert listed.status_code == 401
            foreign = await http.post(url, json=call, headers={
                **HEADERS, "Authorization": f"Bearer {TOKEN}", "Host": f"evil.example:{port}"})
            assert foreign.status_code == 421
            named = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                    headers={**HEADERS, "Authorization": f"Bearer {TOKEN}",
                                             "Host": f"spyglass.internal:{port}"})
            assert named.status_code != 421
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"},
                                     timeout=60) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:  # type: ignore[arg-type]
            assert [t.name for t in (await client.list_tools()).tools] == list(ALL_TOOLS)
            for tool in ALL_TOOLS:
                result = await client.call_tool(tool, ARGS[tool])
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert not result.is_error, (tool, text)
