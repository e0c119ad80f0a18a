"""MCP end-to-end fixtures: a small indexed repository, a fresh one, an HTTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_harness import http_serving, run_cli, write_repo


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def indexed_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture repository with a snapshot (shared: tests must not modify it)."""
    repo = write_repo(tmp_path_factory.mktemp("indexed") / "demo")
    run_cli(repo, "index")
    return repo


@pytest.fixture
def fresh_repo(tmp_path: Path) -> Path:
    """The fixture repository without an index."""
    return write_repo(tmp_path / "fresh")


@pytest.fixture
def own_indexed_repo(tmp_path: Path) -> Path:
    """An indexed copy this test may modify."""
    repo = write_repo(tmp_path / "own")
    run_cli(repo, "index")
    return repo


@pytest.fixture
def http_server(indexed_repo: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`spyglass serve --http 127.0.0.1:0` on the indexed repository: (url, stderr file)."""
    with http_serving(indexed_repo, tmp_path) as served:
        yield served
