"""Two uses of a target on one line are one row: a location names a line, not a column,
so a second row would repeat the first; uses on other lines stay rows of their own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

MakeRepo = Callable[..., Path]


def test_two_calls_on_one_line_give_one_row(make_repo: MakeRepo) -> None:
    root = make_repo({
        "pkg/__init__.py": "",
        "pkg/core.py": "class Parser:\n    def parse(self, s):\n        return s\n",
        "pkg/use.py": ("from pkg.core import Parser\n\n\n"
                       "def same():\n"
                       "    return Parser().parse('a') == Parser().parse('b')\n\n\n"
                       "def other():\n"
                       "    p = Parser()\n"
                       "    p.parse('c')\n"
                       "    return p.parse('d')\n"),
    })
    ci = CodeIntel(root)
    for result in (ci.callers("pkg.core.Parser.parse"), ci.references("pkg.core.Parser.parse")):
        lines = [(loc.path, loc.start_line) for loc in result.results]
        assert sorted(lines) == [("pkg/use.py", 5), ("pkg/use.py", 10), ("pkg/use.py", 11)]
