"""The accounting invariant over every target of the accuracy corpora: occurrences not
accounted for must be 0 (docs/contract.md "Accounting"; bench/accuracy/invariant.py).

    python bench/accounting.py                 # every corpus with stored oracle targets
    python bench/accounting.py flask --sample 10

Prints JSON (per corpus: answers checked, violations, complete answers, the tallies summed)
then a table. CI checks a sample of each corpus's targets (tests/accuracy/test_accuracy.py)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy.compare import CALLABLE, ORACLE_DIR, load_oracle, prepare_root, spread
from accuracy.corpora import CORPORA
from accuracy.invariant import violations

from spyglass.config import load_config
from spyglass.query.accounting import TOKEN_RULES
from spyglass.query.facade import CodeIntel

FIELDS = ("occurrences", "certain", "flagged", "excluded", "cut")
EXTRA = ("tokens", "tokens_cut")  # occurrences only the index's `tokens` table holds


def sample(targets: list[dict[str, Any]], n: int | None) -> list[dict[str, Any]]:
    """Every target, or `n` spread evenly over the stored order (reproducible)."""
    return spread(targets, n)


def check_corpus(name: str, n: int | None = None, root: Path | None = None) -> dict[str, Any]:
    """Index the corpus (a private copy) and check every sampled target's references and
    callers answers."""
    owned = root is None
    root = root or prepare_root(name)
    try:
        config = load_config(repo_root=root)
        config = replace(config, limits=replace(config.limits,
                                                max_matches_per_request=100_000))
        ci = CodeIntel(root, config=config)
        ci.index()
        return check_targets(ci, name, sample(load_oracle(name)["targets"], n))
    finally:
        if owned:
            shutil.rmtree(root.parent, ignore_errors=True)


def check_targets(ci: CodeIntel, name: str, targets: list[dict[str, Any]]) -> dict[str, Any]:
    """The invariant on each target's answers, summed."""
    totals = dict.fromkeys((*FIELDS, *EXTRA), 0)
    answers = complete = 0
    broken: list[str] = []
    for t in targets:
        where = (t["path"], t["line"], t["col"] + 1)
        asks = [("refs", False)] + ([("calls", True)] if t["kind"] in CALLABLE else [])
        for q, calls in asks:
            ask = ci.callers if calls else ci.references
            result = ask(path=where[0], line=where[1], column=where[2])
            answers += 1
            acct = result.coverage.accounting
            if acct is not None:
                complete += acct.complete
                for f in FIELDS:
                    totals[f] += getattr(acct, f)
                for rule, n in acct.by_rule:
                    if rule in TOKEN_RULES:
                        totals["tokens"] += n
                        totals["tokens_cut"] += n if rule.startswith("cut:") else 0
            broken += [f"{q} {t['name']} ({t['path']}:{t['line']}): {v}"
                       for v in violations(ci, result, *where, calls)]
    return {"corpus": name, "targets": len(targets), "answers": answers,
            "violations": len(broken), "examples": broken[:10], "complete": complete,
            **totals}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--sample", type=int, default=None, help="targets per corpus")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.stem for p in ORACLE_DIR.glob("*.json") if p.stem in CORPORA)
    rows = [check_corpus(n, args.sample) for n in names]
    print(json.dumps(rows, indent=1))
    print(f"\n{'corpus':<16}{'answers':>8}{'violations':>11}{'complete':>9}"
          + "".join(f"{f:>12}" for f in (*FIELDS, *EXTRA)))
    for r in rows:
        print(f"{r['corpus']:<16}{r['answers']:>8}{r['violations']:>11}{r['complete']:>9}"
              + "".join(f"{r[f]:>12}" for f in (*FIELDS, *EXTRA)))
    return 1 if any(r["violations"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
