"""The include graph read backwards: which files include a header, and so which of several
same-named file-scoped definitions (C typedefs) a site means (docs/c.md)."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import rows as R
from spyglass.query import symbols as sym
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import chunks, marks
from spyglass.query.view import View

MAX_INCLUDERS = 20_000  # files followed back from one header before giving up (a bound)


def includers(view: View, path: str, limit: int = MAX_INCLUDERS) -> set[str] | None:
    """`path` and every file that includes it, directly or through other headers; None
    when more than `limit` files do (the caller then does not filter)."""
    seen = {path}
    frontier = [path]
    while frontier:
        found: list[str] = []
        for chunk in chunks(frontier):
            for (p,) in view.each(
                    "SELECT DISTINCT f.path FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit "
                    f"WHERE r.target IN ({marks(chunk)}) AND r.role = 'import'", tuple(chunk)):
                if str(p) not in seen:
                    seen.add(str(p))
                    found.append(str(p))
        if len(seen) > limit:
            return None
        frontier = found
    return seen


def file_scoped_filter(view: View, d: DefRow) -> Callable[[RefRow], bool] | None:
    """For a definition of a kind its pack scopes to its file (manifest
    `file_scoped_kinds`: C typedefs, which clangd tells apart by file) that shares its full
    name with definitions in other files: keep a site when its file includes `d`'s file,
    or includes none of the others' (the include is then not resolved: kept). None when
    there is nothing to tell apart."""
    kinds = sym.manifest_value(d.language, "file_scoped_kinds")
    if not isinstance(kinds, list) or d.kind not in kinds:
        return None
    others = {o.path for o in R.defs_by_full(view, [d.full]) if o.path != d.path}
    if not others:
        return None
    mine = includers(view, d.path)
    if mine is None:
        return None
    theirs: set[str] = set()
    for other in sorted(others):
        got = includers(view, other)
        if got is None:
            return None
        theirs |= got
    return lambda r: r.path in mine or r.path not in theirs
