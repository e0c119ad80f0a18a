"""Outgoing calls of definitions: the callees, resolved, inferred or name-matched, with evidence
(the certainty rules of callers, seen from the other end; docs/tools.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from spyglass.index import scip
from spyglass.query import (
    accounting,
    aliases,
    dispatch,
    overloads,
    precise_callees,
    proofs,
    references,
    related,
    submodules,
)
from spyglass.query import symbols as sym
from spyglass.query.answer import Answer
from spyglass.query.closure import CLASS_KINDS, MEMBER_KINDS, VALUE_CALLABLE
from spyglass.query.display import display
from spyglass.query.results import CALLED_AT_PREFIX, DefRow, RefRow
from spyglass.query.rows import (
    DEF_COLS,
    DEF_FROM,
    REF_COLS,
    REF_FROM,
    Key,
    defs,
    defs_by_full,
    key,
    refs,
)
from spyglass.query.view import View
from spyglass.types import CodeLocation, ToolResult

MAX_NAME_MATCHES = 5  # candidate definitions listed for one unresolved call
MAX_DISPATCH = 20  # implementations listed for one call through an interface
LINES_SHOWN = 6  # call lines named in one result's evidence
# Definitions sharing a called name whose callers are read (the converse check below): each
# is a callers answer, so a bound.
MAX_CONVERSE = 30


@dataclass
class Callee:
    """One called definition and the calls that reach it (internal)."""

    d: DefRow
    lines: list[int] = field(default_factory=list)
    certain: bool = False
    why: str = ""


def _calls_in(ans: Answer, d: DefRow) -> list[RefRow]:
    """Reference sites made in `d`'s own scope (not in definitions nested in it)."""
    view = ans.view()
    return refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.unit = ? AND r.scope = ? "
                          "ORDER BY r.line, r.col", (d.unit, d.idx)))


def _named(ans: Answer, r: RefRow) -> tuple[list[DefRow], int]:
    """Definitions an unresolved call may mean by its name (the references tool's rule), and
    how many there were before the cap."""
    view = ans.view()
    member = bool(r.qualifier)
    found = [d for d in defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name = ?",
                                       (r.name,)))
             if d.language == r.language and d.kind in VALUE_CALLABLE | {"class", "struct"}
             and (d.kind in MEMBER_KINDS) == member]
    if member:
        found = [d for d in found if sym.member_candidate(view, d)]
    found.sort(key=lambda d: (d.path != r.path, d.path, d.start_line))
    return found[:MAX_NAME_MATCHES], len(found)


def callees(ans: Answer, targets: list[DefRow], exact_only: bool = False,
            precise: scip.ScipIndex | None = None) -> ToolResult:
    """What `targets` call: one result per called definition, at the definition, with the
    call lines in the evidence. A call bound by the resolver is certain; one bound by a
    guessed rule is `inferred`; a call through an interface also lists the project types'
    methods it may dispatch to, and an unresolved call lists the definitions of its name:
    both uncertain. Every other callers rule is reached by `Converse` (the callers answer
    of each definition sharing a called name); the callers' build flags apply. Calls to
    names outside the project are counted in limitations."""
    view = ans.view()
    found: dict[Key, Callee] = {}
    outside: list[tuple[str, RefRow]] = []  # (the name shown, the call)
    unlisted: list[RefRow] = []
    unknown: list[RefRow] = []
    notes: list[str] = []
    ambiguous = sym.ambiguity(targets)
    several = bool(ambiguous)
    if ambiguous:
        notes.append(ambiguous)
    converse = Converse(ans, exact_only)
    bound: set[tuple[int, int, str]] = set()  # (unit, line, name) of calls it bound
    flags = BuildFlags(view)

    def add(d: DefRow, line: int, certain: bool, why: str) -> None:
        flag = flags.at(line, d, why)
        if flag:  # the callers' flags: a call or a callee the build may leave out
            if exact_only:
                return
            certain, why = False, "; ".join(filter(None, (why, flag)))
        c = found.setdefault(key(d), Callee(d))
        if line not in c.lines:
            c.lines.append(line)
        if certain and not c.certain:  # one certain call makes the callee certain
            c.certain, c.why = True, why
        elif not c.why:
            c.why = why

    for t in targets:
        rows = _calls_in(ans, t)
        flags.enter(t, rows)
        capped: set[tuple[int, int]] = set()
        resolved = aliases.resolve(view, {str(r.target) for r in rows if r.target
                                          and r.role != "import"})
        resolved.update(_inherited(ans, {str(r.target) for r in rows if r.target
                                         and r.role == "call"} - set(resolved)))
        for r in rows:
            if r.role == "import":
                continue
            hits = resolved.get(str(r.target), []) if r.target else []
            # a guessed binding reaching no definition is name-matched, as in references
            # (symbols.unresolved_refs): it falls through to the candidates below
            if r.target and not hits and r.conf != "ambiguous":
                if r.role == "call":
                    owner = r.target.rsplit(".", 1)[0]
                    if "." in r.target and aliases.resolve(view, [owner]):
                        unknown.append(r)  # a member of a value whose type is unknown
                    else:
                        outside.append((r.target, r))
                continue
            if hits:
                if r.conf in ("inferred", "ambiguous") and len(hits) == 1 and proofs.prover(
                        view, hits[0], (hits[0].full,))(r):
                    r = replace(r, conf="exact")  # proven as the callers answer proves it
                judged = overloads.among(view, hits, r)
                hits = [h for h, _ in judged]
                undecided = {key(h): why for h, why in judged if why}
                hit = next((h for h in hits if not _is_stub(h)), hits[0])
                how = sym.call_filter(view, hit)(r)
                if how is None:
                    continue
                fulls = sorted({h.full for h in hits})
                if how == "indirect":
                    if exact_only:
                        continue
                    add(hit, r.line, False, "used as a value (a callback or handler), "
                        "called indirectly from here")
                elif len(fulls) > 1:
                    if exact_only:
                        continue
                    for h in hits:
                        add(h, r.line, False, f"{len(fulls)} candidate definitions: "
                            + ", ".join(fulls[:5]))
                elif undecided:  # overloads the argument count does not tell apart
                    for h in hits:
                        why = undecided.get(key(h), "")
                        if why and not exact_only:
                            add(h, r.line, False, why)
                        elif not why and (r.conf == "exact" or not exact_only):
                            add(h, r.line, r.conf == "exact" and not several, "")
                elif r.conf == "exact":
                    add(hit, r.line, not several, f"called by one of {len(targets)} "
                        "candidate definitions (see limitations)" if several else "")
                elif not exact_only:
                    add(hit, r.line, False, f"inferred ({r.head.split(':')[0]} binding): "
                        f"resolved to {r.target}")
                if how == "call" and not exact_only:
                    for impl, why in _dispatch(ans, hit, notes):
                        add(impl, r.line, False, why)
                if how == "call" and len(fulls) == 1:
                    for ctor in _constructors(ans, hit):  # calling a class runs these
                        add(ctor, r.line, r.conf == "exact" and not several,
                            f"constructor of {hit.qualname}")
                continue
            if r.role != "call" or exact_only:
                continue
            if r.head == sym.PARAM:
                unlisted.append(r)
                capped.add((r.line, r.col))  # counted, not listed: as callers do
                continue
            if not sym.name_matched(r, bool(r.qualifier)):
                continue
            cands, total = _named(ans, r)
            if not cands:
                name = (r.qualifier + "." if r.qualifier else "") + r.name
                outside.append((name, r))
                continue
            if total > len(cands):
                capped.add((r.line, r.col))
                notes.append(f"{total} definitions named {r.name!r} match the call at line "
                             f"{r.line}: the nearest {len(cands)} listed")
            why = "receiver type unknown" if r.qualifier else "unresolved name"
            for c in cands:
                add(c, r.line, False, f"{why}; matched by name: {total} definition(s) named "
                    f"{r.name!r}")
        assigned = [sym.def_site(f) for f in defs(view.each(
            f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.unit = ? AND d.parent = ? AND d.kind = ?",
            (t.unit, t.idx, "field")))]  # `self.x = v` sets a property x: its setter runs
        unbound = {(r.line, r.col) for r in [*unknown, *(r for _, r in outside)]
                   if r.unit == t.unit}
        asked = sorted([r for r in rows if (r.line, r.col) not in capped] + assigned,
                       key=lambda r: (r.line, r.col) not in unbound)  # unbound calls first
        for d, line, certain, why in converse.calls(t, asked, set(found)):
            add(d, line, certain and not several, why)
            bound.add((t.unit, line, d.name))
    if precise is not None and len(targets) == 1:
        notes += _decided(ans, precise, targets[0], found)
    # calls the converse check bound are neither outside the index nor of unknown type
    outside = [(n, r) for n, r in outside if (r.unit, r.line, r.name) not in bound]
    unknown = [r for r in unknown if (r.unit, r.line, r.name) not in bound]
    counts: dict[str, int] = {}
    for n, _ in outside:
        counts[n] = counts.get(n, 0) + 1
    if converse.skipped:
        notes.append(f"{len(converse.skipped)} definition(s) sharing a called name not checked "
                     f"for calls from here (the first {MAX_CONVERSE} were)")
    out = [_location(ans, c) for c in sorted(found.values(), key=lambda c: (
        not c.certain, min(c.lines), c.d.path, c.d.start_line))]
    if counts:
        names = sorted(counts, key=lambda n: (-counts[n], n))
        notes.append(f"{len(outside)} call(s) to {len(names)} name(s) outside the "
                     f"project's index (libraries, builtins): {', '.join(names[:8])}"
                     + (", ..." if len(names) > 8 else ""))
    if unknown:
        notes.append(f"{len(unknown)} call(s) on values whose type the index does not know "
                     "(a call's result, an untyped attribute): " + ", ".join(
                         f"line {r.line} {r.qualifier}.{r.name}" for r in unknown[:5])
                     + (", ..." if len(unknown) > 5 else ""))
    if unlisted:
        notes.append(f"{len(unlisted)} call(s) on parameters without a type annotation not "
                     "matched by name (the receiver's type is unknown): "
                     + ", ".join(f"line {r.line} .{r.name}" for r in unlisted[:5])
                     + (", ..." if len(unlisted) > 5 else ""))
    return ans.envelope(list(out), notes=tuple(notes))


class BuildFlags:
    """The callers' flags seen from a caller (query/references.py): its lines in a file
    with a build constraint or an inactive `#if` branch, a callee defined in one, a call
    reaching a submodule only through an import side effect (query/submodules.py)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.lines: references.Constraint | None = None
        self.inactive: dict[Key, str] = {}
        self.unbound: dict[str, Callable[[RefRow], str] | None] = {}
        self.side: dict[tuple[int, str], str] = {}  # (line, called name) → evidence
        self.caller: DefRow | None = None

    def enter(self, t: DefRow, rows: list[RefRow]) -> None:
        """Read what restricts the build of `t`'s lines and which of its `rows` (the calls
        looked at next) reach a submodule the package does not bind."""
        self.lines = references.build_constraints(self.view, t.language, {t.unit}).get(t.unit)
        self.caller = t
        if t.language not in self.unbound:
            self.unbound[t.language] = submodules.checker(self.view, t.language)
        unbound = self.unbound[t.language]
        self.side = {}
        if unbound is not None:
            for r in rows:
                if r.role != "import" and (why := unbound(r)):
                    self.side[(r.line, r.name)] = why

    def at(self, line: int, d: DefRow, why: str) -> str:
        """The evidence flagging a call at `line` of callee `d`, less what `why` says."""
        if key(d) not in self.inactive:
            self.inactive[key(d)] = references._definition_inactive(self.view, d)
        found = (self.lines.at(line) if self.lines is not None else "", self.inactive[key(d)],
                 self.side.get((line, d.name), ""), self._broken(line))
        return "; ".join(f for f in found if f and f not in why)

    def _broken(self, line: int) -> str:
        """The callers' parse-error flag (query/references.py `_parse_error_rule`): a call
        in a construct that failed to parse, unless the error provably leaves the caller
        whole."""
        t = self.caller
        if t is None:
            return ""
        broken = accounting.broken_at(self.view, t.path, line)
        if broken is None or accounting.enclosing_proven(self.view, t.path, line, t.language):
            return ""
        return (f"inside a construct that failed to parse (lines {broken.start}-{broken.end}, "
                f"{broken.why}): the enclosing definition is not proven")


class Converse:
    """Calls the rules above do not bind, found the callers' way: a definition sharing a
    called name is a callee when its callers answer (query/references.py, the one
    algorithm) lists the call, with that answer's certainty and evidence (interface
    dispatch, related members, types of literals, `new(T)`, a property's write…)."""

    def __init__(self, ans: Answer, exact_only: bool) -> None:
        self.ans, self.exact_only = ans, exact_only
        self.read: dict[Key, list[CodeLocation]] = {}
        self.skipped: set[Key] = set()

    def calls(self, t: DefRow, rows: list[RefRow], found: set[Key]
              ) -> list[tuple[DefRow, int, bool, str]]:
        """(callee, call line, certain, evidence) for definitions not in `found` whose
        callers include one of `rows` (the sites in `t`'s own scope)."""
        view = self.ans.view()
        by_name: dict[str, list[RefRow]] = {}
        for r in rows:
            if r.role != "import":
                by_name.setdefault(r.name, []).append(r)
        for name, extra in _expanded(view, rows).items():
            by_name.setdefault(name, []).extend(extra)
        out: list[tuple[DefRow, int, bool, str]] = []
        for name, sites in by_name.items():
            cands = [d for d in defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name = ?",
                                               (name,)))
                     if d.language == t.language and key(d) not in found
                     and d.kind not in ("module", "package")]
            here = t.path.rpartition("/")[0]
            cands.sort(key=lambda d: (d.path != t.path, d.path.rpartition("/")[0] != here,
                                      d.path, d.start_line))  # nearest first
            for d in cands:
                is_call = sym.call_filter(view, d)
                lines = {r.line for r in sites if is_call(r) is not None}
                if not lines:
                    continue  # no use here the callers of `d` would count
                k = key(d)
                if k not in self.read:
                    if len(self.read) >= MAX_CONVERSE:
                        self.skipped.add(k)
                        continue
                    self.read[k] = references.locations(self.ans, [d], exact_only=self.exact_only,
                                             calls_only=True)[0]
                shown = display(t)
                for loc in self.read[k]:
                    if loc.path == t.path and loc.symbol == shown and loc.start_line in lines:
                        out.append((d, loc.start_line, not loc.uncertain, loc.evidence))
        return out


def _expanded(view: View, rows: list[RefRow]) -> dict[str, list[RefRow]]:
    """Names the definitions called at `rows` stand for (their alias rows: the names a
    macro's body uses, `M → f`), with the calls' sites: the converse check asks those
    names' callers answers whether they list the call (the callers answer reaches `f`
    through the alias; this is the same step taken forwards)."""
    targets = {str(r.target) for r in rows if r.target and r.role != "import"}
    if not targets:
        return {}
    fulls: dict[str, set[str]] = {}  # a called definition's full name → the targets
    for t, hits in aliases.resolve(view, targets).items():
        for h in hits:
            fulls.setdefault(h.full, set()).add(t)
    names: dict[str, set[str]] = {}  # a name the definition stands for → the targets
    for full, stands in aliases.one_step(view, set(fulls)).items():
        for target in stands:
            if target != full:
                names.setdefault(target.rpartition(".")[2], set()).update(fulls[full])
    out: dict[str, list[RefRow]] = {}
    for name, via in names.items():
        out[name] = [r for r in rows if r.target is not None and str(r.target) in via]
    return out


def _inherited(ans: Answer, targets: set[str]) -> dict[str, list[DefRow]]:
    """Targets naming a member a type inherits (``Sub.m`` for ``Base.m``, a Go promoted
    method): the inherited definition (query/hierarchy.py's supertypes)."""
    from spyglass.query.hierarchy import inherited_member
    view = ans.view()
    owners = aliases.resolve(view, {t.rsplit(".", 1)[0] for t in targets if "." in t})
    out: dict[str, list[DefRow]] = {}
    for t in sorted(targets):
        owner, _, name = t.rpartition(".")
        for o in owners.get(owner, [])[:1]:
            if o.kind in CLASS_KINDS:
                m = inherited_member(view, o, name)
                if m is not None:
                    out[t] = [m]
    return out


def _constructors(ans: Answer, d: DefRow) -> list[DefRow]:
    """The constructors a call of class `d` runs (the pack's `constructor_names`)."""
    names = sym.manifest_value(d.language, "constructor_names")
    if d.kind != "class" or not isinstance(names, list):
        return []
    view = ans.view()
    return [m for n in names for m in defs_by_full(view, [f"{d.full}.{n}"])
            if m.kind == "method"]


def _is_stub(d: DefRow) -> bool:
    stubs = sym.manifest_value(d.language, "declaration_files")
    return isinstance(stubs, list) and d.path.endswith(tuple(str(s) for s in stubs))


def _dispatch(ans: Answer, d: DefRow, notes: list[str]) -> list[tuple[DefRow, str]]:
    """Methods a call of `d` may run instead: for a method of a structural interface, the
    same-named methods of the types satisfying it (Go); where the pack relates members
    through types (TypeScript), the members overriding or implementing it. The converse of
    the callers rule (a call through the interface is an uncertain caller of each)."""
    if d.kind != "method":
        return []
    view = ans.view()
    out: list[tuple[DefRow, str]] = []
    owner = sym.owner_class(view, d)
    if owner is not None and dispatch.is_structural(view, owner):
        partners = dispatch.partners(view, owner, notes)[:MAX_DISPATCH]
        by_owner: dict[Key, list[DefRow]] = {}  # the same-named methods, by their type
        for m in sym.find_defs(view, d.name, kind="method") if partners else []:
            o = sym.owner_class(view, m)
            if o is not None:
                by_owner.setdefault(key(o), []).append(m)
        for other, why in partners:
            out += [(m, f"interface dispatch: {why}") for m in by_owner.get(key(other), [])]
    if related.applies(d.language):
        for m in related.overriders(view, d)[:MAX_DISPATCH]:
            out.append((m, f"may dispatch here: overrides or implements {display(d)}"))
    return out


def _decided(ans: Answer, precise: scip.ScipIndex, caller: DefRow,
             found: dict[Key, Callee]) -> list[str]:
    """The callees decided by the caller's fresh precise facts (query/precise_callees.py):
    confirmed (certain), refuted (dropped), or added; one note counting them."""
    calls = precise_callees.calls_in(ans, precise, caller)
    if calls is None:
        return []
    evidence = f"precise: {calls.tool} (SCIP)"
    held: set[str] = set()
    confirmed = dropped = added = 0
    for k, c in list(found.items()):
        symbol = precise_callees.symbol_of(ans, precise, c.d)
        if symbol is None:
            continue  # the callee's file has no fresh facts: as the index answers
        if symbol in calls.by_symbol:
            held.add(symbol)
            confirmed += 1
            c.certain, c.why = True, evidence
            c.lines = sorted(set(c.lines) | set(calls.by_symbol[symbol]))
        elif precise_callees.refuted(calls, c.d, symbol, c.lines):
            dropped += 1
            del found[k]
    for symbol, lines in calls.by_symbol.items():
        if symbol in held:
            continue
        d = precise_callees.definition(ans, precise, symbol)
        if d is None or not precise_callees.callable_target(d) or key(d) in found:
            continue
        added += 1
        found[key(d)] = Callee(d, sorted(set(lines)), True,
                               f"{evidence}; not found by the index")
    note = (f"precise facts ({calls.tool}): {confirmed} callee(s) confirmed, {added} added, "
            f"{dropped} refuted and dropped")
    return [note]


def _location(ans: Answer, c: Callee) -> CodeLocation:
    lines = sorted(c.lines)
    at = ", ".join(str(n) for n in lines[:LINES_SHOWN]) + (", ..." if len(lines) > LINES_SHOWN
                                                          else "")
    evidence = f"{CALLED_AT_PREFIX}{at}" + (f"; {c.why}" if c.why else "")
    return ans.def_location(c.d, not c.certain, evidence)
