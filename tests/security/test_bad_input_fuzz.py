"""Bad-input fuzz over HTTP (every route), MCP (every tool) and the CLI (every subcommand):
a bounded, seeded sample of malformed parameters, bodies, headers and options. Every answer
is a 4xx with a JSON reason, an MCP error with its reason or a one-line CLI error: zero
tracebacks, zero 5xx, zero reasonless errors (docs/security.md)."""

from __future__ import annotations

import json
import logging
import random
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from security import report
from serve_harness import make_repo
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from spyglass.cli.main import main
from spyglass.config import ALL_TOOLS
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

SEED = 11
PER_ROUTE = 16
PER_TOOL = 14
CLI_SAMPLE = 36
DEEP = "[" * 100_000
NASTY: list[Any] = [
    "", "\0", "x" * 5000, "-1", "0", "1" * 40, "9" * 5000, "nan", "1e9", "../../etc/passwd",
    "/etc/passwd", "a\nb", "\x1b[31mred\x1b[0m", "[", "*", "%", "\\", "é", "\U0001f642",
    "a.py:0", "a.py:1:0", "a.py:-1", "a.py:99999999999", "HEAD~999", "--upload-pack=x",
    "-x", "@{-1}", "a" * 100_000, "a.py" + "/" * 3000, "?" * 300, "*" * 3000 + "x",
]
PARAMS = ["q", "kind", "path", "name", "line", "column", "start", "end", "target", "diff",
          "depth", "budget", "symbol", "limit", "references", "full", "after",
          "include_declaration", "exact_only"]
BODIES: list[bytes] = [
    b"", b"[]", b"null", b'"query"', b"1", b"{", b"\xff\xfe\x00", DEEP.encode(),
    b'{"query": 1}', b'{"query": "(identifier) @i", "paths": "a.py"}',
    b'{"query": "(identifier) @i", "paths": [1]}', b'{"query": "((("}',
    b'{"query": "(identifier) @i", "paths": ["../../etc/passwd"]}',
    json.dumps({"query": "(identifier) @i", "paths": ["x" * 5000]}).encode(),
    json.dumps({"query": "(identifier) @i", "paths": ["a.py"] * 5000}).encode(),
    json.dumps({"query": "(identifier) @i " * 2000}).encode(),
    b'{"ref": 5}', b'{"ref": "--output=/tmp/x"}', b'{"ref": "HEAD", "x": 1}',
    json.dumps({"ref": "a" * 300}).encode(), json.dumps({"a": [[[[[[[]]]]]]] * 3}).encode(),
]
HEADERS: list[dict[str, str]] = [
    {}, {"Origin": "http://127.0.0.1:abc"}, {"Origin": "null"}, {"Origin": "http://[::1"},
    {"Origin": "http://127.0.0.1:99999999"}, {"Host": "127.0.0.1:99999999999"},
    {"Host": "[::1"}, {"Host": ""}, {"Authorization": "Bearer"}, {"Authorization": "x" * 5000},
    {"Last-Event-ID": "9" * 5000}, {"Content-Type": "text/plain"},
    {"Sec-Fetch-Site": "cross-site"}, {"Content-Length": "abc"},
]
URL_SAFE = [v for v in NASTY if len(v) < 20_000]  # the client refuses longer URLs
REASONLESS = re.compile(r"^\s*(Error executing tool \S+)?\s*$")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))
    return make_repo(tmp_path / "repo")


def _routes(app: Any, repo_id: str) -> list[tuple[str, str]]:
    out = []
    for route in app.routes:
        if isinstance(route, Route):
            path = (route.path.replace("{repo_id}", repo_id).replace("{job_id}", "1")
                    .replace("{run_id}", "workspace"))
            out += [(m, path) for m in sorted((route.methods or set()) - {"HEAD"})]
        elif isinstance(route, Mount):
            out.append(("GET", route.path + "/app.js"))
    return out


def _tracebacks(caplog: pytest.LogCaptureFixture, captured: str) -> int:
    logged = sum(1 for r in caplog.records if r.exc_info or "Traceback" in r.getMessage())
    return logged + captured.count("Traceback (most recent call last)")


def test_http_bad_input_fuzz(repo: Path, caplog: pytest.LogCaptureFixture,
                             capsys: pytest.CaptureFixture[str],
        record_property: Any) -> None:
    rng = random.Random(SEED)
    app = create_app(CodeIntel(repo))
    client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    routes = _routes(app, app.state.web.repo_id)
    assert len(routes) >= 20
    requests = server_errors = reasonless = 0
    bad: list[str] = []
    with caplog.at_level(logging.WARNING):
        for method, path in routes:
            cases = [(dict(rng.sample(
                [(p, rng.choice(URL_SAFE)) for p in PARAMS], rng.randint(1, 4))),
                rng.choice(BODIES) if method == "POST" else b"", rng.choice(HEADERS))
                for _ in range(PER_ROUTE)]
            # Every body and every header once on the POST routes, every header on the rest.
            cases += [({}, body, {}) for body in (BODIES if method == "POST" else [])]
            cases += [({}, b"", h) for h in HEADERS if method == "POST" or rng.random() < 0.3]
            for params, body, headers in cases:
                if path.endswith("/events"):
                    params["follow"] = "0"
                r = client.request(method, path, params=params, content=body, headers=headers)
                requests += 1
                if r.status_code >= 500:
                    server_errors += 1
                    bad.append(f"{r.status_code} {method} {path} {params!r:.200} {headers} "
                               f"{body[:60]!r}: {r.text[:200]}")
                elif r.status_code >= 400 and not path.startswith("/static"):
                    try:
                        reason = r.json().get("error")
                    except ValueError:
                        reason = None
                    if not reason:
                        reasonless += 1
                        bad.append(f"no reason: {r.status_code} {method} {path} {r.text[:100]}")
    tracebacks = _tracebacks(caplog, capsys.readouterr().err)
    report.record(
        record_property, kind="line",
        line=f"bad-input fuzz (HTTP): {requests} requests, {tracebacks} tracebacks, "
            f"{server_errors} 5xx, {reasonless} 4xx without a JSON reason")
    assert (tracebacks, server_errors, reasonless) == (0, 0, 0), "\n".join(bad[:20])


def _bad_values(rng: random.Random) -> list[Any]:
    deep: Any = []
    for _ in range(200):  # deeper fails in the client's own serialiser (HTTP: body test)
        deep = [deep]
    return [None, 0, -1, 10**30, 1.5, True, "", "x" * 1_000_000, "\0", "a\nb", [], {}, [1],
            {"a": 1}, deep, ["x"] * 10_000, rng.choice(NASTY), [{"path": 1}],
            [{"path": "a.py", "start_line": 0}], [{"path": "a.py", "start_line": 10**12}],
            [{"path": "a.py", "start_line": 3, "end_line": 1}]]


@pytest.mark.anyio
async def test_mcp_bad_input_fuzz(repo: Path, caplog: pytest.LogCaptureFixture,
                                  capsys: pytest.CaptureFixture[str],
        record_property: Any) -> None:
    rng = random.Random(SEED)
    built = build_server(repo, environ={})
    calls = reasonless = 0
    bad: list[str] = []
    with caplog.at_level(logging.WARNING):
        async with Client(built.server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == sorted(ALL_TOOLS)
            for name, tool in tools.items():
                props = list(tool.input_schema.get("properties", {}))
                cases: list[dict[str, Any]] = [{}]  # missing (required) arguments
                cases += [{p: v} for p in props for v in rng.sample(_bad_values(rng), 4)]
                cases += [{p: rng.choice(_bad_values(rng)) for p in props}
                          for _ in range(PER_TOOL)]
                cases.append({"unknown_argument": 1})
                for args in cases:
                    if name == "code_status" and args.get("index") is True:
                        args["index"] = "yes"  # building the index is not bad input
                    calls += 1
                    try:
                        result = await client.call_tool(name, args)
                    except MCPError as exc:
                        if not str(exc).strip():
                            reasonless += 1
                            bad.append(f"{name} {str(args)[:120]}: protocol error, no reason")
                        continue
                    if result.is_error:
                        text = " ".join(getattr(c, "text", "") for c in result.content)
                        if REASONLESS.match(text) or "internal error" in text:
                            reasonless += 1
                            bad.append(f"{name} {str(args)[:120]}: {text[:200]}")
    tracebacks = _tracebacks(caplog, capsys.readouterr().err)
    report.record(
        record_property, kind="line",
        line=f"bad-input fuzz (MCP): {calls} calls, {tracebacks} tracebacks, "
            f"{reasonless} errors without a reason")
    assert (tracebacks, reasonless) == (0, 0), "\n".join(bad[:20])


CLI_CASES: list[list[str]] = [
    ["find", ""], ["find", "\x1b[31m"], ["find", "*" * 3000 + "x"], ["find", "a", "--kind", "\0"],
    ["find", "a", "--path", "../.."], ["find", "a", "--path", "x" * 100_000],
    ["refs"], ["refs", "--at", "x"], ["refs", "--at", "a.py:0"],
    ["refs", "--at", "a.py:99999999999999999999"], ["refs", "--at", "a.py:1:abc"],
    ["callers", "--at", "/etc/passwd:1"], ["callers", "x" * 5000],
    ["structure", "../../etc"], ["structure", "x" * 5000], ["structure", "a.py\nb"],
    ["context", "a.py:abc"], ["context", "a.py:5-1"], ["context", "a.py:99999"],
    ["context", "nope"], ["context", "/etc/passwd:1"], ["context", "a.py:" + "9" * 5000],
    ["tests", "--diff", "-x"], ["tests", "--diff", "a" * 5000], ["tests", "--depth", "0"],
    ["tests", "--depth", "abc"], ["tests", "nonexistent.py:1-2"],
    ["blast-radius", "--depth", "-5"], ["blast-radius", "--depth", "99999999"],
    ["blast-radius", "--diff", "HEAD~999"], ["blast-radius", "a.py:1-999999999999"],
    ["explore", ""], ["explore", "a", "--budget", "-5"], ["explore", "\0"],
    ["diagnostics", "/etc/passwd"], ["diagnostics", "x" * 5000], ["status", "--bogus"],
    ["index", "--ref", "--output=x"], ["index", "--ref", "a" * 300], ["index", "--ref", "HEAD~99"],
    ["web", "--port", "99999"], ["web", "--port", "x"], ["web", "--host", "0.0.0.0", "--port", "0"],
    ["web", "--host", "256.1.1.1", "--port", "0"], ["web", "--host", "\0", "--port", "0"],
    ["serve", "--http", "abc"], ["serve", "--http", "0.0.0.0:0"], ["serve", "--http", "h:99999"],
    ["-C", "/nonexistent", "status"], ["--config", "/nonexistent.toml", "status"],
    ["nosuchcommand"], [], ["--json"],
    ["find", "\udcff"], ["structure", "bad\udcff.py"], ["refs", "--at", "bad\udcff.py:1"],
    ["context", "bad\udcff.py:1"], ["explore", "\udcff\udcfe"], ["diagnostics", "\udcff"],
]


def test_cli_bad_input_fuzz(repo: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch,
        record_property: Any) -> None:
    monkeypatch.chdir(repo)
    rng = random.Random(SEED)
    firsts: dict[str, list[str]] = {}
    for argv in CLI_CASES:  # every subcommand at least once, then a seeded sample
        firsts.setdefault(argv[0] if argv else "", argv)
    rest = [a for a in CLI_CASES if a not in firsts.values()]
    sample = list(firsts.values()) + rng.sample(rest, min(CLI_SAMPLE, len(rest)))
    assert {a[0] for a in sample if a} >= {"index", "find", "refs", "callers", "structure",
                                           "blast-radius", "tests", "explore", "status",
                                           "diagnostics", "context", "serve", "web"}
    runs = tracebacks = multi_line = 0
    codes: dict[int, int] = {}
    bad: list[str] = []
    for argv in sample:
        runs += 1
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # noqa: BLE001 - a traceback the user would see
            tracebacks += 1
            bad.append(f"{argv!r:.100}: {type(exc).__name__}: {exc}")
            continue
        out = capsys.readouterr()
        codes[code] = codes.get(code, 0) + 1
        if "Traceback" in out.err + out.out:
            tracebacks += 1
            bad.append(f"{argv!r:.100}: traceback")
        errors = [ln for ln in out.err.splitlines() if ln.startswith("spyglass: ")
                  and "warning" not in ln and "no index" not in ln]
        if code == 2 and argv and argv[0] not in ("web",) and len(errors) > 1:
            multi_line += 1
            bad.append(f"{argv!r:.100}: {len(errors)} error lines")
        if "\x1b" in out.out + out.err:
            bad.append(f"{argv!r:.100}: raw escape sequence in the output")
    report.record(
        record_property, kind="line",
        line=f"bad-input fuzz (CLI): {runs} runs, {tracebacks} tracebacks, exit codes {codes}")
    assert tracebacks == 0 and multi_line == 0 and not bad, "\n".join(bad[:20])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_crash_outside_the_backend_still_has_a_reason(repo: Path) -> None:
    built = build_server(repo, environ={})
    assert built.backend is not None

    def broken(path: str | None) -> str | None:
        raise RuntimeError("boom")

    built.backend.scope = broken  # type: ignore[method-assign]
    async with Client(built.server, mode="legacy") as client:
        result = await client.call_tool("code_structure", {})
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error and "internal error" in text and not REASONLESS.match(text)
        spans = {"spans": [{"path": "a.py", "start_line": 1}]}
        assert not (await client.call_tool("code_context", spans)).is_error


MCP_BODIES: list[bytes] = [
    DEEP.encode(), b"[]", b"null", b'"x"', b"{", b"\xff\xfe", b"{}", b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + DEEP.encode() + b"}",
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "code_context", "arguments": {"spans": "x" * 900_000}}}).encode(),
    json.dumps([{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(2000)]).encode(),
]


def test_mcp_http_bad_input(tmp_path: Path,
        record_property: Any) -> None:
    import httpx2 as httpx
    from serve_harness import serving

    repo = make_repo(tmp_path / "repo")
    rng = random.Random(SEED)
    requests = server_errors = 0
    bad: list[str] = []
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with serving(repo, tmp_path, "serve", "--http", "127.0.0.1:0") as served, \
            httpx.Client(timeout=60) as http:
        for body in MCP_BODIES:
            for headers in [{}, *rng.sample(HEADERS, 3)]:
                if "Host" in headers or "Content-Length" in headers:
                    continue  # the client library refuses to send these
                r = http.post(served.url, content=body, headers={**base, **headers})
                requests += 1
                if r.status_code >= 500:
                    server_errors += 1
                    bad.append(f"{r.status_code} {headers} {body[:50]!r}: {r.text[:200]}")
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}}
        assert http.post(served.url, json=init, headers=base).status_code == 200
        err = served.stderr.read_text(encoding="utf-8")
    tracebacks = err.count("Traceback (most recent call last)")
    report.record(
        record_property, kind="line",
        line=f"bad-input fuzz (MCP-HTTP): {requests} requests, {tracebacks} tracebacks, "
            f"{server_errors} 5xx")
    assert (tracebacks, server_errors) == (0, 0), "\n".join(bad[:20]) + err[-2000:]


@pytest.mark.anyio
async def test_an_undecodable_file_name_never_gives_a_reasonless_error(repo: Path) -> None:
    import os
    os.close(os.open(os.path.join(os.fsencode(repo), b"bad\xff.py"), os.O_CREAT | os.O_WRONLY))
    built = build_server(repo, environ={})
    async with Client(built.server, mode="legacy") as client:
        for tool, args in (("code_status", {}), ("code_explore", {"query": "f"}),
                           ("code_find_symbol", {"name": "f"}), ("code_structure", {})):
            result = await client.call_tool(tool, args)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            assert not result.is_error or not REASONLESS.match(text), (tool, text)
