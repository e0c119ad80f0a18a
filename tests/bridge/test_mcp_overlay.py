"""External MCP bridges and unsaved edits (docs/bridge.md "External MCP servers"): an
external server reads the checkout when it starts and keeps caches spyglass cannot see
into, so files changed since then are given to it when its declared tool takes an `overlay`
argument; when it does not, it is not trusted on them — its sites there are neither
confirmations nor refutations nor additions, a target's own changed file is not asked about
at all, and coverage.limitations says so. Each test asks once first: the server starts and
reads the workspace, then the files change."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import ANSWERS, CORE, USE, mcp_server

from spyglass.config import Config
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation

OTHER = "from pkg.core import target\n\n\ndef other():\n    return target()\n"
# fake answers: pkg/use.py as in helpers (line 9 refuted, 13 server-only), pkg/other.py 1, 5
REFS = ANSWERS["refs"] + [["pkg/other.py", 0], ["pkg/other.py", 4]]


@pytest.fixture
def repo3(make_repo: Callable[..., Path]) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE,
                      "pkg/other.py": OTHER})
    (root / ".fake_answers.json").write_text(json.dumps({"refs": REFS}))
    return root


def by_file(results: tuple[object, ...]) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list[tuple[int, str]]] = {}
    for c in results:
        if isinstance(c, CodeLocation):
            out.setdefault(c.path, []).append((c.start_line, c.source))
    return out


def logged(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def note_of(ci_out: object) -> str:
    limits = ci_out.coverage.limitations  # type: ignore[attr-defined]
    return str(next(n for n in limits if n.startswith("MCP server fake-mcp")))


def test_clean_workspace_is_judged_everywhere(repo3: Path) -> None:
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok"),)))
    ci.index()
    out = by_file(ci.references("target", lsp_budget_ms=20000).results)
    assert out["pkg/use.py"] == [(1, "live-lsp"), (5, "live-lsp"), (13, "live-lsp")]
    assert out["pkg/other.py"] == [(1, "live-lsp"), (5, "live-lsp")]


def test_a_changed_file_is_not_judged_by_a_tool_without_overlay(repo3: Path,
                                                                tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok", log=str(log)),)))
    ci.index()
    index = by_file(ci.references("target", lsp_budget_ms=0).results)
    ci.references("target", lsp_budget_ms=20000)  # the server starts, reads the checkout
    (repo3 / "pkg" / "use.py").write_text(USE + "\n\ndef late():\n    return target()\n")
    out = ci.references("target", lsp_budget_ms=20000)
    got = by_file(out.results)
    # pkg/use.py: exactly the index's sites (9 not refuted, 13 not added), none live-lsp,
    # the new call at line 17 included; pkg/other.py still decided by the server.
    assert [ln for ln, _ in got["pkg/use.py"]] == [ln for ln, _ in index["pkg/use.py"]] + [17]
    assert all(src != "live-lsp" for _, src in got["pkg/use.py"])
    assert got["pkg/other.py"] == [(1, "live-lsp"), (5, "live-lsp")]
    note = note_of(out)
    assert "1 file(s) it has not seen as they are now" in note
    assert "their 4 site(s) are the index's" in note
    assert len(logged(log)) == 2 and "overlay" not in logged(log)[-1]["args"]  # type: ignore[operator]


def test_the_targets_changed_file_means_the_server_is_not_asked(repo3: Path,
                                                                tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok", log=str(log)),), required=True))
    ci.index()
    ci.references("target", lsp_budget_ms=20000)
    (repo3 / "pkg" / "core.py").write_text("\n\n" + CORE)  # target moved down two lines
    out = ci.references("target", lsp_budget_ms=20000)  # required, yet not an error
    assert all(c.source != "live-lsp" for c in out.results if isinstance(c, CodeLocation))
    note = note_of(out)
    assert "the target's file pkg/core.py changed since the server read the workspace" in note
    assert note.endswith("the answer is the index's")
    assert len(logged(log)) == 1  # the first question only


def test_a_tool_declaring_overlay_gets_the_live_content(repo3: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("overlay", log=str(log)),)))
    ci.index()
    ci.references("target", lsp_budget_ms=20000)
    assert logged(log)[-1]["args"]["overlay"] == {}  # type: ignore[index]  # nothing unseen
    edited = USE + "\n\ndef late():\n    return target()  # LIVE_USE\n"
    (repo3 / "pkg" / "use.py").write_text(edited)
    (repo3 / "pkg" / "core.py").write_text("\n\n" + CORE)  # the target's file changed too
    out = ci.references("target", lsp_budget_ms=20000)
    got = by_file(out.results)
    assert (17, "live-lsp") in got["pkg/use.py"]  # known to the server only from the overlay
    assert (9, "live-lsp") not in got["pkg/use.py"]  # refuted: this file was judged
    args = logged(log)[-1]["args"]
    assert isinstance(args, dict) and args["line"] == 3
    assert args["overlay"] == {"pkg/core.py": "\n\n" + CORE, "pkg/use.py": edited}
    assert "has not seen as they are now" not in note_of(out)


def test_edits_before_a_launch_are_what_it_reads(repo3: Path) -> None:
    """Edits made before a launch are what that launch reads: nothing is blind for it."""
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok"),)))
    ci.index()
    (repo3 / "pkg" / "use.py").write_text(USE + "\n")  # in the index's overlay, not unsaved
    out = ci.references("target", lsp_budget_ms=20000)
    assert (5, "live-lsp") in by_file(out.results)["pkg/use.py"]
    assert "has not seen as they are now" not in note_of(out)


def test_a_restarted_server_reads_the_edits_itself(repo3: Path) -> None:
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok"),)))
    ci.index()
    ci.references("target", lsp_budget_ms=20000)
    (repo3 / "pkg" / "use.py").write_text(USE + "\n")
    blind = ci.references("target", lsp_budget_ms=20000)
    assert "has not seen as they are now" in note_of(blind)
    ci.escalator.bridges()[0].stop()  # the next question launches it again
    again = ci.references("target", lsp_budget_ms=20000)
    assert (5, "live-lsp") in by_file(again.results)["pkg/use.py"]
    assert "has not seen as they are now" not in note_of(again)


def radius_users(results: tuple[object, ...]) -> dict[str, str]:
    return {c.symbol: c.source for c in results
            if isinstance(c, CodeLocation) and c.symbol != "pkg.core.target"}


def test_blast_radius_users_in_changed_files_stay_the_indexs(repo3: Path) -> None:
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok"),)))
    ci.index()
    index = radius_users(ci.blast_radius(["pkg/core.py:1"], depth=1,
                                         lsp_budget_ms=0).results)
    ci.references("target", lsp_budget_ms=20000)
    (repo3 / "pkg" / "use.py").write_text(USE + "\n")  # changed, not given to the server
    out = ci.blast_radius(["pkg/core.py:1"], depth=1, lsp_budget_ms=20000)
    got = radius_users(out.results)
    assert got["pkg.other.other"] == "live-lsp"  # an unchanged file: the server decides
    # caller_b (refuted in a clean workspace) stays, caller_c (server-only) is not added
    assert {s for s in got if s.startswith("pkg.use.")} == \
        {s for s in index if s.startswith("pkg.use.")} == {"pkg.use.caller_a", "pkg.use.caller_b"}
    assert all(got[s] != "live-lsp" for s in got if s.startswith("pkg.use."))
    assert "has not seen as they are now" in note_of(out)


def test_blast_radius_of_a_changed_definition_is_not_asked(repo3: Path,
                                                           tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("ok", log=str(log)),)))
    ci.index()
    ci.references("target", lsp_budget_ms=20000)
    (repo3 / "pkg" / "core.py").write_text(CORE.replace("return 1", "return 2"))
    out = ci.blast_radius([], lsp_budget_ms=20000)
    note = note_of(out)
    assert "the target's file pkg/core.py changed since the server read" in note
    assert note.endswith("distance 1 is the index's") and len(logged(log)) == 1


def test_sites_the_server_flags_stale_are_not_its_verdict(repo3: Path) -> None:
    """A contract server flags a location `stale: true` when its own index is older than
    the file: the file is not its to judge, like a file it has not seen."""
    ci = CodeIntel(repo3, config=Config(lsp=(mcp_server("stale"),)))
    ci.index()
    index = by_file(ci.references("target", lsp_budget_ms=0).results)
    out = ci.references("target", lsp_budget_ms=20000)
    got = by_file(out.results)
    assert got["pkg/use.py"] == index["pkg/use.py"]  # 9 kept, 13 not added, none live-lsp
    assert all(src != "live-lsp" for _, src in got["pkg/use.py"])
    assert got["pkg/other.py"] == [(1, "live-lsp"), (5, "live-lsp")]
    assert "flagged stale in its answer" in note_of(out)
