"""The property blast radius ⊇ references: every site the references and callers tools return
for a definition lies in a definition (or file) that blast radius lists at distance ≤ 1,
and a site they return as certain is covered by a certain blast radius entry."""

from __future__ import annotations

from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation


def _distance(loc: CodeLocation) -> int:
    head = loc.evidence.split(":", 1)[0]  # "distance N"
    return int(head.split()[-1]) if head.startswith("distance ") else 99


def _covers(b: CodeLocation, s: CodeLocation) -> bool:
    """`b` holds site `s`: its definition's span does, or it is the site's file at module
    level; an import line is held by any entry of its file (blast radius lists a file's
    import line only while no definition of that file is affected as early)."""
    return b.path == s.path and (b.kind == "module" or s.kind == "import"
                                 or b.start_line <= s.start_line <= b.end_line)


def uncovered(ci: CodeIntel, path: str, line: int, column: int | None
              ) -> tuple[list[str], int]:
    """Sites of the definition at path:line:column that blast radius at depth 1 misses (or
    holds only as uncertain while the references tool is certain), as readable strings,
    and how many sites were checked."""
    with ci.lock:
        targets = sym.targets_at(ci.view(), path, line, column)
    problems: list[str] = []
    checked = 0
    for d in targets[:1]:
        where = {"path": d.path, "line": d.name_line, "column": d.name_col + 1}
        refs = ci.references(**where).results  # type: ignore[arg-type]
        calls = ci.callers(**where).results  # type: ignore[arg-type]
        span = f"{d.path}:{d.start_line}-{d.end_line}"  # d and what it holds
        blast = [b for b in ci.blast_radius([span], depth=1).results
                 if isinstance(b, CodeLocation) and _distance(b) <= 1]
        for tool, sites in (("references", refs), ("callers", calls)):
            for s in sites:
                assert isinstance(s, CodeLocation)
                checked += 1
                hits = [b for b in blast if _covers(b, s)]
                if not hits:
                    problems.append(f"{tool} site {s.path}:{s.start_line} of {d.full} not in "
                                    "blast radius at depth 1")
                elif tool == "references" and not s.uncertain and all(b.uncertain
                                                                       for b in hits):
                    problems.append(f"certain site {s.path}:{s.start_line} of {d.full} only "
                                    "uncertain in blast radius")
    return problems, checked
