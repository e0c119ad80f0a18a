"""One ordinary call per tool on the fixture repository, checked against its output schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
from mcp import Client
from mcp_harness import payload

from spyglass.config import ALL_TOOLS

Check = Callable[[dict[str, Any]], Any]


def _tail(symbol: str) -> str:
    return symbol.rsplit(".", 1)[-1]


CALLS: dict[str, tuple[dict[str, Any], Check]] = {
    "code_explore": ({"query": "helper"},
                     lambda p: any(r.get("path") == "pkg/util.py" for r in p["results"])),
    "code_find_symbol": ({"name": "helper"},
                         lambda p: [(r["path"], r["start_line"], r["kind"]) for r in p["results"]]
                         == [("pkg/util.py", 1, "func")]),
    "code_references": ({"path": "pkg/util.py", "line": 1, "column": 5},
                        lambda p: {(r["path"], r["start_line"], r["kind"]) for r in p["results"]}
                        >= {("pkg/main.py", 1, "import"), ("pkg/main.py", 5, "call"),
                            ("tests/test_util.py", 5, "call")}),
    "code_callers": ({"name": "helper"},
                     lambda p: {_tail(r["symbol"]) for r in p["results"]} >= {"run", "test_helper"}),
    "code_callees": ({"name": "pkg.main.welcome"},
                     lambda p: {(_tail(r["symbol"]), r["uncertain"]) for r in p["results"]}
                     >= {("Greeter", False)}),
    "code_type_hierarchy": ({"name": "pkg.util.Greeter"}, lambda p: p["results"] == []),
    "code_structure": ({"path": "pkg/util.py"},
                       lambda p: [_tail(r["symbol"]) for r in p["results"]]
                       == ["helper", "Greeter", "greet"]),
    "code_blast_radius": ({"targets": ["pkg/util.py:1"]},
                          lambda p: {"pkg/main.py", "tests/test_util.py"}
                          <= {r["path"] for r in p["results"]}),
    "code_suggest_tests": ({"targets": ["pkg/util.py:1"]},
                           lambda p: "tests/test_util.py" in {r["path"] for r in p["results"]}),
    "code_status": ({}, lambda p: p["results"][0]["indexed"] is True
                    and p["results"][0]["tools"] == list(ALL_TOOLS)),
    "code_context": ({"spans": [{"path": "pkg/util.py", "start_line": 1, "end_line": 2}]},
                     lambda p: p["results"][0]["text"] == "def helper(x):\n    return x + 1\n"),
    "code_diagnostics": ({"paths": ["broken.py", "pkg"]},
                         lambda p: {r["path"] for r in p["results"]} == {"broken.py"}),
    "code_ast_query": ({"query": "(function_definition name: (identifier) @name)",
                        "paths": ["pkg/util.py"]},
                       lambda p: [r["text"] for r in p["results"]] == ["helper", "greet"]),
}


async def exercise_every_tool(client: Client) -> None:
    """List the tools (names, schemas, annotations), call each one, validate the answers."""
    listing = await client.list_tools()
    tools = {t.name: t for t in listing.tools}
    assert list(tools) == list(ALL_TOOLS)
    for tool in tools.values():
        assert tool.description and len(tool.description) < 300
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None
        assert tool.annotations is not None
        assert (tool.annotations.read_only_hint,
                tool.annotations.open_world_hint) == (True, False)
        args, check = CALLS[tool.name]
        jsonschema.validate(args, tool.input_schema)
        result = await client.call_tool(tool.name, args)
        body = payload(result)
        jsonschema.validate(body, tool.output_schema)
        assert set(body) >= {"results", "truncated", "coverage", "provenance"}
        assert check(body), (tool.name, body["results"])
        text = result.content[0].text
        assert text and "{" not in text.splitlines()[0], text
        if tool.name == "code_suggest_tests":
            assert "run: pytest tests/test_util.py" in text, text
