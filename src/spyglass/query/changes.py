"""The change tools' answers: blast radius and test suggestions (a walk, its tests, one envelope)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from spyglass.query.answer import Answer
from spyglass.query.changeset import ChangeSet, collect
from spyglass.query.impact import Radius, grouped, locations, walk
from spyglass.query.results import TestTarget
from spyglass.query.testmap import change_summary, plan
from spyglass.types import CodeLocation, ToolResult

Refine = Callable[[ChangeSet, Callable[[], Radius]], Radius]


def blast_radius(ans: Answer, targets: list[str], diff: str | None, depth: int,
                 refine: Refine | None = None) -> ToolResult:
    """Affected symbols (by distance, with evidence), files, packages and tests. `refine`
    runs the walk and may check its first layer (a language server, query/escalate.py)."""
    cs = collect(ans, targets, diff)
    radius = (refine(cs, lambda: walk(ans, cs, depth)) if refine is not None
              else walk(ans, cs, depth))
    tests = plan(ans, radius, same_file=False, reach=False)
    files, packages = grouped(radius)
    extra: tuple[tuple[str, object], ...] = (
        ("change", change_summary(cs)), ("files", files), ("packages", packages),
        ("tests", tests.targets), ("commands", tests.commands), ("notes", tuple(radius.notes)))
    return envelope(ans, cs, list(locations(ans, radius)), radius.truncated, extra,
                    tuple(radius.limits))


def envelope(ans: Answer, cs: ChangeSet, results: list[object], truncated: bool,
             extra: tuple[tuple[str, object], ...], limits: tuple[str, ...] = ()
             ) -> ToolResult:
    """The answer of a change question: `limits` are what the walk's bounds cut."""
    limit = ans.config.limits.max_matches_per_request
    cov = ans.coverage(cs.files or None)
    notes = tuple(f"changed file not analysed (unsupported): {p}" for p in cs.unsupported[:20])
    cov = replace(cov, limitations=cov.limitations + notes + limits)
    return ToolResult(tuple(results[:limit]), truncated or len(results) > limit, cov,
                      ans.provenance(), extra)


def suggest_tests(ans: Answer, targets: list[str], diff: str | None, depth: int
                  ) -> ToolResult:
    """Focused test targets of a change, ranked, each with evidence and a command."""
    cs = collect(ans, targets, diff)
    radius = walk(ans, cs, depth)
    p = plan(ans, radius)
    results: list[object] = [_location(ans, t) for t in p.targets]
    extra: tuple[tuple[str, object], ...] = (
        ("change", change_summary(cs)), ("tests", p.targets), ("commands", p.commands),
        ("frameworks", p.frameworks), ("notes", tuple(radius.notes + p.notes)))
    return envelope(ans, cs, results, radius.truncated, extra, tuple(radius.limits))


def _location(ans: Answer, t: TestTarget) -> CodeLocation:
    view = ans.view()
    row = view.conn.execute("SELECT source, stale FROM temp.vfiles WHERE path = ?",
                            (t.path,)).fetchone()
    source, stale = (str(row[0]), bool(row[1])) if row else ("text-fallback", False)
    kind = "test" if t.symbol else "module"
    symbol = t.symbol or t.path
    return ans.location(t.path, t.start_line, t.end_line, symbol, kind, source, stale,
                        t.uncertain, f"{t.reason}: {t.evidence}; run: {t.command}")


