"""Language packs are data validated on load: every built-in pack compiles, and a pack
with a bad capture name or a bad query fails with the file and the name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spyglass.errors import LanguagePackError
from spyglass.syntax.langpack import LANGS_DIR, all_packs, load_pack


@pytest.mark.parametrize("name", sorted(all_packs()))
def test_builtin_pack_compiles(name: str) -> None:
    pack = all_packs()[name]
    pack.validate()
    assert set(pack.queries) == {"definitions", "references", "imports", "scopes"}
    assert pack.structure_offsets[0] <= pack.structure_offsets[1]


def _copy_pack(tmp_path: Path) -> Path:
    folder = tmp_path / "python"
    shutil.copytree(LANGS_DIR / "python", folder,
                    ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return folder


def test_unknown_capture_names_the_file_and_capture(tmp_path: Path) -> None:
    folder = _copy_pack(tmp_path)
    with (folder / "references.scm").open("a") as fh:
        fh.write("\n(identifier) @reference.teleport\n")
    with pytest.raises(LanguagePackError, match=r"references\.scm: unknown capture name "
                                                r"@reference\.teleport"):
        load_pack(folder).validate()


def test_malformed_query_names_the_file(tmp_path: Path) -> None:
    folder = _copy_pack(tmp_path)
    (folder / "scopes.scm").write_text("(function_definition @scope\n")
    with pytest.raises(LanguagePackError, match=r"scopes\.scm"):
        load_pack(folder).validate()


def test_manifest_without_required_keys_fails(tmp_path: Path) -> None:
    folder = _copy_pack(tmp_path)
    (folder / "manifest.toml").write_text('name = "python"\n')
    with pytest.raises(LanguagePackError, match="pack_version"):
        load_pack(folder)


def test_extends_names_an_existing_pack(tmp_path: Path) -> None:
    folder = _copy_pack(tmp_path)
    (folder / "manifest.toml").write_text('extends = "cobol"\nname = "x"\n')
    with pytest.raises(LanguagePackError, match="extends names no language pack"):
        load_pack(folder)


def test_include_names_an_existing_fragment(tmp_path: Path) -> None:
    folder = _copy_pack(tmp_path)
    with (folder / "scopes.scm").open("a") as fh:
        fh.write("\n; include: _ecma/no-such-fragment\n")
    with pytest.raises(LanguagePackError, match=r"scopes\.scm: cannot include "
                                                r"_ecma/no-such-fragment"):
        load_pack(folder)


def test_included_fragment_stands_where_the_include_line_is() -> None:
    js, ts = all_packs()["javascript"], all_packs()["typescript"]
    for pack in (js, ts):
        raw = (LANGS_DIR / pack.name / "imports.scm").read_text()
        assert raw.startswith(raw.split("\n")[0] + "\n; include: _ecma/imports-modules\n")
        fragment = (LANGS_DIR / "_ecma" / "imports-modules.scm").read_text().rstrip("\n")
        assert pack.texts["imports"].startswith(raw.split("\n")[0] + "\n" + fragment + "\n")
        assert "; include:" not in pack.texts["imports"]
