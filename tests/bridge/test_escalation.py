"""Escalation through a (fake) language server run by the real launcher: confirmed sites
become live-lsp, refuted ones are dropped and counted, server-only sites are added; the
overlay's live content reaches the server; verdicts are cached by snapshot and overlay
digest; the lifecycle shows in code_status (docs/bridge.md)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import CORE, HERE, NEEDS_BWRAP, USE, alive, has_bwrap, host_config, python, server

from spyglass.bridge import manager
from spyglass.bridge.lsp import WARM_UP_QUERY, LspTimeout, settle
from spyglass.config import Config, LspServer
from spyglass.query import escalate
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport
from spyglass.types import CodeLocation


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"





def lines(result: list[CodeLocation] | tuple[CodeLocation, ...]) -> list[tuple[int, str, bool]]:
    return [(c.start_line, c.source, c.uncertain) for c in result]


def test_references_confirmed_refuted_and_added(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    index = ci.references("target", lsp_budget_ms=0)
    assert [c.start_line for c in index.results] == [1, 5, 9]
    out = ci.references("target", lsp_budget_ms=10000)
    assert lines(out.results) == [(1, "live-lsp", False), (5, "live-lsp", False),
                                  (13, "live-lsp", False)]
    note = next(n for n in out.coverage.limitations if "language server fake" in n)
    assert "2 site(s) confirmed" in note and "1 index site(s) refuted" in note
    assert "1 site(s) only the server found" in note


def test_callers_name_the_calling_function(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    out = ci.callers("target", lsp_budget_ms=10000)
    assert [(c.start_line, c.symbol, c.source) for c in out.results] == [
        (5, "pkg.use.caller_a", "live-lsp"), (13, "pkg.use.caller_c", "live-lsp")]


def test_verdicts_are_cached_and_the_overlay_reaches_the_server(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    first = ci.references("target", lsp_budget_ms=10000)
    asked = ci.escalator.asked
    assert ci.references("target", lsp_budget_ms=10000).results == first.results
    assert ci.escalator.asked == asked  # answered from the cache
    # A live edit: the fake server only knows it through didOpen/didChange (never disk).
    (repo / "pkg" / "use.py").write_text(USE + "# LIVE_USE\n")
    edited = ci.references("target", lsp_budget_ms=10000)
    assert ci.escalator.asked == asked + 1
    assert (14, "live-lsp", False) in lines(edited.results)
    (repo / "pkg" / "use.py").write_text(USE + "\n# LIVE_USE\n")  # didChange this time
    again = ci.references("target", lsp_budget_ms=10000)
    assert (15, "live-lsp", False) in lines(again.results)
    assert (14, "live-lsp", False) not in lines(again.results)


def test_status_lists_the_bridge(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    assert [(b.name, b.state) for b in report.bridges] == [("fake", "idle")]
    ci.references("target", lsp_budget_ms=10000)
    bridge = ci.status().results[0]
    assert isinstance(bridge, StatusReport)
    b = bridge.bridges[0]
    assert (b.state, b.version, b.language, b.last_error) == ("ready", "fake-lsp 1.0",
                                                               "python", None)
    assert b.pid is not None and alive(b.pid) and b.uptime_s is not None


def test_a_server_reads_the_workspace_before_it_is_ready(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up: one workspace/symbol request (a query nothing matches) before the
    bridge is `ready`, before any document is opened; off, the server is not asked."""
    monkeypatch.setattr(manager, "WARM_UP", False)
    cold = CodeIntel(repo, config=Config(lsp=(server(),)))
    cold.escalator.bridges()[0].client(10.0)
    assert not (repo / ".fake_warmed").exists()
    manager.stop_all()
    monkeypatch.setattr(manager, "WARM_UP", True)
    ci = CodeIntel(repo, config=Config(lsp=(server("crash"),)))
    bridge = ci.escalator.bridges()[0]
    bridge.client(10.0)
    assert bridge.state == "ready"  # crash mode: the warm-up is no question
    assert (repo / ".fake_warmed").read_text() == f"{WARM_UP_QUERY} 0\n"


def test_budget_zero_never_starts_a_server(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),), lsp_budget_ms=0))
    ci.references("target")
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    assert report.bridges[0].state == "idle" and ci.escalator.asked == 0


def test_partial_first_answers_are_re_asked(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server("partial"),)))
    out = ci.references("target", lsp_budget_ms=10000)
    assert [c.start_line for c in out.results] == [1, 5, 13]


def test_settle_stops_when_two_answers_agree() -> None:
    answers = iter([[], [1], [1, 2], [1, 2], [9]])
    calls: list[float] = []

    def ask(left: float) -> list[int]:
        calls.append(left)
        return next(answers)
    assert settle(ask, deadline=float("inf"), pause=0.0) == [1, 2]
    assert len(calls) == 4


def test_settle_does_not_trust_an_unsettled_answer() -> None:
    answers = iter([[1], [1, 2], [1, 2, 3]])
    with pytest.raises(LspTimeout, match="did not settle"):
        settle(lambda left: next(answers), deadline=time.monotonic() + 0.25, pause=0.1)


def test_escalation_under_the_sandbox(repo: Path) -> None:
    if not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    shutil.copy(HERE / "fake_lsp.py", repo / "fake_lsp.txt")  # readable in the sandbox
    sandboxed = LspServer("python", (python(), str(repo / "fake_lsp.txt"), "ok"), (),
                          "sandbox", False, "fake")
    ci = CodeIntel(repo, config=Config(lsp=(sandboxed,)))
    out = ci.references("target", lsp_budget_ms=10000)
    assert lines(out.results) == [(1, "live-lsp", False), (5, "live-lsp", False),
                                  (13, "live-lsp", False)]


MANY = ("from pkg.core import target\n\n\ndef a():\n    return target()\n\n\ndef b():\n"
        "    return target()\n\n\ndef c():\n    return target()\n\n\ndef d():\n"
        "    return target()\n")


def test_a_server_denying_most_certain_sites_is_doubted(make_repo: Callable[..., Path]) -> None:
    """A server with an incomplete view (it confirms 1 of 5 certain sites, and reports
    nothing in the folder of the other 4) does not empty the answer: the denied sites stay
    as the index gave them, and the note says why."""
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE,
                      "app/__init__.py": "", "app/many.py": MANY})
    (root / ".fake_answers.json").write_text(json.dumps({"refs": [["pkg/use.py", 0],
                                                                  ["pkg/use.py", 4]]}))
    ci = CodeIntel(root, config=Config(lsp=(server(),)))
    index = ci.references("target", lsp_budget_ms=0)
    out = ci.references("target", lsp_budget_ms=10000)
    kept = [(c.path, c.start_line, c.source) for c in out.results]
    assert [(p, ln) for p, ln, _ in kept] == [(c.path, c.start_line) for c in index.results
                                              if (c.path, c.start_line) != ("pkg/use.py", 9)]
    assert "live-lsp" not in {src for p, _, src in kept if p == "app/many.py"}
    note = next(n for n in out.coverage.limitations if "denied" in n)
    assert "denied 6 of the index's 8 certain site(s)" in note
    assert "the 5 in folders it reported nothing for are kept" in note
    assert "1 refuted and dropped" in note


def test_denials_in_a_folder_the_server_reported_on_stand(
        make_repo: Callable[..., Path]) -> None:
    """Most certain sites denied, but in the folder the server did report on (gopls on a
    file excluded by build constraints): they are dropped."""
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": MANY})
    (root / ".fake_answers.json").write_text(json.dumps({"refs": [["pkg/use.py", 4]]}))
    ci = CodeIntel(root, config=Config(lsp=(server(),)))
    out = ci.references("target", lsp_budget_ms=10000)
    assert lines(out.results) == [(5, "live-lsp", False)]
    assert any("1 site(s) confirmed (live-lsp), 4 index site(s) refuted and dropped" in n
               for n in out.coverage.limitations)


@pytest.mark.anyio
async def test_over_mcp_the_budget_is_a_tool_argument_and_answers_say_live_lsp(
        repo: Path, tmp_path: Path) -> None:
    from mcp import Client

    from spyglass.mcp.server import build_server
    config = host_config(tmp_path, server())
    built = build_server(repo, environ={}, config_path=str(config))
    async with Client(built.server, mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "lsp_budget_ms" in tools["code_callers"].input_schema["properties"]
        out = await client.call_tool("code_callers", {"name": "target",
                                                      "lsp_budget_ms": 10000})
        assert not out.is_error
        data = out.structured_content or {}
        assert {r["source"] for r in data["results"]} == {"live-lsp"}
        bad = await client.call_tool("code_callers", {"name": "target", "lsp_budget_ms": -1})
        assert bad.is_error


def test_callers_without_a_call_hierarchy_are_checked_against_references(repo: Path) -> None:
    """A server with no call hierarchy item for the target (tsc for `let f: F = () => ...`)
    is not "no callers": the index's callers are confirmed or refuted by its references,
    and a reference alone (line 13, not a call) is never added as a caller."""
    answers = json.loads((repo / ".fake_answers.json").read_text())
    (repo / ".fake_answers.json").write_text(json.dumps(answers | {"no_hierarchy": True}))
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    index = ci.callers("target", lsp_budget_ms=0)
    assert [c.start_line for c in index.results] == [5, 9]
    out = ci.callers("target", lsp_budget_ms=10000)
    assert [(c.start_line, c.symbol, c.source) for c in out.results] == [
        (5, "pkg.use.caller_a", "live-lsp")]
    assert "no call hierarchy" in (out.results[0].evidence or "")
    note = next(n for n in out.coverage.limitations if "language server fake" in n)
    assert "1 site(s) confirmed" in note and "1 index site(s) refuted" in note
    assert "0 site(s) only the server found added" in note
    assert "checked against its references" in note


def test_a_call_hierarchy_with_no_incoming_calls_refutes(repo: Path) -> None:
    """An item with no incoming calls is the server's answer "no callers" (unlike no
    item): the index's certain callers are refuted, not kept by the empty-answer rule."""
    (repo / ".fake_answers.json").write_text(json.dumps({"refs": [], "calls": []}))
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    index = ci.callers("target", lsp_budget_ms=0)
    assert [(c.start_line, c.uncertain) for c in index.results] == [(5, False), (9, False)]
    out = ci.callers("target", lsp_budget_ms=10000)
    assert list(out.results) == []
    note = next(n for n in out.coverage.limitations if "language server fake" in n)
    assert "2 index site(s) refuted" in note
    assert not any("found no sites for the target" in n for n in out.coverage.limitations)
    # References are the other question: an empty answer there still keeps the index's.
    refs = ci.references("target", lsp_budget_ms=10000)
    assert [c.start_line for c in refs.results] == [1, 5, 9]
    assert any("found no sites for the target" in n for n in refs.coverage.limitations)


@pytest.mark.parametrize("no_hierarchy", [False, True])
def test_the_call_hierarchy_decides_callers_over_references(repo: Path,
                                                            no_hierarchy: bool) -> None:
    """References and incoming calls disagree: the server's references list caller_b's
    call (0-based line 8), its call hierarchy does not. With an item for the target the
    call hierarchy decides, so caller_b is refuted; references only stand in (confirm,
    never add) when the server has no item at all."""
    answers = {"refs": [["pkg/use.py", 0], ["pkg/use.py", 4], ["pkg/use.py", 8]],
               "calls": [["pkg/use.py", 4, "caller_a"]], "no_hierarchy": no_hierarchy}
    (repo / ".fake_answers.json").write_text(json.dumps(answers))
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    out = ci.callers("target", lsp_budget_ms=10000)
    got = [(c.start_line, c.symbol, c.source) for c in out.results]
    kept = [(9, "pkg.use.caller_b", "live-lsp")] if no_hierarchy else []
    assert got == [(5, "pkg.use.caller_a", "live-lsp"), *kept]
    note = next(n for n in out.coverage.limitations if "language server fake" in n)
    assert ("0 index site(s) refuted" if no_hierarchy else "1 index site(s) refuted") in note
    assert ("checked against its references" in note) is no_hierarchy


def test_answers_while_the_server_indexes_are_not_trusted(repo: Path) -> None:
    """A server that starts a background index when the first document opens (clangd)
    answers partially, and consistently, until its work-done progress ends: the bridge
    waits for the end and asks again instead of refuting what the index is not done with."""
    ci = CodeIntel(repo, config=Config(lsp=(server("indexing"),)))
    out = ci.references("target", lsp_budget_ms=10000)
    assert lines(out.results) == [(1, "live-lsp", False), (5, "live-lsp", False),
                                  (13, "live-lsp", False)]


def test_still_indexing_past_the_deadline_is_a_note(repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)
    ci = CodeIntel(repo, config=Config(lsp=(server("indexing"),)))
    ci.escalator.bridges()[0].client(10.0)
    index = ci.references("target", lsp_budget_ms=0)
    out = ci.references("target", lsp_budget_ms=600)
    assert out.results == index.results
    assert any("not used" in n for n in out.coverage.limitations)
    bridge = ci.escalator.bridges()[0]
    assert bridge.state == "ready"  # not counted as unresponsive, not restarted
