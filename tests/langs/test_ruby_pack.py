"""The shipped Ruby pack: definitions and kinds, nested constant paths, references
through self, bare calls, `A::B` paths and `X.new` locals, callers, require imports,
minitest/RSpec commands, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites, uncertain

from spyglass.query.frameworks import Frameworks
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

PROJECT = """
#! definitions
#- lib/geo.rb
require_relative "geo/circle"

module Geo
  VERSION = "1.0"

  def self.make(r)
    Circle.new(r)
  end
end
#- lib/geo/circle.rb
require "geo/shape"

module Geo
  class Circle < Shape
    include Comparable

    def initialize(r)
      @r = r
    end

    def area
      @r * @r * 3.14
    end

    def grow
      self.area * 2 + area
    end

    def self.unit
      new(1.0)
    end
  end
end
#- lib/geo/shape.rb
module Geo
  class Shape
    def size
      1
    end
  end
end

class Geo::Square < Geo::Shape
  def side; end
end
#- test/circle_test.rb
require "geo"

class CircleTest < Minitest::Test
  def test_area
    c = Geo::Circle.new(1.0)
    c.area
    Geo::Circle.unit
    Geo.make(2).grow
  end
end
"""


def test_definitions_kinds_and_nested_names(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert defs(ci, "lib/geo/circle.rb") == {
        ("Geo", "module", 3), ("Geo.Circle", "class", 4),
        ("Geo.Circle.initialize", "method", 7), ("Geo.Circle.area", "method", 11),
        ("Geo.Circle.grow", "method", 15), ("Geo.Circle.unit", "method", 19)}
    assert defs(ci, "lib/geo.rb") == {("Geo", "module", 3), ("Geo.VERSION", "const", 4),
                                      ("Geo.make", "method", 6)}
    assert ("Geo.Square", "class", 9) in defs(ci, "lib/geo/shape.rb")  # class Geo::Square
    assert ("CircleTest.test_area", "test", 4) in defs(ci, "test/circle_test.rb")


def test_references_through_self_bare_calls_paths_and_new(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    area = ci.references(path="lib/geo/circle.rb", line=11, column=9)
    assert sites(area) == {("lib/geo/circle.rb", 16, "call"),  # self.area and bare area
                           ("test/circle_test.rb", 6, "call")}  # c = Geo::Circle.new
    unit = ci.references(path="lib/geo/circle.rb", line=19, column=14)
    assert sites(unit) == {("test/circle_test.rb", 7, "call")}
    shape = ci.references(path="lib/geo/shape.rb", line=2, column=9)
    got = sites(shape)
    assert ("lib/geo/circle.rb", 4, "type") in got  # `< Shape` inside module Geo
    assert ("lib/geo/shape.rb", 9, "type") in got  # `< Geo::Shape`
    make = ci.references(path="lib/geo.rb", line=6, column=12)
    assert sites(make) == {("test/circle_test.rb", 8, "call")}


def test_callers_and_constructors(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert callers(ci, "lib/geo/circle.rb", 11, 9) == {
        ("lib/geo/circle.rb", "Geo.Circle.grow"), ("test/circle_test.rb", "CircleTest.test_area")}
    init = callers(ci, "lib/geo/circle.rb", 7, 9)  # `X.new` runs initialize
    assert init == {("lib/geo.rb", "Geo.make"), ("test/circle_test.rb", "CircleTest.test_area")}


def test_unknown_receivers_are_uncertain_candidates(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    grow = ci.references(path="lib/geo/circle.rb", line=15, column=9)
    assert list(uncertain(grow)) == [("test/circle_test.rb", 8)]  # Geo.make(2).grow


def test_requires_are_imports(tmp_path: Path) -> None:
    facts = extract(all_packs()["ruby"], b'require "geo/shape"\nrequire_relative "x"\n')
    assert [(i.module, i.alias, i.name) for i in facts.imports] == [
        ("geo/shape", "require", "*"), ("x", "require_relative", "*")]


def test_minitest_and_rspec_commands(tmp_path: Path) -> None:
    text = PROJECT + "#- gem2/spec/spec_helper.rb\n#- gem2/spec/geo_spec.rb\ndescribe 'x' do\nend\n"
    ci = index(text, tmp_path)
    fw = Frameworks(tmp_path, ci.view())
    ruby = all_packs()["ruby"]
    mini = fw.for_pack(ruby, "test/circle_test.rb")
    assert mini.name == "minitest"
    assert fw.command(mini, [("test/circle_test.rb", "CircleTest.test_area")]) == \
        "ruby -Itest test/circle_test.rb -n 'CircleTest#test_area'"
    spec = fw.for_pack(ruby, "gem2/spec/geo_spec.rb")
    assert (spec.name, spec.config) == ("rspec", "gem2/spec/spec_helper.rb")
    assert fw.command(spec, [("gem2/spec/geo_spec.rb", "")]) == \
        "cd gem2 && bundle exec rspec spec/geo_spec.rb"


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["ruby"], b"class A\n  def ok\n    b(1)\n  end\nend\n"
                    b"x = (1 + \n")
    assert facts.diagnostics
    assert {"A", "ok"} <= {d.name for d in facts.definitions}
    assert "b" in {r.name for r in facts.references if r.role == "call"}
