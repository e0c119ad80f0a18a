"""Every definition's printed name is accepted back: `find` of it returns the definition, and
references / blast radius take it as a target (every language; accuracy corpora sampled)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from fixture import parse_fixture

from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from accuracy.compare import prepare_root

SAMPLE = 400  # definitions per corpus (seeded)
DEFINITION_FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*/definitions.fixture"))


def _definitions(ci: CodeIntel) -> list[CodeLocation]:
    out: list[CodeLocation] = []
    for path in sorted({f.path for f in ci.view().disk_files() if f.skipped is None}):
        try:
            out += [r for r in ci.structure(path).results if isinstance(r, CodeLocation)]
        except BadInput:
            continue  # not a supported source file
    return out


def _not_found(ci: CodeIntel, defs: list[CodeLocation]) -> list[str]:
    missing = []
    for d in defs:
        found = ci.find_symbol(d.symbol).results
        if not any(isinstance(f, CodeLocation) and (f.path, f.start_line) == (
                d.path, d.start_line) for f in found):
            missing.append(f"{d.symbol} ({d.kind} at {d.path}:{d.start_line})")
    return missing


@pytest.mark.parametrize("path", DEFINITION_FIXTURES,
                         ids=[p.parent.name for p in DEFINITION_FIXTURES])
def test_printed_names_round_trip_on_fixture(path: Path, tmp_path: Path) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    defs = _definitions(ci)
    assert defs
    assert _not_found(ci, defs) == []


def test_printed_go_name_is_a_target(tmp_path: Path) -> None:
    fx = parse_fixture((ROOT / "tests/fixtures/go/closure_fluent_builder.fixture").read_text())
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    printed = ci.find_symbol("Pusher.Push").results[0]
    assert isinstance(printed, CodeLocation) and printed.symbol == "chain.Pusher.Push"
    refs = ci.references(name=printed.symbol).results
    assert {(r.path, r.start_line) for r in refs if isinstance(r, CodeLocation)} >= {
        ("chain/chain.go", 29), ("chain/chain.go", 32)}
    blast = ci.blast_radius([printed.symbol], depth=1)
    assert any(isinstance(r, CodeLocation) and r.symbol == "chain.Run" for r in blast.results)
    callers = ci.callers(name=printed.symbol).results
    assert any(isinstance(r, CodeLocation) and r.symbol == "chain.Run" for r in callers)


@pytest.mark.parametrize("name", ["client_golang", "cobra", "flask", "httpx", "requests",
                                  "trpc"])
def test_printed_names_round_trip_on_corpus(name: str, tmp_path: Path) -> None:
    root = prepare_root(name, tmp_path)
    ci = CodeIntel(root)
    ci.index()
    defs = _definitions(ci)
    sample = random.Random(7).sample(defs, min(SAMPLE, len(defs)))
    assert len(sample) >= min(SAMPLE, 50)
    assert _not_found(ci, sample) == []
