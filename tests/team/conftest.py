"""The team store's tests run against the PostgreSQL that scripts/postgres.sh starts before
pytest (scripts/test.sh); without it they are skipped with the reason."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator

import pytest
from pgstore import RW_URL, unreachable


@pytest.fixture(scope="session")
def pg_url() -> str:
    why = unreachable()
    if why:
        pytest.skip(why)
    return RW_URL


@pytest.fixture()
def repo_id() -> Iterator[str]:
    """A repository id of its own for each test (one database holds every test's rows);
    after the test, its facades' connections are closed (collected now)."""
    yield f"test/{uuid.uuid4().hex[:12]}"
    gc.collect()
