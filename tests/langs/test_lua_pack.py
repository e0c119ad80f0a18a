"""The shipped Lua pack: definitions and kinds, module-qualified names of the returned
table's members, references through `require`, `self` and `X.new()` locals, callers,
busted commands, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites, uncertain

from spyglass.query.frameworks import Frameworks
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

PROJECT = """
#! definitions
#- .busted
return {}
#- geo/circle.lua
local util = require("geo.util")
local Circle = {}
Circle.__index = Circle

function Circle.new(r)
  return setmetatable({ r = r }, Circle)
end

function Circle:area()
  return self.r * self.r * util.pi()
end

function Circle:grow()
  return self:area() * 2
end

return Circle
#- geo/util.lua
local M = {}

local function square(x)
  return x * x
end

function M.pi()
  return square(1) * 3.14
end

M.twice = function(x) return x * 2 end

return M
#- spec/circle_spec.lua
local Circle = require "geo.circle"
local util = require("geo.util")

describe("circle", function()
  it("grows", function()
    local c = Circle.new(1)
    assert(c:grow() > util.twice(1))
    mystery(c)
  end)
end)
"""


def test_definitions_kinds_and_module_names(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert defs(ci, "geo/circle.lua") == {
        ("geo.circle.__index", "var", 3), ("geo.circle.new", "func", 5),
        ("geo.circle.area", "method", 9), ("geo.circle.grow", "method", 13)}
    assert defs(ci, "geo/util.lua") == {
        ("geo.util.square", "func", 3), ("geo.util.pi", "func", 7),
        ("geo.util.twice", "func", 11)}


def test_references_through_require_self_and_new(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    pi = ci.references(path="geo/util.lua", line=7, column=12)
    assert sites(pi) == {("geo/circle.lua", 10, "call")}  # util.pi(), util = require(..)
    area = ci.references(path="geo/circle.lua", line=9, column=17)
    assert sites(area) == {("geo/circle.lua", 14, "call")}  # self:area()
    grow = ci.references(path="geo/circle.lua", line=13, column=17)
    assert sites(grow) == {("spec/circle_spec.lua", 7, "call")}  # c = Circle.new(1)
    twice = ci.references(path="geo/util.lua", line=11, column=3)
    assert sites(twice) == {("spec/circle_spec.lua", 7, "call")}
    square = ci.references(path="geo/util.lua", line=3, column=16)
    assert sites(square) == {("geo/util.lua", 8, "call")}  # a local function


def test_callers(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert callers(ci, "geo/circle.lua", 9, 17) == {("geo/circle.lua", "geo.circle.grow")}
    assert callers(ci, "geo/util.lua", 7, 12) == {("geo/circle.lua", "geo.circle.area")}


def test_globals_are_uncertain_candidates(tmp_path: Path) -> None:
    text = PROJECT + "#- geo/glob.lua\nfunction mystery(x) return x end\n"
    ci = index(text, tmp_path)
    found = ci.references(path="geo/glob.lua", line=1, column=10)
    assert list(uncertain(found)) == [("spec/circle_spec.lua", 8)]


def test_busted_commands(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    fw = Frameworks(tmp_path, ci.view())
    found = fw.for_pack(all_packs()["lua"], "spec/circle_spec.lua")
    assert (found.name, found.config) == ("busted", ".busted")
    assert fw.command(found, [("spec/circle_spec.lua", "")]) == "busted spec/circle_spec.lua"


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["lua"], b"local function ok() return b(1) end\n"
                    b"local x = (1 + \nfunction after() end\n")
    assert facts.diagnostics
    assert "ok" in {d.name for d in facts.definitions}
    assert "b" in {r.name for r in facts.references if r.role == "call"}
