"""Streamable HTTP: the same tools over `serve --http`, Origin and Host checks, strict mode."""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
import pytest
from every_tool import exercise_every_tool
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_harness import http_serving, payload, stdio

from spyglass.config import ALL_TOOLS
from spyglass.mcp.server import parse_address

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_tool_over_http(http_server: tuple[str, Path], mode: str) -> None:
    url, _ = http_server
    async with Client(url, mode=mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        await exercise_every_tool(client)
        bad = await client.call_tool("code_context", {"spans": [{"path": "../../etc/passwd",
                                                                  "start_line": 1}]})
        assert bad.is_error and "outside the repository root" in bad.content[0].text


async def test_bad_origin_is_forbidden(http_server: tuple[str, Path]) -> None:
    url, _ = http_server
    port = url.rsplit(":", 1)[1].split("/")[0]
    async with httpx.AsyncClient() as http:
        evil = await http.post(url, json=INIT, headers={**HEADERS, "Origin": "http://evil.example"})
        assert evil.status_code == 403
        sneaky = await http.post(url, json=INIT,
                                 headers={**HEADERS, "Origin": f"http://localhost:{port}.evil"})
        assert sneaky.status_code == 403
        rebound = await http.post(url, json=INIT,
                                  headers={**HEADERS, "Host": f"evil.example:{port}"})
        assert rebound.status_code == 421
        own = await http.post(url, json=INIT,
                              headers={**HEADERS, "Origin": f"http://127.0.0.1:{port}"})
        assert own.status_code == 200


def test_address_parsing() -> None:
    assert parse_address("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert parse_address(":9000") == ("127.0.0.1", 9000)
    assert parse_address("9000") == ("127.0.0.1", 9000)
    assert parse_address("[::1]:7000") == ("::1", 7000)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_require_index_without_index_serves_zero_tools(fresh_repo: Path,
                                                             tmp_path: Path, mode: str) -> None:
    err = tmp_path / "stderr.txt"
    async with stdio(fresh_repo, "--require-index", mode=mode, stderr=err) as client:
        assert client.server_info is not None and client.server_info.name == "spyglass"
        assert (await client.list_tools()).tools == []
        result = await client.call_tool("code_status", {})
        assert result.is_error and "--require-index" in result.content[0].text
    assert "--require-index: serving no tools" in err.read_text()


async def test_require_index_with_index_serves_everything(indexed_repo: Path) -> None:
    async with stdio(indexed_repo, "--require-index") as client:
        assert [t.name for t in (await client.list_tools()).tools] == list(ALL_TOOLS)


async def test_ast_query_over_http_needs_the_admin_token(indexed_repo: Path,
                                                         tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "spyglass" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[codeintel]\nadmin_token = "s3cret"\n')
    query = {"query": "(function_definition) @f", "paths": ["pkg/util.py"]}
    with http_serving(indexed_repo, tmp_path) as (url, _):
        async with Client(url) as client:
            denied = await client.call_tool("code_ast_query", query)
            assert denied.is_error and "admin token" in denied.content[0].text
            other = await client.call_tool("code_find_symbol", {"name": "helper"})
            assert not other.is_error
        async with httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:  # type: ignore[arg-type]
            allowed = payload(await client.call_tool("code_ast_query", query))
            assert len(allowed["results"]) == 2
