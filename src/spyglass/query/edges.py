"""Batched reference-graph edges over a view: who uses a set of definitions, and what they use."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from spyglass.query import aliases
from spyglass.query.closure import CLASS_KINDS, MEMBER_KINDS
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import (
    DEF_COLS,
    DEF_FROM,
    REF_COLS,
    REF_FROM,
    Key,
    chunks,
    defs,
    defs_by_keys,
    key,
    marks,
    pairs,
    refs,
)
from spyglass.query.symbols import NAME_MATCH_SQL
from spyglass.query.view import View

__all__ = ["Key", "Use", "callees", "defs_by_keys", "enclosing_defs", "is_class", "is_member",
           "key", "module_names", "module_owners", "name_matches"]


@dataclass(frozen=True, slots=True)
class Use:
    """One reference site that uses a definition: an edge user → used of the reference graph.

    `how` is ``exact``, ``inferred`` (the resolver guessed a binding) or ``name`` (the site
    is unresolved and only its name matches); `user` is None at module level."""

    ref: RefRow
    used: DefRow
    user: DefRow | None
    how: str
    why: str


def _state(view: View) -> object:
    return (view.snapshot.id if view.snapshot else None, view.changes.digest())


# Unresolved same-name sites per name (member-style, bare) per view state.
_COUNTS: weakref.WeakKeyDictionary[View, tuple[object, dict[str, dict[bool, int]]]] = \
    weakref.WeakKeyDictionary()


KEPT = NAME_MATCH_SQL


def name_matches(view: View, wanted: set[tuple[str, bool]], listed: int
                 ) -> dict[tuple[str, bool], tuple[int, list[RefRow]]]:
    """Unresolved sites whose name matches, kept by the same rules as the references tool
    (a qualified site with an unknown receiver for members, a free bare name otherwise;
    parameters of unknown type included, which the references tool counts but does not list):
    (name, member) → (how many, the first `listed`)."""
    state = _state(view)
    cache = _COUNTS.get(view)
    if cache is None or cache[0] != state:
        cache = (state, {})
        _COUNTS[view] = cache
    known = cache[1]
    names = sorted({n for n, _ in wanted if n not in known})
    for n in names:
        known[n] = {}
    for chunk in chunks(names):
        for found, member, count in view.each(
                "SELECT r.name, r.qualifier != '', COUNT(*) FROM {refs} r JOIN temp.vfiles f "
                f"ON f.unit = r.unit WHERE r.target IS NULL AND r.name IN ({marks(chunk)}) AND "
                f"(({KEPT[True]}) OR ({KEPT[False]})) GROUP BY r.name, r.qualifier != ''",
                tuple(chunk)):
            per = known[str(found)]
            per[bool(member)] = per.get(bool(member), 0) + int(str(count))
    counts = {(n, m): known[n][m] for n, m in wanted if known[n].get(m)}
    out: dict[tuple[str, bool], tuple[int, list[RefRow]]] = {}
    for member in (True, False):
        small = sorted(n for (n, m), c in counts.items() if m == member and c <= listed)
        for chunk in chunks(small):
            for r in refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND "
                                    f"r.name IN ({marks(chunk)}) AND {KEPT[member]}",
                                    tuple(chunk))):
                k = (r.name, member)
                out.setdefault(k, (counts[k], []))[1].append(r)
        for (name, m), c in counts.items():
            if m == member and c > listed:
                rows = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL "
                                      f"AND r.name = ? AND {KEPT[member]} LIMIT {listed}",
                                      (name,)))
                out[(name, m)] = (c, rows)
    return out


def is_member(d: DefRow) -> bool:
    return d.kind in MEMBER_KINDS


def enclosing_defs(view: View, refs: Iterable[RefRow]) -> dict[Key, DefRow]:
    return defs_by_keys(view, [(r.unit, r.scope) for r in refs if r.scope >= 0])


def callees(view: View, defs: list[DefRow], limit: int = 2000) -> list[tuple[DefRow, RefRow,
                                                                              DefRow]]:
    """(caller, site, callee definition) for resolved references made inside `defs`."""
    if not defs:
        return []
    by_key = {key(d): d for d in defs}
    rows: list[RefRow] = []
    for chunk in chunks(by_key):
        values, params = pairs(chunk)
        rows += refs(view.each(f"WITH k(u, s) AS (VALUES {values}) SELECT {REF_COLS} FROM k "
                                "JOIN {refs} r ON r.unit = k.u AND r.scope = k.s "
                                "JOIN temp.vfiles f ON f.unit = r.unit "
                                f"WHERE r.target IS NOT NULL LIMIT {limit}", params))
    found = aliases.resolve(view, {str(r.target) for r in rows if r.role != "import"})
    out: list[tuple[DefRow, RefRow, DefRow]] = []
    for r in rows:
        for callee in found.get(str(r.target), [])[:1]:
            out.append((by_key[(r.unit, r.scope)], r, callee))
    return out


def is_class(d: DefRow) -> bool:
    return d.kind in CLASS_KINDS


def module_owners(view: View, refs: Iterable[RefRow]) -> dict[tuple[int, int], DefRow]:
    """For module-level sites (not imports), the top-level definition whose span holds the
    line, e.g. the variable an assignment defines: (unit, line) → definition."""
    sites = {(r.unit, r.line) for r in refs if r.scope < 0 and r.role != "import"}
    out: dict[tuple[int, int], DefRow] = {}
    units = sorted({u for u, _ in sites})
    lines: dict[int, list[int]] = {}
    for u, line in sites:
        lines.setdefault(u, []).append(line)
    for chunk in chunks(units):
        for d in defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.unit IN "
                                f"({marks(chunk)}) AND d.parent = -1", tuple(chunk))):
            for line in lines[d.unit]:
                if d.start_line <= line <= d.end_line:
                    out[(d.unit, line)] = d
    return out


def module_names(view: View, units: Iterable[int]) -> dict[int, str]:
    """The language's module key of each unit (dotted module, Go import path, …)."""
    out: dict[int, str] = {}
    for chunk in chunks(sorted(set(units))):
        for uid, module in view.each(f"SELECT u.id, u.module FROM {{units}} u WHERE u.id IN "
                                     f"({marks(chunk)})", tuple(chunk)):
            out[int(str(uid))] = str(module)
    return out
