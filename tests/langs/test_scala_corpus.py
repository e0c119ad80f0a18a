"""A real Scala project: jawn 0.6.0, a JSON parser (the original tarball of Debian's
source package `jawn`, pinned by its SHA-256 and fetched by `scripts/bootstrap.sh
--corpora`), indexed, with hand-checked sites. Its modules chain package clauses
(`package jawn` / `package ast`), pair traits with companion objects, mix traits in
(`extends SyncParser[J] with CharBasedParser[J]`) and test with ScalaTest suites named
`*Check` under src/test/scala, in an sbt build rooted at project/build.properties."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpora import reads
from test_lang_corpora import call_sites as _callers
from test_lang_corpora import defs_by_full, indexed_copy, run, targets
from test_lang_corpora import sites as _sites

from spyglass.query.facade import CodeIntel

Corpus = Callable[[str], Path]
P = "parser/src/main/scala/jawn"
A = "ast/src/main/scala/jawn"
PARSE_CHECK = "ast/src/test/scala/jawn/ParseCheck.scala"
SYNTAX_CHECK = "parser/src/test/scala/jawn/SyntaxCheck.scala"
BENCH = "benchmark/src/main/scala/jawn/AdHocBenchmarks.scala"


@pytest.fixture(scope="module")
def jawn(tmp_path_factory: pytest.TempPathFactory, corpus: Corpus) -> CodeIntel:
    """The unpacked tarball as a git repository of its own, indexed once."""
    return indexed_copy(tmp_path_factory, corpus, "jawn")


def _outline(ci: CodeIntel, path: str) -> set[tuple[int, str, str]]:
    return {(r.start_line, r.kind, r.symbol) for r in ci.structure(path).results}  # type: ignore[attr-defined]


@reads("jawn")
def test_every_file_parses_into_package_qualified_definitions(corpus: Corpus) -> None:
    rows = run(corpus("jawn"), (".scala",))
    assert len(rows) == 33
    assert not [p for p, r in rows.items() if r[5]], "jawn parses without diagnostics"
    full = defs_by_full(rows)
    # Of the uses whose target is in jawn's packages, most reach a definition (measured
    # 0.68 on 2026-12-01; the rest: names of wildcard-imported libraries guessed as the
    # package's, members inherited from ScalaTest, and members inherited within jawn,
    # which the closure follows at query time).
    used = targets(rows)
    own = {t: n for t, n in used.items() if t.startswith("jawn.")}
    assert sum(n for t, n in own.items() if t in full) / sum(own.values()) > 0.6
    # support/json4s/src/main/scala/Parser.scala: `package jawn` / `package support.json4s`
    # then `object Parser extends SupportParser[JValue]`
    assert full["jawn.support.json4s.Parser"] == "class"
    # ast/…/JValue.scala:35 `case class JString(s: String)`: a class parameter is a field
    assert full["jawn.ast.JString.s"] == "field"


@reads("jawn")
def test_traits_companions_and_chained_packages(jawn: CodeIntel) -> None:
    parser = _outline(jawn, f"{P}/Parser.scala")
    # Parser.scala:35 `trait Parser[J]` and :486 its companion `object Parser`: one name
    assert {(35, "interface", "jawn.Parser"), (486, "class", "jawn.Parser")} <= parser
    # `@tailrec` (line 326) / `protected[this] final def rparse(…)(implicit …)`
    assert (326, "method", "jawn.Parser.rparse") in parser
    assert (90, "const", "jawn.Parser.ARRBEG") in parser  # `@inline … final val ARRBEG = 6`
    assert (487, "method", "jawn.Parser.parseUnsafe") in parser  # a member of the object
    assert (11, "class", "jawn.ParseException") in parser  # a top-level `case class`
    # JValue.scala opens `package jawn` then `package ast`: the package jawn.ast
    values = _outline(jawn, f"{A}/JValue.scala")
    assert {(15, "interface", "jawn.ast.JValue"), (97, "class", "jawn.ast.JValue"),
            (26, "class", "jawn.ast.JNull"), (218, "method", "jawn.ast.JObject.fromSeq")} <= values


@reads("jawn")
def test_references_across_files_and_packages(jawn: CodeIntel) -> None:
    # StringParser.scala:15 `private[jawn] final class StringParser[J]`: `new
    # StringParser(s)` in Parser's companion and SupportParser (package jawn), and in
    # JParser.scala, whose chained clauses `package jawn` / `package ast` see jawn's names
    refs = jawn.references(path=f"{P}/StringParser.scala", line=15, column=27)
    assert _sites(refs) == {(f"{P}/Parser.scala", 488), (f"{P}/Parser.scala", 491),
                            (f"{P}/SupportParser.scala", 12), (f"{P}/SupportParser.scala", 15),
                            (f"{A}/JParser.scala", 13), (f"{A}/JParser.scala", 16)}
    # AsyncParser.scala:14 `case object SingleValue` of `object AsyncParser`: its default
    # argument (line 16), and ParseCheck's relative import `import AsyncParser.{UnwrapArray,
    # ValueStream, SingleValue}` (line 122; AsyncParser is jawn's) and its use at line 128
    single = jawn.references(path=f"{P}/AsyncParser.scala", line=14, column=15)
    assert _sites(single) == {(f"{P}/AsyncParser.scala", 16), (PARSE_CHECK, 122),
                              (PARSE_CHECK, 128)}
    # `case JNull =>` (Renderer.scala:17) is the object JNull, not a pattern variable;
    # support/*'s own JValue types (org.json4s, play, …) are not jawn.ast.JValue
    assert (f"{A}/Renderer.scala", 17) in _sites(
        jawn.references(path=f"{A}/JValue.scala", line=26, column=13))
    # JValue.scala:155 `val zero: JNum` of `object JNum { self =>`: `self.zero` inside the
    # anonymous `new Field[JNum] with …` (line 159) goes through the self alias
    assert _sites(jawn.references(path=f"{A}/JValue.scala", line=155, column=7)) == {
        (f"{A}/JValue.scala", 159)}
    used = {path for path, _ in _sites(jawn.references(name="jawn.ast.JValue"))}
    assert PARSE_CHECK in used and not [p for p in used if p.startswith("support/")]


@reads("jawn")
def test_callers(jawn: CodeIntel) -> None:
    # Parser.scala:490 `def parseFromString[J](s: String)(implicit facade: Facade[J])` of
    # the companion object: `Parser.parseFromString(s)(NullFacade)` in SyntaxCheck
    # (package jawn.parser, chained), two argument lists for two parameter lists
    assert _callers(jawn.callers(path=f"{P}/Parser.scala", line=490, column=7)) == {
        (SYNTAX_CHECK, 67, "jawn.parser.SyntaxCheck.isValidSyntax")}
    # JParser.scala:21 `def parseFromFile(file: File)`: bare in parseFromPath, as
    # `JParser.parseFromFile(f)` in Run.main, and written with its package
    # `jawn.ast.JParser.parseFromFile(file)` in the benchmark (package jawn.benchmark)
    assert _callers(jawn.callers(path=f"{A}/JParser.scala", line=21, column=7)) == {
        (f"{A}/JParser.scala", 19, "jawn.ast.JParser.parseFromPath"),
        (f"{A}/Run.scala", 18, "jawn.ast.Run.main"),
        (BENCH, 128, "jawn.benchmark.AdHocBenchmarks.jawnParse")}
    # ChannelParser.scala:8 `def fromFile[J](f: File)` of `object ChannelParser`: the five
    # `ChannelParser.fromFile[J](…)` calls (type arguments before the argument list)
    from_file = jawn.callers(path=f"{P}/ChannelParser.scala", line=8, column=7)
    assert {(r.path, r.start_line, r.symbol, r.uncertain) for r in from_file.results} == {  # type: ignore[attr-defined]
        (f"{A}/JParser.scala", 22, "jawn.ast.JParser.parseFromFile", False),
        (f"{P}/Parser.scala", 494, "jawn.Parser.parseFromPath", False),
        (f"{P}/Parser.scala", 497, "jawn.Parser.parseFromFile", False),
        (f"{P}/SupportParser.scala", 18, "jawn.SupportParser.parseFromPath", False),
        (f"{P}/SupportParser.scala", 21, "jawn.SupportParser.parseFromFile", False)}
    # Parser.scala:105 `protected[this] def die(…)`: called bare from the traits and
    # classes mixing Parser in (inherited through `extends … with …`)
    die = _callers(jawn.callers(path=f"{P}/Parser.scala", line=105, column=23))
    assert {(f"{P}/SyncParser.scala", 30, "jawn.SyncParser.parse"),
            (f"{P}/CharBasedParser.scala", 33, "jawn.CharBasedParser.parseStringSimple"),
            (f"{P}/AsyncParser.scala", 165, "jawn.AsyncParser.churn")} <= die
    # SupportParser.scala:20 `def parseFromFile`, inherited by each support module's
    # `object Parser extends SupportParser[…]`: `jawn.support.json4s.Parser.parseFromFile`
    support = _callers(jawn.callers(path=f"{P}/SupportParser.scala", line=20, column=7))
    assert {(BENCH, 34, "jawn.benchmark.AdHocBenchmarks.json4sJawnParse"),
            (BENCH, 157, "jawn.benchmark.AdHocBenchmarks.rojomaV3JawnParse")} <= support


@reads("jawn")
def test_mixins_in_the_hierarchy(jawn: CodeIntel) -> None:
    # StringParser.scala:15 `extends SyncParser[J] with CharBasedParser[J]`; SyncParser
    # extends Parser (its companion object shares the name and is listed too: a limit)
    found = jawn.type_hierarchy(path=f"{P}/StringParser.scala", line=15, column=27)
    ups = {(r.path, r.start_line) for r in found.results  # type: ignore[attr-defined]
           if r.evidence.startswith("supertype")}
    assert {(f"{P}/SyncParser.scala", 14), (f"{P}/CharBasedParser.scala", 16),
            (f"{P}/Parser.scala", 35)} <= ups


@reads("jawn")
def test_suites_and_the_sbt_command(jawn: CodeIntel) -> None:
    # ParseCheck.scala:15 `class ParseCheck extends PropSpec with Matchers with …` under
    # src/test/scala: a test class by its base; its `property("…") { … }` tests are calls,
    # so the suite runs whole, from the build's root (project/build.properties; ast/'s
    # own build.sbt is a subproject's)
    outline = _outline(jawn, PARSE_CHECK)
    assert (15, "test", "jawn.ast.ParseCheck") in outline
    answer = jawn.suggest_tests(["jawn.ast.JParser.parseFromString"])
    found = dict(answer.extra)
    assert [(f.path, t) for f in answer.results for t in f.tests] == [  # type: ignore[attr-defined]
        (PARSE_CHECK, "ParseCheck")]
    assert [c.command for c in found["commands"]] == [  # type: ignore[attr-defined]
        'sbt "testOnly *ParseCheck"']


J4 = "core/src/main/scala/org/json4s"


@pytest.fixture(scope="module")
def json4s(tmp_path_factory: pytest.TempPathFactory, corpus: Corpus) -> CodeIntel:
    """json4s 3.2.10 (Debian's `json4s` source package) as a git repository, indexed once."""
    return indexed_copy(tmp_path_factory, corpus, "json4s")


@reads("json4s")
def test_json4s_package_object(json4s: CodeIntel) -> None:
    # core/…/package.scala: `package org` / `package object json4s { … }`: its members
    # are the package org.json4s's (a `type JString` and a `val JString` side by side)
    outline = _outline(json4s, f"{J4}/package.scala")
    assert {(19, "module", "org.json4s"), (23, "type", "org.json4s.JValue"),
            (26, "type", "org.json4s.JString"), (27, "field", "org.json4s.JString"),
            (56, "class", "org.json4s.MappingException")} <= outline
    # `case class MappingException` (line 56) is used on 60 lines in packages org.json4s,
    # org.json4s.ext, .mongo, .native, … (`new MappingException(…)`, `MappingException(…)`):
    # grep finds the word on 61 lines outside package.scala, the 61st a doc
    # comment's `@throws MappingException` (Extraction.scala:35)
    refs = json4s.references(path=f"{J4}/package.scala", line=56, column=14)
    sites = _sites(refs)
    assert len(sites) == 60 and (f"{J4}/Extraction.scala", 35) not in sites
    assert {("mongo/src/main/scala/org/json4s/mongo/Serializers.scala", 35),
            ("ext/src/main/scala/org/json4s/ext/EnumSerializer.scala", 35),
            ("examples/src/main/scala/org/json4s/examples/Swagger.scala", 150),
            ("tests/src/test/scala/org/json4s/ExtractionExamplesSpec.scala", 188)} <= sites
    # certain, except where a file's syntax error surrounds the use (issue #25: flagged)
    assert all("syntax error" in r.evidence for r in refs.results if r.uncertain)  # type: ignore[attr-defined]


@reads("json4s")
def test_json4s_relative_wildcard_import_and_specs2(json4s: CodeIntel) -> None:
    # ReflectorSpec.scala (package org.json4s) `import reflect._`: the project's package
    # org.json4s.reflect, not scala.reflect; `Reflector.describe[InMethod]` (line 36)
    # calls reflect/Reflector.scala:40 `def describe[T](implicit mf: Manifest[T], …)`
    spec = "tests/src/test/scala/org/json4s/ReflectorSpec.scala"
    describe = _sites(json4s.references(
        path=f"{J4}/reflect/Reflector.scala", line=40, column=7))
    assert {(spec, 28), (spec, 36), (spec, 46)} <= describe
    # ast/…/Diff.scala (package org.json4s) `import JsonAST._`: the object's members
    # before the package object's aliases of the same names, so `JString(y)` (line 64)
    # is JsonAST.scala:180 `case class JString` itself
    jstring = _sites(json4s.references(
        path="ast/src/main/scala/org/json4s/JsonAST.scala", line=180, column=14))
    assert ("ast/src/main/scala/org/json4s/Diff.scala", 64) in jstring
    # JsonAstSpec.scala:25 `object JsonAstSpec extends Specification with JValueGen …`:
    # a specs2 suite by its base
    assert (25, "test", "org.json4s.JsonAstSpec") in _outline(
        json4s, "tests/src/test/scala/org/json4s/JsonAstSpec.scala")
