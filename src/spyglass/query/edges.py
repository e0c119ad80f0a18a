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
_STARS: weakref.WeakKeyDictionary[View, tuple[object, list[tuple[str, str]]]] = \
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


def stars(view: View) -> list[tuple[str, str]]:
    cached = _STARS.get(view)
    state = _state(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    rows = [(str(a), str(t)) for a, t in view.each(
        "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
        "WHERE a.target LIKE '%*'")]
    _STARS[view] = (state, rows)
    return rows


def defs_by_keys(view: View, keys: Iterable[Key]) -> dict[Key, DefRow]:
    """Definitions by (unit, idx), in one query per chunk."""
    wanted = list(dict.fromkeys(keys))
    out: dict[Key, DefRow] = {}
    for chunk in _chunks(wanted):
        values, params = _pairs(chunk)
        for d in _defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE (d.unit, d.idx) IN "
                                 f"(VALUES {values})", params)):
            out[key(d)] = d
    return out


def closures(view: View, defs: list[DefRow]) -> dict[str, list[DefRow]]:
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
            for alias, target in star_rows:
                prefix = target[:-1]
                if name.startswith(prefix) and not any(s in name[len(prefix):] for s in ".#"):
                    found.append((alias[:-1] + name[len(prefix):], name))
        frontier = []
        for alias, target in found:
            if alias not in names:
                names[alias] = list(names.get(target, []))
                frontier.append(alias)
    members = [d for d in defs if d.kind in MEMBER_KINDS and d.parent >= 0]
    for name, ds in _inherited(view, members).items():
        names.setdefault(name, []).extend(ds)
    return names


def _inherited(view: View, members: list[DefRow]) -> dict[str, list[DefRow]]:
    """`Sub.m` names for members `m` reached through subclasses that do not override them."""
    if not members:
        return {}
    parents = defs_by_keys(view, [(m.unit, m.parent) for m in members])
    by_class: dict[str, list[DefRow]] = {}
    for m in members:
        p = parents.get((m.unit, m.parent))
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
            keep = [m for m in inherited[base] if m.name not in children.get(key(sub), set())]
            for m in keep:
                out.setdefault(f"{sub.full}.{m.name}", []).append(m)
            if keep:
                frontier.append((sub.full, keep))
    return out


def _child_names(view: View, classes: list[DefRow]) -> dict[Key, set[str]]:
    out: dict[Key, set[str]] = {}
    for chunk in _chunks(list(dict.fromkeys(key(c) for c in classes))):
        values, params = _pairs(chunk)
        for unit, parent, name in view.each(
                "SELECT d.unit, d.parent, d.name FROM {defs} d WHERE (d.unit, d.parent) IN "
                f"(VALUES {values})", params):
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


def name_matches(view: View, defs: list[DefRow]) -> dict[str, list[RefRow]]:
    """Unresolved sites whose name matches, kept by the same rules as the references tool:
    a qualified site with an unknown receiver for members, a free bare name otherwise."""
    wanted = {d.name for d in defs}
    rows: list[RefRow] = []
    for chunk in _chunks(sorted(wanted)):
        marks = ",".join("?" * len(chunk))
        rows += _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND "
                                f"r.name IN ({marks})", tuple(chunk)))
    out: dict[str, list[RefRow]] = {}
    for r in rows:
        out.setdefault(r.name, []).append(r)
    return out


def is_member(d: DefRow) -> bool:
    return d.kind in MEMBER_KINDS


def name_kept(r: RefRow, member: bool) -> bool:
    if member:
        return bool(r.qualifier) and r.head in ("local", "expr", "free")
    return not r.qualifier and r.head == "free"


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
        rows += _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NOT NULL AND "
                                f"(r.unit, r.scope) IN (VALUES {values}) LIMIT {limit}",
                                params))
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
