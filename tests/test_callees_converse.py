"""Callees are the converse of callers: on every callers fixture, for each definition the
cursor means, each function listed as its caller (callers asked at that definition) lists
it among its callees, certain exactly when one of its calls is a certain caller
(query/callees.py reads the callers answer for what its own rules do not bind: one
algorithm). Asked at a use meaning several definitions (two conditional `def`s of one
name), callers flag every call uncertain, since which one runs is unknown; callees judge
each definition by its own callers, so the definitions are asked one by one."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture import parse_fixture

from spyglass.errors import BadInput
from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation, ToolResult

FIXTURES = [p for p in sorted((Path(__file__).parent / "fixtures").rglob("*.fixture"))
            if "callers" in parse_fixture(p.read_text(encoding="utf-8")).checks]


def _locations(res: ToolResult) -> list[CodeLocation]:
    return [r for r in res.results if isinstance(r, CodeLocation)]


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(p.parents[1]))
                                                  for p in FIXTURES])
def test_every_caller_lists_the_callee(path: Path, tmp_path: Path) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    assert fx.cursor
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    p, line, col = fx.cursor
    with ci.lock:
        meant = sym.targets_at(ci.view(), p, line, col)
    wrong = []
    for d in meant:
        calls: dict[str, bool] = {}  # caller → whether one of its calls is certain
        for row in _locations(ci.callers(path=d.path, line=d.name_line,
                                         column=d.name_col + 1)):
            if row.kind != "module":
                calls[row.symbol] = calls.get(row.symbol, False) or not row.uncertain
        for caller, certain in sorted(calls.items()):
            try:
                got = ci.callees(name=caller)
            except BadInput:
                continue  # a caller without a name of its own (a lambda's enclosing scope)
            listed = [r for r in _locations(got)
                      if (r.path, r.start_line) == (d.path, d.start_line)]
            if not listed:
                wrong.append(f"{caller} → {d.path}:{d.start_line}: missing")
            elif any(r.uncertain for r in listed) == certain:
                wrong.append(f"{caller} → {d.path}:{d.start_line}: "
                             f"{'un' if certain else ''}certain, as a caller "
                             f"{'' if certain else 'un'}certain")
    assert wrong == []
