"""The Java precise pass (docs/precise.md): spyglass's own SpyglassJavac.java, compiled by
the host JDK at first use and run under the launcher, decides references and callers by
javac's attribution (an overload and another class's same-named method are dropped, a
method reference is confirmed); each failure (no JDK, a program that does not compile,
a crash, a timeout, malformed output) leaves the index's answer with a limitation, and
`[precise] enabled = true` turns it into an error. Skips without a JDK or bubblewrap."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.config import Config, PreciseConfig
from spyglass.query import precise_java
from spyglass.query.facade import CodeIntel
from spyglass.query.precise import PreciseFailed

USE = """package p;

import java.util.function.IntSupplier;

public class Use {
    int go(Shape s, Other o) {
        int a = s.area();
        int b = o.area();
        IntSupplier f = s::area;
        return a + b + make().area() + f.getAsInt();
    }

    Shape make() {
        return new Shape();
    }

    int any() {
        var x = make();
        var y = pick();
        return x.area(2) + y.area();
    }

    Other pick() {
        return new Other();
    }
}
"""
FILES = {
    "src/p/Shape.java": ("package p;\n\npublic class Shape {\n    public int area() { return 0; }"
                         "\n\n    public int area(int scale) { return scale; }\n}\n"),
    "src/p/Other.java": "package p;\n\npublic class Other {\n    public int area() { return 1; }\n}\n",
    "src/p/Use.java": USE,
}
AREA = {"path": "src/p/Shape.java", "line": 4, "column": 16}  # Shape.area()
# javac: s.area() (7), s::area (9), make().area() (10); line 20's x.area(2) is the other
# overload and y.area() is Other's.
EXPECTED = [("src/p/Use.java", n) for n in (7, 9, 10)]


def need_jdk() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)")
    if precise_java.jdk_home() is None:
        pytest.skip("no JDK (scripts/bootstrap.sh installs openjdk-17-jdk-headless)")


def intel(make_repo: Callable[..., Path], enabled: str = "auto",
          timeout_s: int = 120) -> CodeIntel:
    need_jdk()
    config = Config(precise=PreciseConfig(enabled=enabled, timeout_s=timeout_s,
                                          memory_mb=512))
    ci = CodeIntel(make_repo(FILES), config=config)
    ci.index(precise="off")
    return ci


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The compiled program's cache in the test's folder."""
    cache = tmp_path / "javac-cache"
    monkeypatch.setattr(precise_java, "cache_root", lambda: cache)
    return cache


def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main_body: str) -> None:
    """Replace the shipped program with one whose main runs `main_body` (args as given)."""
    folder = tmp_path / "program"
    folder.mkdir()
    source = folder / "SpyglassJavac.java"
    source.write_text("import java.nio.file.*;\npublic class SpyglassJavac {\n"
                      "  public static void main(String[] args) throws Exception {\n"
                      f"    {main_body}\n  }}\n}}\n")
    monkeypatch.setattr(precise_java, "SOURCE", source)


def sites(result: object) -> list[tuple[str, int]]:
    return sorted((c.path, c.start_line) for c in result.results)  # type: ignore[attr-defined]


def test_javac_facts_decide_references_and_callers(make_repo: Callable[..., Path],
                                                   own_cache: Path) -> None:
    ci = intel(make_repo)
    before = ci.references(**AREA)
    assert ("src/p/Use.java", 20) in sites(before)  # the index matches x.area(2) by name
    assert any(c.uncertain for c in before.results)
    runs = ci.precise_pass(None, "wait")
    assert [(r.language, r.state, r.files) for r in runs] == [("java", "completed", 3)]
    assert runs[0].tool.startswith("javac ") and runs[0].peak_mb > 0
    assert list(own_cache.glob("*/SpyglassJavac.class"))  # compiled into spyglass's cache
    refs = ci.references(**AREA)
    assert sites(refs) == EXPECTED
    assert all(not c.uncertain and c.evidence.startswith(f"precise: {runs[0].tool}")
               for c in refs.results)
    note = next(n for n in refs.coverage.limitations if n.startswith("precise facts"))
    assert "3 site(s) confirmed" in note and "1 refuted and dropped" in note
    callers = ci.callers(**AREA)
    assert [(c.path, c.start_line, c.symbol) for c in callers.results] == [
        ("src/p/Use.java", n, "p.Use.go") for n in (7, 9, 10)]
    other = ci.references(path="src/p/Other.java", line=4, column=16)
    assert sites(other) == [("src/p/Use.java", 8), ("src/p/Use.java", 20)]
    assert all(not c.uncertain for c in other.results)
    # Callees: go's `s::area` names area(), not the area(int) overload the index listed.
    go = ci.callees(path="src/p/Use.java", line=6, column=9)
    assert [(c.path, c.start_line, c.uncertain) for c in go.results] == [
        ("src/p/Shape.java", 4, False), ("src/p/Other.java", 4, False),
        ("src/p/Use.java", 13, False)]
    assert any("3 callee(s) confirmed, 0 added, 1 refuted" in n
               for n in go.coverage.limitations)
    anyof = ci.callees(path="src/p/Use.java", line=17, column=9)
    assert sorted((c.path, c.start_line, c.uncertain) for c in anyof.results) == [
        ("src/p/Other.java", 4, False), ("src/p/Shape.java", 6, False),
        ("src/p/Use.java", 13, False), ("src/p/Use.java", 23, False)]


@pytest.mark.parametrize("case", ["crash", "malformed", "timeout", "no-compile"])
def test_a_failed_java_pass_leaves_the_index_answer(make_repo: Callable[..., Path],
                                                    tmp_path: Path, own_cache: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    case: str) -> None:
    body = {"crash": "System.exit(3);",
            "malformed": "Files.write(Paths.get(args[2]), new byte[] {10, 99, 1, 2});",
            "timeout": "Thread.sleep(600000);",
            "no-compile": "this does not compile;"}[case]
    stand_in(tmp_path, monkeypatch, body)
    ci = intel(make_repo, timeout_s=3 if case == "timeout" else 120)
    before = ci.references(**AREA)
    runs = ci.precise_pass(None, "wait")
    assert len(runs) == 1 and runs[0].state == ("timeout" if case == "timeout" else "failed")
    why = {"crash": "exited with 3", "malformed": "malformed index", "timeout": "within 3 s",
           "no-compile": "could not compile"}[case]
    assert why in runs[0].error
    after = ci.references(**AREA)
    assert sites(after) == sites(before)
    assert [c.uncertain for c in after.results] == [c.uncertain for c in before.results]
    assert any(n.startswith("precise pass (java, javac") and why in n
               for n in after.coverage.limitations)


def test_no_jdk_runs_nothing_under_auto_and_is_an_error_when_required(
        make_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    ci = intel(make_repo)
    monkeypatch.setattr(precise_java, "jdk_home", lambda: None)
    assert ci.precise_pass(None, "wait") == []
    ci.config = Config(precise=PreciseConfig(enabled="true"))
    with pytest.raises(PreciseFailed, match="no JDK"):
        ci.precise_pass(None, "wait")
    limits = ci.references(**AREA).coverage.limitations
    assert any("missing" in n and "no JDK" in n for n in limits)
