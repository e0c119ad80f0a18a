"""External MCP servers as bridges (docs/bridge.md, seed 000's "MCP bridge"), with a fake
server built on the official `mcp` SDK (fake_mcp.py): configured in the host config only,
started through the same launcher and sandbox, only its declared and host-approved
code-intelligence tools are called, and every failure keeps the index answer with a note
(or, with `required = true`, is an error naming the reason)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import NEEDS_BWRAP, environ_names, has_bwrap, host_config, leaf, mcp_server

from spyglass.bridge.mcpclient import McpClient
from spyglass.bridge.rpc import RpcError
from spyglass.config import Config, ConfigError, LspServer, load_config
from spyglass.errors import BridgeUnavailable
from spyglass.query import escalate
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport
from spyglass.types import CodeLocation

CANARY = "canary-secret-5d1e"
MCP = ('[[codeintel.mcp]]\nname = "ext"\nlanguage = "go"\ncommand = ["codeintel-mcp"]\n')


def sites(results: tuple[object, ...]) -> list[tuple[int, str, bool]]:
    return [(c.start_line, c.source, c.uncertain) for c in results
            if isinstance(c, CodeLocation)]


def calls(log: Path) -> list[str]:
    return [json.loads(line)["tool"] for line in log.read_text().splitlines()] \
        if log.exists() else []


def bridged(mode: str, execution: str, repo: Path, log: Path) -> CodeIntel:
    """The facade over `repo` with the fake MCP server in `mode`; it logs its calls to
    `log` on the host only (in the sandbox the log's folder is not visible)."""
    if execution == "sandbox" and not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    return CodeIntel(repo, config=Config(lsp=(mcp_server(
        mode, execution, str(log) if execution == "host" else ""),)))


@pytest.mark.parametrize("execution", ["host", "sandbox"])
def test_declared_tools_decide_the_answer(execution: str, repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = bridged("ok", execution, repo, log)
    refs = ci.references("target", lsp_budget_ms=20000)
    assert sites(refs.results) == [(1, "live-lsp", False), (5, "live-lsp", False),
                                   (13, "live-lsp", False)]  # /etc/passwd is not the repo's
    note = next(n for n in refs.coverage.limitations if n.startswith("MCP server fake-mcp"))
    assert "2 site(s) confirmed" in note and "1 index site(s) refuted" in note
    callers = ci.callers("target", lsp_budget_ms=20000)
    assert [(c.start_line, c.symbol, c.source) for c in callers.results] == [
        (5, "pkg.use.caller_a", "live-lsp"), (13, "pkg.use.caller_c", "live-lsp")]
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    b = report.bridges[0]
    assert (b.name, b.state, b.execution, b.version) == ("fake-mcp", "ready", execution,
                                                         "fake-codeintel 2.0")
    if execution == "host":
        assert calls(log) == ["code_references", "code_callers"]  # never run_command


def test_the_call_carries_the_target_position(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo, config=Config(lsp=(mcp_server("ok", log=str(log)),)))
    ci.references("target", lsp_budget_ms=20000)
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["args"] == {"path": "pkg/core.py", "line": 1, "column": 5, "name": "target"}


def test_an_undeclared_tool_is_never_called(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo, config=Config(lsp=(mcp_server("refs-only", log=str(log)),),
                                       required=True))
    index = ci.callers("target", lsp_budget_ms=0)
    out = ci.callers("target", lsp_budget_ms=20000)  # required, yet not an error
    assert out.results == index.results
    assert any("fake-mcp (python): the server does not declare code_callers" in n
               for n in out.coverage.limitations)
    assert calls(log) == []


def test_a_tool_the_host_did_not_approve_is_never_called(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo, config=Config(lsp=(mcp_server("ok", log=str(log),
                                                       tools=("code_references",)),)))
    out = ci.callers("target", lsp_budget_ms=20000)
    assert any("code_callers is not approved for it in the host config" in n
               for n in out.coverage.limitations)
    assert ci.escalator.bridges()[0].state == "idle" and calls(log) == []


def test_the_server_sees_only_path_and_the_allowlist(repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_TEST_TOKEN", CANARY)
    monkeypatch.setenv("LANG", "C.UTF-8")
    base = mcp_server("ok")
    server = LspServer(base.language, base.command, ("LANG",), base.execution,
                       base.allow_host_mcp, base.name, base.binds, "{}", "mcp", base.tools)
    ci = CodeIntel(repo, config=Config(lsp=(server,)))
    bridge = ci.escalator.bridges()[0]
    bridge.client(20.0)
    pid = bridge.pid()
    assert pid is not None
    names, raw = environ_names(leaf(pid))
    assert names == {"PATH", "LANG"} and CANARY.encode() not in raw


MISSING = LspServer("python", ("no-such-mcp-server-xyz",), (), "host", True, "ghost", (), "{}",
                    "mcp", ("code_references", "code_callers"))
CASES = {  # server, budget (ms), what the note says
    "missing": (MISSING, 5000, "binary not found: 'no-such-mcp-server-xyz'"),
    "fail-start": (mcp_server("fail-start"), 20000, "start-up failed"),
    "crash": (mcp_server("crash"), 20000, "crashed (exit 5)"),
    "hang": (mcp_server("hang"), 500, "no answer within 500 ms"),
    "malformed": (mcp_server("malformed"), 20000, "malformed reply"),
    "error": (mcp_server("error"), 20000, "failed: Error executing tool"),
}


@pytest.fixture
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)


def warm(ci: CodeIntel, case: str) -> None:
    if case == "hang":
        ci.escalator.bridges()[0].client(20.0)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("tool", ["references", "callers"])
def test_failure_keeps_the_index_answer_and_says_why(case: str, tool: str, repo: Path,
                                                     no_grace: None) -> None:
    server, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(server,)))
    warm(ci, case)
    index = getattr(ci, tool)("target", lsp_budget_ms=0)
    out = getattr(ci, tool)("target", lsp_budget_ms=budget)
    assert out.results == index.results
    extra = [n for n in out.coverage.limitations if n not in index.coverage.limitations]
    assert len(extra) == 1
    assert f"MCP server {server.label} (python) not used" in extra[0] and reason in extra[0]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("tool", ["references", "callers"])
def test_required_turns_the_failure_into_an_error(case: str, tool: str, repo: Path,
                                                  no_grace: None) -> None:
    server, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(server,), required=True))
    warm(ci, case)
    with pytest.raises(BridgeUnavailable, match="is required") as err:
        getattr(ci, tool)("target", lsp_budget_ms=budget)
    assert reason in str(err.value) and f"MCP server {server.label}" in str(err.value)


@pytest.mark.parametrize("case", ["missing", "fail-start"])
def test_required_start_up_fails_with_the_reason(case: str, repo: Path) -> None:
    server, _, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(server,), required=True))
    with pytest.raises(BridgeUnavailable, match=f"MCP server {server.label} .*required.*"
                                                f"{reason[:12]}"):
        ci.start_bridges(wait=20.0)


def test_broken_framing_fails_the_waiting_request_at_once(tmp_path: Path) -> None:
    client = McpClient(io.BytesIO(), io.BytesIO(b"this is not JSON\n"), tmp_path)
    with pytest.raises(RpcError, match="malformed reply: body is not JSON"):
        client.request("tools/list", {}, timeout=20.0)


def test_blast_radius_escalates_through_an_mcp_bridge(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(mcp_server("ok"),)))
    out = ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=20000)
    first = sorted((c.symbol, c.source) for c in out.results if isinstance(c, CodeLocation)
                   and (c.evidence or "").startswith("distance 1"))
    assert first == [("pkg.use.caller_a", "live-lsp"), ("pkg.use.caller_c", "live-lsp")]


def host(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_an_mcp_entry_loads_from_the_host_config(tmp_path: Path) -> None:
    cfg = load_config(host(tmp_path, MCP + 'tools = ["code_references"]\n'))
    (server,) = cfg.lsp
    assert (server.protocol, server.label, server.execution, server.tools) == (
        "mcp", "ext", "sandbox", ("code_references",))
    default = load_config(host(tmp_path, MCP))
    assert default.lsp[0].tools == ("code_references", "code_callers")


@pytest.mark.parametrize("extra, why", [
    ('env = ["GITHUB_TOKEN"]\n', "env may not pass 'GITHUB_TOKEN'"),
    ('execution = "host"\n', "allow_host_mcp = true"),
    ('tools = ["run_command"]\n', "tools must be a list of code_references, code_callers"),
])
def test_unsafe_mcp_entries_are_refused(tmp_path: Path, extra: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        load_config(host(tmp_path, MCP + extra))


def test_tools_belong_to_mcp_entries_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MCP servers only"):
        load_config(host(tmp_path, '[[codeintel.lsp]]\nlanguage = "go"\ncommand = "gopls"\n'
                                   'tools = ["code_references"]\n'))


def test_a_repository_can_never_name_an_mcp_server(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "spyglass.toml").write_text(MCP)
    with pytest.raises(ConfigError, match="set in the host config only"):
        load_config(host(tmp_path, ""), repo_root=repo)


def test_serve_refuses_to_start_when_a_required_mcp_server_cannot(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    cfg = host(tmp_path, '[codeintel]\nrequired = true\n[[codeintel.mcp]]\nname = "ghost"\n'
                         'language = "python"\ncommand = ["no-such-mcp-xyz"]\n'
                         'execution = "host"\nallow_host_mcp = true\n')
    run = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(cfg), "serve"],
                         cwd=repo, capture_output=True, text=True, timeout=60, input="",
                         check=False)
    assert run.returncode == 2
    assert "MCP server ghost (python) is required but unavailable: binary not found" \
        in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("execution", ["host", "sandbox"])
def test_a_tool_the_server_declares_later_is_used(execution: str, repo: Path,
                                                  tmp_path: Path) -> None:
    """notifications/tools/list_changed (sent by the official SDK's server session): the
    next question lists the tools again, and a tool declared since is called."""
    log = tmp_path / "calls.jsonl"
    ci = bridged("late-callers", execution, repo, log)
    before = ci.callers("target", lsp_budget_ms=20000)
    assert any("does not declare code_callers" in n for n in before.coverage.limitations)
    ci.references("target", lsp_budget_ms=20000)  # the server adds code_callers, says so
    after = ci.callers("target", lsp_budget_ms=20000)
    assert [(c.start_line, c.source) for c in after.results] == [(5, "live-lsp"),
                                                                 (13, "live-lsp")]
    if execution == "host":
        assert calls(log) == ["code_references", "code_callers"]


def test_a_tool_the_server_withdraws_is_no_longer_called(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo, config=Config(lsp=(mcp_server("drop-callers", log=str(log)),)))
    ci.references("target", lsp_budget_ms=20000)  # the server withdraws code_callers
    out = ci.callers("target", lsp_budget_ms=20000)
    assert any("does not declare code_callers" in n for n in out.coverage.limitations)
    assert all(c.source != "live-lsp" for c in out.results if isinstance(c, CodeLocation))
    assert calls(log) == ["code_references"]


@pytest.mark.anyio
async def test_spyglass_own_tool_list_does_not_follow_a_bridge(repo: Path,
                                                               tmp_path: Path) -> None:
    """With the official client: a bridge's tools changing (late-callers declares
    code_callers after a while) changes what spyglass can confirm, never spyglass's own
    tool list, so spyglass (handshake era: tools.listChanged false) has nothing to notify."""
    from mcp import Client

    from spyglass.mcp.server import build_server
    config = host_config(tmp_path, mcp_server("late-callers"))
    built = build_server(repo, environ={}, config_path=str(config))
    async with Client(built.server, mode="legacy") as client:
        caps = client.server_capabilities.tools
        assert caps is not None and not caps.list_changed
        before = sorted(t.name for t in (await client.list_tools()).tools)
        first = await client.call_tool("code_callers", {"name": "target",
                                                        "lsp_budget_ms": 20000})
        await client.call_tool("code_references", {"name": "target", "lsp_budget_ms": 20000})
        again = await client.call_tool("code_callers", {"name": "target",
                                                        "lsp_budget_ms": 20000})
        after = sorted(t.name for t in (await client.list_tools()).tools)
    assert before == after and "code_callers" in after
    assert {r["source"] for r in (first.structured_content or {})["results"]} != {"live-lsp"}
    assert {r["source"] for r in (again.structured_content or {})["results"]} == {"live-lsp"}
