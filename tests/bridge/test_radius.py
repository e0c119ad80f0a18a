"""Blast radius at depth 1 escalated through a (fake) language server (docs/bridge.md):
confirmed users become live-lsp, refuted ones are dropped with what was reached only through
them, users only the server knows are added; same budget, cache and failure rules as
references."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import CASES, server

from spyglass.config import Config
from spyglass.errors import BridgeUnavailable
from spyglass.query import escalate
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation


def users(results: tuple[object, ...]) -> list[tuple[str, str | None, bool]]:
    out = []
    for c in results:
        assert isinstance(c, CodeLocation)
        if c.evidence and c.evidence.startswith("distance 1"):
            out.append((c.symbol, c.source, c.uncertain))
    return sorted(out)


def test_distance_one_users_are_checked_by_the_server(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    index = ci.blast_radius(["pkg/core.py:1"], depth=2, lsp_budget_ms=0)
    assert [u[0] for u in users(index.results)] == ["pkg.use.caller_a", "pkg.use.caller_b"]
    out = ci.blast_radius(["pkg/core.py:1"], depth=2, lsp_budget_ms=10000)
    assert users(out.results) == [("pkg.use.caller_a", "live-lsp", False),
                                  ("pkg.use.caller_c", "live-lsp", False)]
    by_symbol = {c.symbol: c for c in out.results if isinstance(c, CodeLocation)}
    assert "confirmed by fake" in (by_symbol["pkg.use.caller_a"].evidence or "")
    assert "found by fake" in (by_symbol["pkg.use.caller_c"].evidence or "")
    note = next(n for n in out.coverage.limitations if "language server fake" in n)
    assert "1 user(s) confirmed" in note and "1 refuted and dropped" in note
    assert "1 only the server found added" in note
    files = dict(out.extra)["files"]
    assert [f.path for f in files] == ["pkg/core.py", "pkg/use.py"]


def test_the_verdict_is_cached_like_references(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    first = ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=10000)
    asked = ci.escalator.asked
    assert ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=10000).results == first.results
    assert ci.escalator.asked == asked
    (repo / "pkg" / "use.py").write_text((repo / "pkg" / "use.py").read_text() + "\n")
    ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=10000)
    assert ci.escalator.asked == asked + 1


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_failing_server_leaves_the_index_radius_with_a_note(
        case: str, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)
    lsp, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(lsp,)))
    if case == "hang":
        ci.escalator.bridges()[0].client(10.0)
    index = ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=0)
    out = ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=budget)
    assert out.results == index.results
    extra = [n for n in out.coverage.limitations if n not in index.coverage.limitations]
    assert len(extra) == 1 and f"language server {lsp.label} (python) not used" in extra[0]
    assert reason in extra[0] and "distance 1 is the index's" in extra[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_required_turns_a_radius_failure_into_an_error(
        case: str, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalate, "LATE_GRACE", 0.0)
    lsp, budget, reason = CASES[case]
    ci = CodeIntel(repo, config=Config(lsp=(lsp,), required=True))
    if case == "hang":
        ci.escalator.bridges()[0].client(10.0)
    with pytest.raises(BridgeUnavailable, match="is required") as err:
        ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=budget)
    assert reason in str(err.value) and lsp.label in str(err.value)


def test_budget_zero_never_starts_a_server(repo: Path) -> None:
    ci = CodeIntel(repo, config=Config(lsp=(server(),)))
    ci.blast_radius(["pkg/core.py:1"], lsp_budget_ms=0)
    assert ci.escalator.bridges()[0].state == "idle"
