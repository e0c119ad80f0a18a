"""The result contract of docs/contract.md: keys, provenance, coverage, freshness and honesty."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.config import Config
from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation
from spyglass.wire import result_json

KEYS = ["repo", "ref", "path", "start_line", "end_line", "symbol", "kind", "source",
        "indexed_at", "stale", "uncertain", "evidence"]

MakeRepo = Callable[..., Path]


def test_code_location_has_exactly_the_contract_keys() -> None:
    assert [f.name for f in dataclasses.fields(CodeLocation)] == KEYS


def test_envelope_and_provenance(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n\nf()\n"})
    ci = CodeIntel(root)
    snap = ci.index()
    out = result_json(ci.find_symbol("f"))
    assert set(out) == {"results", "truncated", "coverage", "provenance"}
    (loc,) = out["results"]
    assert list(loc) == KEYS
    assert loc["source"] == "cached-index" and loc["indexed_at"] == snap.indexed_at
    prov = out["provenance"]
    assert prov["commit"] == snap.commit and prov["ref"] == "HEAD"
    assert prov["grammars"]["python"].startswith("tree_sitter_python")
    assert prov["query_packs"]["python"]


def test_unsupported_language_is_an_explicit_limitation(make_repo: MakeRepo) -> None:
    root = make_repo({"src/Lib.hs": "main = pure ()\n", "README.md": "# hi\n"})
    ci = CodeIntel(root)
    ci.index()
    result = ci.structure("src/Lib.hs")
    assert result.results == ()
    assert any("Haskell" in lim for lim in result.coverage.limitations)
    repo_wide = ci.find_symbol("main")
    assert any("no supported source files" in lim for lim in repo_wide.coverage.limitations)


def test_mixed_language_repo_lists_analysed_and_skipped(make_repo: MakeRepo) -> None:
    root = make_repo({"app.py": "def run():\n    pass\n", "Lib.hs": "x = 1\n",
                      "main.ex": "IO.puts 1\n", "notes.txt": "hello\n"})
    ci = CodeIntel(root)
    ci.index()
    cov = ci.find_symbol("run").coverage
    assert cov.analysed == 1 and cov.languages == ("python",)
    skipped = {s.path: s.reason for s in cov.skipped}
    assert skipped["Lib.hs"] == "unsupported language: Haskell"
    assert skipped["main.ex"] == "unsupported language: Elixir"
    assert any("Haskell" in lim for lim in cov.limitations)
    assert any("Elixir" in lim for lim in cov.limitations)


def test_changed_file_is_reparsed_live(make_repo: MakeRepo) -> None:
    root = make_repo({"m.py": "def old():\n    pass\n"})
    ci = CodeIntel(root)
    ci.index()
    (root / "m.py").write_text("\n\ndef new():\n    pass\n\nnew()\n")
    assert ci.find_symbol("old").results == ()
    (loc,) = ci.find_symbol("new").results
    assert loc.source == "text-fallback" and loc.indexed_at is None  # type: ignore[attr-defined]
    assert loc.start_line == 3  # type: ignore[attr-defined]
    refs = ci.references("new").results
    assert [(r.path, r.start_line) for r in refs] == [("m.py", 6)]  # type: ignore[attr-defined]


def test_changed_file_is_flagged_stale_without_live_reparse(make_repo: MakeRepo) -> None:
    root = make_repo({"m.py": "def old():\n    pass\n"})
    ci = CodeIntel(root, config=Config(live_reparse=False))
    ci.index()
    (root / "m.py").write_text("# edited\ndef old():\n    pass\n")
    (loc,) = ci.find_symbol("old").results
    assert loc.stale and loc.source == "cached-index"  # type: ignore[attr-defined]


def test_deleted_and_added_files_follow_disk(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "def gone():\n    pass\n"})
    ci = CodeIntel(root)
    ci.index()
    (root / "a.py").unlink()
    (root / "b.py").write_text("def fresh():\n    pass\n")
    assert ci.find_symbol("gone").results == ()
    assert [r.path for r in ci.find_symbol("fresh").results] == ["b.py"]  # type: ignore[attr-defined]


def test_no_index_answers_from_live_parsing(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n"}, git=False)
    ci = CodeIntel(root)
    (loc,) = ci.find_symbol("f").results
    assert loc.source == "text-fallback"  # type: ignore[attr-defined]
    assert "spyglass index" in ci.status().results[0].hint  # type: ignore[attr-defined]


def test_ambiguous_name_is_never_silently_resolved(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "def run():\n    pass\n", "b.py": "def run():\n    pass\n",
                      "c.py": "import a\nimport b\na.run()\nb.run()\n"})
    ci = CodeIntel(root)
    ci.index()
    refs = ci.references("run").results
    assert {(r.path, r.start_line) for r in refs} == {("c.py", 3), ("c.py", 4)}  # type: ignore[attr-defined]
    assert all(r.uncertain and "2 candidate definitions" in r.evidence for r in refs)  # type: ignore[attr-defined]
    exact = ci.references(path="a.py", line=1, column=5).results
    assert [(r.start_line, r.uncertain) for r in exact] == [(3, False)]  # type: ignore[attr-defined]


def test_unknown_symbol_is_bad_input(make_repo: MakeRepo) -> None:
    ci = CodeIntel(make_repo({"a.py": "x = 1\n"}))
    ci.index()
    with pytest.raises(BadInput, match="no definition named"):
        ci.references("nope")
    with pytest.raises(BadInput, match="out of range"):
        ci.references(path="a.py", line=99)
