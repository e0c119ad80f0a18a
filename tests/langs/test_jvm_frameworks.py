"""Test conventions of the Java, Kotlin, Scala and C# packs: JUnit through Maven or
Gradle, sbt, dotnet test; detected from configuration files (read, never run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spyglass.query.facade import CodeIntel
from spyglass.query.frameworks import Framework, Frameworks
from spyglass.syntax.langpack import all_packs

JAVA_TEST = ("package a;\nimport org.junit.jupiter.api.Test;\n"
             "class CircleTest {\n  @Test void area() {}\n  void helper() {}\n}\n")


def _frameworks(root: Path) -> Frameworks:
    ci = CodeIntel(root)
    ci.index()
    return Frameworks(root, ci.view())


def test_maven_and_gradle_are_detected_per_module(make_repo: Callable[..., Path]) -> None:
    root = make_repo({
        "core/pom.xml": "<project><artifactId>core</artifactId></project>\n",
        "core/src/test/java/a/CircleTest.java": JAVA_TEST,
        "app/build.gradle.kts": "plugins { java }\n",
        "app/src/test/kotlin/a/AppTest.kt": "package a\nclass AppTest {\n  @Test\n  fun runs() {}\n}\n",
        "loose/src/test/java/a/LooseTest.java": JAVA_TEST.replace("CircleTest", "LooseTest"),
    })
    fw = _frameworks(root)
    java, kotlin = all_packs()["java"], all_packs()["kotlin"]
    maven = fw.for_pack(java, "core/src/test/java/a/CircleTest.java")
    assert maven == Framework("maven", "core", "core/pom.xml", "pom.xml declares artifact core")
    assert fw.command(maven, [("core/src/test/java/a/CircleTest.java", "CircleTest.area")]) \
        == "cd core && mvn test -Dtest='CircleTest#area'"
    assert fw.command(maven, [("core/src/test/java/a/CircleTest.java", ""),
                              ("core/src/test/java/a/CircleTest.java", "CircleTest.area")]) \
        == "cd core && mvn test -Dtest='CircleTest,CircleTest#area'"
    gradle = fw.for_pack(kotlin, "app/src/test/kotlin/a/AppTest.kt")
    assert gradle == Framework("gradle", "app", "app/build.gradle.kts", "build.gradle.kts")
    assert fw.command(gradle, [("app/src/test/kotlin/a/AppTest.kt", "AppTest.runs")]) \
        == "cd app && gradle test --tests AppTest.runs"
    loose = fw.for_pack(java, "loose/src/test/java/a/LooseTest.java")
    assert loose.name == "maven" and loose.evidence.startswith("no pom.xml")


def test_sbt_and_dotnet(make_repo: Callable[..., Path]) -> None:
    root = make_repo({
        "build.sbt": 'name := "geo"\n',
        "src/test/scala/a/CircleSpec.scala": "package a\nclass CircleSpec\n",
        "cs/Directory.Build.props": "<Project/>\n",
        "cs/tests/CircleTests.cs": "namespace A;\npublic class CircleTests {\n"
                                   "  [Fact] public void Area() {}\n}\n",
    })
    fw = _frameworks(root)
    sbt = fw.for_pack(all_packs()["scala"], "src/test/scala/a/CircleSpec.scala")
    assert sbt == Framework("sbt", "", "build.sbt", "build.sbt")
    assert fw.command(sbt, [("src/test/scala/a/CircleSpec.scala", "")]) == \
        "sbt \"testOnly *CircleSpec\""
    dotnet = fw.for_pack(all_packs()["csharp"], "cs/tests/CircleTests.cs")
    assert dotnet == Framework("dotnet", "cs", "cs/Directory.Build.props",
                               "Directory.Build.props")
    assert fw.command(dotnet, [("cs/tests/CircleTests.cs", "CircleTests.Area")]) == \
        "cd cs && dotnet test --filter CircleTests.Area"


def test_junit_tests_are_annotated_methods(tmp_path: Path) -> None:
    (tmp_path / "src/test/java/a").mkdir(parents=True)
    (tmp_path / "src/test/java/a/CircleTest.java").write_text(JAVA_TEST)
    ci = CodeIntel(tmp_path)
    ci.index()
    kinds = {r.symbol: r.kind for r in ci.structure("src/test/java/a/CircleTest.java").results}  # type: ignore[attr-defined]
    assert kinds == {"a.CircleTest": "test", "a.CircleTest.area": "test",
                     "a.CircleTest.helper": "method"}


def test_sbt_runs_from_the_build_root_and_suites_are_found_by_base(
        make_repo: Callable[..., Path]) -> None:
    # A multi-project sbt build: the root's project/build.properties, a subproject's own
    # build.sbt (part of the root's build, not a build of its own); suites under
    # src/test/scala named by what they extend, not by a naming convention.
    root = make_repo({
        "project/build.properties": "sbt.version=1.9.7\n",
        "core/build.sbt": 'name := "core"\n',
        "core/src/main/scala/a/Circle.scala": "package a\nclass Circle { def area: Double = 1.0 }\n",
        "core/src/test/scala/a/AreaCheck.scala":
            "package a\nimport org.scalatest.propspec.AnyPropSpec\n"
            "class AreaCheck extends AnyPropSpec with Matchers {\n"
            "  property(\"area\") { new Circle().area }\n}\n"
            "class Helper extends Matchers\n",
        "core/src/test/scala/a/RoundSuite.scala":
            "package a\nclass RoundSuite extends munit.FunSuite {\n"
            "  test(\"round\") { new Circle().area }\n}\n",
    })
    ci = CodeIntel(root)
    ci.index()
    kinds = {r.symbol: r.kind for r in ci.structure("core/src/test/scala/a/AreaCheck.scala").results}  # type: ignore[attr-defined]
    assert kinds == {"a.AreaCheck": "test", "a.Helper": "class"}
    fw = Frameworks(root, ci.view())
    sbt = fw.for_pack(all_packs()["scala"], "core/src/test/scala/a/AreaCheck.scala")
    assert sbt == Framework("sbt", "", "project/build.properties", "project/build.properties")
    assert fw.command(sbt, [("core/src/test/scala/a/AreaCheck.scala", "AreaCheck"),
                            ("core/src/test/scala/a/RoundSuite.scala", "")]) == \
        "sbt \"testOnly *AreaCheck *RoundSuite\""
    answer = ci.suggest_tests(["a.Circle.area"])
    found = dict(answer.extra)
    assert {(f.path, t) for f in answer.results for t in f.tests} == {  # type: ignore[attr-defined]
        ("core/src/test/scala/a/AreaCheck.scala", "AreaCheck"),
        ("core/src/test/scala/a/RoundSuite.scala", "RoundSuite")}
    assert [c.command for c in found["commands"]] == [  # type: ignore[attr-defined]
        "sbt \"testOnly *AreaCheck *RoundSuite\""]
