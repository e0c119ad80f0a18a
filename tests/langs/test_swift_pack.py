"""The shipped Swift pack: definitions and kinds, target-qualified names, extensions,
references through self, implicit self, typed locals, return types and imports across
files of a SwiftPM package, callers, XCTest commands, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites

from spyglass.query.frameworks import Frameworks
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

PACKAGE = """
#! definitions
#- Package.swift
let package = Package(name: "Geo")
#- Sources/Geo/Circle.swift
protocol HasArea {
    func area() -> Double
}

public struct Circle: HasArea {
    let r: Double
    init(r: Double) { self.r = r }

    func area() -> Double { return r * r * 3.14 }

    func grow() -> Double {
        return self.area() * 2
    }

    static func make(_ r: Double) -> Circle { Circle(r: r) }
}

enum Kind { case round, square }
#- Sources/Geo/Circle+Extra.swift
extension Circle {
    func twice() -> Double {
        return grow() * 2
    }
}

func total(_ c: Circle) -> Double {
    let d = Circle.make(2)
    let s: Circle = Circle(r: 3)
    return c.area() + d.grow() + s.twice()
}
#- Tests/GeoTests/CircleTests.swift
import XCTest
@testable import Geo

final class CircleTests: XCTestCase {
    func testArea() {
        let c = Circle(r: 1)
        XCTAssertEqual(c.area(), 3.14)
        XCTAssertEqual(total(c), 1)
    }
}
"""


def test_definitions_kinds_and_target_names(tmp_path: Path) -> None:
    ci = index(PACKAGE, tmp_path)
    assert defs(ci, "Sources/Geo/Circle.swift") == {
        ("Geo.HasArea", "interface", 1), ("Geo.HasArea.area", "method", 2),
        ("Geo.Circle", "struct", 5), ("Geo.Circle.r", "field", 6),
        ("Geo.Circle.init", "method", 7),
        ("Geo.Circle.area", "method", 9), ("Geo.Circle.grow", "method", 11),
        ("Geo.Circle.make", "method", 15), ("Geo.Kind", "enum", 18),
        ("Geo.Kind.round", "const", 18), ("Geo.Kind.square", "const", 18)}
    assert defs(ci, "Sources/Geo/Circle+Extra.swift") == {
        ("Geo.Circle.twice", "method", 2), ("Geo.total", "func", 7)}
    assert ("GeoTests.CircleTests.testArea", "test", 5) in defs(
        ci, "Tests/GeoTests/CircleTests.swift")


def test_references_across_files_and_types(tmp_path: Path) -> None:
    ci = index(PACKAGE, tmp_path)
    area = ci.references(path="Sources/Geo/Circle.swift", line=9, column=10)
    assert {(p, line) for p, line, _ in sites(area)} == {
        ("Sources/Geo/Circle.swift", 12),  # self.area()
        ("Sources/Geo/Circle+Extra.swift", 10),  # c: Circle, a typed parameter
        ("Tests/GeoTests/CircleTests.swift", 7)}  # c = Circle(r: 1), another target
    grow = ci.references(path="Sources/Geo/Circle.swift", line=11, column=10)
    assert sites(grow) == {("Sources/Geo/Circle+Extra.swift", 3, "call"),  # implicit self
                           ("Sources/Geo/Circle+Extra.swift", 10, "call")}  # make(): Circle
    twice = ci.references(path="Sources/Geo/Circle+Extra.swift", line=2, column=10)
    assert sites(twice) == {("Sources/Geo/Circle+Extra.swift", 10, "call")}  # s: Circle


def test_callers(tmp_path: Path) -> None:
    ci = index(PACKAGE, tmp_path)
    assert callers(ci, "Sources/Geo/Circle.swift", 11, 10) == {
        ("Sources/Geo/Circle+Extra.swift", "Geo.Circle.twice"),
        ("Sources/Geo/Circle+Extra.swift", "Geo.total")}
    assert callers(ci, "Sources/Geo/Circle+Extra.swift", 7, 6) == {
        ("Tests/GeoTests/CircleTests.swift", "GeoTests.CircleTests.testArea")}


def test_initializers_are_called_by_their_type(tmp_path: Path) -> None:
    ci = index(PACKAGE, tmp_path)
    built = callers(ci, "Sources/Geo/Circle.swift", 7, 5)  # init: `Circle(r: ..)`
    assert built == {("Sources/Geo/Circle.swift", "Geo.Circle.make"),
                     ("Sources/Geo/Circle+Extra.swift", "Geo.total"),
                     ("Tests/GeoTests/CircleTests.swift", "GeoTests.CircleTests.testArea")}


def test_xctest_commands(tmp_path: Path) -> None:
    ci = index(PACKAGE, tmp_path)
    fw = Frameworks(tmp_path, ci.view())
    found = fw.for_pack(all_packs()["swift"], "Tests/GeoTests/CircleTests.swift")
    assert (found.name, found.config, found.evidence) == (
        "xctest", "Package.swift", "Package.swift of package Geo")
    assert fw.command(found, [("Tests/GeoTests/CircleTests.swift", "CircleTests.testArea")]
                      ) == "swift test --filter CircleTests/testArea"


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["swift"], b"struct A { func ok() { b(1) } }\n"
                    b"func broken( { let x = }\n")
    assert facts.diagnostics
    assert {"A", "ok"} <= {d.name for d in facts.definitions}
    assert "b" in {r.name for r in facts.references if r.role == "call"}
