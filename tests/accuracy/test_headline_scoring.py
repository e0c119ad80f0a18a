"""The accuracy benchmark's headline (bench/accuracy/compare.py): nothing is scored apart; a
flagged site is a returned site, a certain-wrong site counts against certain precision, an
oracle site neither listed nor flagged is a silent miss; every answer's accounting is
checked."""

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
    # excluded from the default build: flagged; the oracle has one of its two sites
    "b.go": "//go:build nomsgpack\n\npackage m\n\nfunc B() { Target() }\n\nfunc C() { Target() }\n",
    "c.go": "package m\n\nfunc D() { Target() }\n\nfunc E() { Target() }\n",
}
# The oracle has a.go's call, one of b.go's, and a site spyglass cannot find (d.go: a
# silent miss); c.go's two certain calls are not in it (certain-wrong).
ORACLE = {"oracle": "test", "targets": [
    {"path": "a.go", "line": 3, "col": 5, "name": "Target", "kind": "func",
     "refs": [["a.go", 5, 11], ["b.go", 5, 11], ["d.go", 1, 0]],
     "calls": [["a.go", 5, 11], ["b.go", 5, 11], ["d.go", 1, 0]]}]}


def _scored(tmp_path: Path) -> CorpusResult:
    write_files(tmp_path, FILES)
    ci = CodeIntel(tmp_path)
    ci.index()
    corpus = AccuracyCorpus("t", "go", (".",), (".",))
    return _score(ci, corpus, ORACLE, _Lines(tmp_path))


def test_flagged_sites_count_as_returned(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    for q in ("refs", "calls"):
        s = r.scores[(q, "all")]
        assert (s.tp, s.fp, s.fn) == (2, 3, 1)  # b.go:5 a hit, b.go:7 and c.go extra
        h = r.headline[q]
        assert (h.oracle, h.silent, h.returned) == (3, 1, 5)
        assert (h.certain, h.certain_right, h.flagged_right) == (3, 1, 1)
        assert abs(h.silent_rate - 1 / 3) < 1e-9
        assert abs(h.certain_precision - 1 / 3) < 1e-9
        assert abs(h.flagged_share - 2 / 5) < 1e-9
        answers, off, unaccounted = r.accounting[q]
        assert (answers, off, unaccounted) == (1, 0, 0)


def test_reports_lead_with_the_headline(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    text = render([r])
    first = text.splitlines()[1]
    assert first.split()[:9] == ["t", "refs", "3", "33.333%", "0/1", "0.333", "0.400",
                                 "0.667", "0.400"], first
    assert "scored apart" not in text
    md = markdown([r])
    assert "| t | refs | 3 | 33.333% | 0/1 | 0.333 | 0.400 | 0.667 | 0.400 |" in md
    doc = r.to_json()
    assert doc["headline"]["calls"]["silent"] == 1
    assert doc["accounting"]["refs"] == {"answers": 1, "tally_off": 0, "unaccounted": 0}
    assert "build_constrained" not in doc and "scores_with_flagged" not in doc
