"""A real language server end to end: basedpyright under the sandbox makes the index's
uncertain site certain and adds the one the index missed (docs/bridge.md)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import NEEDS_BWRAP, has_bwrap

from spyglass.config import Config, LspServer
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport

LANGSERVER = Path(sys.executable).parent / "basedpyright-langserver"
FILES = {
    "pkg/__init__.py": "",
    "pkg/shapes.py": ("class Circle:\n    def area(self):\n        return 3\n\n\n"
                      "class Square:\n    def area(self):\n        return 4\n"),
    "pkg/use.py": ("from pkg.shapes import Circle, Square\n\n\n"
                   "def pick(flag: bool):\n    return Circle() if flag else Square()\n\n\n"
                   "def total(flag: bool):\n    shape = pick(flag)\n    return shape.area()\n\n\n"
                   "def circle_area():\n    return Circle().area()\n"),
}


@pytest.fixture
def ci(make_repo: Callable[..., Path]) -> CodeIntel:
    if not LANGSERVER.exists():
        pytest.skip("basedpyright is not installed (a dev dependency: scripts/bootstrap.sh)")
    if not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    server = LspServer("python", (str(LANGSERVER), "--stdio"), (), "sandbox", False,
                       "basedpyright")
    return CodeIntel(make_repo(FILES), config=Config(lsp=(server,)))


def test_basedpyright_decides_the_sites(ci: CodeIntel) -> None:
    index = ci.callers(path="pkg/shapes.py", line=2, lsp_budget_ms=0)
    live = ci.callers(path="pkg/shapes.py", line=2, lsp_budget_ms=30000)
    got = [(c.path, c.start_line, c.source, c.uncertain) for c in live.results]
    # The union type Circle | Square makes `shape.area()` a real call of Circle.area too.
    assert got == [("pkg/use.py", 10, "live-lsp", False), ("pkg/use.py", 14, "live-lsp", False)]
    assert any("basedpyright (python)" in n for n in live.coverage.limitations)
    # The index had only one of them, and was unsure of it.
    assert [(c.start_line, c.uncertain) for c in index.results] == [(14, True)]
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    assert report.bridges[0].state == "ready"
    assert (report.bridges[0].version or "").startswith("basedpyright")
