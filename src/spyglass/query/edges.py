"""Batched reference-graph edges over a view: who uses a set of definitions, and what they use."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from spyglass.query.results import DefRow
from spyglass.query.symbols import (
    CLASS_KINDS,
    DEF_COLS,
    DEF_FROM,
    MEMBER_KINDS,
    NAME_MATCH_SQL,
    REF_COLS,
    REF_FROM,
    RefRow,
    _defs,
    _refs,
    defs_by_full,
)
from spyglass.query.view import View

CHUNK = 400
Key = tuple[int, int]
T = TypeVar("T")

# Wildcard re-exports (`from x import *`) per view state: read once, not once per symbol.
_STARS: weakref.WeakKeyDictionary[View, tuple[object, dict[str, list[str]]]] = \
    weakref.WeakKeyDictionary()


def key(d: DefRow) -> Key:
    return (d.unit, d.idx)


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


def _chunks(items: list[T]) -> Iterable[list[T]]:
    for i in range(0, len(items), CHUNK):
        yield items[i:i + CHUNK]


def _pairs(chunk: list[Key]) -> tuple[str, tuple[int, ...]]:
    return ",".join("(?,?)" for _ in chunk), tuple(v for k in chunk for v in k)


def _state(view: View) -> object:
    return (view.snapshot.id if view.snapshot else None, view.changes.digest())


def stars(view: View) -> dict[str, list[str]]:
    """Wildcard re-exports as target prefix (``pkg.mod.``) → alias prefixes (``pkg.``)."""
    cached = _STARS.get(view)
    state = _state(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    rows: dict[str, list[str]] = {}
    for a, t in view.each("SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                          "f.unit = a.unit WHERE a.target LIKE '%*'"):
        rows.setdefault(str(t)[:-1], []).append(str(a)[:-1])
    _STARS[view] = (state, rows)
    return rows


# Unresolved same-name sites per name (member-style, bare) per view state.
_COUNTS: weakref.WeakKeyDictionary[View, tuple[object, dict[str, dict[bool, int]]]] = \
    weakref.WeakKeyDictionary()


def _star_prefix(name: str) -> str:
    cut = max(name.rfind("."), name.rfind("#"))
    return name[:cut + 1] if cut >= 0 else ""


def defs_by_keys(view: View, keys: Iterable[Key]) -> dict[Key, DefRow]:
    """Definitions by (unit, idx), in one query per chunk."""
    wanted = list(dict.fromkeys(keys))
    out: dict[Key, DefRow] = {}
    for chunk in _chunks(wanted):
        values, params = _pairs(chunk)
        for d in _defs(view.each(f"WITH k(u, i) AS (VALUES {values}) SELECT {DEF_COLS} FROM k "
                                 "JOIN {defs} d ON d.unit = k.u AND d.idx = k.i "
                                 "JOIN temp.vfiles f ON f.unit = d.unit", params)):
            out[key(d)] = d
    return out


def closures(view: View, defs: list[DefRow], inherited: bool = True
             ) -> dict[str, list[DefRow]]:
    """Every target string meaning each definition (aliases, wildcard re-exports, members
    reached through subclasses that do not override them), as name → definitions."""
    names: dict[str, list[DefRow]] = {}
    for d in defs:
        names.setdefault(d.full, []).append(d)
    frontier = list(names)
    star_rows = stars(view)
    while frontier:
        found: list[tuple[str, str]] = []
        for chunk in _chunks(frontier):
            marks = ",".join("?" * len(chunk))
            found += [(str(a), str(t)) for a, t in view.each(
                "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                f"f.unit = a.unit WHERE a.target IN ({marks})", tuple(chunk))]
        for name in frontier:
            prefix = _star_prefix(name)
            for alias in star_rows.get(prefix, ()):
                found.append((alias + name[len(prefix):], name))
        frontier = []
        for alias, target in found:
            if alias not in names:
                names[alias] = list(names.get(target, []))
                frontier.append(alias)
    members = [d for d in defs if d.kind in MEMBER_KINDS and inherited and (
        d.parent >= 0 or d.kind == "method" and "." in d.qualname)]
    for name, ds in _inherited(view, members).items():
        names.setdefault(name, []).extend(ds)
    return names


def _inherited(view: View, members: list[DefRow]) -> dict[str, list[DefRow]]:
    """`Sub.m` names for members `m` reached through subclasses that do not override them."""
    if not members:
        return {}
    parents = defs_by_keys(view, [(m.unit, m.parent) for m in members if m.parent >= 0])
    owners = {o.full: o for o in defs_by_full(view, [_owner_full(m) for m in members
                                                     if m.parent < 0])
              if o.kind in CLASS_KINDS}
    by_class: dict[str, list[DefRow]] = {}
    for m in members:
        p = parents.get((m.unit, m.parent)) if m.parent >= 0 else owners.get(_owner_full(m))
        if p is not None:
            by_class.setdefault(p.full, []).append(m)
    out: dict[str, list[DefRow]] = {}
    # (class full name, members still inherited at this class)
    frontier = list(by_class.items())
    seen = set(by_class)
    while frontier and len(seen) < 500:
        bases = [b for b, _ in frontier]
        subs = subclasses_of(view, bases)
        inherited = dict(frontier)
        children = _child_names(view, [s for s, _ in subs])
        frontier = []
        for sub, base in subs:
            if sub.full in seen:
                continue
            seen.add(sub.full)
            body = children.get(key(sub), set())
            outside = _declared_outside(view, [f"{sub.full}.{m.name}" for m in inherited[base]])
            keep = [m for m in inherited[base] if m.name not in body
                    and f"{sub.full}.{m.name}" not in outside]
            for m in keep:
                out.setdefault(f"{sub.full}.{m.name}", []).append(m)
            if keep:
                frontier.append((sub.full, keep))
    return out


def _owner_full(m: DefRow) -> str:
    """The type a method declared outside its type's body belongs to (``pkg#T`` of ``T.M``)."""
    return m.full[:-len(m.name) - 1]


def _declared_outside(view: View, fulls: list[str]) -> set[str]:
    """Those of `fulls` that are defined (methods declared outside their type's body)."""
    return {d.full for d in defs_by_full(view, fulls)}


def _child_names(view: View, classes: list[DefRow]) -> dict[Key, set[str]]:
    out: dict[Key, set[str]] = {}
    for chunk in _chunks(list(dict.fromkeys(key(c) for c in classes))):
        values, params = _pairs(chunk)
        for unit, parent, name in view.each(
                f"WITH k(u, p) AS (VALUES {values}) SELECT d.unit, d.parent, d.name FROM k "
                "JOIN {defs} d ON d.unit = k.u AND d.parent = k.p", params):
            out.setdefault((int(str(unit)), int(str(parent))), set()).add(str(name))
    return out


def subclasses_of(view: View, bases: list[str]) -> list[tuple[DefRow, str]]:
    """(subclass, base full name) for class-like definitions deriving from `bases`."""
    rows: list[tuple[Key, str]] = []
    for chunk in _chunks(list(dict.fromkeys(bases))):
        marks = ",".join("?" * len(chunk))
        rows += [((int(str(u)), int(str(i))), str(b)) for u, i, b in view.each(
            "SELECT b.unit, b.idx, b.base FROM {bases} b JOIN temp.vfiles f ON f.unit = b.unit "
            f"WHERE b.base IN ({marks})", tuple(chunk))]
    found = defs_by_keys(view, [k for k, _ in rows])
    return [(found[k], b) for k, b in rows if k in found]


def refs_to(view: View, names: Iterable[str]) -> list[RefRow]:
    out: list[RefRow] = []
    for chunk in _chunks(sorted(set(names))):
        marks = ",".join("?" * len(chunk))
        out += _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IN ({marks})",
                               tuple(chunk)))
    return out


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
    for chunk in _chunks(names):
        marks = ",".join("?" * len(chunk))
        for found, member, count in view.each(
                "SELECT r.name, r.qualifier != '', COUNT(*) FROM {refs} r JOIN temp.vfiles f "
                f"ON f.unit = r.unit WHERE r.target IS NULL AND r.name IN ({marks}) AND "
                f"(({KEPT[True]}) OR ({KEPT[False]})) GROUP BY r.name, r.qualifier != ''",
                tuple(chunk)):
            per = known[str(found)]
            per[bool(member)] = per.get(bool(member), 0) + int(str(count))
    counts = {(n, m): known[n][m] for n, m in wanted if known[n].get(m)}
    out: dict[tuple[str, bool], tuple[int, list[RefRow]]] = {}
    for member in (True, False):
        small = sorted(n for (n, m), c in counts.items() if m == member and c <= listed)
        for chunk in _chunks(small):
            marks = ",".join("?" * len(chunk))
            for r in _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND "
                                     f"r.name IN ({marks}) AND {KEPT[member]}", tuple(chunk))):
                k = (r.name, member)
                out.setdefault(k, (counts[k], []))[1].append(r)
        for (name, m), c in counts.items():
            if m == member and c > listed:
                rows = _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL "
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
    for chunk in _chunks(list(by_key)):
        values, params = _pairs(chunk)
        rows += _refs(view.each(f"WITH k(u, s) AS (VALUES {values}) SELECT {REF_COLS} FROM k "
                                "JOIN {refs} r ON r.unit = k.u AND r.scope = k.s "
                                "JOIN temp.vfiles f ON f.unit = r.unit "
                                f"WHERE r.target IS NOT NULL LIMIT {limit}", params))
    found = resolve_many(view, {str(r.target) for r in rows if r.role != "import"})
    out: list[tuple[DefRow, RefRow, DefRow]] = []
    for r in rows:
        for callee in found.get(str(r.target), [])[:1]:
            out.append((by_key[(r.unit, r.scope)], r, callee))
    return out


def resolve_many(view: View, targets: set[str]) -> dict[str, list[DefRow]]:
    """Reference targets → the definitions they mean, following aliases (re-exports)."""
    out: dict[str, list[DefRow]] = {}
    for d in defs_by_full(view, targets):
        out.setdefault(d.full, []).append(d)
    pending = {t: t for t in targets if t not in out}  # current alias name → original target
    for _ in range(4):
        if not pending:
            break
        hops: dict[str, str] = {}
        for chunk in _chunks(sorted(pending)):
            marks = ",".join("?" * len(chunk))
            for alias, target in view.each(
                    "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                    f"f.unit = a.unit WHERE a.alias IN ({marks})", tuple(chunk)):
                hops[str(target)] = pending[str(alias)]
        hits = defs_by_full(view, hops)
        for d in hits:
            out.setdefault(hops[d.full], []).append(d)
        pending = {t: o for t, o in hops.items() if o not in out}
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
    for chunk in _chunks(units):
        marks = ",".join("?" * len(chunk))
        for d in _defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.unit IN ({marks}) "
                                 "AND d.parent = -1", tuple(chunk))):
            for line in lines[d.unit]:
                if d.start_line <= line <= d.end_line:
                    out[(d.unit, line)] = d
    return out


def module_names(view: View, units: Iterable[int]) -> dict[int, str]:
    """The language's module key of each unit (dotted module, Go import path, …)."""
    out: dict[int, str] = {}
    for chunk in _chunks(sorted(set(units))):
        marks = ",".join("?" * len(chunk))
        for uid, module in view.each(f"SELECT u.id, u.module FROM {{units}} u WHERE u.id IN "
                                     f"({marks})", tuple(chunk)):
            out[int(str(uid))] = str(module)
    return out
