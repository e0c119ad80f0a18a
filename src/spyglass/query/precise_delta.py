"""The part of the workspace a later snapshot's precise pass re-runs (docs/precise.md,
"A later commit"): the files changed since the last complete (or partial) pass, the files
a partial pass left without facts, and every file that may depend on them through
imports, as one folder a tool can be limited to; None when the tool must re-run the
whole workspace. Also the folder a re-run after a crash is limited to (`narrowest`)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from spyglass.index.store import Conn

# Files whose change may change how every file resolves (the tool's configuration).
CONFIGS = ("pyproject.toml", "pyrightconfig.json", "setup.cfg")
SHARE = 0.5  # a folder holding more than this share of the files: the whole workspace


def target(conn: Conn, snapshot: int, language: str, languages: tuple[str, ...],
           tool: str = "") -> tuple[int, str] | None:
    """(the earlier snapshot whose facts are reused, the folder to re-run — "" for none)
    when only that folder needs the tool, else None. Sound only by over-approximating:
    a file depends on a changed one if any import of it names the changed file's module
    name (its stem, or its folder for `__init__`) as any dotted segment or imported name,
    transitively; a file added, removed or renamed, a configuration changed, or no
    earlier pass that completed or was partial means the whole workspace. After a
    partial pass the files it left without facts (`tool`'s documents) count as changed:
    a file importing one it hid saw it empty, so it re-runs too."""
    row = conn.execute(
        "SELECT snapshot, state FROM precise_runs WHERE language = ? AND snapshot < ? AND "
        "state IN ('completed', 'partial') ORDER BY snapshot DESC LIMIT 1",
        (language, snapshot)).fetchone()
    if row is None:
        return None
    prev = int(row[0])
    marks = ",".join("?" * len(languages))
    now = _files(conn, snapshot, marks, languages)
    before = _files(conn, prev, marks, languages)
    if set(now) != set(before) or _configs_changed(conn, prev, snapshot):
        return None
    changed = {p for p, (blob, _) in now.items() if before[p][0] != blob}
    if str(row[1]) == "partial":
        changed |= set(now) - _with_facts(conn, prev, tool) - _nameless(
            conn, snapshot, marks, languages)
    if not changed:
        return prev, ""
    names = _import_names(conn, snapshot, marks, languages)
    todo, due = list(changed), set(changed)
    while todo:
        key = _module_name(todo.pop())
        for path, imported in names.items():
            if path not in due and key in imported:
                due.add(path)
                todo.append(path)
    folder = narrowest(due, now)
    return None if folder is None else (prev, folder)


def narrowest(due: Iterable[str], files: Iterable[str], share: float = SHARE) -> str | None:
    """The deepest folder holding every file of `due` ("pkg/sub/"), or None when that is
    the workspace's own folder or it holds more than `share` of `files` (the run would
    cover most files anyway: the whole workspace)."""
    paths = list(due)
    if not paths:
        return None
    folder = posixpath.commonpath([posixpath.dirname(p) for p in paths])
    every = list(files)
    under = sum(1 for p in every if p.startswith(folder + "/")) if folder else len(every)
    if not folder or under > share * len(every):
        return None
    return folder + "/"


def _nameless(conn: Conn, snapshot: int, marks: str, languages: tuple[str, ...]
              ) -> set[str]:
    """Files the index found no name in (no definition, no reference): a tool writes no
    document for them either, so having none is not a file left without facts."""
    return {str(r[0]) for r in conn.execute(
        "SELECT f.path FROM snapshot_files f WHERE f.snapshot = ? AND f.language IN "
        f"({marks}) AND f.skipped IS NULL AND NOT EXISTS (SELECT 1 FROM defs d WHERE "
        "d.unit = f.unit) AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.unit = f.unit)",
        (snapshot, *languages))}


def _with_facts(conn: Conn, snapshot: int, tool: str) -> set[str]:
    """The files `tool`'s documents cover in `snapshot`."""
    return {str(r[0]) for r in conn.execute(
        "SELECT path FROM scip_docs WHERE snapshot = ? AND tool LIKE ?",
        (snapshot, tool + "%"))}


def _files(conn: Conn, snapshot: int, marks: str, languages: tuple[str, ...]
           ) -> dict[str, tuple[str, int | None]]:
    return {str(p): (str(b), u) for p, b, u in conn.execute(
        f"SELECT path, blob, unit FROM snapshot_files WHERE snapshot = ? AND language IN "
        f"({marks}) AND skipped IS NULL", (snapshot, *languages))}


def _configs_changed(conn: Conn, prev: int, snapshot: int) -> bool:
    marks = ",".join("?" * len(CONFIGS))
    rows = conn.execute(
        "SELECT path, snapshot, blob FROM snapshot_files WHERE snapshot IN (?, ?) AND "
        f"(path IN ({marks}) OR " + " OR ".join("path LIKE ?" for _ in CONFIGS) + ")",
        (prev, snapshot, *CONFIGS, *(f"%/{c}" for c in CONFIGS))).fetchall()
    seen: dict[str, set[tuple[int, str]]] = {}
    for path, snap, blob in rows:
        seen.setdefault(str(path), set()).add((int(snap), str(blob)))
    return any(len({b for _, b in v}) != 1 or len(v) != 2 for v in seen.values())


def _import_names(conn: Conn, snapshot: int, marks: str, languages: tuple[str, ...]
                  ) -> dict[str, set[str]]:
    """Per file, every name its imports mention: each dotted segment of the module and
    the imported name (relative dots dropped)."""
    out: dict[str, set[str]] = {}
    for path, module, name in conn.execute(
            "SELECT f.path, i.module, i.name FROM snapshot_files f JOIN imports i ON "
            f"i.unit = f.unit WHERE f.snapshot = ? AND f.language IN ({marks}) AND "
            "f.skipped IS NULL", (snapshot, *languages)):
        names = out.setdefault(str(path), set())
        names.update(s for s in str(module).replace("/", ".").split(".") if s)
        if name:
            names.add(str(name))
    return out


def _module_name(path: str) -> str:
    """The name an import uses for the file: its stem, or its folder's for a package's
    `__init__`."""
    folder, base = posixpath.split(path)
    stem = base.split(".")[0]
    return posixpath.basename(folder) if stem == "__init__" and folder else stem
