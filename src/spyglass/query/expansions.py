"""Uses of a C name reached through a macro's expansion: when the expansion is proven."""

from __future__ import annotations

import re

from spyglass.query import accounting
from spyglass.query import symbols as sym
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import defs_by_full
from spyglass.query.view import View
from spyglass.syntax import heads as H


def macros_of(view: View, r: RefRow) -> list[DefRow]:
    """The macro definitions a site names, when its name is another's than the target's
    and it resolved to a macro (`OUTER(v)`); [] for any other site."""
    if r.target is None:
        return []
    return [o for o in defs_by_full(view, [r.target]) if o.kind == "macro"
            and o.language == r.language]


def doubt(view: View, d: DefRow, r: RefRow, live: list[DefRow]) -> str:
    """Why a use of `d` through the expansion of macro `r` (`live`: its definitions not in
    a preprocessor branch their build leaves out) is not proven, "" when it is. It is proven when `d` is no macro (a macro's
    use spelled inside another's body is that body's: the expansion site is not counted
    as one), every definition of the macro names `d` in its body (the resolver's alias
    `M` → `d`: not a parameter, not pasted, not a member), the site is no preprocessor
    directive (`#ifndef M` tests the name), and no local variable or
    parameter of `d`'s name is bound where the macro is expanded (the body's name would
    mean that local)."""
    if d.kind == "macro":
        return (f"reached only through the expansion of macro {r.name}: a macro's own uses "
                f"are spelled in {r.name}'s body, not at its expansion")
    line = accounting.file_lines(view, r.path)[r.line - 1:r.line]
    if line and line[0].lstrip().startswith("#"):
        return (f"{r.name} is named in a preprocessor directive (`{line[0].strip()[:60]}`): "
                "a macro's name there is tested, not expanded")
    naming = _units_naming(view, str(r.target), {d.full, d.name})
    other = next((m for m in live if m.unit not in naming), None)
    if other is not None:
        return (f"reached only through the expansion of macro {r.name}: {len(live)} "
                f"definitions of {r.name}, and the one at {other.path}:{other.name_line} "
                f"does not name {d.name}; which one this unit expands is not decided")
    units = [m.unit for m in live]
    if len(units) != len(set(units)):  # twins in one file: which names `d` is not known
        return (f"reached only through the expansion of macro {r.name}: one file defines "
                f"{r.name} more than once (under preprocessor branches not decided)")
    if _bound_locally(view, d.name, r):
        return (f"reached through the expansion of macro {r.name}, where a local name "
                f"{d.name!r} is bound: the body's {d.name} may mean that local")
    return ""


def _units_naming(view: View, macro: str, targets: set[str]) -> set[int]:
    """The units whose definition of `macro` names one of `targets` in its body."""
    marks = ", ".join("?" for _ in targets)
    return {int(str(u)) for (u,) in view.each(
        "SELECT DISTINCT a.unit FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
        f"WHERE a.alias = ? AND a.target IN ({marks})", (macro, *sorted(targets)))}


def _bound_locally(view: View, name: str, r: RefRow) -> bool:
    """Whether `name` may be bound in the definition around `r` (a parameter, a local):
    the definition's text spells it more often than the index has sites of it there that
    resolved to a file-level definition (a parameter's name is no site; a local's is one
    bound locally)."""
    outer = sym.enclosing(view, r)
    if outer is None:
        return False
    lines = accounting.file_lines(view, r.path)[outer.start_line - 1:outer.end_line]
    spelled = sum(len(re.findall(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line))
                  for line in lines)
    if not spelled:
        return False
    resolved = view.each(
        "SELECT COUNT(*) FROM {refs} r WHERE r.unit = ? AND r.name = ? AND r.line BETWEEN ? "
        f"AND ? AND r.head NOT IN ('{H.LOCAL}', '{H.PARAM}')",
        (r.unit, name, outer.start_line, outer.end_line))
    return spelled > sum(int(str(n)) for (n,) in resolved)
