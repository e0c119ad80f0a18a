"""The accounting invariant (docs/contract.md "Accounting") checked on one answer: every
occurrence of the target's name in the view is decided exactly once, the listed ones are in
the answer as decided (certain or flagged), no occurrence is left to the last rule, the
tally sums and the completeness statement matches it. Every occurrence: each reference and
definition the index holds, and — read here independently of the extraction, by parsing
each analysed file — every identifier token of the pack's `tokens.kinds` equal to the name.
Returns the violations found.
Used by tests/accounting_check.py (every fixture, sampled corpus targets) and
bench/accounting.py (every target of every corpus)."""

from __future__ import annotations

from tree_sitter import Parser, Query, QueryCursor

from spyglass.errors import BadInput, LimitExceeded
from spyglass.query import references
from spyglass.query.accounting import UNACCOUNTED_KEY, Verdict
from spyglass.query.facade import CodeIntel
from spyglass.query.paths import read
from spyglass.query.rows import DEF_COLS, DEF_FROM, REF_COLS, REF_FROM, defs, refs
from spyglass.syntax.langpack import all_packs
from spyglass.syntax.parsing import prepared
from spyglass.types import CodeLocation, ToolResult


def violations(ci: CodeIntel, result: ToolResult, path: str, line: int, col: int,
               calls: bool) -> list[str]:
    """What breaks the invariant for this answer of `references` (or `callers`, `calls`)
    asked at path:line:col; [] when it holds."""
    acct = result.coverage.accounting
    if acct is None:
        return ["no accounting in the answer"]
    out: list[str] = []
    if acct.certain + acct.flagged + acct.excluded + acct.cut != acct.occurrences:
        out.append(f"the tally does not sum: {acct}")
    if dict(acct.by_rule).get(UNACCOUNTED_KEY, 0):
        out.append(f"{dict(acct.by_rule)[UNACCOUNTED_KEY]} occurrence(s) left to the last "
                   "rule")
    statement = [n for n in result.coverage.limitations
                 if n.startswith(("complete:", "not complete:"))]
    if len(statement) != 1 or not statement[0].startswith(
            "complete:" if acct.complete else "not complete:"):
        out.append(f"no single statement matching the tally: {statement}")
    ans = ci.answer()
    targets = ci._targets(None, path, line, col)
    decided = references.verdicts(ans, targets, calls_only=calls)
    view = ans.view()
    names = tuple({t.name for t in targets})
    marks = ", ".join("?" for _ in names)
    # Independently of the accounting's own reading: every reference and definition of
    # the name in the view is decided.
    places = {(r.path, r.line, r.col) for r in refs(view.each(
        f"SELECT {REF_COLS} {REF_FROM} WHERE r.name IN ({marks})", names))}
    places |= {(d.path, d.name_line, d.name_col) for d in defs(view.each(
        f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name IN ({marks})", names))}
    places |= {p for n in names for p in identifier_tokens(ci).get(n, ())}
    missing = sorted(p for p in places if p not in decided and (p[0], p[1], -1) not in decided)
    if missing:
        out.append(f"{len(missing)} occurrence(s) no rule decided, e.g. {missing[:3]}")
    counts = {v: sum(1 for x in decided.values() if x is v) for v in Verdict}
    got = (counts[Verdict.CERTAIN], counts[Verdict.FLAGGED], counts[Verdict.EXCLUDED],
           counts[Verdict.CUT])
    if got != (acct.certain, acct.flagged, acct.excluded, acct.cut):
        out.append(f"the verdicts {got} are not the tally {acct}")
    if not result.truncated and not result.extra:  # one page: every listed site is a row
        rows = {(r.path, r.start_line, r.uncertain) for r in result.results
                if isinstance(r, CodeLocation)}
        absent = [(p, ln, v.value) for (p, ln, _), v in decided.items()
                  if v in (Verdict.CERTAIN, Verdict.FLAGGED)
                  and (p, ln, v is Verdict.FLAGGED) not in rows]
        if absent:
            out.append(f"{len(absent)} listed site(s) not in the answer, e.g. {absent[:3]}")
    return out


Place = tuple[str, int, int]
_TOKENS: dict[tuple[int, object], dict[str, list[Place]]] = {}


def identifier_tokens(ci: CodeIntel) -> dict[str, list[Place]]:
    """Every identifier token of the analysed files by name (the leaves of each pack's
    `tokens.kinds`, parsed here: not the index's reading), kept per state of the view."""
    view = ci.answer().view()
    k = (id(ci), view.state_key)
    if k in _TOKENS:
        return _TOKENS[k]
    _TOKENS.clear()
    out: dict[str, list[Place]] = {}
    packs = all_packs()
    queries: dict[str, Query | None] = {}
    for path, language in view.each("SELECT f.path, f.language FROM temp.vfiles f "
                                     "WHERE f.unit IS NOT NULL"):
        pack = packs.get(str(language))
        if pack is None or not pack.token_kinds:
            continue
        if pack.name not in queries:
            queries[pack.name] = Query(pack.language, "[" + " ".join(
                f"({k})" for k in sorted(pack.token_kinds)) + "] @t")
        query = queries[pack.name]
        try:
            data = prepared(pack, read(view.root, str(path),
                                       view.config.limits.max_file_bytes))
        except (BadInput, LimitExceeded):  # gone, refused or too big: not analysed
            continue
        tree = Parser(pack.language).parse(data)
        for node in QueryCursor(query).captures(tree.root_node).get("t", []):
            if node.child_count or node.end_byte == node.start_byte:
                continue
            name = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
            out.setdefault(name, []).append((str(path), node.start_point[0] + 1,
                                             node.start_point[1]))
    _TOKENS[k] = out
    return out
