"""The suite installs and downloads nothing: corpora and system packages come from
`scripts/bootstrap.sh --corpora` before pytest starts (tests/corpora.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from corpora import fetch_module

TESTS = Path(__file__).resolve().parent
INSTALLS = re.compile(r"apt-get|\"install\"|pip install|npm (pack|install)|urlopen|curl |wget ")


def test_fetching_inside_the_suite_never_downloads(tmp_path: Path) -> None:
    module = fetch_module()
    with pytest.raises(module.FetchError, match=r"bootstrap\.sh --corpora"):
        module.fetch("flask", dest=tmp_path)  # not in this empty cache
    assert not any(tmp_path.iterdir())


def test_no_test_installs_or_downloads() -> None:
    found = [f"{p.relative_to(TESTS)}:{n}" for p in TESTS.rglob("*.py") if p != Path(__file__)
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if INSTALLS.search(line)]
    assert found == []


def test_go_corpora_are_installed_by_bootstrap_not_by_the_fetcher() -> None:
    source = (TESTS.parent / "scripts" / "fetch_corpus.py").read_text(encoding="utf-8")
    assert "apt-get" not in source.split('"""', 2)[2]  # only its docstring mentions it
    bootstrap = (TESTS.parent / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    assert "--debian-packages" in bootstrap and "fetch_corpus.py --tests" in bootstrap
