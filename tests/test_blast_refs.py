"""Blast radius ⊇ references at depth 1, over every fixture and a sample of the accuracy corpora."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from blast_property import uncovered
from fixture import parse_fixture

from spyglass.config import load_config
from spyglass.query.facade import CodeIntel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from accuracy.compare import ORACLE_DIR, prepare_root

FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*.fixture")
                  if "$0" in p.read_text(encoding="utf-8"))
CORPUS_SAMPLE = 40  # oracle targets per corpus (seeded): keeps each corpus under a minute


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(p.parents[1]))
                                                for p in FIXTURES])
def test_blast_radius_contains_references_on_fixture(path: Path, tmp_path: Path) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    assert fx.cursor is not None
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    file, line, col = fx.cursor
    problems, _ = uncovered(ci, file, line, col)
    assert problems == []


@pytest.mark.parametrize("name", ["client_golang", "cobra", "flask", "httpx", "requests", "trpc"])
def test_blast_radius_contains_references_on_corpus(name: str, tmp_path: Path) -> None:
    root = prepare_root(name, tmp_path)
    config = load_config(repo_root=root)
    limits = config.limits.__class__(**{**config.limits.__dict__,
                                        "max_matches_per_request": 100_000})
    ci = CodeIntel(root, config=config.__class__(**{**config.__dict__, "limits": limits}))
    ci.index()
    targets = json.loads((ORACLE_DIR / f"{name}.json").read_text())["targets"]
    problems: list[str] = []
    checked = 0
    for t in random.Random(12).sample(targets, min(CORPUS_SAMPLE, len(targets))):
        missed, n = uncovered(ci, t["path"], t["line"], t["col"] + 1)
        problems += missed
        checked += n
    assert checked >= CORPUS_SAMPLE  # the sample's definitions are used somewhere
    assert problems == []
