"""A member of a call's result proven by the callee's one declared result type (`f().m`).

Manifest key `declared_results_proven` (TypeScript). The resolver marks every member
reached through a call's result inferred (`editor.getShape().x`, `circle().distance()`),
or a guess for an imported function (`makeStore().get()`): it reads one file and cannot
see the callee's declaration. The view can. Such a site is proven when

* the receiver is the call's result itself (the qualifier ends in ``()``: not
  `f().a.m`, whose `a` is another step);
* the call's own site (same file, the callee's name on the qualifier's prefix, at or above
  the site's line) is certain, or proven by this same rule (a chain, a few calls deep);
* the callee means one definition, a function or method (an arrow function's constant
  included), with exactly one result alias (``callee.*`` → ``T.*``: one declared named
  type, its single ``return new T()`` or ``return this``; not a union, not a container);
* ``T`` means one class or interface, and ``T.m`` is a name of the target's closure (the
  member itself, or reached through a subclass that does not override it).

A member of a local holding such a call's result (`const g = this.getGeometry();
g.distance()`, `const s = makeStore(); s.get()`) is proven by the same last two steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from spyglass.query import aliases
from spyglass.query.results import RefRow
from spyglass.query.rows import REF_COLS, REF_FROM, refs
from spyglass.query.symbols import manifest_value
from spyglass.query.view import View
from spyglass.syntax import heads as H
from spyglass.syntax.composite import has_param_segment

MAX_CALLS = 4  # calls of one chain proven in turn (`a.b().c().d().m`)
CHAIN_LINES = 8  # lines a chain may span (`x\n  .getQueryCache()\n  .build()`)
_CALLEES = frozenset({"func", "method"})  # a field's type is its value's, not a result
_TYPES = frozenset({"class", "interface"})
_HELD = frozenset({H.SELF, H.IMPORT, H.DEF})  # a local's callee named from these
_NAMED = re.compile(r"(?:this\.)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
# Inferred, or a guess (an imported function whose result this file could not see).
_UNPROVEN = frozenset({"inferred", "ambiguous"})


def applies(language: str) -> bool:
    """Whether the pack proves members of call results by declared result types."""
    return bool(manifest_value(language, "declared_results_proven"))


def prover(view: View, own: Collection[str]) -> Callable[[RefRow], bool]:
    """Whether an inferred site, a member of a call's result, is proven (module docstring);
    `own` is the target's closure names."""
    callees: dict[str, str] = {}  # callee target → its result type's full name, or ""

    def result_type(target: str) -> str:
        if target not in callees:
            callees[target] = _result_type(view, target)
        return callees[target]

    def proven(r: RefRow, depth: int = 0) -> bool:
        if r.conf in _UNPROVEN and r.target and _held_result(r):
            t = result_type(r.target[:-len(r.name) - 1])
            return bool(t) and f"{t}.{r.name}" in own
        if r.conf not in _UNPROVEN or not r.target or not r.qualifier.endswith("()") \
                or depth >= MAX_CALLS or not r.target.endswith(f".{r.name}"):
            return False
        callee_target = r.target[:-len(r.name) - 1]
        t = result_type(callee_target)
        if not t or f"{t}.{r.name}" not in own:
            return False
        site = _callee_site(view, r, callee_target)
        if site is None:
            return False
        return site.conf == "exact" or proven_step(site, depth + 1)

    def proven_step(site: RefRow, depth: int) -> bool:
        """The callee's site, itself a member of a call's result, proven the same way:
        its result type's member named like it is one definition."""
        if site.conf not in _UNPROVEN or not site.target or depth >= MAX_CALLS \
                or not site.qualifier.endswith("()"):
            return False
        inner = site.target[:-len(site.name) - 1]
        t = result_type(inner)
        if not t or not _one_member(view, f"{t}.{site.name}"):
            return False
        before = _callee_site(view, site, inner)
        return before is not None and (before.conf == "exact" or proven_step(before, depth + 1))

    return proven


def _held_result(r: RefRow) -> bool:
    """Whether `r` is a member of a local holding a call's result (`const g =
    this.getGeometry()`, `const s = makeStore()`: an ``inst:`` head whose type is the
    callee, named from `this`, an import or a definition of the file), the local being the
    whole receiver. (A local holding the function itself, `const f = makeStore`, has the
    same head; a member of it that the result type declares would not type-check.)"""
    if "()" in r.qualifier or not r.target or not r.target.endswith(f".{r.name}"):
        return False
    kind, arg = H.split(H.untagged(r.head)[0])
    if kind != H.INST:
        return False
    consumed, type_head, type_text = H.parse_instance(arg)
    return consumed == len(r.qualifier.split(".")) and H.split(type_head)[0] in _HELD \
        and _NAMED.fullmatch(type_text) is not None and not has_param_segment(type_text)


def _callee_site(view: View, r: RefRow, callee_target: str) -> RefRow | None:
    """The site of the call whose result `r` is a member of: same file, the callee's name
    on the qualifier's prefix, resolved to `callee_target`, at or above `r`'s line."""
    chain = r.qualifier[:-2]
    prefix, _, name = chain.rpartition(".")
    if not name:
        return None
    found = [s for s in refs(view.each(
        f"SELECT {REF_COLS} {REF_FROM} WHERE r.unit = ? AND r.name = ? AND r.qualifier = ? "
        "AND r.line BETWEEN ? AND ?", (r.unit, name, prefix, r.line - CHAIN_LINES, r.line)))
        if s.target == callee_target and (s.line, s.col) < (r.line, r.col)]
    return found[-1] if found else None


def _result_type(view: View, callee: str) -> str:
    """The full name of the one class or interface that the callee's declared result is,
    or "" (module docstring)."""
    found = aliases.resolve(view, [callee]).get(callee, [])
    fulls = {d.full for d in found}
    if len(fulls) != 1 or any(d.kind not in _CALLEES for d in found):
        return ""
    results = aliases.wildcards(view).by_alias.get(f"{fulls.pop()}.", ())
    if len(results) != 1:
        return ""
    t = results[0][:-1] if results[0].endswith(".") else ""
    types = aliases.resolve(view, [t]).get(t, []) if t else []
    kinds = {d.full for d in types}
    if len(kinds) != 1 or any(d.kind not in _TYPES for d in types):
        return ""
    return kinds.pop()


def _one_member(view: View, name: str) -> bool:
    """Whether `name` means definitions of one full name (the member the chain reaches)."""
    return len({d.full for d in aliases.resolve(view, [name]).get(name, [])}) == 1


__all__ = ["applies", "prover"]
