"""The accounting invariant of docs/contract.md, checked on one answer: every occurrence of
the target's name in the view is decided exactly once, the listed ones are in the answer as
listed (certain or flagged), no occurrence is left to the last rule, and the tally sums."""

from __future__ import annotations

from spyglass.query import references
from spyglass.query.accounting import UNACCOUNTED, Verdict
from spyglass.query.facade import CodeIntel
from spyglass.query.rows import DEF_COLS, DEF_FROM, REF_COLS, REF_FROM, defs, refs
from spyglass.types import ToolResult


def assert_accounted(ci: CodeIntel, result: ToolResult, path: str, line: int, col: int,
                     calls: bool) -> None:
    acct = result.coverage.accounting
    assert acct is not None, "a references or callers answer carries its accounting"
    assert acct.certain + acct.flagged + acct.excluded + acct.cut == acct.occurrences, acct
    assert dict(acct.by_rule).get(UNACCOUNTED, 0) == 0, acct
    statement = [n for n in result.coverage.limitations
                 if n.startswith(("complete:", "not complete:"))]
    assert len(statement) == 1 and statement[0].startswith(
        "complete:" if acct.complete else "not complete:"), result.coverage.limitations
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
    missing = [p for p in places if p not in decided
               and (p[0], p[1], -1) not in decided]
    assert not missing, f"occurrences no rule decided: {sorted(missing)[:5]}"
    counts = {v: sum(1 for x in decided.values() if x is v) for v in Verdict}
    assert (counts[Verdict.CERTAIN], counts[Verdict.FLAGGED], counts[Verdict.EXCLUDED],
            counts[Verdict.CUT]) == (acct.certain, acct.flagged, acct.excluded, acct.cut)
    rows = {(r.path, r.start_line, r.uncertain)  # type: ignore[attr-defined]
            for r in result.results}
    if not result.truncated:  # every listed site is a row, certain or flagged as decided
        for (p, ln, _), v in decided.items():
            if v in (Verdict.CERTAIN, Verdict.FLAGGED):
                assert (p, ln, v is Verdict.FLAGGED) in rows, (p, ln, v, sorted(rows)[:5])
