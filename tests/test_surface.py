"""The tool surface is the one declaration: MCP schemas, CLI options and HTTP routes follow it,
and the renderer picks its text by result type, escaping control characters."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from spyglass import surface
from spyglass.cli.args import COMMANDS, build_parser
from spyglass.config import ALL_TOOLS, Config
from spyglass.errors import BadInput
from spyglass.mcp.backend import Backend
from spyglass.mcp.tools import build_tools
from spyglass.query import results as res
from spyglass.query.results import AstMatch, ChangeSummary, DiagnosticItem, SourceSpan
from spyglass.render import escape_text, render
from spyglass.types import CodeLocation, Coverage, Provenance, ToolResult
from spyglass.web.tools import routes

PROV = Provenance("demo", "HEAD", "a" * 40, "2026-01-01T00:00:00Z", None, "0.25", (), ())


def loc(path: str = "pkg/a.py", symbol: str = "pkg.a.f", **kw: object) -> CodeLocation:
    fields: dict[str, object] = {
        "repo": "demo", "ref": "HEAD", "path": path, "start_line": 3, "end_line": 5,
        "symbol": symbol, "kind": "func", "source": "cached-index", "indexed_at": None,
        "stale": False, "uncertain": False, "evidence": ""}
    fields.update(kw)
    return CodeLocation(**fields)  # type: ignore[arg-type]


def answer(*results: object, extra: tuple[tuple[str, object], ...] = (),
           limitations: tuple[str, ...] = ()) -> ToolResult:
    return ToolResult(tuple(results), False, Coverage(1, limitations=limitations), PROV, extra)


def test_the_surface_declares_every_tool_in_order() -> None:
    assert tuple(surface.TOOLS) == ALL_TOOLS
    for tool in surface.TOOLS.values():
        assert dataclasses.is_dataclass(tool.result)
        assert len({p.name for p in tool.params}) == len(tool.params), tool.name


def test_mcp_schemas_are_the_declared_parameters(tmp_path: Path) -> None:
    backend = Backend(tmp_path, tmp_path, Config(), has_index=False)
    for tool in build_tools(backend, ALL_TOOLS):
        declared = surface.TOOLS[tool.name]
        props = tool.parameters["properties"]
        assert tool.description == declared.description
        assert set(props) == {p.name for p in declared.params}
        assert set(tool.parameters.get("required", [])) == {
            p.name for p in declared.params if p.required}
        for p in declared.params:
            described = p.help if p.described else None
            assert props[p.name].get("description") == (described or None), (tool.name, p.name)
            assert props[p.name].get("minimum") == p.ge and props[p.name].get("maximum") == p.le
            if p.default is not None:
                assert props[p.name]["default"] == p.default
        items = tool.output_schema["properties"]["results"]["items"]  # type: ignore[index]
        assert set(items["required"]) <= {f.name for f in dataclasses.fields(declared.result)}


def _subcommand(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = sub.choices[name]
    return chosen


def test_cli_options_and_help_are_the_declared_parameters() -> None:
    assert set(COMMANDS) == {t.command for t in surface.TOOLS.values() if t.command}
    for command, tool in COMMANDS.items():
        actions = {a.dest: a for a in _subcommand(command)._actions}
        for p in tool.params:
            if p.cli is None:
                assert p.name not in actions, (command, p.name)
                continue
            action = actions[p.name]
            assert (not action.option_strings) == p.positional, (command, p.name)
            if not p.positional:
                assert action.option_strings == [p.option]
            if p.help and p.kind != "spans":
                assert action.help is not None and action.help.startswith(p.help)
            if p.kind == "int" and p.le is not None:
                assert f"{p.ge}..{p.le}" in str(action.help)
        assert ("at" in actions) == tool.at


def test_http_routes_follow_the_surface() -> None:
    paths = {r.path: r.methods for r in routes("/r")}
    for tool in surface.TOOLS.values():
        if tool.route:
            assert ("POST" if tool.gated else "GET") in (paths[f"/r/{tool.route}"] or set())
    assert len(paths) == sum(1 for t in surface.TOOLS.values() if t.route)


def test_bounds_and_argument_forms() -> None:
    depth = surface.TOOLS["code_blast_radius"].param("depth")
    depth.check(10)
    with pytest.raises(BadInput, match="depth must be >= 1 and <= 10, got 11"):
        depth.check(11)
    assert surface.parse_position("a/b.py:3:7") == ("a/b.py", 3, 7)
    assert surface.parse_span("a/b.py:3-9") == ("a/b.py", 3, 9)
    assert surface.parse_span("a:b.py:4") == ("a:b.py", 4, 4)
    for bad in ("a/b.py", "a/b.py:x", "a/b.py:9-3", "a/b.py:0"):
        with pytest.raises(BadInput):
            surface.parse_span(bad)
    with pytest.raises(BadInput, match="line needs path"):
        surface.check_position(None, None, 3, None, "hint")
    with pytest.raises(BadInput, match="column needs line"):
        surface.check_position("f", "a.py", None, 2, "hint")
    with pytest.raises(BadInput, match="^hint$"):
        surface.check_position(None, None, None, None, "hint")
    surface.check_position(None, "a.py", 3, None, "hint")


def test_escape_text_escapes_controls_and_keeps_layout() -> None:
    assert escape_text("a\x1b[31mb\x07\x9bc\x7f") == "a\\x1b[31mb\\x07\\x9bc\\x7f"
    assert escape_text("line\n\tindented", lines=True) == "line\n\tindented"
    assert escape_text("café → ok") == "café → ok"


def test_rendering_is_chosen_by_result_type() -> None:
    text = render(answer(
        loc(uncertain=True, evidence="name match"),
        SourceSpan("pkg/a.py", 1, 2, "f" * 40, "def f():\n    pass\n", False),
        DiagnosticItem("broken.py", 1, 1, 7, "error", "syntax error"),
        AstMatch("pkg/a.py", "name", "identifier", 1, 1, 4, 5, "f"),
        extra=(("change", ChangeSummary("targets", ("pkg/a.py",), 1, ())),
               ("commands", (res.TestCommand("pytest", "pytest tests/test_a.py", 1, ""),)),
               ("notes", ("a note",))),
        limitations=("go is not supported",)), "code_references")
    lines = text.splitlines()
    assert lines[0] == "pkg/a.py:3-5  func  pkg.a.f  [uncertain]  (name match)"
    assert lines[1:4] == ["pkg/a.py:1-2  sha1:ffffffffffff", "def f():", "    pass"]
    assert lines[4] == "broken.py:1:7  error  syntax error"
    assert lines[5] == "pkg/a.py:1:4  @name  identifier  f"
    assert "change (targets; 1 symbol(s)): pkg/a.py" in lines
    assert "run: pytest tests/test_a.py" in lines and "note: a note" in lines
    assert "limitation: go is not supported" in lines
    assert lines[-1].startswith("[4 result(s); demo@HEAD; snapshot aaaaaaaaaaaa")


def test_rows_for_people_are_aligned_without_provenance() -> None:
    text = render(answer(loc(), loc("pkg/longer_name.py", "pkg.longer_name.g", kind="method")),
                  people=True)
    assert text.splitlines() == ["pkg/a.py:3            func    pkg.a.f",
                                 "pkg/longer_name.py:3  method  pkg.longer_name.g"]
    assert render(answer(), people=True) == "no results"


def test_answer_strings_cannot_carry_terminal_controls() -> None:
    hostile = "evil\x1b]0;pwned\x07\x1b[2J"
    text = render(answer(loc(path=f"{hostile}.py", symbol=hostile, evidence=hostile),
                         DiagnosticItem("x.py", 1, 1, 1, "error", hostile),
                         SourceSpan("x.py", 1, 1, "0" * 40, hostile, False)))
    assert "\x1b" not in text and "\x07" not in text
    assert "evil\\x1b]0;pwned\\x07" in text
