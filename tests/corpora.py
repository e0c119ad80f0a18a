"""Real corpora for tests: scripts/fetch_corpus.py loaded once, and the markers of tests
that read them: `network` for every one, `system` also for those whose sources are Debian
packages. `scripts/bootstrap.sh --corpora` provides both before pytest starts; inside
the suite fetching never downloads or installs ($SPYGLASS_CORPORA_OFFLINE)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from accuracy.corpora import fetch_module


def offline() -> None:
    """Forbid downloads and installs for the rest of this process (and its children)."""
    os.environ[fetch_module().OFFLINE_ENV] = "1"


def marks(name: str) -> list[Any]:
    """The markers of a test reading corpus `name`."""
    system = fetch_module().CORPORA[name].kind in ("go", "debzip", "debian")
    return [pytest.mark.network, *([pytest.mark.system] if system else [])]


def reads(name: str) -> Callable[[F], F]:
    """Decorate a test reading corpus `name` with its markers."""
    def mark(test: F) -> F:
        for m in marks(name):
            test = m(test)
        return test
    return mark


def params(names: list[str]) -> list[Any]:
    """Parametrize values for corpus names, each with its markers."""
    return [pytest.param(n, marks=marks(n)) for n in names]
