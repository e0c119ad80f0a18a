"""Failure semantics (docs/bridge.md): binary missing, start-up failure, crash mid-query,
hang past the budget, malformed replies -> the index answer unchanged plus a limitation
naming the bridge and the reason; with `required = true` an error with that reason."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import CASES, HERE, alive, python, server

from spyglass.bridge import manager
from spyglass.config import Config
from spyglass.errors import BridgeUnavailable
from spyglass.query import escalate
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport


def warm(ci: CodeIntel, case: str) -> None:
    """Start a server that starts fine, so the budget is spent on the question (a hang)."""
    if case == "hang":
        ci.escalator.bridges()[0].client(10.0)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("tool", ["references", "callers"])
def test_failure_keeps_the_index_answer_and_says_why(case: str, tool: str, repo: Path) -> None:
    lsp, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(lsp,)))
    warm(ci, case)
    index = getattr(ci, tool)("target", lsp_budget_ms=0)
    out = getattr(ci, tool)("target", lsp_budget_ms=budget)
    assert out.results == index.results
    assert out.coverage.limitations[:len(index.coverage.limitations)] == \
        index.coverage.limitations
    extra = out.coverage.limitations[len(index.coverage.limitations):]
    assert len(extra) == 1
    assert f"language server {lsp.label} (python) not used" in extra[0]
    assert reason in extra[0]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("tool", ["references", "callers"])
def test_required_turns_the_failure_into_an_error(case: str, tool: str, repo: Path) -> None:
    lsp, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(lsp,), required=True))
    warm(ci, case)
    with pytest.raises(BridgeUnavailable, match="is required") as err:
        getattr(ci, tool)("target", lsp_budget_ms=budget)
    assert reason in str(err.value) and lsp.label in str(err.value)


@pytest.mark.parametrize("case", ["missing", "fail-start"])
def test_required_start_up_fails_with_the_reason(case: str, repo: Path) -> None:
    lsp, _, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(lsp,), required=True))
    with pytest.raises(BridgeUnavailable, match=f"{lsp.label} .*required.*{reason[:12]}"):
        ci.start_bridges(wait=10.0)


def test_required_start_up_succeeds_with_a_working_server(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),), required=True))
    ci.start_bridges(wait=10.0)
    report = ci.status().results[0]
    assert isinstance(report, StatusReport) and report.bridges[0].state == "ready"


def test_a_crashed_server_is_restarted_after_the_backoff(repo: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manager, "BACKOFF_FIRST", 0.0)
    ci = CodeIntel(repo, config=Config(lsp=(server("crash"),)))
    for _ in range(3):
        ci.references("target", lsp_budget_ms=10000)
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    b = report.bridges[0]
    assert b.state == "failed" and b.restarts == 2
    assert b.last_error == "crashed (exit 5): fake: out of memory"


def test_a_failed_server_waits_for_its_backoff(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server("fail-start"),)))
    ci.references("target", lsp_budget_ms=10000)
    out = ci.references("target", lsp_budget_ms=10000)
    assert any("next start in" in n for n in out.coverage.limitations)
    report = ci.status().results[0]
    assert isinstance(report, StatusReport) and report.bridges[0].restarts == 0


def test_fake_server_is_the_one_under_test() -> None:
    assert (HERE / "fake_lsp.py").is_file() and Path(python()).is_file()


def test_a_hanging_server_is_restarted_after_repeated_timeouts(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)  # no waiting past the budget
    ci = CodeIntel(repo, config=Config(lsp=(server("hang"),)))
    bridge = ci.escalator.bridges()[0]
    bridge.client(10.0)
    first = bridge.pid()
    out = ci.references("target", lsp_budget_ms=300)
    assert any("no answer within 300 ms" in n for n in out.coverage.limitations)
    # Each worker counts its own timeout just after its question gave up (a question that
    # finds the server still busy with the last one is not the server's miss): ask until
    # UNRESPONSIVE misses in a row have been counted.
    deadline = time.monotonic() + 30
    while bridge.status().state == "ready" and time.monotonic() < deadline:
        out = ci.references("target", lsp_budget_ms=300)
        assert any(" not used: " in n for n in out.coverage.limitations)
        time.sleep(0.1)
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    b = report.bridges[0]
    assert b.state == "failed" and "unresponsive" in (b.last_error or "")
    assert first is not None and not alive(first)


def test_a_slow_answer_is_cached_and_the_server_kept(repo: Path) -> None:
    """Past the budget the question falls back; the worker keeps waiting (LATE_GRACE), caches
    the late verdict, and the server is not counted as hanging."""
    ci = CodeIntel(repo, config=Config(lsp=(server("slow"),)))
    bridge = ci.escalator.bridges()[0]
    bridge.client(10.0)
    first = ci.references("target", lsp_budget_ms=300)
    assert any("no answer within 300 ms" in n for n in first.coverage.limitations)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        again = ci.references("target", lsp_budget_ms=300)
        if not any(" not used: " in n for n in again.coverage.limitations):
            break
        time.sleep(0.2)
    assert [c.source for c in again.results] == ["live-lsp"] * 3
    assert bridge.status().state == "ready" and bridge.status().restarts == 0


def test_a_request_given_up_on_is_cancelled(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the budget (and the grace) the client sends $/cancelRequest, so the server can
    stop working on an answer nobody waits for."""
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)
    ci = CodeIntel(repo, config=Config(lsp=(server("hang"),)))
    ci.escalator.bridges()[0].client(10.0)
    ci.references("target", lsp_budget_ms=300)
    marker = repo / ".fake_cancelled"
    deadline = time.monotonic() + 20
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.read_text().split() != []
