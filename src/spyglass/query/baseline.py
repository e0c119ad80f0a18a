"""The workspace overlay against the baseline snapshot: definitions added, removed, changed
per file, and the parse diagnostics of the whole view (docs/web.md, run views)."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import rows
from spyglass.query import symbols as sym
from spyglass.query.results import (
    BaseSnapshot,
    DefinitionChanges,
    DefRow,
    DiagnosticItem,
    DiagnosticsSummary,
    FileChange,
    OverlaySummary,
)
from spyglass.query.view import View
from spyglass.types import CodeLocation

MAX_DIAGNOSTICS_LISTED = 50
DIAG_SQL = ("SELECT f.path, g.line, g.end_line, g.col, g.severity, g.message "
            "FROM {diags} g JOIN temp.vfiles f ON f.unit = g.unit")

Locate = Callable[[DefRow, bool, str], CodeLocation]  # definition, uncertain, evidence
Owners = dict[tuple[str, str], str]  # (path, full name) → why it changed


def baseline_defs(view: View, path: str) -> list[DefRow]:
    """The definitions the baseline snapshot holds for `path` (empty for a new file)."""
    member = view.members.get(path)
    if member is None or member.unit is None:
        return []
    return rows.baseline_defs(view, member.unit, path, member.language or "")


def file_change(view: View, path: str, status: str, owners: Owners | None,
                locate: Locate) -> FileChange:
    """One overlay path with its definitions compared by full name; `owners` (None when a
    line-level diff is unavailable) says which kept definitions own a changed line."""
    now = sym.defs_in_file(view, path) if status != "deleted" else []
    before = baseline_defs(view, path) if status != "added" else []
    before_by_name = {d.full: d for d in before}
    now_names = {d.full for d in now}
    changed: list[CodeLocation] = []
    for d in now:
        old = before_by_name.get(d.full)
        if old is None:
            continue
        if owners is not None:
            why = owners.get((path, d.full))
        elif old.end_line - old.start_line != d.end_line - d.start_line:
            why = "span length changed (line-level diff unavailable)"
        else:
            why = None
        if why:
            changed.append(locate(d, owners is None, why))
    member = view.members.get(path)
    language = (member.language if member else None) or (now[0].language if now else None)
    return FileChange(path, status, language, DefinitionChanges(
        added=tuple(locate(d, False, "not in the baseline snapshot")
                    for d in now if d.full not in before_by_name),
        removed=tuple(locate(d, False, "in the baseline snapshot, gone from the file on disk")
                      for d in before if d.full not in now_names),
        changed=tuple(changed)))


def overlay_files(view: View, limit: int, owners: Owners | None, locate: Locate
                  ) -> tuple[list[FileChange], bool]:
    """Every overlay path in order, the first `limit` with their definitions; truncated?"""
    changes = view.changes
    listed = sorted([(p, "added") for p in changes.added]
                    + [(p, "modified") for p in changes.modified]
                    + [(p, "deleted") for p in changes.deleted])
    files = [file_change(view, p, s, owners, locate) for p, s in listed[:limit]]
    files += [FileChange(p, s, None, None) for p, s in listed[limit:]]
    return files, len(listed) > limit


def base_of(view: View) -> tuple[BaseSnapshot, OverlaySummary] | None:
    """The baseline snapshot and the overlay's counts (None before the first snapshot)."""
    snap = view.snapshot
    if snap is None:
        return None
    c = view.changes
    return (BaseSnapshot(snap.commit, snap.ref, snap.indexed_at),
            OverlaySummary(len(c.added), len(c.modified), len(c.deleted)))


def diagnostics_summary(view: View) -> DiagnosticsSummary:
    """Parse diagnostics of every analysed file (baseline + overlay), the first 50 listed."""
    rows = sorted(view.each(DIAG_SQL), key=lambda r: (str(r[0]), int(str(r[1]))))
    items = tuple(DiagnosticItem(path=str(r[0]), start_line=int(str(r[1])),
                                 end_line=int(str(r[2])), column=int(str(r[3])) + 1,
                                 severity=str(r[4]), message=str(r[5]))
                  for r in rows[:MAX_DIAGNOSTICS_LISTED])
    return DiagnosticsSummary(count=len(rows), files=len({r[0] for r in rows}), items=items,
                              truncated=len(rows) > MAX_DIAGNOSTICS_LISTED)
