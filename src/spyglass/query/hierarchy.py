"""Type hierarchy: supertypes and subtypes of a type, the members a member overrides and those
overriding it; declared bases are certain, structural satisfaction is uncertain (docs/tools.md)."""

from __future__ import annotations

from collections.abc import Iterable

from spyglass.errors import BadInput
from spyglass.query import aliases, closure, dispatch
from spyglass.query import symbols as sym
from spyglass.query.answer import Answer
from spyglass.query.closure import CLASS_KINDS, MEMBER_KINDS
from spyglass.query.display import display
from spyglass.query.results import DefRow
from spyglass.query.rows import Key, defs_by_full, key
from spyglass.query.view import View
from spyglass.types import CodeLocation, ToolResult

MAX_LEVELS = 8  # inheritance levels followed each way
MAX_TYPES = 300  # types collected each way


def _bases(view: View, t: DefRow) -> list[str]:
    return [str(b) for b, in view.each(
        "SELECT b.base FROM {bases} b WHERE b.unit = ? AND b.idx = ?", (t.unit, t.idx))]


def _via(path: list[str]) -> str:
    return f" (through {', '.join(path)})" if path else ""


def inherited_member(view: View, t: DefRow, name: str) -> DefRow | None:
    """The member `name` that type `t` inherits: declared on the nearest declared base
    (base classes, embedded types) that has it."""
    for base, _, _ in supertypes(view, t, set(), [], structural=False):
        found = [m for m in defs_by_full(view, [f"{base.full}.{name}"])
                 if m.kind in MEMBER_KINDS]
        if found:
            return found[0]
    return None


def supertypes(view: View, t: DefRow, outside: set[str], notes: list[str],
               structural: bool = True) -> list[tuple[DefRow, bool, str]]:
    """Declared bases of `t`, transitively (certain), then the structural interfaces it
    satisfies (uncertain): (type, certain, evidence). Bases not in the index go to
    `outside`."""
    out: list[tuple[DefRow, bool, str]] = []
    seen: set[Key] = {key(t)}
    frontier: list[tuple[DefRow, list[str]]] = [(t, [])]
    for _ in range(MAX_LEVELS):
        nxt: list[tuple[DefRow, list[str]]] = []
        for x, path in frontier:
            names = _bases(view, x)
            found = aliases.resolve(view, names)
            for b in names:
                # a module declared as a base is a mixin (Ruby's `include Env`)
                hits = [h for h in found.get(b, []) if h.kind in CLASS_KINDS
                        or h.kind == "module"]
                if not hits:
                    outside.add(b)
                for h in hits:
                    if key(h) in seen or len(seen) > MAX_TYPES:
                        continue
                    seen.add(key(h))
                    out.append((h, True, f"supertype: declared base of {x.qualname}"
                                + _via(path)))
                    nxt.append((h, [] if x is t else [*path, x.qualname]))
        frontier = nxt
    if structural and not dispatch.is_structural(view, t):
        for other, why in dispatch.partners(view, t, notes):
            if key(other) not in seen:
                seen.add(key(other))
                out.append((other, False, f"supertype: satisfied structurally: {why}"))
    return out


def subtypes(view: View, t: DefRow, notes: list[str]) -> list[tuple[DefRow, bool, str]]:
    """Types declaring `t` (under any name it is re-exported as) as a base, transitively
    (certain), then for a structural interface the types satisfying it (uncertain)."""
    out: list[tuple[DefRow, bool, str]] = []
    seen: set[Key] = {key(t)}
    frontier: list[tuple[DefRow, list[str]]] = [(t, [])]
    for _ in range(MAX_LEVELS):
        nxt: list[tuple[DefRow, list[str]]] = []
        for x, path in frontier:
            for sub, _base in closure.subclasses_of(view, closure.names_of(view, {x.full})):
                if key(sub) in seen:
                    continue
                if len(seen) > MAX_TYPES:
                    notes.append(f"more than {MAX_TYPES} subtypes: the rest left out")
                    return out
                seen.add(key(sub))
                out.append((sub, True, f"subtype: declares {x.qualname} as a base"
                            + _via(path)))
                nxt.append((sub, [] if x is t else [*path, x.qualname]))
        frontier = nxt
    if dispatch.is_structural(view, t):
        for other, why in dispatch.partners(view, t, notes):
            if key(other) not in seen:
                seen.add(key(other))
                out.append((other, False, f"subtype: implements it structurally: {why}"))
    return out


def _members(view: View, types: Iterable[tuple[DefRow, bool, str]], name: str
             ) -> list[tuple[DefRow, DefRow, bool, str]]:
    """The member `name` of each type (declared on it, or promoted into its method set):
    (member, type, certain, the type's evidence)."""
    out: list[tuple[DefRow, DefRow, bool, str]] = []
    for t, certain, why in types:
        full = dispatch.member_full(view, t, name)
        for m in defs_by_full(view, [full]) if full else []:
            if m.kind in MEMBER_KINDS:
                out.append((m, t, certain, why))
    return out


def hierarchy(ans: Answer, targets: list[DefRow]) -> ToolResult:
    """The type hierarchy of `targets`: for a type, its supertypes and subtypes (interfaces
    implemented and implementations included); for a member, the members it overrides or
    implements and those overriding or implementing it. Declared relations are certain;
    structural ones (Go interfaces, Python Protocols) are uncertain, matched by name."""
    view = ans.view()
    out: dict[Key, CodeLocation] = {}
    outside: set[str] = set()
    notes: list[str] = []
    types = [t for t in targets if t.kind in CLASS_KINDS]
    if types and len(types) < len(targets):  # a type and its factory function of one
        targets = types  # name (Kotlin's `fun Job(): Job`): the type is meant
    ambiguous = sym.ambiguity(targets)
    if ambiguous:
        notes.append(ambiguous)

    def add(d: DefRow, certain: bool, why: str) -> None:
        k = key(d)
        if ambiguous:
            certain, why = False, f"{why} (of one of several candidates, see limitations)"
        if k not in out or (certain and out[k].uncertain):
            out[k] = ans.def_location(d, not certain, why)

    for t in targets:
        # a module that a type declares as a base is a mixin (Ruby's `include Env`)
        mixed_in = subtypes(view, t, notes) if t.kind == "module" else []
        if t.kind in CLASS_KINDS or mixed_in:
            for d, certain, why in supertypes(view, t, outside, notes):
                add(d, certain, why)
            for d, certain, why in mixed_in or subtypes(view, t, notes):
                add(d, certain, why)
            continue
        owner = sym.owner_class(view, t) if t.kind in MEMBER_KINDS else None
        if owner is None:
            raise BadInput(f"{display(t)} is a {t.kind}: the type hierarchy is for types "
                           "and their members (methods, fields)")
        ups = supertypes(view, owner, outside, notes)
        for m, base, certain, why in _members(view, ups, t.name):
            how = "implements" if base.kind == "interface" or not certain else "overrides"
            add(m, certain, f"overridden: {t.qualname} {how} it; {base.qualname} is a {why}")
        for m, sub, certain, why in _members(view, subtypes(view, owner, notes), t.name):
            if m.full == t.full:
                continue  # inherited, not overridden
            add(m, certain, f"overriding: it overrides or implements {t.qualname}; "
                f"{sub.qualname} is a {why}")
    if outside:
        names = sorted(outside)
        notes.append(f"supertypes outside the project's index: {', '.join(names[:8])}"
                     + (", ..." if len(names) > 8 else ""))
    ordered = sorted(out.values(), key=lambda c: (c.uncertain, c.evidence.split(":")[0],
                                                  c.path, c.start_line))
    if not ordered:  # say what was looked for, so an empty answer is not a silent one
        what = ", ".join(display(t) for t in targets[:3])
        notes.append(f"{what}: no supertypes, subtypes, overridden or overriding members in "
                     "the project's index (classes made at run time, e.g. with type(), and "
                     "code outside the index are not seen)")
    return ans.envelope(list(ordered), notes=tuple(notes))
