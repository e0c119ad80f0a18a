"""Fixtures of the bridge tests: every test stops the language servers it started, and a
small repository the fake server (fake_lsp.py) answers about."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import ANSWERS, CORE, USE

from spyglass.bridge import manager


@pytest.fixture(autouse=True)
def stop_bridges() -> Iterator[None]:
    yield
    manager.stop_all()


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE})
    (root / ".fake_answers.json").write_text(json.dumps(ANSWERS))
    return root
