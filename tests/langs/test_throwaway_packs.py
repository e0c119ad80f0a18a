"""A language is data: throwaway packs (tests/langs/throwaway/, never shipped) get
definitions, references and callers end to end through CodeIntel, with no engine edit.

The packs are loaded through $SPYGLASS_LANGUAGE_PACKS (docs/languages.md); each test
indexes a small project and asks the facade, as a front end would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fixture import parse_fixture

from spyglass.index.worker import resolver_for
from spyglass.query.facade import CodeIntel
from spyglass.syntax.langpack import LANGS_DIR, PACKS_ENV, all_packs

THROWAWAY = Path(__file__).resolve().parent / "throwaway"  # the `packs` fixture loads it


def _index(text: str, root: Path) -> CodeIntel:
    parse_fixture(text).write(root)
    ci = CodeIntel(root)
    ci.index()
    return ci


def _sites(result: object) -> set[tuple[str, int, str]]:
    return {(r.path, r.start_line, r.kind) for r in result.results}  # type: ignore[attr-defined]


def test_the_packs_live_outside_the_package(packs: None) -> None:
    for name in ("rust-throwaway", "java-throwaway"):
        pack = all_packs()[name]
        assert LANGS_DIR not in pack.folder.parents and THROWAWAY in pack.folder.parents
        assert resolver_for(pack.resolver) is not None
    # (the shipped packs may use the same grammars: the throwaway ones take their extensions
    # over, docs/languages.md "Packs outside the package")
    words = ("rust-throwaway", "java-throwaway")
    named = [p for p in LANGS_DIR.parent.rglob("*") if p.is_file() and p.suffix in (
        ".py", ".toml", ".scm") and any(w in p.read_text(encoding="utf-8") for w in words)]
    assert named == []  # the engine knows nothing of them


RUST = """
#! definitions
#- Cargo.toml
[package]
name = "shapes"
#- src/shapes.rs
pub struct Circle {
    pub r: f64,
}

impl Circle {
    pub fn new(r: f64) {
        helper(r);
    }
    pub fn area(&self) -> f64 {
        self.r * self.r * 3.0
    }
    pub fn grow(&self) -> f64 {
        self.area() * 2.0
    }
}

pub fn helper(x: f64) -> Circle {
    Circle { r: x }
}
#- src/main.rs
mod shapes;
use crate::shapes::Circle;

fn main() {
    Circle::new(1.0);
    let c = shapes::helper(1.0);
    let a = c.area();
    let typed: Circle = shapes::helper(a);
    let b = typed.area();
}
"""


def test_rust_definitions(packs: None, tmp_path: Path) -> None:
    ci = _index(RUST, tmp_path)
    got = {(r.symbol, r.kind, r.start_line)  # type: ignore[attr-defined]
           for r in ci.structure("src/shapes.rs").results}
    assert {("shapes.Circle", "struct", 1), ("shapes.Circle.r", "field", 2),
            ("shapes.Circle.new", "method", 6), ("shapes.Circle.area", "method", 9),
            ("shapes.Circle.grow", "method", 12), ("shapes.helper", "func", 17)} == got
    found = ci.find_symbol("Circle.area")
    assert [(r.path, r.start_line) for r in found.results] == [  # type: ignore[attr-defined]
        ("src/shapes.rs", 9)]


def test_rust_references_through_paths_and_types(packs: None, tmp_path: Path) -> None:
    ci = _index(RUST, tmp_path)
    area = ci.references(path="src/shapes.rs", line=9, column=12)
    # `self.area()`, and `c.area()` / `typed.area()` on locals typed by a `::` call's result
    assert _sites(area) == {("src/shapes.rs", 13, "call"), ("src/main.rs", 7, "call"),
                            ("src/main.rs", 9, "call")}
    new = ci.references(path="src/shapes.rs", line=6, column=12)
    assert _sites(new) == {("src/main.rs", 5, "call")}  # `Circle::new`, Circle imported
    helper = ci.references(path="src/shapes.rs", line=17, column=8)
    assert _sites(helper) == {("src/shapes.rs", 7, "call"), ("src/main.rs", 6, "call"),
                              ("src/main.rs", 8, "call")}  # `shapes::helper`: a `::` path
    circle = ci.references(path="src/shapes.rs", line=1, column=12)
    assert _sites(circle) == {
        ("src/shapes.rs", 5, "type"), ("src/shapes.rs", 17, "type"),
        ("src/shapes.rs", 18, "type"), ("src/main.rs", 2, "import"),
        ("src/main.rs", 5, "read"), ("src/main.rs", 8, "type")}


def test_rust_callers(packs: None, tmp_path: Path) -> None:
    ci = _index(RUST, tmp_path)
    callers = ci.callers(path="src/shapes.rs", line=9, column=12)
    got = {(r.path, r.start_line, r.symbol) for r in callers.results}  # type: ignore[attr-defined]
    assert {(p, s.rsplit(".", 1)[-1]) for p, _, s in got} == {
        ("src/shapes.rs", "grow"), ("src/main.rs", "main")}


JAVA = """
#! definitions
#- src/shapes/Circle.tjava
package shapes;

public class Circle {
    private double r;
    public static Circle make(double r) { return new Circle(); }
    public double area() { return r * r * 3.0; }
    public double grow() { return this.area() * 2.0; }
}
#- src/app/Main.tjava
package app;

import shapes.Circle;

public class Main {
    private Circle kept;
    public void run(String[] args) {
        Circle c = Circle.make(1.0);
        double a = c.area();
        Circle d = new Circle();
        double b = d.area() + this.kept.area();
    }
}
"""


def test_java_definitions(packs: None, tmp_path: Path) -> None:
    ci = _index(JAVA, tmp_path)
    got = {(r.symbol, r.kind, r.start_line)  # type: ignore[attr-defined]
           for r in ci.structure("src/shapes/Circle.tjava").results}
    assert got == {("shapes.Circle", "class", 3), ("shapes.Circle.r", "field", 4),
                   ("shapes.Circle.make", "method", 5), ("shapes.Circle.area", "method", 6),
                   ("shapes.Circle.grow", "method", 7)}


def test_java_references_through_receivers(packs: None, tmp_path: Path) -> None:
    ci = _index(JAVA, tmp_path)
    # `method_invocation` spans the arguments: the qualifier comes from @receiver
    area = ci.references(path="src/shapes/Circle.tjava", line=6, column=19)
    assert _sites(area) == {("src/shapes/Circle.tjava", 7, "call"),  # this.area()
                            ("src/app/Main.tjava", 9, "call"),  # c.area(), c: Circle
                            ("src/app/Main.tjava", 11, "call")}  # d.area(), this.kept.area()
    make = ci.references(path="src/shapes/Circle.tjava", line=5, column=26)
    assert _sites(make) == {("src/app/Main.tjava", 8, "call")}  # Circle.make(1.0)
    r = ci.references(path="src/shapes/Circle.tjava", line=4, column=20)
    assert _sites(r) == {("src/shapes/Circle.tjava", 6, "read")}


def test_java_callers(packs: None, tmp_path: Path) -> None:
    ci = _index(JAVA, tmp_path)
    callers = ci.callers(path="src/shapes/Circle.tjava", line=6, column=19)
    got = {(r.path, r.symbol.rsplit(".", 1)[-1])  # type: ignore[attr-defined]
           for r in callers.results}
    assert got == {("src/shapes/Circle.tjava", "grow"), ("src/app/Main.tjava", "run")}


def test_the_command_line_takes_the_packs_from_the_environment(tmp_path: Path) -> None:
    parse_fixture(RUST).write(tmp_path)
    env = {**os.environ, PACKS_ENV: str(THROWAWAY)}

    def spyglass(*args: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(tmp_path), *args,
                               "--json"], capture_output=True, text=True, env=env, check=False)
        assert proc.returncode == 0, proc.stderr
        answer: dict[str, Any] = json.loads(proc.stdout)
        return answer
    spyglass("index")
    callers = spyglass("callers", "--at", "src/shapes.rs:9:12")
    assert {(r["path"], r["symbol"]) for r in callers["results"]} == {
        ("src/shapes.rs", "shapes.Circle.grow"), ("src/main.rs", "main")}
    assert callers["provenance"]["query_packs"]["rust-throwaway"] == "1"
