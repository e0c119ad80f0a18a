"""The code browser's answers: the code view's identifier links (the file's indexed sites
with their definitions) and callee edges carrying the line of the call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FILES = {
    "pkg/__init__.py": "",
    "pkg/lib.py": "def target(x):\n    return x\n\n\nclass Box:\n    def open(self):\n        return 1\n",
    "pkg/app.py": (
        "from pkg.lib import Box, target\n"
        "\n"
        "\n"
        "def run():\n"
        "    b = Box()\n"
        "    # a comment line: the calls below are far from the callees' definitions\n"
        "    n = b.open()\n"
        "    return target(n)\n"
    ),
}


def test_file_view_links_sites_to_their_definitions(make_web: Callable[..., Any]) -> None:
    web = make_web(files=FILES)
    web.indexed()
    body = web.get("/file", path="pkg/app.py").json()
    lines = body["lines"]
    by_name = {(s["name"], s["line"]): s for s in body["sites"]}
    call = by_name[("target", 8)]
    assert (call["path"], call["start_line"]) == ("pkg/lib.py", 1)
    assert lines[call["line"] - 1][call["col"]:call["end_col"]] == "target"
    box = by_name[("Box", 5)]
    assert (box["path"], box["start_line"], box["kind"]) == ("pkg/lib.py", 5, "class")
    assert lines[box["line"] - 1][box["col"]:box["end_col"]] == "Box"
    assert body["sites_truncated"] is False
    assert all(s["line"] <= len(lines) for s in body["sites"])


def test_callee_edges_carry_the_call_line(make_web: Callable[..., Any]) -> None:
    """`calls` from run to target is at line 8 of app.py, not target's line 1 in lib.py."""
    web = make_web(files=FILES)
    web.indexed()
    g = web.client.get("/api/v1/runs/workspace/code/graph", params={
        "path": "pkg/app.py", "line": 4, "relation": "callees", "depth": 1,
        "references": 0}).json()
    edges = {e["target"]: e for e in g["edges"]}
    assert edges["pkg/lib.py#pkg.lib.target"]["lines"] == [8]
    assert edges["pkg/lib.py#pkg.lib.Box.open"]["lines"] == [7]
    callers = web.client.get("/api/v1/runs/workspace/code/graph", params={
        "path": "pkg/lib.py", "line": 1, "relation": "callers", "depth": 1,
        "references": 0}).json()
    assert [e["lines"] for e in callers["edges"]] == [[8]]  # the same call, seen from target
