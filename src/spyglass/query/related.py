"""Members related through declared types: an object's member implements its type's member."""

from __future__ import annotations

from spyglass.query.results import DefRow
from spyglass.query.symbols import (
    MEMBER_KINDS,
    RefRow,
    closure,
    closure_names,
    def_by_unit,
    def_site,
    defs_by_full,
    exact_refs,
)
from spyglass.query.view import View

OBJECT_KINDS = frozenset({"var", "const"})  # a member of an object literal sits in one
MAX_STEPS = 6


def implemented(view: View, d: DefRow) -> list[str]:
    """Full names of the members `d` implements: `d` is a member of an object whose declared
    type maps its members (the instance alias ``m#obj.*`` → ``m#Type.*`` makes ``m#obj.f``
    implement ``m#Type.f``), followed through type aliases and bases of a type that does not
    declare the member itself (``type Any = Builder<…>`` reaches ``Builder.f``)."""
    if d.kind not in MEMBER_KINDS:
        return []
    seen = {d.full}
    frontier = [d.full]
    found: list[str] = []
    for _ in range(MAX_STEPS):
        nxt: list[str] = []
        for name in frontier:
            for new in _declared(view, name) or _through_bases(view, name):
                if new not in seen:
                    seen.add(new)
                    nxt.append(new)
                    found.append(new)
        if not nxt:
            break
        frontier = nxt
    return found


def _declared(view: View, name: str) -> list[str]:
    """``m#obj.f`` → ``m#Type.f`` for each instance alias ``m#obj.*`` → ``m#Type.*``."""
    start = name.find("#")
    prefixes = [name[:i + 1] + "*" for i in range(start + 1, len(name)) if name[i] == "."]
    if not prefixes:
        return []
    marks = ",".join("?" * len(prefixes))
    out: list[str] = []
    for alias, target in view.each(
            "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
            f"WHERE a.alias IN ({marks}) AND a.target LIKE '%*'", tuple(prefixes)):
        out.append(str(target)[:-1] + name[len(str(alias)) - 1:])
    return out


def _through_bases(view: View, name: str) -> list[str]:
    """``m#Alias.f`` → ``n#Base.f`` when no definition is named ``m#Alias.f`` and the
    definition ``m#Alias`` has bases (a type alias's value, an interface's extends)."""
    if defs_by_full(view, [name]):
        return []
    owner, dot, member = name.rpartition(".")
    if not dot or "#" not in owner:
        return []
    out: list[str] = []
    for row in defs_by_full(view, [owner]):
        for (base,) in view.each("SELECT b.base FROM {bases} b WHERE b.unit = ? AND b.idx = ?",
                                 (row.unit, row.idx)):
            out.append(f"{base}.{member}")
    return out


def related_names(view: View, d: DefRow, names: set[str]) -> tuple[list[str], set[str]]:
    """(declared members `d` implements, every name meaning them that `names` lacks)."""
    roots = implemented(view, d)
    out: set[str] = set()
    for root in roots:
        hits = defs_by_full(view, [root])
        for hit in hits:
            out |= closure(view, hit)
        if not hits:
            out |= closure_names(view, {root})
    return roots, out - names


def implementations(view: View, d: DefRow, names: set[str], roots: list[str]
                    ) -> list[DefRow]:
    """Object members among the definitions named by `names`: implementations of the
    declared members (`roots`, or `d` itself), each a member of an object literal."""
    own = set(roots) if roots else {d.full}
    out: list[DefRow] = []
    for other in defs_by_full(view, sorted(names - own)):
        if other.kind not in MEMBER_KINDS or other.parent < 0:
            continue
        parent = def_by_unit(view, other.unit, other.parent)
        if parent is not None and parent.kind in OBJECT_KINDS:
            out.append(other)
    return out


def related_sites(view: View, d: DefRow, names: set[str]) -> list[tuple[RefRow, str]]:
    """Sites tied to `d` through a declared type, each with its evidence: uses of the
    members `d` implements, and object members implementing `d` (or what `d` implements)."""
    roots, extra = related_names(view, d, names)
    via = ", ".join(r.rsplit("#", 1)[-1] for r in roots)
    out = [(r, f"a use of {via}, which this object member implements (declared type)")
           for r in exact_refs(view, extra)]
    what = via or d.full.rsplit("#", 1)[-1]
    why = f"implements {what}: a member of an object declared with that type"
    out += [(def_site(other), why) for other in implementations(view, d, names | extra, roots)]
    return out
