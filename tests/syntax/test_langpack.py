"""Language packs are data validated on load: every built-in pack compiles, and a pack
with a bad capture name, a bad query or a manifest key outside the schema (unknown, or
of the wrong type) fails with the file and the name."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from spyglass.errors import LanguagePackError
from spyglass.syntax import langpack
from spyglass.syntax.langpack import (
    LANGS_DIR,
    MANIFEST,
    PACKS_ENV,
    all_packs,
    grammar_versions,
    load_pack,
    pack_dirs,
    pack_for_path,
    pack_named,
    reload_packs,
)
from spyglass.syntax.parsing import prepared, syntax_errors


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


MINIMAL = 'name = "python"\npack_version = "1"\nextensions = [".py"]\ngrammar = "tree_sitter_python"\n'


def _manifest_with(tmp_path: Path, extra: str) -> Path:
    """The python pack's queries with a minimal manifest plus `extra` (TOML lines)."""
    folder = _copy_pack(tmp_path)
    (folder / "manifest.toml").write_text(MINIMAL + extra + "\n")
    return folder


@pytest.mark.parametrize(("extra", "message"), [
    ('self_nmaes = ["self"]', r"manifest\.toml: unknown key 'self_nmaes'"),
    ("class_scope_encloses = \"no\"", r"manifest\.toml: 'class_scope_encloses' must be a boolean"),
    ('builtins = ["a", 1]', r"manifest\.toml: 'builtins' must be a list of strings"),
    ('import_binds = "middle"', r"'import_binds' must be one of 'head', 'tail'"),
    ('qualifier_separators = "::"', r"'qualifier_separators' must be a list of strings"),
    ('[frameworks.x]\ncomand = "x"', r"unknown key 'frameworks\.x\.comand'"),
    ('[frameworks.x]\ndetect = [{ file = 1 }]',
     r"'frameworks\.x\.detect\[0\]\.file' must be a string"),
    ('[frameworks.x]\nroot = "here"', r"'frameworks\.x\.root' must be one of 'config'"),
    ("contextual_parameters = true", r"'contextual_parameters' must be a table"),
    ('[contextual_parameters]\nfuncions = ["f"]', r"unknown key 'contextual_parameters\.funcions'"),
    ('[contextual_parameters]\narrow = ["a"]', r"'contextual_parameters\.arrow' must be a string"),
    ("container_nodes = { generic = 1 }", r"'container_nodes\.generic' must be a string"),
    ('[element_types]\ncomprehensions = "c"',
     r"'element_types\.comprehensions' must be a list of strings"),
])
def test_manifest_keys_are_checked_against_the_schema(tmp_path: Path, extra: str,
                                                      message: str) -> None:
    with pytest.raises(LanguagePackError, match=message):
        load_pack(_manifest_with(tmp_path, extra))


def test_an_error_in_an_extended_manifest_names_that_file(tmp_path: Path) -> None:
    base = _manifest_with(tmp_path, "const_pattern = 3")
    child = tmp_path / "child"
    child.mkdir()
    (child / "manifest.toml").write_text('extends = "python"\nname = "child"\n')
    with pytest.raises(LanguagePackError, match=rf"{base}/manifest\.toml: 'const_pattern'"):
        load_pack(child)


def test_a_minimal_manifest_loads(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, ""))
    assert pack.name == "python" and pack.extensions == (".py",)


def test_every_builtin_manifest_key_is_in_the_schema() -> None:
    for pack in all_packs().values():
        assert set(pack.manifest) <= set(MANIFEST), pack.name


def test_qualifier_separators_are_data() -> None:
    pack = all_packs()["python"]
    assert pack.qualifier_separators == ()
    other = replace(pack, manifest={**pack.manifest, "qualifier_separators": [".", "::", "->"]})
    assert other.qualifier_separators == (b"->", b"::")


@pytest.fixture
def extra_packs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Point $SPYGLASS_LANGUAGE_PACKS at a folder for one test."""
    def use(folder: Path) -> None:
        monkeypatch.setenv(PACKS_ENV, str(folder))
        reload_packs()
    yield use
    monkeypatch.delenv(PACKS_ENV, raising=False)
    reload_packs()


def test_packs_folders_come_from_the_environment(tmp_path: Path,
                                                 extra_packs: Callable[[Path], None]) -> None:
    folder = _manifest_with(tmp_path / "more", "")
    (folder / "manifest.toml").write_text(MINIMAL.replace('"python"', '"py2"', 1)
                                          .replace('".py"', '".py2"'))
    extra_packs(tmp_path / "more")
    assert pack_dirs() == (LANGS_DIR, tmp_path / "more")
    assert all_packs()["py2"].folder == folder
    assert pack_for_path("a/b.py2") is all_packs()["py2"]


@pytest.mark.parametrize(("manifest", "message"), [
    (MINIMAL, r"a language pack named 'python' is already loaded"),
    (MINIMAL.replace('name = "python"', 'name = "py3"'),
     r"extension \.py is already the python pack's"),
])
def test_a_pack_may_not_take_another_packs_name_or_extension(
        tmp_path: Path, extra_packs: Callable[[Path], None], manifest: str, message: str
) -> None:
    folder = _manifest_with(tmp_path / "more", "")
    (folder / "manifest.toml").write_text(manifest)
    extra_packs(tmp_path / "more")
    with pytest.raises(LanguagePackError, match=message):
        all_packs()


def test_a_missing_packs_folder_is_an_error(tmp_path: Path,
                                            extra_packs: Callable[[Path], None]) -> None:
    extra_packs(tmp_path / "nowhere")
    with pytest.raises(LanguagePackError, match="no such folder of language packs"):
        all_packs()


def test_every_manifest_key_the_code_reads_is_in_the_schema() -> None:
    """A key read under another spelling than the schema's would always read as unset."""
    read = re.compile(r"""manifest(?:\.get\(|\[)\s*["'](\w+)["']|manifest_value\([^,]+,\s*["'](\w+)["']""")
    src = LANGS_DIR.parent
    keys = {a or b for p in src.rglob("*.py") for a, b in read.findall(p.read_text("utf-8"))}
    assert len(keys) > 20  # the pattern finds the reads
    assert keys - set(MANIFEST) == set()


def test_parse_blanks_keep_lines_and_columns(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "parse_blanks = ['@ANNOT\\([^)]*\\)']"))
    data = b"x = 1  @ANNOT(a,\nb) + 2\n"
    out = prepared(pack, data)
    assert out == b"x = 1           \n   + 2\n"
    assert len(out) == len(data) and out.count(b"\n") == data.count(b"\n")


def test_parse_blank_groups_blank_only_the_groups(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "parse_blanks = ['<(keep) +x']"))
    assert prepared(pack, b"a <keep  x keep x") == b"a <      x keep x"


def test_parse_separators_write_a_semicolon_in_group_one(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "parse_separators = ['\\n([ \\t]+)<']"))
    data = b"a\n  <b\n<c\n"
    out = prepared(pack, data)
    assert out == b"a\n; <b\n<c\n"
    assert len(out) == len(data) and out.count(b"\n") == data.count(b"\n")


def test_a_parse_separator_needs_one_group(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "parse_separators = ['x']"))
    with pytest.raises(LanguagePackError, match=r"'parse_separators': each pattern"):
        pack.validate()


TS_UNPARSED_BY_023 = b"""export interface V<in out A, out B extends string = "x"> { a: A }
export class Box<
  in A,
  out B
> {}
export const mapper: {
  <A>(self: A): A
  <A, F extends (...args: Array<any>) => any, B extends Iterable<V<A, B>>>(s: A, f: F): B
  (self: string): <B>(that: B) => string
  <A>(self: A, n: number): A
} = impl
const f = (x: number) =>
  <T>(y: T): T => y
const r = g(a, out as any); for (const k in obj) {} if (k in obj && a < out) {}
const note = "in which, out of"
"""


def test_typescript_rewrites_parse_variance_and_call_signatures() -> None:
    """The TypeScript pack's rewrites make the pinned grammar parse variance annotations
    and generic call signatures one per line, and leave expressions that look alike."""
    pack = all_packs()["typescript"]
    out = prepared(pack, TS_UNPARSED_BY_023)
    assert len(out) == len(TS_UNPARSED_BY_023)
    assert out.count(b"\n") == TS_UNPARSED_BY_023.count(b"\n")
    assert syntax_errors(pack, TS_UNPARSED_BY_023) == ()
    kept = out.splitlines()
    assert kept[-3] == b"  <T>(y: T): T => y"  # after `=>`: an expression, no `;`
    assert kept[-2] == TS_UNPARSED_BY_023.splitlines()[-2]
    assert kept[-1] == TS_UNPARSED_BY_023.splitlines()[-1]
    assert prepared(pack, b"type T = { <A>(a: A): A }") == b"type T = { <A>(a: A): A }"


def test_a_bad_parse_blank_names_the_key(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "parse_blanks = ['(']"))
    with pytest.raises(LanguagePackError, match=r"manifest\.toml: 'parse_blanks'"):
        pack.validate()


def test_a_bad_build_constraint_names_the_key(tmp_path: Path) -> None:
    pack = load_pack(_manifest_with(tmp_path, "build_constraint = '('"))
    with pytest.raises(LanguagePackError, match=r"manifest\.toml: 'build_constraint'"):
        pack.validate()


def test_pack_named_loads_one_pack_the_same_as_all_packs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PACKS_ENV, raising=False)
    reload_packs()
    try:
        python = pack_named("python")
        assert python is not None and python.name == "python"
        assert all_packs.cache_info().currsize == 0  # the other packs were not loaded
        assert all_packs()["python"] is python  # one object: loaded once
        for name, pack in all_packs().items():
            assert pack_named(name) is pack
        for name in ("nope", "../python", "_go", "", "python/"):
            assert pack_named(name) is None
    finally:
        reload_packs()


def test_pack_named_with_packs_from_the_environment(
        tmp_path: Path, extra_packs: Callable[[Path], None]) -> None:
    folder = _manifest_with(tmp_path / "more", "")
    (folder / "manifest.toml").write_text(MINIMAL.replace('"python"', '"py2"', 1)
                                          .replace('".py"', '".py2"'))
    extra_packs(tmp_path / "more")
    assert pack_named("py2") is all_packs()["py2"]
    assert pack_named("python") is all_packs()["python"]


def test_packs_by_extension_and_provenance_without_loading_every_pack(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A question meets a few languages: the pack of a path and the provenance's grammar
    versions are read from the manifests alone, and equal what every pack loaded gives."""
    monkeypatch.delenv(PACKS_ENV, raising=False)
    reload_packs()
    try:
        versions = grammar_versions()
        table = langpack._builtin_extensions()
        assert table is not None and ".go" in table and ".py" in table
        alone = {ext: pack_for_path(f"pkg/file{ext}") for ext in table}
        assert pack_for_path("README") is None and pack_for_path("a.unknown") is None
        assert all_packs.cache_info().currsize == 0  # none of that loaded every pack
        packs = all_packs()
        assert versions == tuple((p.name, p.grammar_module, p.grammar_version, p.pack_version)
                                 for p in packs.values())
        for ext, pack in alone.items():
            assert pack is not None and pack is packs[pack.name] \
                and pack is pack_for_path(f"pkg/file{ext}"), ext
        assert {ext for p in packs.values() for ext in p.extensions} == set(table)
    finally:
        reload_packs()
