"""Members the project adds to a builtin type (TypeScript `declare global { interface Node
{ m: T } }`): a use through a receiver of that builtin type may reach the project.

The syntax layer binds a receiver whose declared type is one of its pack's `builtins` to
`extern` (never a project member). Where the project declares a type of that builtin's name
whose members include the first member read through the receiver (`node.pmViewDesc.x`,
`node.pmViewDesc`), the site is no certain exclusion: it is flagged, with that evidence
(docs/accuracy.md, TypeScript round five). No language is named here: the builtins are the
pack's."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import symbols as sym
from spyglass.query.results import RefRow
from spyglass.query.view import View

# Kinds of a project definition that may merge into a builtin type of its name.
_MERGING_KINDS = frozenset({"interface", "class"})


def augmented(view: View) -> Callable[[RefRow], str]:
    """The evidence that a use on a builtin-typed receiver reads a member the project
    declares on a type of that builtin's name, "" for none (cached per member name)."""
    seen: dict[tuple[str, str], str] = {}

    def why(r: RefRow) -> str:
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
