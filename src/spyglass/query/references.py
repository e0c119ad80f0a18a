"""References and callers of definitions: exact, inferred and name-matched sites, with evidence."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from spyglass.query import (
    accounting,
    augmented,
    candidates,
    closure,
    dispatch,
    expansions,
    includes,
    inherited_names,
    overloads,
    pasted,
    proofs,
    related,
    renamed,
    submodules,
)
from spyglass.query import symbols as sym
from spyglass.query.accounting import Decision, Key, Ledger, Verdict, key
from spyglass.query.answer import Answer
from spyglass.query.display import display, module_symbol
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import chunks, defs_by_full, marks
from spyglass.query.view import View
from spyglass.syntax import conditionals
from spyglass.syntax import heads as H
from spyglass.syntax.langpack import pack_named
from spyglass.types import Accounting, CodeLocation

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
          exact_only: bool, calls_only: bool, ledger: Ledger, reach: int = 0) -> list[Site]:
    """Every site of `d` (one of `targets`): exact and inferred uses of its closure, uses
    through related members and interface dispatch, name-matched candidates. What the
    rules leave out is decided in `ledger` (query/accounting.py): excluded with the rule
    that excluded it, or cut and counted (parameters of unknown type matched by name,
    candidates past the cap, sites past the bound); its notes say what the bounds cut;
    `reach` (a continued answer's offset) widens the bound on sites read. Blast radius
    takes its first layer from here too."""
    several = len(targets) > 1
    cands = ", ".join(f"{t.path}:{t.start_line}" for t in targets[:5])
    budget = SITES_PER_ANSWER * view.config.limits.max_matches_per_request + reach
    names = closure.of(view, [d], site_budget=budget)
    is_call = sym.call_filter(view, d)  # a property is called by reading it
    found_sites = closure.sites(view, names, budget)
    ledger.notes += found_sites.limitations
    ledger.bounded = ledger.bounded or len(found_sites.limitations) > len(names.limitations)
    found = found_sites.rows
    cls = sym.constructed_class(view, d)
    if cls is not None:  # `new C()` calls C's constructor
        built = closure.sites(view, closure.of(view, [cls]))
        ledger.notes += built.limitations
        found += [r for r in built.rows if r.role == "call"]
    declared = sym.declaration_sites(d.language, include_declaration)
    if "redefinition" not in declared:
        found += _outside_stubs(d, sym.redefinitions(view, d), include_declaration)
    if not include_declaration:
        found += _spelled_through_macro(view, d)
    own = set(names.names)
    linked = [x for x in related.related_sites(view, d, own, calls_only)
              if x[2] or not exact_only]
    arity = overloads.arity_rule(view, d)
    filters = _filters(view, d, declared, arity)

    def keep(r: RefRow) -> bool:
        for rule, test, why in filters:
            if not test(r):
                ledger.decide(r, Verdict.EXCLUDED, rule, why)
                return False
        return True
    found = [r for r in found if keep(r)]
    linked = [(r, why, sure) for r, why, sure in linked if keep(r)]
    out: list[Site] = []
    for r, why in [] if exact_only else dispatch.dispatched(view, d, ledger.notes):
        if r.target not in own and keep(r):
            out.append(Site(r, True, f"{why}; resolved to {r.target}"))
    if not exact_only:
        out += [Site(r, True, why) for r, why in dispatch.predeclared_sites(view, d) if keep(r)]
    unbound = submodules.checker(view, d.language)  # `pkg.sub.x`, `sub` unbound by `pkg`
    proven = proofs.prover(view, d, own)  # a package clause, declared types, results
    for r in found:
        if r.conf != "exact" and proven(r):
            r = replace(r, conf="exact")
        if r.conf == "exact" and several and exact_only:
            ledger.decide(r, Verdict.CUT, "exact only", "one of several candidates")
            continue  # bound, but to one of several candidates: not exact
        if unbound is not None and (why := unbound(r)):
            if not exact_only:
                out.append(Site(r, True, why))
            else:
                ledger.decide(r, Verdict.CUT, "exact only", why)
            continue
        if r.conf == "exact":
            out.append(Site(r, several, f"{len(targets)} candidate definitions: {cands}"
                            if several else ""))
        elif not exact_only:
            why = f"inferred ({H.untagged(r.head)[0].split(':')[0]} binding): resolved to " \
                  f"{r.target}"
            out.append(Site(r, True, why))
        else:
            ledger.decide(r, Verdict.CUT, "exact only", f"inferred binding to {r.target}")
    out += [Site(r, not sure, why) for r, why, sure in linked]
    out += [s for s in _renamed_declarations(view, d, calls_only, exact_only, ledger)
            if keep(s.ref)]
    out += [s for s in _pasted_names(view, d, calls_only, exact_only, ledger) if keep(s.ref)]
    if not exact_only:
        out += _candidates(view, d, own, calls_only, is_call, ledger, filters, arity)
        out += _last_rules(view, d, own, out, ledger)
    return out if arity is None else _overload_flags(out, arity, exact_only, ledger)


def _last_rules(view: View, d: DefRow, own: set[str], found: list[Site], ledger: Ledger
                ) -> list[Site]:
    """Uses of `d`'s name no rule above decided that the accounting's last rules flag (a
    member a class makes at run time, an interface member the index did not read, a use no
    rule decided): listed flagged with that evidence, here so that blast radius, which
    takes its first layer from `sites`, has them too (query/accounting.py)."""
    seen = {key(s.ref) for s in found} | set(ledger.decided) | set(ledger.unlisted)
    rest = [o for o in accounting.occurrences(view, {d.name})
            if o.ref is not None and o.key not in seen]
    if not rest:
        return []
    reach = accounting.reaches(view, {str(o.ref.target) for o in rest if o.ref is not None
                                      and o.ref.target and o.ref.target not in own},
                               d.language)
    member = d.kind in closure.MEMBER_KINDS or d.kind == "field"
    distinctive = member and sym.member_candidate(view, d)
    library = dispatch.library_dispatch(view, d, {t for t, w in reach.items()
                                                  if w == accounting.PROJECT})
    augmenting = augmented.augmented(view, [d])
    out: list[Site] = []
    for o in rest:
        decision = accounting.settle(o, own, [d], member, ledger.bounded, reach, distinctive,
                                     library, augmenting)
        if decision.verdict is Verdict.FLAGGED and o.ref is not None:
            out.append(Site(o.ref, True, f"{decision.why} ({decision.rule})"))
    return out


Filter = tuple[str, Callable[[RefRow], bool], str]


def _filters(view: View, d: DefRow, declared: frozenset[str], arity: overloads.Rule | None
             ) -> list[Filter]:
    """The rules that exclude a site found for `d`, in order, each named with its reason:
    a declaration or the other name space's use (site_filter), a call whose argument count
    rules `d` out, a C typedef's use outside its header's includers, a tag written where a
    typedef is meant (or the reverse)."""
    out: list[Filter] = [("declaration or other name space", sym.site_filter(view, d, declared),
                          "a declaration, or a use of the other name space's definition")]
    if arity is not None:
        out.append(("argument count", lambda r: arity(r) != overloads.DROP,
                    "the call's argument count rules the definition out"))
    scoped = includes.file_scoped_filter(view, d)  # a C typedef: its header's includers
    if scoped is not None:
        out.append(("file scope", scoped, "in a file that does not include the definition"))
    spaced = _name_space_filter(view, d)  # C: `struct X` is the tag's, a bare `X` not
    if spaced is not None:
        out.append(("tag name space", spaced, "the tag's name space, not the typedef's"))
    return out


def _candidates(view: View, d: DefRow, own: set[str], calls_only: bool,
                is_call: Callable[[RefRow], str | None], ledger: Ledger, filters: list[Filter],
                arity: overloads.Rule | None) -> list[Site]:
    """Name-matched candidates of `d`: unresolved uses of its name, flagged with why; those
    on parameters of unknown type are counted (ledger.unlisted), those past the cap cut."""
    loose: list[RefRow] = []
    for r in sym.unresolved_refs(view, d):
        if r.target in own:
            continue  # a guessed binding found through the closure (inheritance)
        if r.head != sym.PARAM:
            loose.append(r)
        elif not calls_only or is_call(r) is not None:
            ledger.unlisted[key(r)] = r
    if not loose:
        return []
    owner = sym.owner_class(view, d) if d.kind in closure.MEMBER_KINDS else None
    kept, capped = candidates.rank_and_cap(d, owner.name if owner else "", loose)
    if capped:
        ledger.notes.append(capped)
        shown = {key(r) for r in kept}
        for r in loose:
            if key(r) not in shown:
                ledger.decide(r, Verdict.CUT, "candidate cap", "past the candidate cap")
    n_same = len(sym.find_defs(view, d.name))
    inherits = inherited_names.inheriting(view, d)
    space = [f for f in filters if f[0] in ("tag name space", "argument count")]
    out: list[Site] = []
    for r in kept:
        failed = next((f for f in space if not f[1](r)), None)
        if failed is not None:
            ledger.decide(r, Verdict.EXCLUDED, failed[0], failed[2])
            continue
        if inherits is not None and (why := inherits(r) or ""):
            out.append(Site(r, True, why))  # bare, in a type that inherits `d`
            continue
        why = "receiver type unknown" if r.qualifier else "unresolved name"
        if r.target:  # a guessed binding that reached no definition
            why = f"receiver type unknown (the guess {r.target} reaches no definition)"
        out.append(Site(r, True, f"{why}; matched by name: {n_same} definition(s) "
                        f"named {d.name!r}"))
    return out


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


def _overload_flags(found: list[Site], arity: overloads.Rule, exact_only: bool,
                    ledger: Ledger) -> list[Site]:
    """Sites whose argument count does not decide between overloads, flagged uncertain
    with that evidence (candidates of each overload that takes as many; cut from an
    exact-only answer)."""
    out: list[Site] = []
    for s in found:
        why = arity(s.ref)
        if why and why != overloads.DROP:
            if exact_only:
                ledger.decide(s.ref, Verdict.CUT, "exact only", why)
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


@dataclass(frozen=True, slots=True)
class Ask:
    """One target's question, as the site rules read it."""

    view: View
    d: DefRow
    exact_only: bool
    calls_only: bool
    is_call: Callable[[RefRow], str | None]
    constrained: dict[int, Constraint]
    inactive_def: str
    macro_units: frozenset[int] | None  # units where a macro redefines the name
    elsewhere: str = ""  # `d` is never compiled, its twin always is (_compiled_instead)


# A site rule: a site in, the site (flagged or not) or a verdict out (docs/contract.md
# "Accounting"). The rules run in this order on every site found; the first verdict stands.
SiteRule = Callable[[Ask, Site], "Site | Decision"]


def _flag(s: Site, why: str) -> Site:
    return Site(s.ref, True, "; ".join(filter(None, (s.evidence, why))))


def _build_rule(q: Ask, s: Site) -> Site | Decision:
    """Go build constraints, C branches inactive under the compile command, a definition
    in an inactive branch: flagged; a site in compiled code of a definition no build
    compiles whose twin every build does: excluded (it means the twin)."""
    r = s.ref
    flag = q.constrained[r.unit].at(r.line) if r.unit in q.constrained else ""
    if q.elsewhere and not flag:  # compiled code, where only the twin is compiled
        return Decision(Verdict.EXCLUDED, "another definition compiled", q.elsewhere)
    flag = "; ".join(filter(None, (flag, q.inactive_def)))
    return _flag(s, flag) if flag else s


def _parse_error_rule(q: Ask, s: Site) -> Site | Decision:
    """A site the parser could not read as code: for callers, any site of a construct
    that failed to parse (its enclosing definition is not proven: a broken header leaves
    its body to the scope around it); for references, a site within the error itself (its
    role is not proven). Flagged; for callers, not a site outside the error in a definition
    the error provably leaves whole (accounting.enclosing_proven)."""
    broken = accounting.broken_at(q.view, s.ref.path, s.ref.line, construct=q.calls_only)
    if broken is None:
        return s
    if q.calls_only:
        if accounting.enclosing_proven(q.view, s.ref.path, s.ref.line, s.ref.language):
            return s  # outside the error, in the definition the error leaves intact
        return _flag(s, f"inside a construct that failed to parse (lines {broken.start}-"
                        f"{broken.end}, {broken.why}): the enclosing definition is not "
                        "proven")
    return _flag(s, f"within a syntax error ({broken.why}): read from the parser's "
                    "recovery, the use is not proven")


def _macro_rule(q: Ask, s: Site) -> Site | Decision:
    """A C name that a macro of the same name renames in the site's unit but not in the
    definition's, or the reverse (`#define FooState FooStateInternal` in a private header:
    the use means the other name), a use through another macro's expansion that is not
    proven (`OUTER(v)` whose body names the target: query/expansions.py), or a use inside
    a macro's body: flagged. Where both see the renaming macro, both are renamed alike."""
    if q.macro_units is None or s.ref.role == "import":
        return s
    if (s.ref.unit in q.macro_units) != (q.d.unit in q.macro_units):
        seen = "this file sees it and the definition's does not" \
            if s.ref.unit in q.macro_units else "the definition's file sees it and this " \
            "file does not"
        return _flag(s, f"a macro named {q.d.name!r} renames the name where it is seen "
                        f"({seen}): this use may mean another name")
    macros = expansions.macros_of(q.view, s.ref) if s.ref.name != q.d.name else []
    if macros and (why := expansions.doubt(q.view, q.d, s.ref, _live(q.view, macros))):
        return _flag(s, why)
    outer = sym.enclosing(q.view, s.ref)
    if outer is not None and outer.kind == "macro" and outer.full != q.d.full:
        return _flag(s, f"inside the body of macro {outer.name}: a use only where "
                        f"{outer.name} is expanded")
    return s


def _live(view: View, macros: list[DefRow]) -> list[DefRow]:
    """The definitions among `macros` not in a preprocessor branch their build leaves out
    (`#if 0 … #define SET(n) … #else …`: only the live twin is expanded)."""
    constrained = build_constraints(view, macros[0].language, {m.unit for m in macros})
    return [m for m in macros if not (m.unit in constrained
                                      and constrained[m.unit].inactive_at(m.name_line))]


def _stub_rule(q: Ask, s: Site) -> Site | Decision:
    """A site in a declaration file (manifest `declaration_files`, Python's `.pyi`) of a
    definition outside it: the stub declares, it does not use; flagged."""
    stubs = sym.manifest_value(q.d.language, "declaration_files")
    if not isinstance(stubs, list) or not stubs or q.d.path.endswith(tuple(map(str, stubs))):
        return s
    if s.ref.path.endswith(tuple(map(str, stubs))) and s.ref.role != "import":
        return _flag(s, "in a declaration (stub) file: a declaration, not a use")
    return s


def _exact_rule(q: Ask, s: Site) -> Site | Decision:
    """An exact-only answer lists certain sites; the others are cut (counted)."""
    if q.exact_only and s.uncertain:
        return Decision(Verdict.CUT, "exact only", s.evidence)
    return s


def _call_rule(q: Ask, s: Site) -> Site | Decision:
    """For callers: a site that is no call is excluded; a function used as a value is
    called indirectly from here (flagged)."""
    if not q.calls_only:
        return s
    how = q.is_call(s.ref)
    if how is None:
        return Decision(Verdict.EXCLUDED, "not a call", f"a {s.ref.role}, not a call")
    if how == "indirect":
        return Site(s.ref, True, "used as a value (a callback or handler), called "
                                 "indirectly from here")
    return s


SITE_RULES: tuple[tuple[str, SiteRule], ...] = (
    ("build", _build_rule),
    ("parse error", _parse_error_rule),
    ("macro", _macro_rule),
    ("stub", _stub_rule),
    ("exact only", _exact_rule),
    ("not a call", _call_rule),
)


def judge(q: Ask, s: Site) -> Site | Decision:
    """The site rules in order: the site as they leave it, or the first verdict."""
    for _, rule in SITE_RULES:
        out = rule(q, s)
        if isinstance(out, Decision):
            return out
        s = out
    return s


def locations(ans: Answer, targets: list[DefRow], include_declaration: bool = False,
              exact_only: bool = False, calls_only: bool = False, reach: int = 0
              ) -> tuple[list[CodeLocation], tuple[str, ...], Accounting]:
    """The sites of `targets` as locations (for callers: each call's enclosing definition),
    the notes (name-matched sites left out: members used on parameters without a type
    annotation, which mostly hold other classes' objects; what the bounds cut; what the
    accounting counted but did not list; its statement), and the accounting of every
    occurrence of the targets' names (query/accounting.py)."""
    run = _run(ans, targets, include_declaration, exact_only, calls_only, reach)
    # Ranked before any budget cuts them: certain sites first, then by place (path, line,
    # column: a total order, so the pages of a long answer neither overlap nor skip).
    # Two uses on one line (`f(a) == f(b)`) are one row: a location has no column.
    ranked = list(dict.fromkeys(c for _, c in sorted(run.listed.items(),
                                                     key=lambda kv: (kv[1].uncertain, kv[0]))))
    left = unlisted_note([r for k, r in sorted(run.ledger.unlisted.items())
                          if k not in run.listed], calls_only)
    return ranked, tuple(dict.fromkeys([*run.ledger.notes, *left, *run.notes])), run.accounting


@dataclass(frozen=True, slots=True)
class Run:
    """One answer before ranking: the listed sites by place, the ledger of the rules, the
    accounting's notes, tally and the verdict on every occurrence not listed."""

    listed: dict[Key, CodeLocation]
    ledger: Ledger
    notes: tuple[str, ...]
    accounting: Accounting
    settled: dict[Key, Decision]


def verdicts(ans: Answer, targets: list[DefRow], include_declaration: bool = False,
             exact_only: bool = False, calls_only: bool = False) -> dict[Key, Verdict]:
    """The verdict on every occurrence and listed site of an answer (the property test,
    tests/test_accounting.py, checks them against the answer and the view)."""
    return {k: d.verdict for k, d in decisions(ans, targets, include_declaration,
                                               exact_only, calls_only).items()}


def decisions(ans: Answer, targets: list[DefRow], include_declaration: bool = False,
              exact_only: bool = False, calls_only: bool = False) -> dict[Key, Decision]:
    """The decision on every occurrence and listed site of an answer, with its rule."""
    run = _run(ans, targets, include_declaration, exact_only, calls_only, 0)
    out = {k: Decision(Verdict.FLAGGED, "listed flagged", loc.evidence) if loc.uncertain
           else Decision(Verdict.CERTAIN, "listed certain", "") for k, loc in run.listed.items()}
    out.update(run.settled)
    return out


def _run(ans: Answer, targets: list[DefRow], include_declaration: bool, exact_only: bool,
         calls_only: bool, reach: int) -> Run:
    """The sites of `targets` through the site rules, then the accounting."""
    view = ans.view()
    ledger = Ledger()
    out: dict[Key, CodeLocation] = {}
    for d in targets:
        if include_declaration and not calls_only:
            out[(d.path, d.name_line, -1)] = ans.def_location(d)
        found = sites(view, d, targets, include_declaration, exact_only, calls_only, ledger,
                      reach)
        q = Ask(view, d, exact_only, calls_only, sym.call_filter(view, d),
                build_constraints(view, d.language, {s.ref.unit for s in found}),
                _definition_inactive(view, d), _macro_units(view, d),
                _compiled_instead(view, d))
        for s in found:
            judged = judge(q, s)
            if isinstance(judged, Decision):
                ledger.decided.setdefault(key(s.ref), judged)
                continue
            k = key(s.ref)
            if k in out and not out[k].uncertain:
                continue
            out[k] = _location(ans, view, d, judged, calls_only)
    acct, notes, settled = _account(ans, view, targets, out, ledger, calls_only, exact_only)
    return Run(out, ledger, tuple(notes), acct, settled)


def _location(ans: Answer, view: View, d: DefRow, s: Site, calls_only: bool) -> CodeLocation:
    r = s.ref
    if calls_only:
        caller = sym.enclosing(view, r)
        symbol = display(caller) if caller else module_symbol(r.path)
        kind = caller.kind if caller else "module"
    else:
        symbol, kind = display(d), r.role
    return ans.location(r.path, r.line, r.line, symbol, kind, r.source, r.stale,
                        s.uncertain, s.evidence)


def _account(ans: Answer, view: View, targets: list[DefRow], out: dict[Key, CodeLocation],
             ledger: Ledger, calls_only: bool, exact_only: bool
             ) -> tuple[Accounting, list[str], dict[Key, Decision]]:
    """The accounting of every occurrence of the targets' names; an occurrence no rule
    decided but the last ones flag (text in a region that failed to parse, a site no rule
    decided) is listed, flagged, unless the answer is exact-only (then cut)."""
    if not targets:
        return Accounting(0, 0, 0, 0, 0), [], {}
    names = {t.name for t in targets}
    own: set[str] = set()
    for t in targets:
        own |= set(closure.of(view, [t]).names)
    member = all(t.kind in closure.MEMBER_KINDS or t.kind == "field" for t in targets)
    found = accounting.occurrences(view, names)
    reach = accounting.reaches(view, {o.ref.target for o in found if o.ref is not None
                                      and o.ref.target and o.ref.target not in own
                                      and key(o.ref) not in out}, targets[0].language)
    distinctive = member and sym.member_candidate(view, targets[0])
    library = dispatch.library_dispatch(view, targets[0], {
        t for t, w in reach.items() if w == accounting.PROJECT}) if len(targets) == 1 else None
    augmenting = augmented.augmented(view, targets)
    acct, settled = accounting.tally(out, found, ledger, own, targets, member, reach,
                                     distinctive, library, augmenting)
    added = False
    by_key = {o.key: o for o in found}
    for k, decision in settled.items():
        if decision.verdict is not Verdict.FLAGGED:
            continue
        if exact_only:
            ledger.decided[k] = Decision(Verdict.CUT, "exact only", decision.why)
            added = True
            continue
        o = by_key[k]
        if calls_only and o.ref is not None and sym.call_filter(view, targets[0])(o.ref) is None:
            ledger.decided[k] = Decision(Verdict.EXCLUDED, "not a call",
                                         f"a {o.ref.role}, not a call")
            added = True
            continue
        d = targets[0]
        symbol = display(d) if not calls_only else module_symbol(k[0])
        kind = (o.ref.role if o.ref is not None else "ref") if not calls_only else "module"
        out[k] = ans.location(k[0], k[1], k[1], symbol, kind,
                              o.ref.source if o.ref is not None else "text-fallback",
                              o.ref.stale if o.ref is not None else False, True,
                              f"{decision.why} ({decision.rule})")
        added = True
    if added:
        acct, settled = accounting.tally(out, found, ledger, own, targets, member, reach,
                                         distinctive, library, augmenting)
    name = targets[0].name
    return acct, [*accounting.cut_notes(settled, name), accounting.statement(acct, name)], \
        settled


def _macro_units(view: View, d: DefRow) -> frozenset[int] | None:
    """For a pack with preprocessor conditions (C), the units where a macro of `d`'s name
    (not `d` itself) is defined or seen through an include, or read after it wherever it is
    included (query/renamed.py read_after); None for other packs."""
    if not sym.manifest_value(d.language, "preprocessor_conditions"):
        return None
    macros = [o for o in sym.find_defs(view, d.name) if o.kind == "macro"
              and o.language == d.language and (o.unit, o.idx) != (d.unit, d.idx)]
    if not macros:
        return frozenset()
    files: set[str] = set()
    for m in macros:
        files |= includes.includers(view, m.path) or {m.path}
    files |= renamed.read_after(view, files, sorted({m.path for m in macros}))
    units = {int(str(u)) for chunk in chunks(sorted(files)) for (u,) in view.conn.execute(
        f"SELECT unit FROM temp.vfiles WHERE path IN ({marks(chunk)})", tuple(chunk))}
    return frozenset(units)


@dataclass(frozen=True, slots=True)
class Constraint:
    """What restricts the build of a unit's lines: the whole file (`whole`, Go's
    `//go:build`), or the `#if` branches its compile command leaves out (`regions`)."""

    whole: str = ""
    regions: tuple[conditionals.Region, ...] = ()
    # branches the compile command does not decide (conditionals.Region.undecided)
    undecided: tuple[conditionals.Region, ...] = ()

    def at(self, line: int) -> str:
        """The evidence for a site on `line`, "" when nothing restricts it."""
        if self.whole:
            return self.whole
        if inactive := self.inactive_at(line):
            return inactive
        for region in self.undecided:
            if region.start <= line <= region.end:
                return undecided_evidence(region)
        return ""

    def inactive_at(self, line: int) -> str:
        """The evidence when `line` is in a branch its build leaves out, else ""."""
        if self.whole:
            return self.whole
        for region in self.regions:
            if region.start <= line <= region.end:
                return (f"in a preprocessor branch inactive under the compile command's "
                        f"-D flags, {region.why} (read, not evaluated, and a header may "
                        "define its names): it may not be compiled")
        return ""


def undecided_evidence(region: conditionals.Region) -> str:
    """Why a site in a branch its compile command does not decide is flagged."""
    return (f"in a preprocessor branch conditional on a name the compile command leaves "
            f"undecided, {region.why} (a compiler-predefined macro such as a target "
            "feature, or a macro of another undecided branch): it may not be compiled")


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
            read = conditionals.decode(text) if not whole else []
            out[int(str(uid))] = Constraint(
                whole=f"in a file with a build constraint, `{text}` (read, not evaluated): "
                      "it may be left out of a default build") if whole else \
                Constraint(regions=tuple(r for r in read if not r.undecided),
                           undecided=tuple(r for r in read if r.undecided))
    if not whole:  # a branch decided by a name some header #defines stays unflagged
        assumed = {n for c in out.values() for r in c.regions for n in r.assumed}
        defined = _macros_defined(view, assumed)
        out = {u: Constraint(regions=tuple(r for r in c.regions
                                           if not defined.intersection(r.assumed)),
                             undecided=c.undecided)
               for u, c in out.items()}
    if whole:
        out.update({u: Constraint(whole=why) for u, why in
                    _file_name_constraints(view, language, units - set(out)).items()})
    return out


def _spelled_through_macro(view: View, d: DefRow) -> list[RefRow]:
    """A C function, variable or typedef whose name a macro of the same full name renames
    (`#define des_set_key _crypt_des_set_key` in a header, the linker sees the body's
    name): its definition's name is an expansion of that macro, a use as clangd counts
    it, so the definition site is listed (manifest `preprocessor_conditions` packs; the
    macro in a branch its build leaves out renames nothing)."""
    live = _renaming_macros(view, d)
    # the macro renames the definition only where the definition's file sees it: its own
    # file, or a header it includes (`pq_fips202.h`'s `#define keccak_absorb …` renames
    # nothing in keccak.c, compiled on its own)
    seen = [o for o in live if o.path == d.path or d.path in (
        includes.includers(view, o.path) or {d.path})]
    return [sym.def_site(d)] if seen else []


def _renaming_macros(view: View, d: DefRow) -> list[DefRow]:
    """The macros of `d`'s full name not in a branch their build leaves out, for a C
    function, variable or typedef (manifest `preprocessor_conditions` packs)."""
    if d.kind not in ("func", "var", "type") or not sym.manifest_value(
            d.language, "preprocessor_conditions"):
        return []
    macros = [o for o in defs_by_full(view, [d.full]) if o.kind == "macro"
              and o.language == d.language]
    if not macros:
        return []
    constrained = build_constraints(view, d.language, {o.unit for o in macros})
    return [o for o in macros if not (o.unit in constrained
                                      and constrained[o.unit].inactive_at(o.name_line))]


def _pasted_names(view: View, d: DefRow, calls_only: bool, exact_only: bool, ledger: Ledger
                  ) -> list[Site]:
    """Invocations of C macros that paste `d`'s name from an argument (query/pasted.py):
    certain where the name made is proven, else flagged (cut from an exact-only answer);
    none for callers."""
    if calls_only or not sym.manifest_value(d.language, "preprocessor_conditions"):
        return []
    found = pasted.sites(view, d)
    if exact_only:
        for r, why, proven in found:
            if not proven:
                ledger.decide(r, Verdict.CUT, "exact only", why)
    return [Site(r, not proven, "" if proven else why) for r, why, proven in found
            if proven or not exact_only]


def _renamed_declarations(view: View, d: DefRow, calls_only: bool, exact_only: bool,
                          ledger: Ledger) -> list[Site]:
    """The declarations (prototypes, `extern`s) of `d`'s name a live macro renames
    (query/renamed.py): flagged (cut from an exact-only answer) but where the macro is
    the same file's, above; none for callers."""
    live = [] if calls_only else _renaming_macros(view, d)
    if not live:
        return []
    found = renamed.declarations(view, d, live)
    if exact_only:
        for r, why in found:
            if why:
                ledger.decide(r, Verdict.CUT, "exact only", why)
    return [Site(r, bool(why), why) for r, why in found if not (exact_only and why)]


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
        return _definition_undecided(d, same, constrained)
    where = f"its definition ({d.path}:{d.name_line}) is in a preprocessor branch inactive " \
            f"under the compile command, {region.why}"
    live = next((o for o in same if region_of(o) is None), None)
    if live is not None:  # `#if AVX2 … f() … #else … f() … #endif`: the other one is compiled
        return (f"{where}: the name means the definition compiled instead, "
                f"{live.path}:{live.name_line}")
    return f"{where}: the name may mean another library's definition"


def _compiled_instead(view: View, d: DefRow) -> str:
    """The evidence when `d` lies in a branch every build leaves out, decided without
    assuming any name undefined (`#ifdef _WIN32` on the pack's target, a `-U`), and another
    definition of its full name lies in no such branch and in no undecided one (`hi_calloc`
    under `#ifdef _WIN32` in alloc.c, a `static inline` twin under `#ifndef _WIN32` in
    alloc.h): a use in compiled code then means the twin, with certainty; else ""."""
    same = [o for o in defs_by_full(view, [d.full]) if o.language == d.language]
    if len(same) < 2:
        return ""
    constrained = build_constraints(view, d.language, {o.unit for o in same})

    def at(o: DefRow, undecided: bool) -> conditionals.Region | None:
        c = constrained.get(o.unit)
        if c is None or c.whole:
            return None
        regions = (*c.regions, *c.undecided) if undecided else c.regions
        return next((r for r in regions if r.start <= o.name_line <= r.end), None)
    region = at(d, False)
    if region is None or region.assumed or not _target_decided(d.language, region):
        return ""
    live = [o for o in same if at(o, True) is None]
    if len(live) != 1:
        return ""
    return (f"its definition ({d.path}:{d.name_line}) is in a preprocessor branch no build "
            f"compiles, {region.why}: the name means the definition compiled instead, "
            f"{live[0].path}:{live[0].name_line}")


_WORD = re.compile(r"[A-Za-z_]\w*")
_DIRECTIVE_WORDS = frozenset({"if", "ifdef", "ifndef", "elif", "else", "of", "defined"})


def _target_decided(language: str, region: conditionals.Region) -> bool:
    """Whether every name the branch's directive reads is one the pack knows on its target
    (manifest `preprocessor_absent`, `preprocessor_present`: `#ifdef _WIN32`, the `#else` of
    `#ifndef _WIN32`): no header of the build may decide otherwise."""
    absent = sym.manifest_value(language, "preprocessor_absent")
    present = sym.manifest_value(language, "preprocessor_present")
    known = {*(absent if isinstance(absent, list) else ()),
             *(present if isinstance(present, dict) else ())}
    names = set(_WORD.findall(region.why)) - _DIRECTIVE_WORDS
    return bool(names) and names <= known


def _definition_undecided(d: DefRow, same: list[DefRow], constrained: dict[int, Constraint]
                         ) -> str:
    """Evidence when `d` lies in a branch its compile command does not decide and another
    definition of its full name exists (`#if defined(__AVX2__) … f() … #else … f()`): which
    one a use means depends on the compiler's target, so every use is flagged."""
    c = constrained.get(d.unit)
    region = next((r for r in c.undecided if r.start <= d.name_line <= r.end), None) \
        if c is not None else None
    other = next((o for o in same if (o.unit, o.idx) != (d.unit, d.idx)), None)
    if region is None or other is None:
        return ""
    return (f"its definition ({d.path}:{d.name_line}) is in a preprocessor branch "
            f"conditional on a name the compile command leaves undecided, {region.why}: "
            f"the name may mean another definition, {other.path}:{other.name_line}")


def _file_name_constraints(view: View, language: str, units: set[int]) -> dict[int, str]:
    """Units whose file name is a build constraint (manifest `build_constraint_file`: Go's
    `_windows.go`), with the evidence naming it."""
    pack = pack_named(language)
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
    """Which of `names` some file of the view `#define`s, outside a branch surely not
    taken (inactive without assuming any name undefined: `#if XCRYPT_USE_BIGENDIAN …
    #define __GOST3411_BIG_ENDIAN__` under a little-endian build defines nothing)."""
    rows: list[tuple[str, int, int]] = []
    for chunk in chunks(sorted(names)):
        rows += [(str(n), int(str(u)), int(str(ln))) for n, u, ln in view.each(
            "SELECT d.name, d.unit, d.name_line FROM {defs} d JOIN temp.vfiles f ON "
            f"f.unit = d.unit WHERE d.kind = 'macro' AND d.name IN ({marks(chunk)})",
            tuple(chunk))]
    surely: dict[int, list[conditionals.Region]] = {}
    for ids in chunks(sorted({u for _, u, _ in rows})):
        for uid, build in view.each(f"SELECT u.id, u.build FROM {{units}} u WHERE u.id IN "
                                    f"({marks(ids)}) AND u.build != ''", tuple(ids)):
            surely[int(str(uid))] = [r for r in conditionals.decode(str(build))
                                     if not r.assumed and not r.undecided]
    return {n for n, u, ln in rows
            if not any(r.start <= ln <= r.end for r in surely.get(u, ()))}


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
