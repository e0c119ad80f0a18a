"""A module named where a symbol is expected: its uses are the imports of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spyglass.query import edges
from spyglass.query.rows import REF_COLS, REF_FROM, refs
from spyglass.types import ToolResult

if TYPE_CHECKING:
    from spyglass.query.answer import Answer

SEPARATORS = (".", "#", "/")  # between a module key and the names inside it (the packs')


def is_module(ans: Answer, name: str) -> bool:
    """Whether `name` is a module key of the view (``pkg.mod``, a Go import path)."""
    return bool(ans.view().each("SELECT 1 FROM {units} u JOIN temp.vfiles f ON f.unit = u.id "
                                "WHERE u.module = ? LIMIT 1", (name,)))


def module_imports(ans: Answer, name: str, offset: int = 0) -> ToolResult:
    """The import sites of module `name`: `import pkg.mod`, `from pkg.mod import x`
    (one site per imported name), resolved by the index; each with the importing file's
    module as its symbol."""
    view = ans.view()
    rows = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.role = 'import' AND "
                          "r.target = ?", (name,)))
    for sep in SEPARATORS:
        lo, hi = name + sep, name + chr(ord(sep) + 1)
        rows += refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.role = 'import' AND "
                               "r.target >= ? AND r.target < ?", (lo, hi)))
    sites = {(r.path, r.line): (r.unit, str(r.target), r.conf == "exact") for r in rows}
    # `import pkg.mod` binds no name inside the module: the import statement itself, as
    # is `from pkg import mod`
    parent, _, last = name.rpartition(".")
    for unit, path, line, module, bound in view.each(
            "SELECT i.unit, f.path, i.line, i.module, i.name FROM {imports} i JOIN temp.vfiles "
            "f ON f.unit = i.unit WHERE (i.module = ? AND i.name IS NULL) OR (i.module = ? "
            "AND i.name = ?)", (name, parent, last)):
        target = f"{module}.{bound}" if bound else str(module)
        sites.setdefault((str(path), int(str(line))), (int(str(unit)), target, True))
    owners = edges.module_names(view, [u for u, _, _ in sites.values()])
    files = {str(p): (str(s), bool(st)) for p, s, st in view.conn.execute(
        "SELECT path, source, stale FROM temp.vfiles").fetchall()}
    out: list[object] = []
    for (path, line), (unit, target, exact) in sorted(sites.items()):
        source, stale = files.get(path, ("cached-index", False))
        out.append(ans.location(path, line, line, owners.get(unit, path), "import", source,
                                stale, not exact, f"imports {target} (module {name})"))
    note = ((f"{name!r} is a module: its references are the imports of it (and of names in "
            "it); ask for a name inside it for the uses of that name"),)
    return ans.envelope(out, notes=note, offset=offset)
