"""The shipped Rust pack: definitions and kinds, crate-qualified names, references through
`use`/`mod`/`crate::`/`super::` across a Cargo workspace, callers, tests, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites, uncertain

from spyglass.query.frameworks import Frameworks
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

WORKSPACE = """
#! definitions
#- Cargo.toml
[workspace]
members = ["geo", "app"]
#- geo/Cargo.toml
[package]
name = "geo-core"
#- geo/src/lib.rs
pub mod shapes;
pub use shapes::Circle;

pub trait Area {
    fn area(&self) -> f64;
}

pub const PI: f64 = 3.14;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circle_area() {
        let c = Circle::new(1.0);
        assert!(c.area() > PI - 1.0);
    }
}
#- geo/src/shapes.rs
use crate::Area;
use super::PI;

pub struct Circle {
    pub r: f64,
}

pub enum Shape {
    Round(Circle),
    Empty,
}

impl Circle {
    pub fn new(r: f64) -> Self {
        Circle { r }
    }
    pub fn grow(&self) -> f64 {
        self.area() * 2.0
    }
}

impl Area for Circle {
    fn area(&self) -> f64 {
        self.r * self.r * PI
    }
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}
#- app/Cargo.toml
[package]
name = "app"
#- app/src/main.rs
use geo_core::shapes::{Circle, Shape as S};
use geo_core::Area;

fn describe(c: &Circle) -> f64 {
    c.area() + c.r
}

fn main() {
    let c = Circle::new(2.0);
    let d = geo_core::shapes::Circle::new(3.0).grow();
    describe(&c);
    let _e = S::Empty;
    unknown_thing(d);
}
"""


def test_definitions_kinds_and_crate_qualified_names(tmp_path: Path) -> None:
    ci = index(WORKSPACE, tmp_path)
    assert defs(ci, "geo/src/shapes.rs") == {
        ("geo_core.shapes.Circle", "struct", 4), ("geo_core.shapes.Circle.r", "field", 5),
        ("geo_core.shapes.Shape", "enum", 8), ("geo_core.shapes.Shape.Round", "const", 9),
        ("geo_core.shapes.Shape.Empty", "const", 10),
        ("geo_core.shapes.Circle.new", "method", 14),
        ("geo_core.shapes.Circle.grow", "method", 17),
        ("geo_core.shapes.Circle.area", "method", 23),
        ("geo_core.shapes.square", "macro", 28)}
    assert defs(ci, "geo/src/lib.rs") == {
        ("geo_core.shapes", "module", 1), ("geo_core.Area", "interface", 4),
        ("geo_core.Area.area", "method", 5), ("geo_core.PI", "const", 8),
        ("geo_core.tests", "module", 11), ("geo_core.tests.circle_area", "test", 15)}
    assert defs(ci, "app/src/main.rs") == {("app.describe", "func", 4),
                                           ("app.main", "func", 8)}


def test_references_through_use_mod_crate_super_and_the_workspace(tmp_path: Path) -> None:
    ci = index(WORKSPACE, tmp_path)
    new = ci.references(path="geo/src/shapes.rs", line=14, column=12)
    assert sites(new) == {("geo/src/lib.rs", 16, "call"),  # Circle::new via `pub use`
                          ("app/src/main.rs", 9, "call"),  # imported from another crate
                          ("app/src/main.rs", 10, "call")}  # a full `geo_core::` path
    pi = ci.references(path="geo/src/lib.rs", line=8, column=11)
    assert {(p, line) for p, line, _ in sites(pi)} == {
        ("geo/src/shapes.rs", 2), ("geo/src/shapes.rs", 24),  # `use super::PI`
        ("geo/src/lib.rs", 17)}  # `use super::*` in an inline module
    r = ci.references(path="geo/src/shapes.rs", line=5, column=9)
    assert ("app/src/main.rs", 5, "read") in sites(r)  # c: &Circle, a typed parameter
    grow = ci.references(path="geo/src/shapes.rs", line=17, column=12)
    assert sites(grow) == {("app/src/main.rs", 10, "call")}  # through `-> Self`
    empty = ci.references(path="geo/src/shapes.rs", line=10, column=5)
    assert sites(empty) == {("app/src/main.rs", 12, "read")}  # `S::Empty`, an aliased use


def test_self_calls_and_callers(tmp_path: Path) -> None:
    ci = index(WORKSPACE, tmp_path)
    # `self.area()` in `impl Circle` reaches the `impl Area for Circle` method
    assert callers(ci, "geo/src/shapes.rs", 23, 8) == {
        ("geo/src/shapes.rs", "geo_core.shapes.Circle.grow"),
        ("app/src/main.rs", "app.describe")}  # (`c.area()` inside `assert!` is tokens)
    assert callers(ci, "geo/src/shapes.rs", 14, 12) == {
        ("geo/src/lib.rs", "geo_core.tests.circle_area"), ("app/src/main.rs", "app.main")}
    assert callers(ci, "app/src/main.rs", 4, 5) == {("app/src/main.rs", "app.main")}


def test_unbound_names_are_uncertain_candidates(tmp_path: Path) -> None:
    text = WORKSPACE + "#- app/src/util.rs\npub fn unknown_thing(x: f64) {}\n"
    ci = index(text, tmp_path)
    found = ci.references(path="app/src/util.rs", line=1, column=8)
    assert uncertain(found) == {("app/src/main.rs", 13):
                                "unresolved name; matched by name: 1 definition(s) named "
                                "'unknown_thing'"}


def test_cargo_test_commands(tmp_path: Path) -> None:
    ci = index(WORKSPACE, tmp_path)
    fw = Frameworks(tmp_path, ci.view())
    found = fw.for_pack(all_packs()["rust"], "geo/src/lib.rs")
    assert (found.name, found.root, found.evidence) == ("cargo", "geo",
                                                        "Cargo.toml of crate geo-core")
    assert fw.command(found, [("geo/src/lib.rs", "tests.circle_area")]) == \
        "cd geo && cargo test -- tests::circle_area"


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["rust"], b"pub struct Ok1 { a: u32 }\n"
                    b"fn broken( { let x = ; }\n"
                    b"pub fn after() -> u32 { helper() }\n")
    assert facts.diagnostics and facts.diagnostics[0].line == 2
    names = {d.name for d in facts.definitions}
    assert {"Ok1", "a", "after"} <= names
    assert "helper" in {r.name for r in facts.references if r.role == "call"}
