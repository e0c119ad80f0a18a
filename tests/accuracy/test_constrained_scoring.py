"""The accuracy benchmark's scoring rule for sites the build may leave out: sites flagged for
a build constraint are scored apart (every view's P/R without them), counted per question,
and the scores with them counted are kept beside (bench/accuracy/compare.py)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from accuracy.compare import CorpusResult, _Lines, _score, markdown, render
from accuracy.corpora import AccuracyCorpus

from spyglass.query.facade import CodeIntel
from tests.fixture import write_files

FILES = {
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "a.go": "package m\n\nfunc Target() {}\n\nfunc A() { Target() }\n",
    # excluded from the default build: the oracle has one of its two sites
    "b.go": "//go:build nomsgpack\n\npackage m\n\nfunc B() { Target() }\n\nfunc C() { Target() }\n",
    "c.go": "package m\n\nfunc D() { Target() }\n\nfunc E() { Target() }\n",
}
# The oracle (as gopls would answer, plus one constrained site) misses c.go's two calls:
# plain false positives that stays in the scores.
ORACLE = {"oracle": "test", "targets": [
    {"path": "a.go", "line": 3, "col": 5, "name": "Target", "kind": "func",
     "refs": [["a.go", 5, 11], ["b.go", 5, 11]], "calls": [["a.go", 5, 11], ["b.go", 5, 11]]}]}


def _scored(tmp_path: Path) -> CorpusResult:
    write_files(tmp_path, FILES)
    ci = CodeIntel(tmp_path)
    ci.index()
    corpus = AccuracyCorpus("t", "go", (".",), (".",))
    return _score(ci, corpus, ORACLE, _Lines(tmp_path))


def test_flagged_sites_are_scored_apart(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    for q in ("refs", "calls"):
        assert r.constrained[q] == [2, 1]  # b.go's two sites, one in the oracle
        s = r.scores[(q, "all")]
        assert (s.tp, s.fp, s.fn) == (1, 2, 0)  # a.go hit, c.go extra; b.go left out
        i = r.inclusive[(q, "all")]
        assert (i.tp, i.fp, i.fn) == (2, 3, 0)  # counted: b.go:5 a hit, b.go:7 extra
        # exact leaves the flagged (uncertain) sites out: scored apart, they are no misses
        e, ie = r.scores[(q, "exact")], r.inclusive[(q, "exact")]
        assert (e.tp, e.fn) == (1, 0) and (ie.tp, ie.fn) == (1, 1)
    assert not any("build constraint" in c for m in r.misses.values() for c in m)
    assert all("b.go" not in e for e in r.examples)


def test_reports_show_both_figures(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    text = render([r])
    assert "refs 2 (1 in the oracle)" in text and "scored apart" in text
    assert "with them counted, default answer: refs P 0.400 R 1.000" in text
    md = markdown([r])
    assert "| t | build-constrained | refs | 2 | 1 | 0.333 / 1.000 | 0.400 / 1.000 |" in md
    doc = r.to_json()
    assert doc["build_constrained"]["calls"] == {"flagged": 2, "in_oracle": 1}
    assert doc["scores_with_flagged"]["refs/all"]["fp"] == 3
    assert doc["scores"]["refs/all"]["fp"] == 2
