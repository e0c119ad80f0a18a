"""The reference sites of one file with the definition each resolves to (the web code view
makes them links: go to the definition, find its references)."""

from __future__ import annotations

from spyglass.query import aliases
from spyglass.query.results import Site
from spyglass.query.rows import REF_COLS, REF_FROM, refs
from spyglass.query.view import View

MAX_SITES = 20_000  # sites of one file listed at most (a generated file may hold more)


def file_sites(view: View, rel: str) -> tuple[list[Site], bool]:
    """The sites of `rel` whose target the index resolves to a definition, in line order,
    and whether MAX_SITES cut them."""
    rows = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE f.path = ?", (rel,)))
    rows.sort(key=lambda r: (r.line, r.col))
    cut = len(rows) > MAX_SITES
    rows = rows[:MAX_SITES]
    found = aliases.resolve(view, {r.target for r in rows if r.target})
    out: list[Site] = []
    for r in rows:
        hits = found.get(r.target or "", [])
        if not hits:
            continue
        d = hits[0]
        out.append(Site(r.line, r.col, r.end_col, r.name, r.role, d.path, d.start_line,
                        d.end_line, d.qualname, d.kind, len(hits) > 1 or r.conf != "exact"))
    return out, cut
