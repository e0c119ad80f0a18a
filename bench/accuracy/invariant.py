"""The accounting invariant (docs/contract.md "Accounting") checked on one answer: every
occurrence of the target's name in the view is decided exactly once, the listed ones are in
the answer as decided (certain or flagged), no occurrence is left to the last rule, the
tally sums and the completeness statement matches it. Returns the violations found.
Used by tests/accounting_check.py (every fixture, sampled corpus targets) and
bench/accounting.py (every target of every corpus)."""

from __future__ import annotations

from spyglass.query import references
from spyglass.query.accounting import UNACCOUNTED_KEY, Verdict
from spyglass.query.facade import CodeIntel
from spyglass.query.rows import DEF_COLS, DEF_FROM, REF_COLS, REF_FROM, defs, refs
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
