"""References and callers of definitions: exact, inferred and name-matched sites, with evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spyglass.query import (
    candidates,
    closure,
    dispatch,
    includes,
    inherited_names,
    overloads,
    related,
    submodules,
)
from spyglass.query import symbols as sym
from spyglass.query.answer import Answer
from spyglass.query.display import display, module_symbol
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import chunks, defs_by_full, marks
from spyglass.query.view import View
from spyglass.syntax import conditionals
from spyglass.syntax import heads as H
from spyglass.syntax.langpack import all_packs
from spyglass.types import CodeLocation

MAX_UNLISTED_SHOWN = 3
# Sites read per definition, as a multiple of the answer's cap (max_matches_per_request):
# a central function's tens of thousands of sites are never all made objects (a bound).
SITES_PER_ANSWER = 2


@dataclass(frozen=True, slots=True)
class Site:
    """A site found for a definition, before it becomes a location (internal)."""

    ref: RefRow
    uncertain: bool
    evidence: str


def sites(view: View, d: DefRow, targets: list[DefRow], include_declaration: bool,
          exact_only: bool, calls_only: bool, unlisted: dict[tuple[str, int, int], RefRow],
          notes: list[str], reach: int = 0) -> list[Site]:
    """Every site of `d` (one of `targets`): exact and inferred uses of its closure, uses
    through related members and interface dispatch, name-matched candidates. Parameters of
    unknown type matched by name go to `unlisted` (counted, not listed); what the bounds
    cut goes to `notes`; `reach` (a continued answer's offset) widens the bound on sites
    read. Blast radius takes its first layer from here too."""
    several = len(targets) > 1
    cands = ", ".join(f"{t.path}:{t.start_line}" for t in targets[:5])
    budget = SITES_PER_ANSWER * view.config.limits.max_matches_per_request + reach
    names = closure.of(view, [d], site_budget=budget)
    is_call = sym.call_filter(view, d)  # a property is called by reading it
    found_sites = closure.sites(view, names, budget)
    notes += found_sites.limitations
    found = found_sites.rows
    cls = sym.constructed_class(view, d)
    if cls is not None:  # `new C()` calls C's constructor
        built = closure.sites(view, closure.of(view, [cls]))
        notes += built.limitations
        found += [r for r in built.rows if r.role == "call"]
    declared = sym.declaration_sites(d.language, include_declaration)
    if "redefinition" not in declared:
        found += _outside_stubs(d, sym.redefinitions(view, d), include_declaration)
    if not include_declaration:
        found += _spelled_through_macro(view, d)
    own = set(names.names)
    linked = [] if exact_only else related.related_sites(view, d, own, calls_only)
    arity = overloads.arity_rule(view, d)
    base = overloads.narrowed(sym.site_filter(view, d, declared), arity)
    scoped = includes.file_scoped_filter(view, d)  # a C typedef: its header's includers
    spaced = _name_space_filter(view, d)  # C: `struct X` is the tag's, a bare `X` not

    def keep(r: RefRow) -> bool:
        return base(r) and (scoped is None or scoped(r)) and (spaced is None or spaced(r))
    found = [r for r in found if keep(r)]
    linked = [(r, why) for r, why in linked if keep(r)]
    out: list[Site] = []
    for r, why in [] if exact_only else dispatch.dispatched(view, d, notes):
        if r.target not in own and keep(r):
            out.append(Site(r, True, f"{why}; resolved to {r.target}"))
    if not exact_only:
        out += [Site(r, True, why) for r, why in dispatch.predeclared_sites(view, d) if keep(r)]
    unbound = submodules.checker(view, d.language)  # `pkg.sub.x`, `sub` unbound by `pkg`
    for r in found:
        if r.conf == "exact" and several and exact_only:
            continue  # bound, but to one of several candidates: not exact
        if unbound is not None and (why := unbound(r)):
            if not exact_only:
                out.append(Site(r, True, why))
            continue
        if r.conf == "exact":
            out.append(Site(r, several, f"{len(targets)} candidate definitions: {cands}"
                            if several else ""))
        elif not exact_only:
            why = f"inferred ({H.untagged(r.head)[0].split(':')[0]} binding): resolved to " \
                  f"{r.target}"
            out.append(Site(r, True, why))
    out += [Site(r, True, why) for r, why in linked]
    if not exact_only:
        loose: list[RefRow] = []
        for r in sym.unresolved_refs(view, d):
            if r.target in own:
                continue  # a guessed binding found through the closure (inheritance)
            if r.head != sym.PARAM:
                loose.append(r)
            elif not calls_only or is_call(r) is not None:
                unlisted[(r.path, r.line, r.col)] = r
        if loose:
            owner = sym.owner_class(view, d) if d.kind in closure.MEMBER_KINDS else None
            loose, capped = candidates.rank_and_cap(d, owner.name if owner else "", loose)
            if capped:
                notes.append(capped)
            n_same = len(sym.find_defs(view, d.name))
            inherits = inherited_names.inheriting(view, d)
            for r in loose:
                if spaced is not None and not spaced(r):
                    continue
                if arity is not None and arity(r) == overloads.DROP:
                    continue
                if inherits is not None and (why := inherits(r) or ""):
                    out.append(Site(r, True, why))  # bare, in a type that inherits `d`
                    continue
                why = "receiver type unknown" if r.qualifier else "unresolved name"
                if r.target:  # a guessed binding that reached no definition
                    why = f"receiver type unknown (the guess {r.target} reaches no definition)"
                out.append(Site(r, True, f"{why}; matched by name: {n_same} definition(s) "
                                f"named {d.name!r}"))
    return out if arity is None else _overload_flags(out, arity, exact_only)


def _name_space_filter(view: View, d: DefRow) -> Callable[[RefRow], bool] | None:
    """Which sites are `d`'s when its pack keeps tags apart (manifest `tag_namespace`, C):
    a use written `struct X`/`union X`/`enum X` (a ``tag:`` head, syntax/heads.py) names
    the tag, never a typedef; a tag's uses are only those when a typedef shares its name
    (`typedef struct X {…} X;`: a bare `X` is the typedef's). None when nothing is told
    apart."""
    if not sym.manifest_value(d.language, "tag_namespace"):
        return None
    if d.kind == "type":
        return lambda r: not H.untagged(r.head)[1]
    if d.kind not in ("struct", "enum") or not any(
            o.kind == "type" and o.language == d.language for o in defs_by_full(view, [d.full])):
        return None
    return lambda r: H.untagged(r.head)[1]


def _overload_flags(found: list[Site], arity: overloads.Rule, exact_only: bool) -> list[Site]:
    """Sites whose argument count does not decide between overloads, flagged uncertain
    with that evidence (candidates of each overload that takes as many; left out of an
    exact-only answer)."""
    out: list[Site] = []
    for s in found:
        why = arity(s.ref)
        if why and why != overloads.DROP:
            if exact_only:
                continue
            s = Site(s.ref, True, "; ".join(filter(None, (s.evidence, why))))
        out.append(s)
    return out


def _outside_stubs(d: DefRow, rows: list[RefRow], listed: bool) -> list[RefRow]:
    """Redefinitions of `d` (a call only where is_call says so), less those that pair a
    stub with its module (manifest `declaration_files`, Python's `.pyi`): a stub and the
    module it describes are one symbol, the stub's lines declarations, listed only with
    the declaration."""
    stubs = sym.manifest_value(d.language, "declaration_files")
    if listed or not isinstance(stubs, list) or not stubs:
        return rows
    suffixes = tuple(str(x) for x in stubs)
    if d.path.endswith(suffixes):
        return []
    return [r for r in rows if not r.path.endswith(suffixes)]


def locations(ans: Answer, targets: list[DefRow], include_declaration: bool = False,
              exact_only: bool = False, calls_only: bool = False, reach: int = 0
              ) -> tuple[list[CodeLocation], tuple[str, ...]]:
    """The sites of `targets` as locations (for callers: each call's enclosing definition),
    and the notes: name-matched sites left out (members used on parameters without a type
    annotation, which mostly hold other classes' objects), and what the bounds cut."""
    view = ans.view()
    unlisted: dict[tuple[str, int, int], RefRow] = {}
    notes: list[str] = []
    out: dict[tuple[str, int, int], CodeLocation] = {}
    for d in targets:
        if include_declaration and not calls_only:
            out[(d.path, d.name_line, -1)] = ans.def_location(d)
        is_call = sym.call_filter(view, d)
        found = sites(view, d, targets, include_declaration, exact_only, calls_only, unlisted,
                      notes, reach)
        constrained = build_constraints(view, d.language, {s.ref.unit for s in found})
        inactive_def = _definition_inactive(view, d)
        for s in found:
            r, uncertain, evidence = s.ref, s.uncertain, s.evidence
            flag = constrained[r.unit].at(r.line) if r.unit in constrained else ""
            flag = "; ".join(filter(None, (flag, inactive_def)))
            if flag:
                if exact_only:
                    continue  # flagged, so not exact
                uncertain = True
                evidence = "; ".join(filter(None, (evidence, flag)))
            how = is_call(r) if calls_only else None
            if calls_only and how is None:
                continue
            if how == "indirect":
                uncertain, evidence = True, ("used as a value (a callback or handler), "
                                             "called indirectly from here")
            k = (r.path, r.line, r.col)
            if k in out and not out[k].uncertain:
                continue
            if calls_only:
                caller = sym.enclosing(view, r)
                symbol = display(caller) if caller else module_symbol(r.path)
                kind = caller.kind if caller else "module"
            else:
                symbol, kind = display(d), r.role
            out[k] = ans.location(r.path, r.line, r.line, symbol, kind, r.source, r.stale,
                                  uncertain, evidence)
    # Ranked before any budget cuts them: certain sites first, then by place (path, line,
    # column: a total order, so the pages of a long answer neither overlap nor skip).
    # Two uses on one line (`f(a) == f(b)`) are one row: a location has no column.
    listed = list(dict.fromkeys(c for _, c in sorted(out.items(),
                                                     key=lambda kv: (kv[1].uncertain, kv[0]))))
    left = unlisted_note([r for k, r in sorted(unlisted.items()) if k not in out], calls_only)
    return listed, tuple(dict.fromkeys([*notes, *left]))


@dataclass(frozen=True, slots=True)
class Constraint:
    """What restricts the build of a unit's lines: the whole file (`whole`, Go's
    `//go:build`), or the `#if` branches its compile command leaves out (`regions`)."""

    whole: str = ""
    regions: tuple[conditionals.Region, ...] = ()

    def at(self, line: int) -> str:
        """The evidence for a site on `line`, "" when nothing restricts it."""
        if self.whole:
            return self.whole
        for region in self.regions:
            if region.start <= line <= region.end:
                return (f"in a preprocessor branch inactive under the compile command's "
                        f"-D flags, {region.why} (read, not evaluated, and a header may "
                        "define its names): it may not be compiled")
        return ""


def build_constraints(view: View, language: str, units: set[int]) -> dict[int, Constraint]:
    """For the units among `units` whose file has a build constraint (manifest
    `build_constraint`; Go `//go:build`), or inactive preprocessor branches (manifest
    `preprocessor_conditions`; C `#if`), what restricts them. Conditions are read, never
    evaluated as code: the site is kept, flagged."""
    whole = bool(sym.manifest_value(language, "build_constraint"))
    if not units or not (whole or sym.manifest_value(language, "preprocessor_conditions")):
        return {}
    out: dict[int, Constraint] = {}
    for chunk in chunks(sorted(units)):
        for uid, build in view.each(f"SELECT u.id, u.build FROM {{units}} u WHERE u.id IN "
                                    f"({marks(chunk)}) AND u.build != ''", tuple(chunk)):
            text = str(build)
            out[int(str(uid))] = Constraint(
                whole=f"in a file with a build constraint, `{text}` (read, not evaluated): "
                      "it may be left out of a default build") if whole else \
                Constraint(regions=tuple(conditionals.decode(text)))
    if not whole:  # a branch decided by a name some header #defines stays unflagged
        assumed = {n for c in out.values() for r in c.regions for n in r.assumed}
        defined = _macros_defined(view, assumed)
        out = {u: Constraint(regions=tuple(r for r in c.regions
                                           if not defined.intersection(r.assumed)))
               for u, c in out.items()}
    if whole:
        out.update({u: Constraint(whole=why) for u, why in
                    _file_name_constraints(view, language, units - set(out)).items()})
    return out


def _spelled_through_macro(view: View, d: DefRow) -> list[RefRow]:
    """A C function or variable whose name a macro of the same full name renames
    (`#define des_set_key _crypt_des_set_key` in a header, the linker sees the body's
    name): its definition's name is an expansion of that macro, a use as clangd counts
    it, so the definition site is listed (manifest `preprocessor_conditions` packs; the
    macro in a branch its build leaves out renames nothing)."""
    if d.kind not in ("func", "var") or not sym.manifest_value(d.language,
                                                                "preprocessor_conditions"):
        return []
    macros = [o for o in defs_by_full(view, [d.full]) if o.kind == "macro"
              and o.language == d.language]
    if not macros:
        return []
    constrained = build_constraints(view, d.language, {o.unit for o in macros})
    live = [o for o in macros if not (o.unit in constrained
                                       and constrained[o.unit].at(o.name_line))]
    # the macro renames the definition only where the definition's file sees it: its own
    # file, or a header it includes (`pq_fips202.h`'s `#define keccak_absorb …` renames
    # nothing in keccak.c, compiled on its own)
    seen = [o for o in live if o.path == d.path or d.path in (
        includes.includers(view, o.path) or {d.path})]
    return [sym.def_site(d)] if seen else []


def _definition_inactive(view: View, d: DefRow) -> str:
    """Evidence when `d` itself lies in a preprocessor branch its build leaves out (C's
    `#if INCLUDE_x … void f(…) {…}` with INCLUDE_x 0): the compiled program has no such
    definition, so a use of its name means another one: the definition of the same name
    compiled instead (`#if AVX2 … #else` twins; the evidence names it) or, when none may
    be, another library's; every site is flagged (docs/c.md "Preprocessor conditions")."""
    same = [o for o in defs_by_full(view, [d.full]) if o.language == d.language] or [d]
    constrained = build_constraints(view, d.language, {o.unit for o in same} | {d.unit})

    def region_of(o: DefRow) -> conditionals.Region | None:
        c = constrained.get(o.unit)
        return next((r for r in c.regions if r.start <= o.name_line <= r.end), None) \
            if c is not None and not c.whole else None
    region = region_of(d)
    if region is None:
        return ""
    where = f"its definition ({d.path}:{d.name_line}) is in a preprocessor branch inactive " \
            f"under the compile command, {region.why}"
    live = next((o for o in same if region_of(o) is None), None)
    if live is not None:  # `#if AVX2 … f() … #else … f() … #endif`: the other one is compiled
        return (f"{where}: the name means the definition compiled instead, "
                f"{live.path}:{live.name_line}")
    return f"{where}: the name may mean another library's definition"


def _file_name_constraints(view: View, language: str, units: set[int]) -> dict[int, str]:
    """Units whose file name is a build constraint (manifest `build_constraint_file`: Go's
    `_windows.go`), with the evidence naming it."""
    pack = all_packs().get(language)
    regex = pack.file_constraint_pattern if pack is not None else None
    out: dict[int, str] = {}
    if regex is None or not units:
        return out
    for chunk in chunks(sorted(units)):
        for uid, path in view.conn.execute(f"SELECT unit, path FROM temp.vfiles WHERE unit IN "
                                           f"({marks(chunk)})", tuple(chunk)).fetchall():
            m = regex.match(str(path).rsplit("/", 1)[-1])
            if m:
                out[int(str(uid))] = (f"in a file with a build constraint, its name's `_"
                                      f"{m.group(1)}` (read, not evaluated): it may be left "
                                      "out of a default build")
    return out


def _macros_defined(view: View, names: set[str]) -> set[str]:
    """Which of `names` some file of the view `#define`s."""
    found: set[str] = set()
    for chunk in chunks(sorted(names)):
        found |= {str(n) for (n,) in view.each(
            "SELECT DISTINCT d.name FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit WHERE "
            f"d.kind = 'macro' AND d.name IN ({marks(chunk)})", tuple(chunk))}
    return found


def unlisted_note(rows: list[RefRow], calls: bool) -> tuple[str, ...]:
    """One limitation per member name for name-matched sites on parameters without a type
    annotation (or values taken from them: `c = client.get()`), which the answer leaves
    out: how many, why, and the first few."""
    by_name: dict[str, list[RefRow]] = {}
    for r in rows:
        by_name.setdefault(r.name, []).append(r)
    notes = []
    for name, found in sorted(by_name.items()):
        what = "call" if calls else "use"
        first = ", ".join(f"{r.path}:{r.line}" for r in found[:MAX_UNLISTED_SHOWN])
        more = ", ..." if len(found) > MAX_UNLISTED_SHOWN else ""
        notes.append(f"{len(found)} {what}(s) of `.{name}` on parameters without a type "
                     f"annotation (or values taken from them) not listed: the receiver's "
                     f"type is unknown and such parameters mostly hold other objects "
                     f"({first}{more})")
    return tuple(notes)
