"""The accounting of an answer: every occurrence of the target's name, decided exactly once.

docs/contract.md "Accounting". An occurrence is the target's name as an identifier token in
the analysed files: a reference the index extracted, a definition's name, a token the pack
does not extract (index table `tokens`: an @ignore capture, a token of the manifest's
`tokens.kinds` no pattern captures, a name the extractor drops as local, builtin or module
object), or — inside a region that failed to parse — the name read as text. Each is
exactly one of:

* `certain`: listed, not uncertain;
* `flagged`: listed, uncertain, with evidence;
* `excluded`: resolved with certainty to another definition, or not what the question
  asks about (a declaration, a use in the other name space, a call the argument count
  rules out, not a call for `callers`);
* `cut`: counted, left out of the list (a bound, an exact-only answer, a candidate too common to
  list by name); the limitations say which and how many.

Every decision names the rule that made it (`Decision.rule`), so the tally says which rule
decided how much. An occurrence that no rule decided is listed `flagged` by the last rule,
`unaccounted`: never dropped (the property test tests/test_accounting.py asserts it decides
nothing). Text read in a region that failed to parse is counted (`cut`, its limitation
names the first places): code, comments and strings are not told apart there."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from spyglass.errors import BadInput, LimitExceeded
from spyglass.query import aliases, closure
from spyglass.query import paths as client_paths
from spyglass.query.closure import LITERAL_KEY
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import DEF_COLS, DEF_FROM, REF_COLS, REF_FROM, chunks, defs, marks, refs
from spyglass.query.symbols import manifest_value
from spyglass.query.view import View
from spyglass.syntax import heads as H
from spyglass.syntax.diagnostics import UNREPORTED
from spyglass.types import Accounting, CodeLocation

Key = tuple[str, int, int]  # path, line, 0-based column of a site
MAX_SHOWN = 3
UNACCOUNTED = "unaccounted"
UNACCOUNTED_KEY = f"flagged: {UNACCOUNTED}"  # its key in Accounting.by_rule
# Definitions whose members the parser still finds around an error inside them.
CONTAINERS = frozenset({"class", "struct", "interface", "enum", "module", "package", "type"})


class Verdict(Enum):
    """What became of one occurrence (module docstring)."""

    CERTAIN = "certain"
    FLAGGED = "flagged"
    EXCLUDED = "excluded"
    CUT = "cut"


@dataclass(frozen=True, slots=True)
class Decision:
    """One rule's verdict on one occurrence, and why."""

    verdict: Verdict
    rule: str
    why: str


@dataclass(frozen=True, slots=True)
class Occurrence:
    """The name at a place: a reference row, a definition's name, or text (`ref` None)."""

    key: Key
    ref: RefRow | None
    definition: DefRow | None = None
    token: tuple[str, str] | None = None  # a token no reference is made of: (why, language)


@dataclass
class Ledger:
    """What the rules of one answer decided besides listing (internal, mutable while the
    answer is built): exclusions and cuts by site, the limitations, the unlisted
    parameter-receiver sites, and whether a bound cut the sites read."""

    notes: list[str] = field(default_factory=list)
    decided: dict[Key, Decision] = field(default_factory=dict)
    unlisted: dict[Key, RefRow] = field(default_factory=dict)
    bounded: bool = False

    def decide(self, r: RefRow, verdict: Verdict, rule: str, why: str) -> None:
        """Record a verdict on a site that is not listed (the first rule's stands)."""
        self.decided.setdefault(key(r), Decision(verdict, rule, why))


def key(r: RefRow) -> Key:
    return (r.path, r.line, r.col)


MEMO_NAMES = 64  # name sets whose occurrences a view keeps (per state)


def occurrences(view: View, names: set[str]) -> list[Occurrence]:
    """Every occurrence of `names` in the view: references, definitions' names, and the
    text of regions that failed to parse where the index has neither (kept per state of
    the view for the last MEMO_NAMES name sets: an answer reads them twice)."""
    state = view.state_key
    memo = view.memo.get("occurrences")
    if memo is None or memo[0] != state or not isinstance(memo[1], dict):
        memo = (state, {})
        view.memo["occurrences"] = memo
    cache: dict[frozenset[str], list[Occurrence]] = memo[1]  # type: ignore[assignment]
    k = frozenset(names)
    if k not in cache:
        if len(cache) >= MEMO_NAMES:
            cache.pop(next(iter(cache)))
        cache[k] = _occurrences(view, names)
    return cache[k]


def _occurrences(view: View, names: set[str]) -> list[Occurrence]:
    out: dict[Key, Occurrence] = {}
    for chunk in chunks(sorted(names)):
        for r in refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.name IN "
                                f"({marks(chunk)})", tuple(chunk))):
            out.setdefault(key(r), Occurrence(key(r), r))
        for d in defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name IN "
                                f"({marks(chunk)})", tuple(chunk))):
            k = (d.path, d.name_line, d.name_col)
            out.setdefault(k, Occurrence(k, None, d))
    for k in text_tokens(view, names):  # within a syntax error, a token is text
        out.setdefault(k, Occurrence(k, None))
    for chunk in chunks(sorted(names)):
        for path, why, places, language in view.each(
                "SELECT f.path, t.why, t.places, f.language FROM {tokens} t JOIN "
                f"temp.vfiles f ON f.unit = t.unit WHERE t.name IN ({marks(chunk)})",
                tuple(chunk)):
            token = (str(why), str(language))
            for place in str(places).split():
                line, _, col = place.partition(":")
                k = (str(path), int(line), int(col))
                out.setdefault(k, Occurrence(k, None, token=token))
    return list(out.values())


# What the extractor drops as never a project definition (syntax/extract.py), decided so.
DROPPED = {
    "local": Decision(Verdict.EXCLUDED, "local name, not extracted",
                      "a local name of its function"),
    "builtin": Decision(Verdict.EXCLUDED, "builtin name",
                        "a builtin's name, unbound in its file"),
    "module": Decision(Verdict.EXCLUDED, "module object", "a module an import binds"),
    "unparsed": Decision(Verdict.CUT, "file not parsed",
                         "in a file the parser gave up on (the parse budget, too deep a "
                         "nesting): read as text, code, comments and strings alike"),
    "blanked": Decision(Verdict.CUT, "macro text not parsed",
                        "in a macro's arguments the file's compile command expands to "
                        "nothing, or a macro expanded before parsing: not read"),
}


# The rules deciding the tokens no reference is made of (the occurrences the accounting
# read only from the index's `tokens` table).
TOKEN_RULES = frozenset({*(f"{d.verdict.value}: {d.rule}" for d in DROPPED.values()),
                         "excluded: ignored by the pack", "cut: token not read"})


def token_decision(why: str, language: str, targets: list[DefRow] | None = None
                   ) -> Decision:
    """The verdict on a token the pack does not extract, by the kind of the token's parent
    in the pack's manifest: excluded when `tokens.excluded` says it is certainly no use of
    a definition, or `tokens.not_a_member` that it names no member and every target is one
    (no class, interface, …); excluded as a declaration when the pack ignores it as
    declaring the name (`tokens.declarations`: a C prototype) and no target is a macro
    (whose invocation may read like a prototype); else counted (`cut`) as a token the pack
    does not read."""
    dropped = DROPPED.get(why)
    if dropped is not None:
        return dropped
    parent = why.split(":", 1)[-1]
    tokens = manifest_value(language, "tokens")
    tokens = tokens if isinstance(tokens, dict) else {}
    targets = targets or []
    members = bool(targets) and not any(t.kind in CONTAINERS for t in targets)
    declares = why.startswith("ignore:") and not any(t.kind == "macro" for t in targets)
    for table, applies, rule, says in (
            ("excluded", True, "ignored by the pack", "ignored by the pack"),
            ("not_a_member", members, "ignored by the pack", "ignored by the pack"),
            ("declarations", declares, "declaration", "a declaration")):
        found = tokens.get(table, {}) if applies else {}
        reason = found.get(parent) if isinstance(found, dict) else None
        if isinstance(reason, str):
            return Decision(Verdict.EXCLUDED, rule, f"{says}: {reason}")
    return Decision(Verdict.CUT, "token not read",
                    f"an identifier token the pack does not read (in a `{parent}`): "
                    "not decided")


@dataclass(frozen=True, slots=True)
class Broken:
    """A region of a file that failed to parse, widened to the construct it breaks."""

    start: int
    end: int
    why: str
    error_start: int  # the error's own lines, within start..end
    error_end: int
    inner_end: int = 0  # the last line of the definition found around the error (0: none)


def broken_regions(view: View) -> dict[str, tuple[Broken, ...]]:
    """Per file, the regions whose parse failed (computed once per state of the view): each
    syntax error widened to the innermost definition the parser still found around it,
    and on to the line before the next definition it found (a broken header leaves its
    body to the enclosing scope: its sites' enclosing definition is not proven). Past the
    errors reported (a bound), the rest of the file is broken."""
    k = view.state_key
    memo = view.memo.get("broken")
    if memo is not None and memo[0] == k and isinstance(memo[1], dict):
        return memo[1]
    errors: dict[str, list[tuple[int, int, str]]] = {}
    for path, line, end, msg in view.each(
            "SELECT f.path, g.line, g.end_line, g.message FROM {diags} g JOIN temp.vfiles f "
            "ON f.unit = g.unit WHERE g.severity = 'error' OR "
            "(g.severity = 'warning' AND g.message LIKE ?)", (f"%{UNREPORTED}",)):
        errors.setdefault(str(path), []).append((int(str(line)), int(str(end)), str(msg)))
    found: dict[str, tuple[Broken, ...]] = {}
    for chunk in chunks(sorted(errors)):
        spans: dict[str, list[tuple[int, int]]] = {}
        for path, start, end, kind in view.each(
                "SELECT f.path, d.start_line, d.end_line, d.kind FROM {defs} d JOIN temp.vfiles "
                f"f ON f.unit = d.unit WHERE f.path IN ({marks(chunk)})", tuple(chunk)):
            if str(kind) not in CONTAINERS:  # a class's members before the error stand
                spans.setdefault(str(path), []).append((int(str(start)), int(str(end))))
        for path in chunk:
            found[path] = tuple(_widen(line, end, msg, spans.get(path, []))
                                for line, end, msg in errors[path])
    view.memo["broken"] = (k, found)
    return found


def _widen(line: int, end: int, msg: str, spans: list[tuple[int, int]]) -> Broken:
    inside = [s for s in spans if s[0] <= line <= s[1]]
    start = max((s[0] for s in inside), default=line)
    inner = max((s[1] for s in inside if s[0] == start), default=0)
    stop = max(end, inner)
    after = [s[0] for s in spans if s[0] > end]
    if after:
        stop = max(stop, min(after) - 1)
    return Broken(start, stop, f"{msg} at line {line}", line, end, inner)


def enclosing_proven(view: View, path: str, line: int, language: str) -> bool:
    """Whether every error whose construct holds `line` leaves the definition found around it
    whole, so that definition encloses `line` for certain: the error lies inside it, past
    its first line, off `line`, and its own lines hold no brace (`va_arg(ap, char *)`,
    `TEST("d", int)`: a type as a macro's argument), so the braces delimiting the definition
    are the ones the parser matched (manifest `body_brackets`; a language without them, none
    is proven); `line` is within the definition."""
    brackets = manifest_value(language, "body_brackets")
    if not isinstance(brackets, str) or not brackets:
        return False
    around = [b for b in broken_regions(view).get(path, ()) if b.start <= line <= b.end]
    lines = file_lines(view, path)
    for b in around:
        if not b.inner_end or not b.start < b.error_start <= b.error_end <= b.inner_end \
                or not b.start <= line <= b.inner_end or b.error_start <= line <= b.error_end \
                or b.error_end > len(lines):
            return False
        if any(c in text for text in lines[b.error_start - 1:b.error_end] for c in brackets):
            return False
    return bool(around)


def broken_at(view: View, path: str, line: int, construct: bool = True) -> Broken | None:
    """The region that failed to parse around `line` of `path`, if any: the construct the
    error breaks, or (`construct` False) the error's own lines."""
    return next((b for b in broken_regions(view).get(path, ())
                 if (b.start <= line <= b.end if construct else
                     b.error_start <= line <= b.error_end)), None)


def text_tokens(view: View, names: set[str]) -> list[Key]:
    """The names as identifier tokens in the text of regions that failed to parse (read
    from the workspace, within max_file_bytes)."""
    regions = broken_regions(view)
    if not regions or not names:
        return []
    word = re.compile(r"(?<![\w$])(" + "|".join(re.escape(n) for n in sorted(names))
                      + r")(?![\w$])")
    out: list[Key] = []
    for path, spans in regions.items():
        lines = _lines(view, path)
        seen: set[int] = set()
        for b in spans:  # the error's own lines: around them the parser found the names
            for n in range(b.error_start, min(b.error_end, len(lines)) + 1):
                if n in seen:
                    continue
                seen.add(n)
                text = lines[n - 1]
                out += [(path, n, len(text[:m.start()].encode())) for m in word.finditer(text)]
    return out


MEMO_FILES = 32  # files whose lines a view keeps (per state)


def file_lines(view: View, path: str) -> list[str]:
    """`_lines`, kept per state of the view for the last MEMO_FILES files (a rule reading
    the text around many sites of one file reads it once)."""
    memo = view.memo.get("file_lines")
    if memo is None or memo[0] != view.state_key or not isinstance(memo[1], dict):
        memo = (view.state_key, {})
        view.memo["file_lines"] = memo
    cache: dict[str, list[str]] = memo[1]  # type: ignore[assignment]
    if path not in cache:
        if len(cache) >= MEMO_FILES:
            cache.pop(next(iter(cache)))
        cache[path] = _lines(view, path)
    return cache[path]


def _lines(view: View, path: str) -> list[str]:
    """The file's lines from the workspace; none when it is gone, refused or too big."""
    try:
        data = client_paths.read(view.root, path, view.config.limits.max_file_bytes)
    except (BadInput, LimitExceeded):
        return []
    return data.decode("utf-8", "replace").splitlines()


DEFINITION, DYNAMIC, DISPATCH, PROJECT, OUTSIDE = (
    "definition", "dynamic", "dispatch", "project", "outside")
# Kinds of a receiver's type whose members may dispatch to any implementation, read or not.
OPEN_KINDS = frozenset({"interface"})


def reaches(view: View, targets: set[str], language: str) -> dict[str, str]:
    """Where each reference target leads: to a `definition`; to a member no definition
    declares of a project class that makes members at run time (`dynamic`: manifest
    `dynamic_member_hooks`, Python's `__getattr__`); to a member no definition declares
    of a project interface (`dispatch`: its method set comes from what the
    index did not read, and a call may reach any implementation); into the `project`
    otherwise (a prefix is a project definition or module: a member of a value whose type
    is not known, or of a class whose bases are not all read); or `outside`."""
    state = view.state_key
    memo = view.memo.get("reaches")
    if memo is None or memo[0] != state or not isinstance(memo[1], dict):
        memo = (state, {})
        view.memo["reaches"] = memo
    known_reach: dict[str, str] = memo[1]  # type: ignore[assignment]
    wanted = {t for t in targets if t not in known_reach}
    if wanted:
        if len(known_reach) > MEMO_TARGETS:
            known_reach.clear()
        known_reach.update(_reaches(view, wanted, language))
    return {t: known_reach[t] for t in targets}


MEMO_TARGETS = 50_000  # reference targets whose reach a view keeps (per state)


def _reaches(view: View, targets: set[str], language: str) -> dict[str, str]:
    bound = aliases.resolve(view, targets)
    out = {t: DEFINITION for t, ds in bound.items() if ds}
    rest = targets - set(out)
    heads = {t: [t[:i] for i in range(len(t)) if t[i] in ".#"] for t in rest}
    every = {p for ps in heads.values() for p in ps if p}
    resolved = {p: ds for p, ds in aliases.resolve(view, every).items() if ds}
    known = set(resolved) | closure.modules_of(view, every)
    hooks = manifest_value(language, "dynamic_member_hooks")
    dynamic = _hooked(view, [str(h) for h in hooks]) if isinstance(hooks, list) else set()
    for t in rest:
        deepest = next((resolved[p] for p in reversed(heads[t]) if p in resolved), [])
        if any(d.full in dynamic for p in heads[t] for d in resolved.get(p, ())):
            out[t] = DYNAMIC
        elif any(d.kind in OPEN_KINDS for d in deepest):
            out[t] = DISPATCH
        else:
            out[t] = PROJECT if any(p in known for p in heads[t]) else OUTSIDE
    return out


def _hooked(view: View, hooks: list[str]) -> set[str]:
    """Full names of the definitions that declare a member named one of `hooks`."""
    if not hooks:
        return set()
    return {d.full[:-len(d.name) - 1] for d in defs(view.each(
        f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name IN ({marks(hooks)})", tuple(hooks)))
        if d.parent >= 0}


def settle(o: Occurrence, own: set[str], targets: list[DefRow], member: bool,
           bounded: bool, reach: dict[str, str], distinctive: bool,
           library: Callable[[RefRow], str] | None = None,
           augmented: Callable[[RefRow], str] | None = None) -> Decision:
    """The verdict of the last rules on an occurrence nothing else decided (`library`: the
    targets that are a method of a library type the target's type may implement, with
    evidence; query/dispatch.py library_dispatch; `augmented`: a builtin receiver's member
    the project declares on the builtin's name, query/augmented.py)."""
    if o.definition is not None:
        d = o.definition
        if any((t.unit, t.idx) == (d.unit, d.idx) for t in targets):
            return Decision(Verdict.EXCLUDED, "declaration", "the target's own declaration")
        return Decision(Verdict.EXCLUDED, "declaration", f"declares {d.full}")
    if o.token is not None:
        return token_decision(*o.token, targets)
    r = o.ref
    if r is None:
        return Decision(Verdict.CUT, "parse-error text",
                        "the name read as text in a region that failed to parse (code, a "
                        "comment or a string: not told apart)")
    if r.target is not None and r.target not in own and LITERAL_KEY not in r.target:
        where = reach.get(r.target, OUTSIDE)
        if where == DEFINITION and augmented is not None and (why := augmented(r)):
            return Decision(Verdict.FLAGGED, "merged declaration", why)
        if where == DEFINITION:
            if r.conf == "exact":
                return Decision(Verdict.EXCLUDED, "resolved elsewhere",
                                f"resolved with certainty to {r.target}")
            return Decision(Verdict.CUT, "inferred elsewhere",
                            f"bound by inference ({r.conf}) to {r.target}, not proven")
        if where == DYNAMIC:  # a member a project class makes at run time
            why = (f"bound to {r.target}, which no definition declares: its class makes "
                   "members at run time (`__getattr__`)")
            if distinctive:
                return Decision(Verdict.FLAGGED, "member made at run time", why)
            return Decision(Verdict.CUT, "member made at run time, common name", why)
        if where == DISPATCH:  # an interface's member the index did not read
            why = (f"bound to {r.target}, a member of an interface or type alias the index "
                   "did not read whole: it may dispatch to the target")
            if distinctive:
                return Decision(Verdict.FLAGGED, "interface member not read", why)
            return Decision(Verdict.CUT, "interface member not read, common name", why)
        if where == PROJECT and library is not None and (why := library(r)):
            return Decision(Verdict.FLAGGED, "library interface dispatch", why)
        if where == PROJECT:
            return Decision(Verdict.CUT, "undeclared member",
                            f"bound to {r.target}, which no definition declares: a member "
                            "of a value whose type is not known (a manager built "
                            "`from_queryset`, a metaclass, a base not read, a library type)")
        if r.conf == "exact":
            return Decision(Verdict.EXCLUDED, "outside the project",
                            f"resolved with certainty to {r.target}, outside the project")
        return Decision(Verdict.CUT, "inferred outside",
                        f"bound by inference ({r.conf}) to {r.target}, outside the project")
    if r.target is not None:
        if LITERAL_KEY in r.target:
            return Decision(Verdict.EXCLUDED, "literal key", "a composite literal's key: a "
                            "field or a map value, never a type or a function")
        if bounded:
            return Decision(Verdict.CUT, "site bound", "past the bound on sites read")
        return Decision(Verdict.FLAGGED, UNACCOUNTED, "resolved to the target, decided by no "
                        "rule: listed flagged")
    kind = H.split(H.untagged(r.head)[0])[0]
    if kind == H.EXTERN and augmented is not None and (why := augmented(r)):  # builtin's
        return Decision(Verdict.FLAGGED, "builtin type augmented", why)
    if kind == H.EXTERN:
        return Decision(Verdict.EXCLUDED, "builtin receiver",
                        "on a receiver of a builtin type: never a project member")
    if not r.qualifier and kind in H.LOCAL_KINDS:
        return Decision(Verdict.EXCLUDED, "local name", "a local name of its function")
    if r.qualifier and not member and kind in (*H.UNKNOWN_RECEIVERS, H.SELF, H.INST):
        return Decision(Verdict.EXCLUDED, "member of a value",
                        "a member of a value, not the module-level definition")
    if not r.qualifier and member and kind == H.FREE:
        return Decision(Verdict.CUT, "bare name",
                        "a bare name where the target is a member: unbound in its file")
    if kind == H.IMPORT:
        return Decision(Verdict.CUT, "unresolved import",
                        "through an import the index did not resolve (outside the project?)")
    return Decision(Verdict.CUT, "name match left out",
                    f"unresolved ({kind or 'no'} head), left out as a name-matched "
                    "candidate (the name is common, or the receiver unlikely)")


def tally(listed: dict[Key, CodeLocation], found: list[Occurrence], ledger: Ledger,
          own: set[str], targets: list[DefRow], member: bool, reach: dict[str, str],
          distinctive: bool, library: Callable[[RefRow], str] | None = None,
          augmented: Callable[[RefRow], str] | None = None
          ) -> tuple[Accounting, dict[Key, Decision]]:
    """The tally over every occurrence and every listed site (a site listed under another
    name, an alias, counts too), and the decisions of the occurrences not listed."""
    rules: Counter[str] = Counter()
    counts: Counter[str] = Counter()  # by verdict value (an Enum hashes slowly)
    settled: dict[Key, Decision] = {}
    for loc in listed.values():
        verdict = "flagged" if loc.uncertain else "certain"
        counts[verdict] += 1
        rules[f"{verdict}: listed"] += 1
    for o in found:
        if o.key in listed or (o.definition is not None
                               and (o.key[0], o.key[1], -1) in listed):
            continue
        decision = ledger.decided.get(o.key)
        if decision is None and o.key in ledger.unlisted:
            decision = Decision(Verdict.CUT, "parameter receiver",
                                "on a parameter without a type annotation: counted")
        if decision is None:
            decision = settle(o, own, targets, member, ledger.bounded, reach, distinctive,
                              library, augmented)
        settled[o.key] = decision
        value = decision.verdict.value
        counts[value] += 1
        rules[f"{value}: {decision.rule}"] += 1
    acct = Accounting(sum(counts.values()), counts["certain"], counts["flagged"],
                      counts["excluded"], counts["cut"], tuple(sorted(rules.items())))
    return acct, settled


def merged(decided: dict[Key, Decision], index: list[CodeLocation],
           answer: list[CodeLocation], tool: str) -> Accounting:
    """The accounting of an answer the precise facts decided (query/precise_answer.py),
    from the index answer's decision on every occurrence (`decided`), by line as sites
    are: an occurrence on a line the facts confirm or add is certain; one the index
    listed on a line the facts refuted (listed by the index, dropped from the answer) is
    excluded (`refuted by <tool>`); every other occurrence keeps its decision. A line
    the facts add where the index has no occurrence (a use under another name) counts
    as one certain occurrence."""
    listed = {(c.path, c.start_line) for c in index}
    final = {(c.path, c.start_line): c for c in answer}
    by_line: dict[tuple[str, int], list[Key]] = {}
    for k in sorted(decided):
        by_line.setdefault((k[0], k[1]), []).append(k)
    rules: Counter[str] = Counter()
    counts: Counter[str] = Counter()

    def count(d: Decision) -> None:
        counts[d.verdict.value] += 1
        rules[f"{d.verdict.value}: {d.rule}"] += 1

    precise = Decision(Verdict.CERTAIN, f"precise ({tool})", "")
    for line, keys in by_line.items():
        loc = final.get(line)
        taken = False
        for k in keys:
            d = decided[k]
            listed_here = d.verdict in (Verdict.CERTAIN, Verdict.FLAGGED)
            if loc is None and line in listed and listed_here:
                count(Decision(Verdict.EXCLUDED, f"refuted by {tool}", ""))
            elif loc is not None and listed_here:
                count(precise if not loc.uncertain and d.verdict is Verdict.FLAGGED
                      else Decision(Verdict.FLAGGED if loc.uncertain else Verdict.CERTAIN,
                                    "listed", ""))
            elif loc is not None and line not in listed and not taken \
                    and not loc.uncertain:
                taken = True  # the site the facts added: one occurrence of its line
                count(precise)
            else:
                count(d)
    for line, loc in final.items():
        if line not in by_line:
            count(precise if not loc.uncertain else
                  Decision(Verdict.FLAGGED, "listed", ""))
    return Accounting(sum(counts.values()), counts["certain"], counts["flagged"],
                      counts["excluded"], counts["cut"], tuple(sorted(rules.items())))


def cut_notes(settled: dict[Key, Decision], name: str) -> list[str]:
    """One limitation per rule that cut occurrences without a note of its own: how many,
    why, the first few."""
    by_rule: dict[str, list[tuple[Key, Decision]]] = {}
    for k, d in sorted(settled.items()):
        if d.verdict is Verdict.CUT and d.rule not in NOTED:
            by_rule.setdefault(d.rule, []).append((k, d))
    out = []
    for rule, items in sorted(by_rule.items()):
        first = ", ".join(f"{p}:{ln}" for (p, ln, _), _ in items[:MAX_SHOWN])
        more = ", ..." if len(items) > MAX_SHOWN else ""
        out.append(f"{len(items)} occurrence(s) of `{name}` counted, left out of the list ({rule}: "
                   f"{items[0][1].why}): {first}{more}")
    return out


# Rules whose cuts another limitation already counts (the parameter-receiver note, the
# candidate cap's note, the site bound's note, an exact-only answer by request).
NOTED = frozenset({"parameter receiver", "candidate cap", "site bound", "exact only"})


def statement(a: Accounting, name: str) -> str:
    """The sentence an agent reads to know whether it needs to grep."""
    if a.complete:
        return (f"complete: each of the {a.occurrences} occurrence(s) of `{name}` in the "
                "analysed files (every identifier token of the name; comments and strings "
                f"aside) is listed as certain ({a.certain}) or excluded with certainty "
                f"({a.excluded}); no need to grep")
    return (f"not complete: of {a.occurrences} occurrence(s) of `{name}`, {a.certain} "
            f"certain, {a.flagged} flagged uncertain, {a.excluded} excluded, {a.cut} counted "
            f"but left out of the list")


__all__ = [
    "TOKEN_RULES",
    "UNACCOUNTED_KEY",
    "Broken",
    "Decision",
    "Key",
    "Ledger",
    "Occurrence",
    "Verdict",
    "broken_at",
    "broken_regions",
    "cut_notes",
    "key",
    "merged",
    "occurrences",
    "settle",
    "statement",
    "tally",
    "text_tokens",
    "token_decision",
]
