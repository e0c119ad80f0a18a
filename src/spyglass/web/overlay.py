"""The workspace overlay as a diff against the baseline snapshot, and repository diagnostics."""

from __future__ import annotations

from typing import Any

from spyglass.errors import IndexUnavailable
from spyglass.query import symbols as sym
from spyglass.query.changeset import from_workspace
from spyglass.query.facade import CodeIntel
from spyglass.query.results import DefRow
from spyglass.query.view import View
from spyglass.wire import coverage_json, plain, provenance_json

MAX_DIAGNOSTICS_LISTED = 50
DEF_SQL = ("SELECT unit, idx, name, qualname, full, kind, start_line, end_line, name_line, "
           "name_col, parent FROM main.defs WHERE unit = ? ORDER BY start_line")
DIAG_SQL = ("SELECT f.path, g.line, g.end_line, g.col, g.severity, g.message "
            "FROM {diags} g JOIN temp.vfiles f ON f.unit = g.unit")


def baseline_defs(view: View, path: str) -> list[DefRow]:
    """The definitions the baseline snapshot holds for `path` (empty for a new file)."""
    member = view.members.get(path)
    if member is None or member.unit is None:
        return []
    rows = view.conn.execute(DEF_SQL, (member.unit,)).fetchall()
    return [DefRow(*r, path=path, language=member.language or "",  # type: ignore[misc]
                   source="cached-index", stale=True) for r in rows]


def _changed_lines(ci: CodeIntel) -> dict[tuple[str, str], str]:
    """(path, full name) → why, for definitions that own a changed line."""
    out: dict[tuple[str, str], str] = {}
    for seed in from_workspace(ci).seeds:
        if not seed.removed:
            out.setdefault((seed.d.path, seed.d.full), seed.why)
    return out


def _file_entry(ci: CodeIntel, view: View, path: str, status: str,
                owners: dict[tuple[str, str], str] | None) -> dict[str, Any]:
    now = sym.defs_in_file(view, path) if status != "deleted" else []
    before = baseline_defs(view, path) if status != "added" else []
    before_names = {d.full for d in before}
    now_names = {d.full for d in now}
    added = [d for d in now if d.full not in before_names]
    removed = [d for d in before if d.full not in now_names]
    changed: list[dict[str, Any]] = []
    for d in now:
        if d.full not in before_names:
            continue
        why = owners.get((path, d.full)) if owners is not None else None
        if owners is None:
            old = next(b for b in before if b.full == d.full)
            if old.end_line - old.start_line == d.end_line - d.start_line:
                continue
            why = "span length changed (line-level diff unavailable)"
        if why:
            changed.append(plain(ci.def_location(d, uncertain=owners is None, evidence=why)))
    member = view.members.get(path)
    language = (member.language if member else None) or (now[0].language if now else None)
    return {
        "path": path, "status": status, "language": language,
        "definitions": {
            "added": [plain(ci.def_location(d, evidence="not in the baseline snapshot"))
                      for d in added],
            "removed": [plain(ci.def_location(d, evidence="in the baseline snapshot, gone "
                                              "from the file on disk")) for d in removed],
            "changed": changed,
        },
    }


def diff_overlay(ci: CodeIntel, run_id: str) -> dict[str, Any]:
    """Added/modified/deleted paths vs the snapshot, with definitions added/removed/changed."""
    with ci.lock:
        view = ci.view()
        snap = view.snapshot
        if snap is None:
            raise IndexUnavailable("no baseline snapshot yet: index the repository first "
                                   "(POST /api/v1/code/repos/{repo_id}/index)")
        changes = view.changes
        listed = [(p, "added") for p in changes.added] + [
            (p, "modified") for p in changes.modified] + [(p, "deleted") for p in changes.deleted]
        listed.sort()
        limit = ci.config.limits.max_files_per_request
        owners = _changed_lines(ci) if listed else {}
        files = [_file_entry(ci, view, p, s, owners) for p, s in listed[:limit]]
        files += [{"path": p, "status": s, "language": None, "definitions": None}
                  for p, s in listed[limit:]]
        return {
            "run_id": run_id,
            "base": {"commit": snap.commit, "ref": snap.ref, "indexed_at": snap.indexed_at},
            "workspace_digest": changes.digest(),
            "summary": {"added": len(changes.added), "modified": len(changes.modified),
                        "deleted": len(changes.deleted)},
            "results": files,
            "truncated": len(listed) > limit,
            "coverage": coverage_json(ci.coverage([p for p, s in listed[:limit]
                                                   if s != "deleted"] or None)),
            "provenance": provenance_json(ci.provenance()),
        }


def diagnostics_summary(ci: CodeIntel) -> dict[str, Any]:
    """Parse diagnostics of every analysed file in the view (baseline + overlay), bounded."""
    with ci.lock:
        view = ci.view()
        rows = sorted(view.each(DIAG_SQL), key=lambda r: (str(r[0]), int(str(r[1]))))
    items = [{"path": r[0], "start_line": r[1], "end_line": r[2], "column": int(str(r[3])) + 1,
              "severity": r[4], "message": r[5]} for r in rows[:MAX_DIAGNOSTICS_LISTED]]
    return {"count": len(rows), "files": len({r[0] for r in rows}), "items": items,
            "truncated": len(rows) > MAX_DIAGNOSTICS_LISTED}
