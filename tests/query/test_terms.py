"""The file term score explore ranks free-text questions with (query/terms.py): stems,
BM25 weighting, path words and partial matches."""

from __future__ import annotations

import pytest

from spyglass.query import terms
from spyglass.query.names import words
from spyglass.query.terms import FileTerms, stem


def test_forms_of_a_word_share_a_stem() -> None:
    assert len({stem(w) for w in ("render", "renders", "rendered", "rendering")}) == 1
    assert len({stem(w) for w in ("route", "routes", "routing")}) == 1
    assert len({stem(w) for w in ("entry", "entries")}) == 1
    assert stem("running") == stem("run")
    assert stem("class") == stem("classes") != stem("clas")
    assert stem("use") == "use" and stem("go") == "go"  # short words stay


def _terms(files: dict[str, str]) -> FileTerms:
    t = FileTerms()
    for path, text in files.items():
        t.add(path, words(text), words(path))
    return t


def test_a_rare_word_outweighs_a_common_one() -> None:
    t = _terms({
        "a.py": "value value value value timeout",
        "b.py": "value value value value value value value",
        "c.py": "value other",
        "d.py": "value more",
    })
    ranked = sorted(t.scores(["value", "timeout"]).items(), key=lambda kv: -kv[1])
    assert ranked[0][0] == "a.py", ranked


def test_occurrences_saturate() -> None:
    t = _terms({"one.py": "cache", "many.py": " ".join(["cache"] * 50), "x.py": "other"})
    s = t.scores(["cache"])
    assert s["many.py"] > s["one.py"]
    assert s["many.py"] < 3 * s["one.py"], s  # fifty times the words is not fifty times


def test_a_word_of_the_path_counts() -> None:
    t = _terms({"web/router.go": "func lookup() {}", "web/other.go": "func other() {}",
                "web/more.go": "func more() {}"})
    s = t.scores(["router"])
    assert set(s) == {"web/router.go"}, s


def test_a_longer_word_holding_the_query_word_counts_less_than_the_word() -> None:
    t = _terms({"exact.go": "middleware chain", "longer.go": "middlewares chain",
                "compound.go": "submiddleware chain", "none.go": "handler", "x.go": "y"})
    s = t.scores(["middleware"])
    assert "none.go" not in s
    assert s["exact.go"] == s["longer.go"]  # the same stem
    assert s["exact.go"] > s["compound.go"] > 0, s


def test_stems_of_the_query_match_other_forms() -> None:
    t = _terms({"r.py": "def rendering(): pass", "x.py": "def other(): pass",
                "y.py": "def more(): pass"})
    assert set(t.normalised(["renders"])) == {"r.py"}
    assert t.normalised(["renders"])["r.py"] == 1.0


def test_nothing_to_score() -> None:
    assert FileTerms().scores(["x"]) == {}
    assert _terms({"a.py": "alpha"}).scores(["beta"]) == {}


def test_vagueness_is_high_for_words_in_every_file_and_zero_for_a_word_in_one() -> None:
    files = {"report/default.py": "need new method " * 10,
             "tools/new_method.py": "need new method"}
    files.update({f"pkg/{w}.py": f"need new method {w}"
                  for w in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")})
    t = _terms(files)
    assert t.vagueness(["need", "new", "method"]) > 0.8
    assert t.vagueness(["charlie"]) == 0.0
    assert 0.0 < t.vagueness(["charlie", "method"]) < t.vagueness(["need", "method"])
    assert t.vagueness(["absent"]) == 0.0  # words in no file are left out
    assert FileTerms().vagueness(["need"]) == 0.0


def test_a_common_word_the_file_is_named_after_singles_it_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `reporter` is in most files; the central one holds it and `panic` more often, but
    # only one file is named after it
    files = {"types/types.go": "reporter " * 30 + "panic " * 3,
             "reporters/default_reporter.go": "reporter " * 40 + "panic line",
             **{f"pkg/{w}.go": f"reporter {w} panic" for w in ("alpha", "bravo", "charlie")},
             **{f"cmd/{w}.go": w for w in ("delta", "echo", "foxtrot", "golf")}}

    def best() -> str:
        s = _terms(files).scores(["reporter", "panic"])
        return max(s, key=s.__getitem__)
    assert best() == "reporters/default_reporter.go"
    monkeypatch.setattr(terms, "NAME_WEIGHT", 0.0)  # a path word only: the central file
    assert best() == "types/types.go"
    # a folder's name is not the file's: `reporters/` alone adds no name weight
    monkeypatch.undo()
    t = _terms({"reporters/other.go": "x", "a/reporter.go": "x", "b.go": "y"})
    s = t.scores(["reporter"])
    assert s["a/reporter.go"] > s["reporters/other.go"] > 0, s
