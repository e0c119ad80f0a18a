"""One real project per language of the Rust, Ruby, PHP, Swift, Lua and Bash packs, from
the registries (Debian packages; @capacitor/ios from npm), fetched by
`scripts/bootstrap.sh --corpora`: every file parses, most uses inside the project bind to
its definitions, and hand-checked sites are found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpora import params, reads
from test_lang_corpora import defs_by_full, run, targets

from spyglass.query.facade import CodeIntel

Corpus = Callable[[str], Path]
Copy = Callable[[Path], Path]

# corpus, the project's folder in it, file suffixes, share of the uses with a target in
# the project that reach a definition (measured 2026-12-01, floors a little below)
PROJECTS = {
    "semver_rs": ("semver-1.0.14", (".rs",), 0.40),
    "thor": ("thor-1.2.1", (".rb",), 0.60),
    "composer_semver": ("Semver", (".php",), 0.95),
    "penlight": ("", (".lua",), 0.80),
    "bats": ("bats-core", (".bash", ".sh"), 0.10),
    "capacitor_ios": ("Capacitor", (".swift",), 0.30),
}


def _index(corpus: Corpus, git_copy: Copy, name: str) -> CodeIntel:
    folder = PROJECTS[name][0]
    src = corpus(name) / folder if folder else corpus(name)
    ci = CodeIntel(git_copy(src))
    ci.index()
    return ci


def _sites(result: object) -> set[tuple[str, int]]:
    return {(r.path, r.start_line) for r in result.results}  # type: ignore[attr-defined]


def _callers(result: object) -> set[tuple[str, str]]:
    return {(r.path, r.symbol) for r in result.results}  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", params(list(PROJECTS)))
def test_every_file_parses_and_uses_bind(corpus: Corpus, name: str) -> None:
    folder, suffixes, floor = PROJECTS[name]
    rows = run(corpus(name) / folder if folder else corpus(name), suffixes)
    assert not [p for p, r in rows.items() if r[5]], f"{name} parses without diagnostics"
    full = defs_by_full(rows)
    assert len(full) > 50
    used = targets(rows)
    bound = sum(n for t, n in used.items() if t in full)
    assert bound / max(1, sum(used.values())) > floor


@reads("semver_rs")
def test_rust_semver(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "semver_rs")
    full = {r.symbol: r.kind for r in ci.structure("src/lib.rs").results}  # type: ignore[attr-defined]
    assert full["semver.Version"] == "struct" and full["semver.Version.parse"] == "method"
    # `eval::matches_req(self, version)` in `impl VersionReq { fn matches }`
    assert _callers(ci.callers(path="src/eval.rs", line=3, column=15)) == {
        ("src/lib.rs", "semver.VersionReq.matches")}
    # `Version::parse(text)` in tests/util/mod.rs, through `use semver::Version`
    parse = ci.references(path="src/lib.rs", line=431, column=12)
    assert {("tests/util/mod.rs", 8), ("tests/util/mod.rs", 13)} <= _sites(parse)
    # `version(..)` of tests/util/mod.rs, reached by `mod util; use crate::util::*;`
    version = ci.references(path="tests/util/mod.rs", line=7, column=15)
    assert ("tests/test_version.rs", 53) in _sites(version)


@reads("thor")
def test_ruby_thor(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "thor")
    # `snake_case(constant)` inside `class << self` of module Thor::Util
    assert _sites(ci.references(path="lib/thor/util.rb", line=90, column=11)) == {
        ("lib/thor/util.rb", 45)}
    # `Thor::Util.ruby_command` in lib/thor/actions.rb
    assert _sites(ci.references(path="lib/thor/util.rb", line=220, column=11)) == {
        ("lib/thor/actions.rb", 287)}
    # `Util.escape_globs(..)` inside `class Thor`: a bare constant there is uncertain
    escape = ci.references(path="lib/thor/util.rb", line=263, column=11)
    flagged = {(r.path, r.start_line): r.uncertain for r in escape.results}  # type: ignore[attr-defined]
    assert flagged[("lib/thor/actions/directory.rb", 59)] is True
    assert flagged[("lib/thor/util.rb", 203)] is False


@reads("composer_semver")
def test_php_composer_semver(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "composer_semver")
    # `self::compare(..)` in the six comparison helpers of Comparator
    assert _sites(ci.references(path="Comparator.php", line=107, column=28)) == {
        ("Comparator.php", n) for n in (28, 41, 54, 67, 80, 93)}
    # `$this->normalize(..)` in VersionParser::parseConstraint
    normalize = _callers(ci.callers(path="VersionParser.php", line=103, column=21))
    assert ("VersionParser.php", "Composer.Semver.VersionParser.parseConstraint") in normalize


@reads("penlight")
def test_lua_penlight(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "penlight")
    # `path.join(..)` with `local path = require 'pl.path'`
    join = _sites(ci.references(path="pl/path.lua", line=363, column=15))
    assert {("pl/app.lua", 37), ("pl/app.lua", 93), ("pl/dir.lua", 75)} <= join
    # `local function at(s,i)` (path.lua:182), called bare in path.splitpath (234, 237)
    # and path.splitext (280, 286)
    at = _callers(ci.callers(path="pl/path.lua", line=182, column=16))
    assert {("pl/path.lua", "pl.path.splitpath"), ("pl/path.lua", "pl.path.splitext"),
            ("pl/path.lua", "pl.path.isabs")} <= at
    # `function path.splitext(P)` (path.lua:277): `path.splitext(sname)` in app.appfile
    assert ("pl/app.lua", "pl.app.appfile") in _callers(
        ci.callers(path="pl/path.lua", line=277, column=15))


@reads("bats")
def test_bash_bats(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "bats")
    assert _callers(ci.callers(path="common.bash", line=34, column=1)) == {
        ("common.bash", "bats_require_minimum_version"),
        ("warnings.bash", "bats_warn_minimum_guaranteed_version")}


@reads("capacitor_ios")
def test_swift_capacitor(corpus: Corpus, git_copy: Copy) -> None:
    ci = _index(corpus, git_copy, "capacitor_ios")
    found = _sites(ci.references(path="Capacitor/CAPLog.swift", line=4, column=24))
    assert {("Capacitor/JS.swift", 69), ("Capacitor/JS.swift", 72),
            ("Capacitor/JS.swift", 101)} <= found
    assert len(found) > 50
    # AppUUID.swift:43 `private static func readUUID()`, called bare from the class's
    # other static methods getAppUUID (23) and assertAppUUID (32)
    assert _callers(ci.callers(path="Capacitor/AppUUID.swift", line=43, column=25)) == {
        ("Capacitor/AppUUID.swift", "Capacitor.AppUUID.getAppUUID"),
        ("Capacitor/AppUUID.swift", "Capacitor.AppUUID.assertAppUUID")}
    # `KeyValueStore.standard[…]` in three other files
    store = _sites(ci.references(name="KeyValueStore"))
    assert {("Capacitor/AppUUID.swift", 44), ("Capacitor/AppUUID.swift", 48),
            ("Capacitor/CAPBridgeViewController.swift", 21),
            ("Capacitor/Plugins/WebView.swift", 40)} <= store
