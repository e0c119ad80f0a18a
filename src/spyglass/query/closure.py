"""The alias closure: every target string meaning a set of definitions, bounded, and the sites using them.

One rule for every tool (references, callers, blast radius, test suggestions, explore):

* An *alias* row ``alias → target`` says a name means another one. An exact alias renames a
  name or any dotted prefix of it (``pkg.Cls`` → ``pkg.mod.Cls`` gives ``pkg.Cls.m`` for
  ``pkg.mod.Cls.m``); a *wildcard* alias ``a.* → t.*`` renames a prefix at any cut
  (``from t import *`` in ``a``; the result type of ``a``: an instance alias).
* The closure walks outward from the definitions' own names (and, for members, the same
  member reached through subclasses that do not override it), applying each alias at most
  once along one chain: no alias is re-applied to a name it produced. The walk is bounded
  by depth (MAX_DEPTH alias hops) and size (MAX_NAMES); reaching either bound is reported
  as a limitation, never silently.
* A wildcard alias whose alias prefix extends its own target (a fluent builder's method
  returning its own type, ``T.with.* → T.*``) could be applied without end
  (``T.with.with.…``). It is never expanded; the names it would open become *probes*
  instead: reference targets starting with the name's prefix are read (one indexed range)
  and kept when they *normalise* (aliases followed the other way, each step shortening
  such a chain) to a name of the closure. So is an exact alias extending its own target.
* A module imported under another module's name (``from django.db import models`` in a
  thousand modules: ``app.models`` → ``django.db.models``) would multiply every name below
  the module by the number of importers; what is reached through it is probed by the
  alias's prefix (``app.models.``) instead, and normalised back the same way.

Everything is batched (one query per level, per chunk of names, per 50 probes) and kept
per view state (wildcard aliases, normalising steps, the most recent closures).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from spyglass.query.aliases import (
    CACHED,
    MAX_DEPTH,
    Closure,
    Lookup,
    Rule,
    cut_points,
    dotted_prefixes,
    normalise,
    view_memo,
    wildcards,
)
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import (
    REF_COLS,
    REF_FROM,
    Key,
    chunks,
    defs_by_full,
    defs_by_keys,
    key,
    marks,
    refs,
    refs_to,
)
from spyglass.query.view import View
from spyglass.syntax.arity import UNKNOWN
from spyglass.syntax.langpack import pack_named

MAX_NAMES = 5000  # names in one closure
CHAIN_WIDTH = 50  # names a hop adds, at most, for the walk to count as a chain of re-exports
MAX_DROPPED = 20000  # names kept out by MAX_NAMES checked for uses before the cap is said
MAX_PROBE_SITES = 5000  # reference sites read by the probes of one closure
PROBES_PER_QUERY = 50
MAX_SUBCLASSES = 500  # subclasses followed for inherited members
# `inherited` expands classes, whose member aliases ask `inherited` again: classes whose
# fields hold each other (Java `A.b: B`, `B.a: A`) would recurse without end. Past this
# nesting an inner call answers nothing (its members are then reached only directly).
MAX_INHERITED_NESTING = 3
_nesting = threading.local()  # per thread: servers answer several repositories at once
MEMBER_KINDS = frozenset({"method", "field"})
VALUE_CALLABLE = frozenset({"func", "method", "test"})
CLASS_KINDS = frozenset({"class", "struct", "interface", "type", "enum"})




@dataclass
class _Name:
    defs: list[DefRow]
    rules: frozenset[Rule] = frozenset()
    loops: tuple[int, ...] = ()  # cuts where a self-extending or re-applied alias inserts


@dataclass
class _Walk:
    view: View
    names: dict[str, _Name] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    capped: bool = False
    dropped: set[str] = field(default_factory=set)  # names the MAX_NAMES cap kept out
    hop: int = 0  # the alias hop being walked
    last: dict[int, list[str]] = field(default_factory=dict)  # names added, by hop
    members: dict[str, list[str]] = field(default_factory=dict)  # inherited alias prefixes
    modules: set[str] = field(default_factory=set)  # module alias prefixes to probe
    inherits: bool = True  # a seed's language has inherited members (not C)

    def add(self, new: str, parent: _Name, rule: Rule, loops: Iterable[int],
            fresh: list[str]) -> None:
        if new in self.names:
            have = self.names[new].defs
            have += [d for d in parent.defs if d not in have]
            return
        if len(self.names) >= MAX_NAMES:
            self.capped = True
            if len(self.dropped) <= MAX_DROPPED:
                self.dropped.add(new)
            return
        self.names[new] = _Name(list(parent.defs), parent.rules | {rule}, tuple(loops))
        self.last.setdefault(self.hop, []).append(new)
        fresh.append(new)


def _shift(loops: Iterable[int], cut: int, old: int, new: int) -> list[int]:
    """Loop cuts after a prefix of length `old` (ending before `cut`) became `new` long."""
    return [p - old + new for p in loops if p >= cut]


def expand(view: View, seeds: Mapping[str, Sequence[DefRow]], what: str = "",
           depth: int | None = None, site_budget: int | None = None) -> Closure:
    """The closure of `seeds` (name → the definitions it means), at most `depth` alias hops
    (default MAX_DEPTH) along a chain; see the module docstring. With `site_budget`, the
    walk stops after the hop whose names already have more sites than that (an answer
    cut at its cap needs no farther names: the nearest uses are listed first)."""
    depth = MAX_DEPTH if depth is None else depth
    walk = _Walk(view, {n: _Name(list(ds)) for n, ds in seeds.items()})
    walk.inherits = _inherits(d.language for ds in seeds.values() for d in ds)
    wild = wildcards(view)
    frontier = sorted(walk.names)
    for hop in range(depth):
        if not frontier:
            break
        walk.hop = hop
        fresh: list[str] = []
        wanted: dict[str, list[str]] = {}  # exact alias target → names equal to or below it
        for name in frontier:
            for k in dotted_prefixes(name):
                wanted.setdefault(k, []).append(name)
        exact: dict[str, list[tuple[str, str]]] = {}  # name → (alias, target) rows
        for chunk in chunks(sorted(wanted)):
            for a, t in view.each("SELECT DISTINCT a.alias, a.target FROM {aliases} a JOIN "
                                  "temp.vfiles f ON f.unit = a.unit WHERE a.target IN "
                                  f"({marks(chunk)})", tuple(chunk)):
                for name in wanted[str(t)]:
                    exact.setdefault(name, []).append((str(a), str(t)))
        modules = _modules(view, {t for rows in exact.values() for _, t in rows})
        cuts = {name: cut_points(name) for name in frontier}
        if isinstance(wild.by_target, Lookup):
            wild.by_target.prime(name[:i + 1] for name in frontier for i in cuts[name])
        if walk.inherits:
            _prime_inherited(walk, {alias for name in frontier for i in cuts[name]
                                    for alias in wild.by_target.get(name[:i + 1], ())})
        for name in frontier:
            entry = walk.names[name]
            rules = [(i, name[:i + 1], a) for i in cuts[name]
                     for alias in wild.by_target.get(name[:i + 1], ())
                     for a in (alias, *_inherited_prefixes(walk, alias))]
            loops = {i for i, prefix, alias in rules
                     if alias.startswith(prefix) or (alias, prefix) in entry.rules}
            # An exact alias extending its own target (`from pkg import mod` inside pkg's
            # module `pkg.sub`: pkg.sub.mod → pkg.mod) is self-extending too.
            loops |= {len(t) for a, t in exact.get(name, ())
                      if a.startswith(t + ".") and t not in modules}
            entry.loops = tuple(sorted({*entry.loops, *loops}))
            for alias, target in exact.get(name, ()):
                rule = (alias, target)
                if target in modules and target != name:
                    # A module imported under another module's name (`from django.db import
                    # models` in each of a thousand modules): what is reached through
                    # it is read by one probe per alias, not named (its names multiply).
                    walk.modules.add(alias + ".")
                elif rule not in entry.rules and not alias.startswith(target + "."):
                    n = len(target)
                    walk.add(alias + name[n:], entry, rule,
                             _shift(entry.loops, n, n, len(alias)), fresh)
            for i, prefix, alias in rules:
                if alias.startswith(prefix) or (alias, prefix) in entry.rules:
                    continue  # never re-applied: the probes find what it would open
                walk.add(alias + name[i + 1:], entry, (alias, prefix),
                         _shift(entry.loops, i, i + 1, len(alias)), fresh)
        frontier = fresh
        if frontier and site_budget is not None and len(walk.names) > BUDGET_CHECK_NAMES \
                and _more_sites(view, walk.names, site_budget):
            walk.notes.append(f"alias closure of {what or ', '.join(sorted(seeds)[:1])} "
                              f"stopped at {len(walk.names)} names, which have more than "
                              f"{site_budget} sites: uses reached only through farther "
                              "aliases are not listed")
            frontier = []
            break
    label = what or ", ".join(sorted(seeds)[:1])
    if walk.capped and _cut_used(view, walk):
        # said only when the names it kept out, or those of the last hop it walked, are
        # used: a closure growing without end through re-exported classes (each hop's
        # names used nowhere) cut nothing an answer would list
        walk.notes.append(f"alias closure of {label} stopped at {MAX_NAMES} names: uses "
                          "reached only through further re-exports or aliases are not listed")
    elif frontier:
        walk.notes.append(f"alias closure of {label} stopped after {depth} alias hops: uses "
                          "reached only through longer re-export chains are not listed")
    probes = {(name[:min(e.loops) + 1], name[max(e.loops) + 1:])
              for name, e in walk.names.items() if e.loops} | {(m, "") for m in walk.modules}
    return Closure({n: tuple(e.defs) for n, e in walk.names.items()}, tuple(sorted(probes)),
                   tuple(walk.notes), label)


BUDGET_CHECK_NAMES = 100  # closures smaller than this are never cut by a site budget


def _cut_used(view: View, walk: _Walk) -> bool:
    """Whether the MAX_NAMES cap may have cut uses: a name it kept out, or one of the
    last hop that added names, has a reference site; or the walk was a narrow chain
    (few names a hop: re-export after re-export) that went on past the cap. A walk whose
    last hop added many names none of which is used is an explosion of alias
    combinations (a class re-exported and subclassed all over a package): not said."""
    if len(walk.dropped) > MAX_DROPPED:
        return True
    last = walk.last.get(max(walk.last), []) if walk.last else []
    if _more_sites(view, walk.dropped | set(last), 0):
        return True
    return len(last) <= CHAIN_WIDTH and _aliased(view, walk.dropped)


def _aliased(view: View, names: set[str]) -> bool:
    """Whether any of `names` is itself renamed by an alias (exact or wildcard): the walk
    would have gone on from it."""
    wild = wildcards(view).by_target
    if any(wild.get(n[:i + 1]) for n in names for i in cut_points(n)):
        return True
    keys = sorted({k for n in names for k in dotted_prefixes(n)})
    return any(view.each("SELECT 1 FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
                         f"WHERE a.target IN ({marks(chunk)}) LIMIT 1", tuple(chunk))
               for chunk in chunks(keys))


def _more_sites(view: View, names: Iterable[str], budget: int) -> bool:
    """Whether the view has more than `budget` sites whose target is one of `names`."""
    found = 0
    for chunk in chunks(sorted(names)):
        for (n,) in view.each("SELECT COUNT(*) FROM (SELECT 1 FROM {refs} r JOIN temp.vfiles f "
                              f"ON f.unit = r.unit WHERE r.target IN ({marks(chunk)}) LIMIT ?) AS hit",
                              (*chunk, budget + 1 - found)):
            found += int(str(n))
        if found > budget:
            return True
    return False


def _modules(view: View, names: set[str]) -> set[str]:
    """Those of `names` that are modules of the view (a unit's module key), memoised."""
    memo = view_memo(view).modules
    todo = sorted(n for n in names if n not in memo)
    for chunk in chunks(todo):
        found = {str(m) for (m,) in view.each(
            "SELECT DISTINCT u.module FROM {units} u JOIN temp.vfiles f ON f.unit = u.id "
            f"WHERE u.module IN ({marks(chunk)})", tuple(chunk))}
        memo.update((n, n in found) for n in chunk)
    return {n for n in names if memo.get(n)}


def modules_of(view: View, names: set[str]) -> set[str]:
    """Those of `names` that are modules of the view (query/symbols.py: guesses starting
    outside every module are another package's)."""
    return _modules(view, names)


def _inherits(languages: Iterable[str]) -> bool:
    """Whether members may be inherited in any of `languages` (True when none is known)."""
    langs = set(languages)
    return not langs or any((pack := pack_named(x)) is None
                            or pack.manifest.get("inherited_members", True) for x in sorted(langs))


def _inherited_prefixes(walk: _Walk, alias: str) -> list[str]:
    """For an instance alias on a class member (``pkg.Base.config.*``: the type of a field
    or a method's result), the same member reached through subclasses that do not
    override it (``pkg.App.config.``)."""
    if not walk.inherits:
        return []
    _prime_inherited(walk, {alias})
    return walk.members[alias]


def _prime_inherited(walk: _Walk, aliases: set[str]) -> None:
    """_inherited_prefixes of several alias prefixes, in one batch (none when no seed's
    language has inheritance: manifest `inherited_members = false`, C)."""
    todo = sorted(a for a in aliases if a not in walk.members)
    if not todo:
        return
    if not walk.inherits:
        walk.members.update((a, []) for a in todo)
        return
    found = [m for m in defs_by_full(walk.view, [a[:-1] for a in todo])
             if m.kind in MEMBER_KINDS | VALUE_CALLABLE]
    by_member: dict[str, set[str]] = {a: set() for a in todo}
    for name, members in inherited(walk.view, found).items():
        for m in members:
            by_member.setdefault(f"{m.full}.", set()).add(f"{name}.")
    for a in todo:
        walk.members[a] = sorted(by_member.get(a, ()))


def seeds(view: View, defs: Iterable[DefRow], members: bool = True) -> dict[str, list[DefRow]]:
    """The definitions' full names and, for members (when `members`), the same member
    reached through a subclass that does not override it: the names `expand` starts from."""
    out: dict[str, list[DefRow]] = {}
    ds = list(defs)
    for d in ds:
        out.setdefault(d.full, []).append(d)
    if members:
        for name, owners in inherited(view, [d for d in ds if d.kind in MEMBER_KINDS]).items():
            have = out.setdefault(name, [])
            have += [d for d in owners if d not in have]
    return out


def of(view: View, defs: Iterable[DefRow], members: bool = True,
       site_budget: int | None = None) -> Closure:
    """The closure of definitions (see the module docstring); kept per view state for the
    CACHED most recent sets of definitions (one answer often asks twice). `site_budget`:
    see expand."""
    ds = list(defs)
    memo = view_memo(view).closures
    k = (members, frozenset(key(d) for d in ds), MAX_DEPTH, MAX_NAMES, site_budget or 0)
    if k not in memo:
        if len(memo) >= CACHED:
            memo.pop(next(iter(memo)))
        memo[k] = _expanded(view, ds, members, site_budget)
    return memo[k]


_LABEL = "\x00"  # the label of a shared closure's notes, replaced by each asker's


def _expanded(view: View, ds: list[DefRow], members: bool, site_budget: int | None
              ) -> Closure:
    """`expand` of the definitions' seeds. Definitions whose seeds are one name (the
    kernel's twelve `printk`s: macros of several headers, one full name) share its walk,
    which depends on the name and the languages only; each gets it with its own
    definitions and label."""
    label = ", ".join(sorted({d.qualname for d in ds})[:3])
    start = seeds(view, ds, members)
    if len(start) != 1:
        return expand(view, start, label, site_budget=site_budget)
    name = next(iter(start))
    shared = view_memo(view).shared
    sk = (name, frozenset(d.language for d in ds), MAX_DEPTH, MAX_NAMES, site_budget or 0)
    if sk not in shared:
        if len(shared) >= CACHED:
            shared.pop(next(iter(shared)))
        shared[sk] = expand(view, start, _LABEL, site_budget=site_budget)
    c, attached = shared[sk], tuple(start[name])
    return Closure({n: attached for n in c.names}, c.probes,
                   tuple(note.replace(_LABEL, label) for note in c.limitations), label)


def names_of(view: View, names: Iterable[str]) -> set[str]:
    """The closure's names for bare target strings (no definitions attached)."""
    return set(expand(view, {n: [] for n in names}).names)


# -- sites ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Sites:
    """Reference sites meaning a closure's definitions: each with the definitions it means."""

    sites: tuple[tuple[RefRow, tuple[DefRow, ...]], ...]
    limitations: tuple[str, ...]

    @property
    def rows(self) -> list[RefRow]:
        return [r for r, _ in self.sites]


def sites(view: View, c: Closure, limit: int | None = None) -> Sites:
    """Sites whose target is a name of `c`, and sites its probes find whose target
    normalises to one (a chain through a self-extending alias: ``New.With.With.Push``).
    With `limit`, at most that many of the first kind (exact ones first, then in file
    order), and a limitation saying so when more exist. Closures of the same names (the
    same-named definitions of a macro in several headers: one seed name) share one read,
    kept per view state."""
    memo = view_memo(view).sites
    k = (frozenset(c.names), c.probes, c.label, c.limitations, limit)
    if k not in memo:
        if len(memo) >= CACHED:
            memo.pop(next(iter(memo)))
        memo[k] = _site_rows(view, c, limit)
    found, notes = memo[k]
    return Sites(tuple(_literal_keys([(r, c.names[name]) for r, name in found])), notes)


def _site_rows(view: View, c: Closure, limit: int | None
               ) -> tuple[tuple[tuple[RefRow, str], ...], tuple[str, ...]]:
    """The sites of `sites`, each with the closure name it means, and the notes."""
    found = refs_to(view, c.names, limit)
    notes = list(c.limitations)
    if limit is not None and len(found) > limit:
        notes.append(_capped_note(c.label, limit))
        found = [r for r in sorted(found, key=lambda r: (r.conf != "exact", r.path, r.line,
                                                         r.col))[:limit]]
        found.sort(key=lambda r: (r.path, r.line, r.col))
    out = [(r, str(r.target)) for r in found]
    if c.probes:
        seen = {(r.unit, r.line, r.col) for r, _ in out}
        candidates: list[RefRow] = []
        budget = MAX_PROBE_SITES
        for chunk in chunks(c.probes, PROBES_PER_QUERY):  # one indexed range each (OR)
            terms: list[str] = []
            params: list[object] = []
            for prefix, suffix in chunk:
                terms.append("(r.target >= ? AND r.target < ?"
                             + (" AND substr(r.target, -?) = ?)" if suffix else ")"))
                params += [prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)]
                params += [len(suffix), suffix] if suffix else []
            rows = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE ({' OR '.join(terms)}) "
                                  "LIMIT ?", (*params, budget + 1)))
            if len(rows) > budget:
                notes.append(f"more than {MAX_PROBE_SITES} sites through chained calls of "
                             f"{c.label}: those beyond them are not listed")
                rows = rows[:budget]
            budget -= len(rows)
            candidates += [r for r in rows if (r.unit, r.line, r.col) not in seen
                           and r.target not in c.names]
            if budget <= 0:
                break
        meant = normalise(view, {str(r.target) for r in candidates}, set(c.names))
        for r in candidates:
            hit = meant.get(str(r.target))
            if hit is not None and (r.unit, r.line, r.col) not in seen:
                seen.add((r.unit, r.line, r.col))
                out.append((r, hit))
    out.sort(key=lambda s: (s[0].path, s[0].line, s[0].col))
    return tuple(out), tuple(notes)


LITERAL_KEY = "{}."  # a Go composite-literal key's target: `pkg#T{}.k` (langs/go/resolver.py)
KEY_KINDS = frozenset({"field", "const", "var"})


def _literal_keys(found: list[tuple[RefRow, tuple[DefRow, ...]]]
                  ) -> list[tuple[RefRow, tuple[DefRow, ...]]]:
    """A literal's key (`T{k: v}`) means T's field k or, for a map type, the value k: never
    a type or a function (neither can be a key), whichever its aliases reach."""
    out = []
    for r, ds in found:
        if r.target is not None and LITERAL_KEY in r.target and ds:
            ds = tuple(d for d in ds if d.kind in KEY_KINDS)
            if not ds:
                continue
        out.append((r, ds))
    return out


def _capped_note(label: str, limit: int) -> str:
    return (f"more than {limit} sites of {label}: this answer reads the first {limit} (exact "
            "ones first, then in file order) and counts no further; a continued answer "
            "(offset past them) reads on")




# -- inheritance ------------------------------------------------------------------------------
def owner_full(m: DefRow) -> str:
    """The type a method declared outside its type's body belongs to (``pkg#T`` of ``T.M``)."""
    return m.full[:-len(m.name) - 1]


def owners(view: View, members: Sequence[DefRow]) -> dict[Key, DefRow]:
    """The class-like definition each member belongs to: its enclosing definition (the
    nearest class-like one), or for a method declared outside its type's body (a Go
    method ``T.M``), the type by full name."""
    out: dict[Key, DefRow] = {}
    pending = {key(m): m for m in members if m.parent >= 0}
    parents: dict[Key, Key] = {k: (m.unit, m.parent) for k, m in pending.items()}
    for _ in range(8):
        if not parents:
            break
        found = defs_by_keys(view, set(parents.values()))
        nxt: dict[Key, Key] = {}
        for k, pk in parents.items():
            p = found.get(pk)
            if p is None:
                continue
            if p.kind in CLASS_KINDS:
                out[k] = p
            elif p.parent >= 0:
                nxt[k] = (p.unit, p.parent)
        parents = nxt
    outside = [m for m in members if m.parent < 0 and m.kind == "method" and "." in m.qualname]
    types = {o.full: o for o in defs_by_full(view, [owner_full(m) for m in outside])
             if o.kind in CLASS_KINDS}
    for m in outside:
        o = types.get(owner_full(m))
        if o is not None:
            out[key(m)] = o
    return out


def subclasses_of(view: View, bases: Iterable[str]) -> list[tuple[DefRow, str]]:
    """(subclass, base name) for class-like definitions deriving from one of `bases`."""
    rows: list[tuple[Key, str]] = []
    for chunk in chunks(bases):
        rows += [((int(str(u)), int(str(i))), str(b)) for u, i, b in view.each(
            "SELECT b.unit, b.idx, b.base FROM {bases} b JOIN temp.vfiles f ON f.unit = b.unit "
            f"WHERE b.base IN ({marks(chunk)})", tuple(chunk))]
    found = defs_by_keys(view, [k for k, _ in rows])
    return [(found[k], b) for k, b in rows if k in found]


def _overridden(view: View, pairs: Iterable[tuple[DefRow, str]]) -> set[str]:
    """``Sub.m`` names among (subclass, member name) `pairs` that the subclass defines
    itself: in its body or by qualified name in its file (a field set in ``__init__``), or
    outside its body by full name (a Go method)."""
    wanted = [(s.unit, f"{s.qualname}.{m}", f"{s.full}.{m}") for s, m in pairs]
    out: set[str] = set()
    by_qual = {(u, q): f for u, q, f in wanted}
    for chunk in chunks(sorted(by_qual)):
        values = ",".join("(?,?)" for _ in chunk)
        params = tuple(v for k in chunk for v in k)
        for u, q in view.each(f"WITH k(u, q) AS (VALUES {values}) SELECT d.unit, d.qualname "
                              "FROM k JOIN {defs} d ON d.unit = k.u AND d.qualname = k.q",
                              params):
            out.add(by_qual[(int(str(u)), str(q))])
    out |= {d.full for d in defs_by_full(view, [f for _, _, f in wanted])}
    return out


def inherited(view: View, members: Sequence[DefRow]) -> dict[str, list[DefRow]]:
    """`Sub.m` names for members `m` reached through subclasses (naming their base by any
    of its aliases) that do not override them, transitively. Each member is followed on its
    own: a subclass already reached for one member (or owning another member of the batch)
    still inherits the others (``PoolManager.request`` from ``RequestMethods`` while
    ``PoolManager.urlopen`` is a member of the same batch)."""
    depth = getattr(_nesting, "depth", 0)
    if not members or depth >= MAX_INHERITED_NESTING:
        return {}
    _nesting.depth = depth + 1
    try:
        return _inherited(view, members)
    finally:
        _nesting.depth = depth


def _inherited(view: View, members: Sequence[DefRow]) -> dict[str, list[DefRow]]:
    own = owners(view, members)
    by_class: dict[str, list[DefRow]] = {}
    classes: dict[str, DefRow] = {}
    for m in members:
        o = own.get(key(m))
        if o is not None:
            by_class.setdefault(o.full, []).append(m)
            classes[o.full] = o
    out: dict[str, list[DefRow]] = {}
    seen = {(c, key(m)) for c, ms in by_class.items() for m in ms}  # (class, member) followed
    frontier = by_class
    while frontier and len(classes) < MAX_SUBCLASSES:
        named = expand(view, {c: [classes[c]] for c in frontier}, depth=4)
        pairs = sorted({(sub, b.full) for sub, base in subclasses_of(view, named.names)
                        for b in named.names[base] if b.full in frontier},
                       key=lambda p: (p[0].full, p[1]))
        over = _overridden(view, {(sub, m.name) for sub, b in pairs for m in frontier[b]
                                  if (sub.full, key(m)) not in seen})
        counted = _by_count(view, over, [m for ms in frontier.values() for m in ms])
        nxt: dict[str, list[DefRow]] = {}
        for sub, b in pairs:
            classes.setdefault(sub.full, sub)
            for m in frontier[b]:
                name = f"{sub.full}.{m.name}"
                if (sub.full, key(m)) in seen or (name in over and _overrides(m, counted, name)):
                    continue
                seen.add((sub.full, key(m)))
                out.setdefault(name, []).append(m)
                nxt.setdefault(sub.full, []).append(m)
        frontier = nxt
    return out


def _by_count(view: View, over: set[str], members: Sequence[DefRow]
              ) -> dict[str, list[DefRow]] | None:
    """The definitions of the overriding names `over`, when `members`' pack overrides by
    parameter count (manifest `[arity] overrides_by_count`: Java, where a subclass's method
    of the same name taking other parameters is an overload beside the inherited one, not
    its override); None when names override whatever their parameters."""
    pack = pack_named(members[0].language) if members else None
    table = pack.manifest.get("arity") if pack is not None else None
    if not over or not isinstance(table, dict) or table.get("overrides_by_count") is not True:
        return None
    out: dict[str, list[DefRow]] = {}
    for d in defs_by_full(view, sorted(over)):
        out.setdefault(d.full, []).append(d)
    return out


def _overrides(m: DefRow, counted: dict[str, list[DefRow]] | None, name: str) -> bool:
    """Whether the subclass's `name` overrides member `m`: always, unless its pack
    overrides by count (`_by_count`) and none of its definitions takes `m`'s parameters
    (both counted: an uncounted one may be the override)."""
    if counted is None or m.params_min == UNKNOWN:
        return True
    return not counted.get(name) or any(
        d.params_min == UNKNOWN or (d.params_min, d.params_max) == (m.params_min, m.params_max)
        for d in counted[name])
