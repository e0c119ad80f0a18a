"""Wildcard aliases looked up one prefix at a time (a large view) answer as reading them all
at once does: every fixture that follows declared types runs both ways."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_fixtures as fixtures

from spyglass.query import aliases

# Fixtures whose answers go through wildcard aliases (declared types, instances, bases).
TYPED = [p for p in fixtures.FIXTURES if any(w in p.name for w in ("field", "type", "method", "member",
                                                          "instance", "self", "receiver"))]


@pytest.mark.parametrize("path", TYPED[:40], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_with_lazy_wildcards(path: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aliases, "EAGER_WILDCARD_FILES", 0)
    fixtures.test_fixture(path, tmp_path)
