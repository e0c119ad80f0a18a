"""The accuracy benchmark's second kind of sites scored apart: Python submodules reached
through a package that does not bind them (bound only by an import side effect, which a
static checker rejects), counted per kind beside the build-constrained ones
(bench/accuracy/compare.py APART)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from accuracy.compare import BUILD, CorpusResult, _Lines, _score, markdown, render
from accuracy.corpora import AccuracyCorpus

from spyglass.query.facade import CodeIntel
from tests.fixture import write_files

KIND = "import side effect"
FILES = {
    "shop/__init__.py": "from .models import Item\n",
    "shop/models.py": "from .jar import Jar\n\n\nclass Item:\n    pass\n",
    "shop/jar.py": "class Jar:\n    pass\n",
    # reached through the package, which does not bind `jar`: flagged, scored apart
    "tests/test_side.py": "import shop\nfrom shop.jar import Jar as J\n\nshop.jar.Jar()\n"
                          "J()\n",
    # imports the submodule itself: an exact site like any other
    "tests/test_own.py": "import shop\nimport shop.jar\n\nshop.jar.Jar()\n",
}
# As basedpyright answers: no site through the unbound attribute.
ORACLE = {"oracle": "test", "targets": [
    {"path": "shop/jar.py", "line": 1, "col": 6, "name": "Jar", "kind": "class",
     "refs": [["shop/models.py", 1, 17], ["tests/test_side.py", 2, 20],
              ["tests/test_side.py", 5, 0], ["tests/test_own.py", 4, 9]],
     "calls": None}]}


def _scored(tmp_path: Path) -> CorpusResult:
    write_files(tmp_path, FILES)
    ci = CodeIntel(tmp_path)
    ci.index()
    corpus = AccuracyCorpus("t", "python", (".",), (".",))
    return _score(ci, corpus, ORACLE, _Lines(tmp_path))


def test_side_effect_sites_are_scored_apart_by_kind(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    assert r.apart[KIND]["refs"] == [1, 0]  # tests/test_side.py:4, not in the oracle
    assert r.constrained["refs"] == [0, 0] and r.apart[BUILD]["refs"] == [0, 0]
    s, i = r.scores[("refs", "all")], r.inclusive[("refs", "all")]
    assert (s.tp, s.fp, s.fn) == (4, 0, 0)
    assert (i.tp, i.fp, i.fn) == (4, 1, 0)  # counted: the flagged site is a false positive
    assert all("test_side.py:4" not in e for e in r.examples)


def test_reports_name_the_kind(tmp_path: Path) -> None:
    r = _scored(tmp_path)
    text = render([r])
    assert f"{KIND} sites (flagged, scored apart): refs 1 (0 in the oracle)" in text
    assert "with them counted, default answer: refs P 0.800 R 1.000" in text
    assert f"| t | {KIND} | refs | 1 | 0 | 1.000 / 1.000 | 0.800 / 1.000 |" in markdown([r])
    doc = r.to_json()
    assert doc["flagged_apart"][KIND]["refs"] == {"flagged": 1, "in_oracle": 0}
    assert doc["build_constrained"]["refs"] == {"flagged": 0, "in_oracle": 0}
