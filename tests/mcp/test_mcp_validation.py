"""MCP argument errors are one readable line naming the argument and the form it takes,
never pydantic's multi-line text (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from spyglass.mcp.server import build_server

CASES = [
    ("code_context", {"spans": ["pkg/core.py:207-249"]},
     ("code_context: invalid argument spans[0]: got 'pkg/core.py:207-249' (str); expected an "
     'object {"path": "a.py", "start_line": 3, "end_line": 9}')),
    ("code_context", {"spans": [{"path": "pkg/core.py"}]},
     "code_context: invalid argument spans[0].start_line: missing; expected an integer >= 1"),
    ("code_references", {"name": "helper", "line": "abc"},
     "code_references: invalid argument line: got 'abc' (str); expected an integer"),
]


@pytest.mark.anyio
async def test_validation_errors_are_one_readable_line(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("def helper():\n    return 1\n")
    built = build_server(tmp_path, environ={})
    async with Client(built.server, mode="legacy") as client:
        for tool, args, want in CASES:
            result = await client.call_tool(tool, args)
            assert result.is_error
            (text,) = [getattr(c, "text", "") for c in result.content]
            assert text == want
            assert "\n" not in text and "pydantic" not in text
