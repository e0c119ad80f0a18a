"""Declarations merged into another type's (TypeScript `declare global { interface Node
{ m: T } }`, `declare module 'pkg' { interface Commands { … } }`): uses that may reach them.

A member the project adds to a builtin type: a use through a receiver of that type may
reach the project.

The syntax layer binds a receiver whose declared type is one of its pack's `builtins` to
`extern` (never a project member). Where the project declares a type of that builtin's name
whose members include the first member read through the receiver (`node.pmViewDesc.x`,
`node.pmViewDesc`), the site is no certain exclusion: it is flagged, with that evidence
(docs/accuracy.md, TypeScript round five). No language is named here: the builtins are the
pack's.

An interface declared inside a module-kind definition (`declare module 'pkg' { interface
Commands … }`) merges with the interface of its name that the module declares: a use bound
with certainty to a file-level type of that name (`Commands<T>` in the package) is a use
of the merged declaration too. Which module the specifier names is not proven here (and a
`namespace` holding the interface would not merge): such a use is flagged, never excluded.
"""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import symbols as sym
from spyglass.query.results import DefRow, RefRow
from spyglass.query.view import View
from spyglass.syntax import heads as H

# Kinds of a project definition that may merge into a builtin type of its name.
_MERGING_KINDS = frozenset({"interface", "class"})


def augmented(view: View, targets: list[DefRow]) -> Callable[[RefRow], str]:
    """The evidence that a use may reach a target through a merged declaration, "" for
    none: a use bound to a type `targets` augment from inside a module (`_merged`), or
    on a builtin-typed receiver reading a member the project declares on a type of that
    builtin's name (cached per member name)."""
    seen: dict[tuple[str, str], str] = {}
    merged = _merged(view, targets)

    def why(r: RefRow) -> str:
        if r.target is not None and r.target in merged:
            return merged[r.target]
        if H.split(H.untagged(r.head)[0])[0] != H.EXTERN:
            return ""
        parts = f"{r.qualifier}.{r.name}".split(".") if r.qualifier else []
        if len(parts) < 2:
            return ""
        member = parts[1]
        if (r.language, member) not in seen:
            seen[(r.language, member)] = _declaring(view, r.language, member)
        return seen[(r.language, member)]
    return why


def _declaring(view: View, language: str, member: str) -> str:
    """Evidence naming the project type of a builtin's name that declares `member`, or ""."""
    builtins = sym.manifest_value(language, "builtins")
    names = frozenset(str(b) for b in builtins) if isinstance(builtins, list) else frozenset()
    if not names or not member.isidentifier():
        return ""
    for m in sym.find_defs(view, member):
        owner, _, own = m.qualname.rpartition(".")
        if m.language != language or own != member or owner not in names:
            continue
        if any(o.kind in _MERGING_KINDS and o.qualname == owner and o.unit == m.unit
               for o in sym.find_defs(view, owner, path=m.path)):
            return (f"a member of builtin `{owner}` that the project declares too "
                    f"({m.path}:{m.name_line}, `{owner}.{member}`): the builtin type may "
                    "be merged with it")
    return ""


def _merged(view: View, targets: list[DefRow]) -> dict[str, str]:
    """The full names of file-level types a target augments from inside a module-kind
    definition (`declare module 'pkg' { interface Commands … }`), with evidence."""
    out: dict[str, str] = {}
    for d in targets:
        if d.kind not in _MERGING_KINDS or d.parent < 0:
            continue
        holder = sym.def_by_unit(view, d.unit, d.parent)
        if holder is None or holder.kind != "module" or holder.parent >= 0 or \
                d.qualname != f"{holder.qualname}.{d.name}":
            continue
        for o in sym.find_defs(view, d.name):
            if o.unit != d.unit and o.parent < 0 and o.qualname == d.name and \
                    o.kind in _MERGING_KINDS and o.language == d.language:
                out[o.full] = (f"bound to {o.path}:{o.name_line} `{o.name}`, which "
                               f"`{holder.name}`'s declaration of `{d.name}` "
                               f"({d.path}:{d.name_line}) may merge into")
    return out
