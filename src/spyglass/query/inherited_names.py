"""Bare names inside types that inherit them: a member's name-matched site sitting in a
subclass of the member's owner is an inferred use, not a name match (the pack's
`inherited_bare_names`: Java's constants inherited from an interface; docs/languages.md)."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import closure
from spyglass.query import symbols as sym
from spyglass.query.results import DefRow, RefRow
from spyglass.query.view import View

CLASS_LIKE = frozenset({"class", "struct", "interface", "enum"})


def inheriting(view: View, d: DefRow) -> Callable[[RefRow], str | None] | None:
    """For a member `d` of a pack with `inherited_bare_names`, the rule naming the type
    that inherits `d` around an unresolved bare site (its evidence), else None; None when
    the pack does not ask or `d` has no owner type."""
    if not sym.manifest_value(d.language, "inherited_bare_names") or d.parent < 0:
        return None
    owner = sym.owner_class(view, d)
    if owner is None or owner.kind not in CLASS_LIKE:
        return None
    subs = {name.rsplit(".", 1)[0] for name in closure.inherited(view, [d])}
    if not subs:
        return None

    def rule(r: RefRow) -> str | None:
        if r.qualifier:
            return None
        t = sym.enclosing(view, r)
        while t is not None:  # the type the site is in, then the types around it
            if t.kind in CLASS_LIKE and t.full in subs:
                return (f"inferred (inherited): {t.qualname} inherits {d.name} from "
                        f"{owner.qualname}")
            t = sym.def_by_unit(view, t.unit, t.parent) if t.parent >= 0 else None
        return None
    return rule
