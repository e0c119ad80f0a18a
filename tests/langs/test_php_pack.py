"""The shipped PHP pack: definitions and kinds, namespace-qualified names, references
through `use` (aliases, groups) and `$this`/`self`/`parent`/typed receivers, callers,
composer.json PSR-4 module keys, PHPUnit commands, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites, uncertain

from spyglass.index.worker import resolver_for
from spyglass.query.frameworks import Frameworks
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

PROJECT = r"""
#! definitions
#- composer.json
{"autoload": {"psr-4": {"Geo\\": "src/"}}, "autoload-dev": {"psr-4": {"Geo\\Tests\\": "tests/"}}}
#- phpunit.xml
<phpunit/>
#- src/Shapes/Circle.php
<?php
namespace Geo\Shapes;

use Geo\Contracts\HasArea;

class Circle extends Shape implements HasArea
{
    const PI = 3.14;
    private float $r;

    public function __construct(float $r) { $this->r = $r; }

    public function area(): float { return $this->r * self::PI; }

    public function grow(): float { return $this->area() * 2 + parent::size(); }

    public static function unit(): self { return new Circle(1.0); }
}
#- src/Shapes/Shape.php
<?php
namespace Geo\Shapes;

abstract class Shape
{
    public function size(): int { return 1; }
}
#- src/Contracts/HasArea.php
<?php
namespace Geo\Contracts;

interface HasArea
{
    public function area(): float;
}
#- src/Report.php
<?php
namespace Geo;

use Geo\Shapes\{Circle, Shape as Base};

class Report
{
    private Circle $kept;

    public function total(Circle $c): float
    {
        $d = new Circle(2.0);
        $u = Circle::unit();
        return $c->area() + $d->grow() + $this->kept->area() + $u->area() + tally(1);
    }
}
#- tests/CircleTest.php
<?php
namespace Geo\Tests;

use Geo\Shapes\Circle;

class CircleTest
{
    public function testArea(): void { (new Circle(1.0))->area(); Circle::unit(); }
}
"""


def test_definitions_kinds_and_namespace_qualified_names(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert defs(ci, "src/Shapes/Circle.php") == {
        ("Geo.Shapes.Circle", "class", 6), ("Geo.Shapes.Circle.PI", "const", 8),
        ("Geo.Shapes.Circle.r", "field", 9), ("Geo.Shapes.Circle.__construct", "method", 11),
        ("Geo.Shapes.Circle.area", "method", 13), ("Geo.Shapes.Circle.grow", "method", 15),
        ("Geo.Shapes.Circle.unit", "method", 17)}
    assert defs(ci, "src/Contracts/HasArea.php") == {
        ("Geo.Contracts.HasArea", "interface", 4), ("Geo.Contracts.HasArea.area", "method", 6)}
    assert ("Geo.Tests.CircleTest.testArea", "test", 8) in defs(ci, "tests/CircleTest.php")


def test_psr4_roots_name_the_modules(tmp_path: Path) -> None:
    from fixture import parse_fixture
    parse_fixture(PROJECT).write(tmp_path)
    module = resolver_for("php")
    assert module is not None
    paths = ["src/Shapes/Circle.php", "tests/CircleTest.php", "bin/tool.php"]
    ctx = module.module_keys(paths, lambda p: (tmp_path / p).read_bytes()
                             if (tmp_path / p).is_file() else None)
    assert [ctx[p].module for p in paths] == ["Geo.Shapes.Circle", "Geo.Tests.CircleTest",
                                              "bin.tool"]


def test_references_through_use_this_self_parent_and_types(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    area = ci.references(path="src/Shapes/Circle.php", line=13, column=21)
    assert {(p, line) for p, line, _ in sites(area)} >= {
        ("src/Shapes/Circle.php", 15),  # $this->area()
        ("src/Report.php", 14),  # $c (typed), $this->kept (typed property), $u (unit(): self)
        ("tests/CircleTest.php", 8)}
    pi = ci.references(path="src/Shapes/Circle.php", line=8, column=11)
    assert sites(pi) == {("src/Shapes/Circle.php", 13, "read")}  # self::PI
    size = ci.references(path="src/Shapes/Shape.php", line=6, column=21)
    assert ("src/Shapes/Circle.php", 15, "call") in sites(size)  # parent::size()
    circle = ci.references(path="src/Shapes/Circle.php", line=6, column=7)
    got = sites(circle)
    assert {("src/Report.php", 4, "import"), ("src/Report.php", 8, "type"),
            ("src/Report.php", 10, "type"), ("tests/CircleTest.php", 4, "import")} <= got
    base = ci.references(path="src/Shapes/Shape.php", line=4, column=16)
    assert ("src/Shapes/Circle.php", 6, "type") in sites(base)  # extends Shape, same namespace


def test_callers_and_constructors(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert callers(ci, "src/Shapes/Circle.php", 15, 21) == {
        ("src/Report.php", "Geo.Report.total")}
    unit = callers(ci, "src/Shapes/Circle.php", 17, 28)
    assert unit == {("src/Report.php", "Geo.Report.total"),
                    ("tests/CircleTest.php", "Geo.Tests.CircleTest.testArea")}
    built = callers(ci, "src/Shapes/Circle.php", 11, 21)  # __construct: `new Circle(..)`
    assert {p for p, _ in built} == {"src/Shapes/Circle.php", "src/Report.php",
                                     "tests/CircleTest.php"}


def test_unbound_functions_are_uncertain_candidates(tmp_path: Path) -> None:
    text = PROJECT + "#- src/helpers.php\n<?php\nnamespace Geo;\nfunction tally($n) { return $n; }\n"
    ci = index(text, tmp_path)
    found = ci.references(path="src/helpers.php", line=3, column=10)
    assert list(uncertain(found)) == [("src/Report.php", 14)]


def test_phpunit_commands(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    fw = Frameworks(tmp_path, ci.view())
    found = fw.for_pack(all_packs()["php"], "tests/CircleTest.php")
    assert (found.name, found.config) == ("phpunit", "phpunit.xml")
    assert fw.command(found, [("tests/CircleTest.php", "CircleTest.testArea")]) == \
        "vendor/bin/phpunit tests/CircleTest.php --filter CircleTest::testArea"


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["php"], b"<?php\nclass A { function ok() { b(); } }\n"
                    b"function broken() { $x = ; }\nfunction after() { return 1; }\n")
    assert facts.diagnostics and facts.diagnostics[0].line == 3
    assert {"A", "ok", "after"} <= {d.name for d in facts.definitions}
    assert "b" in {r.name for r in facts.references if r.role == "call"}
