"""The converse check of callees is bounded: at most MAX_CONVERSE definitions sharing a
called name have their callers read; past it, the callees they would add are missing and
a limitation counts the definitions left unchecked."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture import parse_fixture

from spyglass.query import callees
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation

FIXTURE = Path(__file__).parent / "fixtures" / "go" / "callees_new_builtin.fixture"


def _ask(tmp_path: Path) -> tuple[set[str], tuple[str, ...]]:
    fx = parse_fixture(FIXTURE.read_text(encoding="utf-8"))
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    got = ci.callees(name="metrics.Use")
    return ({r.symbol for r in got.results if isinstance(r, CodeLocation)},
            got.coverage.limitations)


def test_within_the_bound_every_definition_sharing_a_name_is_checked(tmp_path: Path) -> None:
    symbols, notes = _ask(tmp_path)
    # Gauge.Set only through the callers' dispatch rule; counter.Set is read, not listed
    assert symbols == {"metrics.gauge.Set", "metrics.Gauge.Set"}
    assert not any("not checked" in n for n in notes)


@pytest.mark.parametrize("bound, listed, unchecked", [(0, 1, 2), (1, 2, 1)])
def test_past_the_bound_the_unchecked_definitions_are_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: int, listed: int,
        unchecked: int) -> None:
    monkeypatch.setattr(callees, "MAX_CONVERSE", bound)
    symbols, notes = _ask(tmp_path)
    assert "metrics.gauge.Set" in symbols  # bound by the resolver's rule, not the check
    # nearest first: Gauge.Set (line 5) is read before counter.Set (line 17)
    assert len(symbols) == listed
    assert any(n.startswith(f"{unchecked} definition(s) sharing a called name not checked")
               for n in notes), notes
