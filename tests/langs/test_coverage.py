"""The coverage table is data: every pack declares its depth in its manifest, the README's
table is generated from the manifests, and code_status shows the repository's languages
(and the explicit limitation for a language without a pack)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from tree_sitter import LANGUAGE_VERSION, MIN_COMPATIBLE_LANGUAGE_VERSION

from spyglass.errors import LanguagePackError
from spyglass.query import coverage
from spyglass.query.facade import CodeIntel
from spyglass.syntax.langpack import LANGS_DIR, all_packs, load_pack

ROOT = Path(__file__).resolve().parent.parent.parent


def _script() -> object:
    spec = importlib.util.spec_from_file_location(
        "coverage_table", ROOT / "scripts" / "coverage_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(all_packs()))
def test_every_shipped_pack_declares_its_depth_and_loads_its_grammar(name: str) -> None:
    pack = all_packs()[name]
    declared = pack.manifest.get("coverage", {})
    missing = [k for k in coverage.ASPECTS if not declared.get(k)]
    assert missing == [], f"{name}: [coverage] lacks {missing}"
    # the pinned wheel loads under the pinned tree-sitter (its ABI is in range)
    assert MIN_COMPATIBLE_LANGUAGE_VERSION <= pack.language.abi_version <= LANGUAGE_VERSION
    row = coverage.of_pack(pack)
    assert row.grammar == f"{pack.grammar_module.replace('_', '-')} {pack.grammar_version}"
    assert row.grammar.split()[-1][0].isdigit()  # a real version, not "unknown"


def test_the_readme_table_is_generated_from_the_manifests() -> None:
    module = _script()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert module.rewritten(text) == text, (  # type: ignore[attr-defined]
        "README.md's coverage table is out of date: run scripts/coverage_table.py")
    table = coverage.markdown()
    assert "| rust (.rs) | tree-sitter-rust " in table
    assert "Haskell (.hs)" in table and coverage.UNSUPPORTED in table  # seed 000's rule


def test_an_unknown_coverage_key_is_a_pack_error(tmp_path: Path) -> None:
    folder = tmp_path / "lua2"
    folder.mkdir()
    for f in (LANGS_DIR / "lua").iterdir():
        if f.suffix in (".scm", ".toml"):
            text = f.read_text(encoding="utf-8")
            if f.name == "manifest.toml":
                text = text.replace('name = "lua"', 'name = "lua2"').replace(
                    "[coverage]\n", '[coverage]\ndepth = "deep"\n')
            (folder / f.name).write_text(text, encoding="utf-8")
    with pytest.raises(LanguagePackError, match="unknown key 'coverage.depth'"):
        load_pack(folder)


def test_code_status_shows_the_repositorys_languages(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"src/lib.rs": "pub fn a() {}\n", "run.sh": "a() { :; }\n",
                      "Main.hs": "main = pure ()\n"})
    ci = CodeIntel(root)
    ci.index()
    report = ci.status().results[0]
    rows = {c.language: c for c in report.coverage}  # type: ignore[attr-defined]
    assert set(rows) == {"rust", "bash", "Haskell"}
    assert rows["rust"].supported and rows["rust"].tests == "cargo test -- path::name"
    assert rows["rust"].grammar.startswith("tree-sitter-rust 0.24")
    assert not rows["Haskell"].supported and rows["Haskell"].limitations == coverage.UNSUPPORTED
