"""The change tools' answers: blast radius and test suggestions (a walk, its tests, one envelope)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from spyglass.query.answer import Answer, merged, touched
from spyglass.query.changeset import ChangeSet, collect, other_changes
from spyglass.query.impact import Radius, grouped, locations, walk
from spyglass.query.testmap import Plan, change_summary, plan
from spyglass.types import ToolResult

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
        ("tests", tests.targets), ("commands", tests.commands),
        ("notes", tuple(n for n in radius.notes if n not in radius.limits)))
    return envelope(ans, cs, list(locations(ans, radius)), radius.truncated, extra,
                    tuple(radius.limits))


def envelope(ans: Answer, cs: ChangeSet, results: list[object], truncated: bool,
             extra: tuple[tuple[str, object], ...], limits: tuple[str, ...] = ()
             ) -> ToolResult:
    """The answer of a change question: `limits` are what the walk's bounds cut."""
    limit = ans.config.limits.max_matches_per_request
    cov = ans.coverage(cs.files or None)
    notes = unsupported_note(cs.unsupported)
    cov = replace(cov, limitations=merged(cov.limitations + notes + limits))
    return ToolResult(tuple(results[:limit]), truncated or len(results) > limit, cov,
                      touched(ans.provenance(), results, cs.files), extra)


SHOWN_UNSUPPORTED = 5  # changed files no language reads named in the note (the rest counted)


def unsupported_note(paths: list[str]) -> tuple[str, ...]:
    """One line for the changed files no language reads (manifests, lock files, data): not
    analysed for definitions (test suggestions use them as history and data-file evidence)."""
    if not paths:
        return ()
    named = ", ".join(paths[:SHOWN_UNSUPPORTED])
    more = f" and {len(paths) - SHOWN_UNSUPPORTED} more" if len(paths) > SHOWN_UNSUPPORTED else ""
    return (f"changed files not analysed (unsupported): {len(paths)}: {named}{more}",)


def test_plan(ans: Answer, targets: list[str], diff: str | None, depth: int
              ) -> tuple[ChangeSet, Radius, Plan]:
    """The change, its walk and its ranked test targets (each test with its own evidence);
    the workspace's change includes the files no language reads (a manifest, a lock file,
    a data file: the history and data-file evidence use them)."""
    cs = collect(ans, targets, diff)
    if not targets and diff is None:
        other_changes(ans, cs)
    radius = walk(ans, cs, depth)
    return cs, radius, plan(ans, radius)


def suggest_tests(ans: Answer, targets: list[str], diff: str | None, depth: int
                  ) -> ToolResult:
    """Test files to run for a change, ranked, each with its test ids, one command and its
    evidence in short; one command per framework invocation for them all."""
    cs, radius, p = test_plan(ans, targets, diff, depth)
    notes = tuple(n for n in dict.fromkeys(radius.notes + p.notes) if n not in radius.limits)
    extra: tuple[tuple[str, object], ...] = (
        ("change", change_summary(cs)), ("commands", p.commands),
        ("frameworks", p.frameworks), ("notes", notes))
    return envelope(ans, cs, list(p.by_file), radius.truncated, extra, tuple(radius.limits))
