"""The blast-radius answer: the impact walk, grouped by file and package, with the tests the
walk reaches (query/impact.py walks, query/testmap.py plans the tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spyglass.query import impact, testmap
from spyglass.query.changeset import collect
from spyglass.types import ToolResult

if TYPE_CHECKING:
    from spyglass.query.facade import CodeIntel


def blast_radius(ci: CodeIntel, targets: list[str], diff: str | None, depth: int
                 ) -> ToolResult:
    """The change (targets, a diff or the workspace), what it affects by distance, grouped
    by file and package, and the tests to run (docs/impact.md)."""
    cs = collect(ci, targets, diff)
    radius = impact.walk(ci, cs, depth)
    plan = testmap.plan(ci, radius, same_file=False)
    files, packages = impact.grouped(radius)
    extra: tuple[tuple[str, object], ...] = (
        ("change", testmap.change_summary(cs)), ("files", files), ("packages", packages),
        ("tests", plan.targets), ("commands", plan.commands), ("notes", tuple(radius.notes)))
    return testmap.envelope(ci, cs, list(impact.locations(ci, radius)), radius.truncated, extra)
