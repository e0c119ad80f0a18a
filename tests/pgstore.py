"""The team store the test suite reads: the PostgreSQL that scripts/postgres.sh starts;
`store_backend` runs a test module on both stores (SQLite, then this PostgreSQL)."""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Iterator

import pytest

RW_URL = os.environ.get("SPYGLASS_TEST_PG_RW",
                        "postgresql://spyglass_rw:spyglass-test-rw@127.0.0.1/spyglass_test")
RO_URL = os.environ.get("SPYGLASS_TEST_PG_RO",
                        "postgresql://spyglass_ro:spyglass-test-ro@127.0.0.1/spyglass_test")


def unreachable() -> str | None:
    """Why the test PostgreSQL cannot be used (None: it can)."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is missing (it comes with the dev extra of pyproject.toml)"
    try:
        psycopg.connect(RW_URL, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"no PostgreSQL for the team store tests (scripts/postgres.sh): {exc}"
    return None


@pytest.fixture(params=["sqlite", "postgresql"])
def store_backend(request: pytest.FixtureRequest,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test of a module using it runs on the embedded store, then on the team store:
    every facade the test opens (host config) writes and reads the PostgreSQL store, under
    a repository id of the test's own. The test's own assertions are the identical answers."""
    if request.param == "postgresql":
        why = unreachable()
        if why:
            pytest.skip(why)
        monkeypatch.setenv("SPYGLASS_STORE_URL", RW_URL)
        monkeypatch.setenv("SPYGLASS_STORE_REPO", f"test/{uuid.uuid4().hex[:12]}")
    yield request.param
    if request.param == "postgresql":
        gc.collect()  # the test's facades let go of their connections now, not at some later
        # collection: two workers' leftovers once filled PostgreSQL's connection slots
