"""Members related through types: implemented, overridden and sibling members (tsc's rule)."""

from __future__ import annotations

from dataclasses import dataclass

from spyglass.query import aliases, closure
from spyglass.query.closure import MEMBER_KINDS, VALUE_CALLABLE
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import defs_by_full, refs_to
from spyglass.query.symbols import def_by_unit, def_site, manifest_value
from spyglass.query.view import View

# An object literal's member sits in one of these (a function: a returned object).
OBJECT_KINDS = frozenset({"var", "const", "field", "func"})
MAX_STEPS = 6
MAX_OVERRIDERS = 200


def applies(language: str) -> bool:
    """The pack's `references_through_types`: a member's references include the uses of
    the members it implements or overrides, and of their other implementations."""
    return bool(manifest_value(language, "references_through_types"))


def implemented(view: View, d: DefRow) -> list[str]:
    """Full names of the members `d` implements or overrides: as a member of an object whose
    declared type maps its members (the instance alias ``m#obj.*`` → ``m#Type.*`` makes
    ``m#obj.f`` implement ``m#Type.f``), or of a type with bases (``B.f`` for ``C.f`` when
    ``C`` extends ``B``; a type alias's value is its base), transitively."""
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
    return aliases.through_wildcards(view, name)


def _through_bases(view: View, name: str) -> list[str]:
    """``m#C.f`` → ``n#B.f`` for each base ``n#B`` of the definition ``m#C``."""
    owner, dot, member = name.rpartition(".")
    if not dot or "#" not in owner:
        return []
    out: list[str] = []
    for row in defs_by_full(view, [owner]):
        for (base,) in view.each("SELECT b.base FROM {bases} b WHERE b.unit = ? AND b.idx = ?",
                                 (row.unit, row.idx)):
            out.append(f"{base}.{member}")
    return out


def overriders(view: View, root: DefRow) -> list[DefRow]:
    """Members of the same name declared in subtypes of `root`'s owner, transitively (the
    owner also under the names it is re-exported as)."""
    owner = def_by_unit(view, root.unit, root.parent) if root.parent >= 0 else None
    if owner is None:
        return []
    out: list[DefRow] = []
    frontier = sorted(closure.names_of(view, {owner.full}))
    seen = set(frontier)
    while frontier and len(out) < MAX_OVERRIDERS:
        nxt: list[str] = []
        for base in frontier:
            for unit, idx in view.each("SELECT b.unit, b.idx FROM {bases} b JOIN temp.vfiles f "
                                       "ON f.unit = b.unit WHERE b.base = ?", (base,)):
                sub = def_by_unit(view, int(str(unit)), int(str(idx)))
                if sub is None or sub.full in seen or len(seen) > MAX_OVERRIDERS * 4:
                    continue
                seen.add(sub.full)
                nxt.append(sub.full)
                out += defs_by_full(view, [f"{sub.full}.{root.name}"])
        frontier = nxt
    return out


@dataclass(frozen=True, slots=True)
class Related:
    """Names related to a member through types, none of them a name of the member itself."""

    roots: list[str]  # the members it implements or overrides
    overrides: set[str]  # names of members overriding or implementing it
    through_roots: set[str]  # names of the roots and of their other implementations
    called: set[str]  # those whose calls call it (through methods only)


def related_names(view: View, d: DefRow, names: set[str]) -> Related:
    """What `d` is related to through types (see Related); `names` are `d`'s own names."""
    roots = implemented(view, d)
    over: set[str] = set()
    if d.kind in MEMBER_KINDS:
        for other in overriders(view, d):
            over |= set(closure.seeds(view, [other]))
    overrides = closure.names_of(view, over) if over else set()
    through: set[str] = set()
    called: set[str] = set()
    for root in roots:
        hits = defs_by_full(view, [root])
        group = set() if hits else {root}
        for hit in hits:
            group |= set(closure.seeds(view, [hit]))
            for other in overriders(view, hit):
                group |= set(closure.seeds(view, [other]))
        through |= group
        if d.kind in VALUE_CALLABLE or any(h.kind in VALUE_CALLABLE for h in hits):
            called |= group
    through = closure.names_of(view, through) if through else set()
    calls = (closure.names_of(view, called) if called else set()) | (
        overrides if d.kind in VALUE_CALLABLE else set())
    return Related(roots, overrides - names, through - names - overrides, calls - names)


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


def declared_member(view: View, o: DefRow) -> bool:
    """Whether an object literal's member implements one declared member: its object's own
    declared type (``m#obj.*`` → ``m#Type.*``, one alias at the owner's cut), as tsc reads
    `const obj: Type = { f() {} }` or a returned `{ key: { f() {} } }` under a declared
    result `{ key: Type }`. A union's several members, or none, stay inferred."""
    owner = o.full.rpartition(".")[0]
    return "#" in owner and len(aliases.wildcards(view).by_alias.get(owner + ".", ())) == 1


def related_sites(view: View, d: DefRow, names: set[str], calls: bool = False
                  ) -> list[tuple[RefRow, str, bool]]:
    """Sites tied to `d` through types, each with its evidence and whether it is certain:
    uses of the members `d` implements or overrides (and of their other implementations),
    uses of its overrides, and object members implementing `d` or what it implements
    (certain where the object's type is declared: `declared_member`). For `calls`, uses
    count through methods only (calling a property of function type calls its value)."""
    if not applies(d.language):
        return []
    rel = related_names(view, d, names)
    via = ", ".join(r.rsplit("#", 1)[-1] for r in rel.roots)
    out: list[tuple[RefRow, str, bool]] = []
    for r in refs_to(view, rel.overrides | rel.through_roots):
        if calls and r.target not in rel.called:
            continue
        out.append((r, f"a use of {r.target}, which overrides or implements this member"
                    if r.target in rel.overrides else
                    f"a use of {r.target}, related through {via}, which this member "
                    "implements or overrides", False))
    why = f"implements {via or d.full.rsplit('#', 1)[-1]}: a member of an object declared " \
          "with that type"
    extra = names | rel.overrides | rel.through_roots
    # certain where both ends are declared in the project: `d` is the declared member, or
    # an object member of a declared type itself whose member is defined here (a class's
    # `implements Omit<T, 'k'>`, a library's type, stay inferred)
    proven = not rel.roots or (declared_member(view, d) and bool(defs_by_full(view, rel.roots)))
    out += [(def_site(o), why, proven and declared_member(view, o))
            for o in implementations(view, d, extra, rel.roots)]
    return out
