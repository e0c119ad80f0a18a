"""The Java oracle (bench/accuracy/JavaOracle.java on the JDK compiler API) resolves
uses exactly: overloads, a field and a method of one name, static imports, calls through
a subclass, `new`. Skipped without a JDK (OpenJDK 17 on the CI machine)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from accuracy import javac

SOURCES = {
    "a/Shape.java": """package a;
public class Shape {
    boolean running;
    public boolean running() { return running; }
    public static int count(int x) { return x; }
    public static int count(String s) { return 0; }
}
""",
    "b/Use.java": """package b;
import a.Shape;
import static a.Shape.count;
class Sub extends Shape {}
class Use {
    int go() {
        Shape s = new Sub();
        s.running();
        return count(1) + count("x");
    }
}
""",
}


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK: javac not found")
def test_oracle_resolves_every_use(tmp_path: Path) -> None:
    root = tmp_path / "src"
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    found = javac.uses(root, (".",), work=tmp_path / "work")
    running_method = {(p, ln, role) for p, ln, _, role in found[("a/Shape.java", 4, "running")]}
    running_field = {(p, ln, role) for p, ln, _, role in found[("a/Shape.java", 3, "running")]}
    assert running_method == {("b/Use.java", 8, "call")}  # s.running(): the method
    assert running_field == {("a/Shape.java", 4, "ref")}  # `return running;`: the field
    int_count = {(p, ln, role) for p, ln, _, role in found[("a/Shape.java", 5, "count")]}
    str_count = {(p, ln, role) for p, ln, _, role in found[("a/Shape.java", 6, "count")]}
    # each overload has its own call; the static import names both
    assert int_count == {("b/Use.java", 3, "ref"), ("b/Use.java", 9, "call")}
    assert str_count == {("b/Use.java", 3, "ref"), ("b/Use.java", 9, "call")}
    assert [c for _, _, c, r in found[("a/Shape.java", 5, "count")] if r == "call"] == [15]
    shape = {(p, ln, role) for p, ln, _, role in found[("a/Shape.java", 2, "Shape")]}
    assert shape == {("b/Use.java", 2, "ref"), ("b/Use.java", 3, "ref"),
                     ("b/Use.java", 4, "ref"), ("b/Use.java", 7, "ref")}
    assert ("b/Use.java", 7, "new") in {
        (p, ln, role) for p, ln, _, role in found[("b/Use.java", 4, "Sub")]}
