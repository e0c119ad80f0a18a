"""Accuracy regression: spyglass's references and callers against stored oracle answers.

The oracle answers (tests/accuracy/oracle/<corpus>.json) were produced by language servers
with `python bench/accuracy/run.py oracle <corpus>`; this test runs no oracle. It fails when
precision or recall falls below the floor recorded in tests/accuracy/oracle/floors.json,
and when an answer's accounting breaks the invariant (docs/contract.md "Accounting"):
its tally on every target, every occurrence on a sample of targets (the full run:
bench/accounting.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from corpora import params

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from accounting import check_targets, sample
from accuracy.compare import ORACLE_DIR, load_oracle, measure, prepare_root
from accuracy.corpora import CORPORA

from spyglass.query.facade import CodeIntel

FLOORS: dict[str, dict[str, dict[str, float]]] = json.loads(
    (ORACLE_DIR / "floors.json").read_text())
SAMPLE = 4  # targets per corpus whose every occurrence is checked


@pytest.mark.parametrize("name", params(sorted(FLOORS)))
def test_accuracy_floor(name: str, tmp_path: Path) -> None:
    root = prepare_root(name, tmp_path)  # fetched like the `corpus` fixture, then copied
    # a bounded sample of targets where the corpus names one (the floors were recorded on it)
    result = measure(name, root=root, targets=CORPORA[name].ci_targets)
    scores = {f"{q}/{v}": s for (q, v), s in result.scores.items()}
    failures = []
    for key, floor in FLOORS[name].items():
        if key.endswith("/headline"):
            h = result.headline[key.split("/")[0]]
            if h.certain_precision < floor["certain_precision"]:
                failures.append(f"{key} certain precision {h.certain_precision:.3f} < floor "
                                f"{floor['certain_precision']:.3f}")
            if h.silent_rate > floor["silent_rate_max"]:
                failures.append(f"{key} silent-miss rate {h.silent_rate:.3f} > ceiling "
                                f"{floor['silent_rate_max']:.3f}")
            continue
        score = scores[key]
        for metric in ("precision", "recall"):
            got = getattr(score, metric)
            if got < floor[metric]:
                failures.append(f"{key} {metric} {got:.3f} < floor {floor[metric]:.3f}")
    for q, (answers, off, unaccounted) in result.accounting.items():
        if off or unaccounted:
            failures.append(f"{q}: of {answers} answers {off} tallies do not sum, "
                            f"{unaccounted} occurrences left to the last rule")
    ci = CodeIntel(root)
    ci.index()  # the snapshot measure() built: nothing to parse again
    checked = check_targets(ci, name, sample(load_oracle(name)["targets"], SAMPLE))
    failures += checked["examples"]
    assert not failures, f"{name}: " + "; ".join(failures)
