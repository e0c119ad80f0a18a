"""SPYGLASS_MCP_TOOLS: unset, empty, a list, a typo, only typos (docs/mcp.md, "Choosing tools")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from mcp_harness import stdio

from spyglass.config import ALL_TOOLS
from spyglass.mcp.filter import resolve_tool_filter, warn_tool_filter

EVERY = list(ALL_TOOLS)

# value (None = unset) → (selected tools, ignored names)
MATRIX: list[tuple[str | None, list[str], list[str]]] = [
    (None, list(ALL_TOOLS), []),
    ("", ["code_explore"], []),
    (" , ", ["code_explore"], []),
    ("code_status, code_references", ["code_explore", "code_references", "code_status"], []),
    ("code_explore", ["code_explore"], []),
    ("code_status,code_refs", ["code_explore", "code_status"], ["code_refs"]),
    ("callers,status", ["code_explore"], ["callers", "status"]),
]


@pytest.mark.parametrize(("value", "selected", "unknown"), MATRIX)
def test_resolution(value: str | None, selected: list[str], unknown: list[str]) -> None:
    environ = {} if value is None else {"SPYGLASS_MCP_TOOLS": value}
    flt = resolve_tool_filter(environ)
    assert list(flt.selected) == selected
    assert list(flt.unknown) == unknown
    assert flt.present is (value is not None)


def test_presence_is_membership_not_truthiness() -> None:
    assert resolve_tool_filter({}).selected == ALL_TOOLS
    assert resolve_tool_filter({"SPYGLASS_MCP_TOOLS": ""}).selected == ("code_explore",)


def test_warnings_one_line_per_typo_then_the_result() -> None:
    out = io.StringIO()
    flt = resolve_tool_filter({"SPYGLASS_MCP_TOOLS": "callers,status"})
    warn_tool_filter(out, flt)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert "'callers'" in lines[0] and "'status'" in lines[1]
    assert lines[2].endswith("serving 1 tool(s): code_explore")
    quiet = io.StringIO()
    warn_tool_filter(quiet, resolve_tool_filter({"SPYGLASS_MCP_TOOLS": "code_status"}))
    assert quiet.getvalue() == ""


@pytest.mark.anyio
@pytest.mark.parametrize(("value", "selected", "unknown"),
                         [m for m in MATRIX if m[0] != " , "])
async def test_served_tool_set(indexed_repo: Path, tmp_path: Path, value: str | None,
                               selected: list[str], unknown: list[str]) -> None:
    env = {} if value is None else {"SPYGLASS_MCP_TOOLS": value}
    err = tmp_path / "stderr.txt"
    async with stdio(indexed_repo, env=env, stderr=err) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == [t for t in selected if t in EVERY]
        if "code_callers" not in names:
            result = await client.call_tool("code_callers", {"name": "helper"})
            assert result.is_error
            assert "SPYGLASS_MCP_TOOLS" in result.content[0].text
    lines = [ln for ln in err.read_text().splitlines() if "SPYGLASS_MCP_TOOLS" in ln]
    if unknown:
        assert len(lines) == len(unknown) + 1
        for name, line in zip(unknown, lines):
            assert f"unknown tool {name!r} ignored" in line
        assert lines[-1].endswith(", ".join(names))
    else:
        assert lines == []
