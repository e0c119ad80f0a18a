"""The part of the workspace a later snapshot's precise pass re-runs (docs/precise.md,
"A later commit"): the files changed since the last complete pass and every file that
may depend on them through imports, as one folder a tool can be limited to; None when
the tool must re-run the whole workspace."""

from __future__ import annotations

import posixpath

from spyglass.index.store import Conn

# Files whose change may change how every file resolves (the tool's configuration).
CONFIGS = ("pyproject.toml", "pyrightconfig.json", "setup.cfg")
SHARE = 0.5  # a folder holding more than this share of the files: the whole workspace


def target(conn: Conn, snapshot: int, language: str, languages: tuple[str, ...]
           ) -> tuple[int, str] | None:
    """(the earlier snapshot whose facts are reused, the folder to re-run — "" for none)
    when only that folder needs the tool, else None. Sound only by over-approximating:
    a file depends on a changed one if any import of it names the changed file's module
    name (its stem, or its folder for `__init__`) as any dotted segment or imported name,
    transitively; a file added, removed or renamed, a configuration changed, or an
    earlier pass that was not complete means the whole workspace."""
    row = conn.execute(
        "SELECT max(snapshot) FROM precise_runs WHERE language = ? AND snapshot < ? AND "
        "state = 'completed'", (language, snapshot)).fetchone()
    if row is None or row[0] is None:
        return None
    prev = int(row[0])
    marks = ",".join("?" * len(languages))
    now = _files(conn, snapshot, marks, languages)
    before = _files(conn, prev, marks, languages)
    if set(now) != set(before) or _configs_changed(conn, prev, snapshot):
        return None
    changed = {p for p, (blob, _) in now.items() if before[p][0] != blob}
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
    folder = posixpath.commonpath([posixpath.dirname(p) for p in due])
    under = sum(1 for p in now if p.startswith(folder + "/")) if folder else len(now)
    if not folder or under > SHARE * len(now):
        return None  # the run would cover most files anyway: the whole workspace
    return prev, folder + "/"


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
