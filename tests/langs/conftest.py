"""The throwaway packs (tests/langs/throwaway/) loaded beside the built-in ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from spyglass.index.worker import resolver_for
from spyglass.syntax.langpack import PACKS_ENV, reload_packs

THROWAWAY = Path(__file__).resolve().parent / "throwaway"


@pytest.fixture
def packs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """$SPYGLASS_LANGUAGE_PACKS names the throwaway packs' folder, for one test."""
    monkeypatch.setenv(PACKS_ENV, str(THROWAWAY))
    reload_packs()
    resolver_for.cache_clear()
    yield
    monkeypatch.delenv(PACKS_ENV)
    reload_packs()
    resolver_for.cache_clear()
