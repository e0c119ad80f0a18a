"""Every fixture answers identically from the SQLite store and the PostgreSQL team store."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture import parse_fixture
from test_fixtures import CHECKS, FIXTURES

from spyglass.config import Config
from spyglass.errors import SpyglassError
from spyglass.query.facade import CodeIntel
from spyglass.types import ToolResult
from spyglass.wire import result_json


def _answers(fx: Any, ci: CodeIntel) -> dict[str, Any]:
    """Each question a fixture asks, answered as the front ends serialize it (or the
    error it gets)."""
    asks: dict[str, Callable[[], ToolResult]] = {}
    if fx.cursor:
        path, line, col = fx.cursor
        at = {"path": path, "line": line, "column": col}
        asks["refs"] = lambda: ci.references(**at)
        asks["refs_exact"] = lambda: ci.references(**at, exact_only=True)
        asks["callers"] = lambda: ci.callers(**at)
        asks["callees"] = lambda: ci.callees(**at)
        asks["hierarchy"] = lambda: ci.type_hierarchy(**at)
        asks["blast"] = lambda: ci.blast_radius([f"{path}:{line}"])
        asks["tests"] = lambda: ci.suggest_tests([f"{path}:{line}"])
    for f in sorted(fx.files):
        asks[f"structure {f}"] = lambda f=f: ci.structure(f)
    out: dict[str, Any] = {}
    for key, ask in asks.items():
        try:
            out[key] = _stable(result_json(ask()))
        except SpyglassError as exc:
            out[key] = f"{type(exc).__name__}: {exc}"
    return out


def _stable(data: Any) -> Any:
    """The answer without what differs between any two runs (times, store locations)."""
    if isinstance(data, dict):
        return {k: _stable(v) for k, v in data.items()
                if k not in ("indexed_at", "generated_at", "elapsed_ms", "snapshot_id",
                             "snapshot", "store", "workspace_digest")}
    if isinstance(data, list):
        return [_stable(v) for v in data]
    return data


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(p.parents[1])) for p in FIXTURES])
def test_fixture_on_both_backends(path: Path, tmp_path: Path, pg_url: str,
                                  repo_id: str) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    local, team = tmp_path / "local" / "w", tmp_path / "team" / "w"
    local.mkdir(parents=True)
    fx.write(local)
    shutil.copytree(local, team, symlinks=True)  # the same commit in both
    sqlite_ci = CodeIntel(local)
    sqlite_ci.index()
    pg_ci = CodeIntel(team, config=Config(store_url=pg_url, store_repo=repo_id))
    pg_ci.index()
    assert not (team / ".spyglass" / "graph.db").exists()  # the team store holds the facts
    for check in fx.checks:  # the fixture's own checks hold on the team store
        if check != "all":
            CHECKS[check](fx, pg_ci)
    assert _answers(fx, pg_ci) == _answers(fx, sqlite_ci)
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_explore_is_the_same_with_and_without_name_postings(tmp_path: Path, pg_url: str,
                                                            repo_id: str) -> None:
    """The SQLite store answers explore from its name postings (query/namestore.py, kept by
    the first question); the team store keeps none and computes the names per view: the
    answers are the same."""
    from fixture import commit_all, write_files
    from query.test_namestore import EXPLORE, FILES
    local, team = tmp_path / "local" / "w", tmp_path / "team" / "w"
    local.mkdir(parents=True)
    write_files(local, FILES)
    commit_all(local)
    shutil.copytree(local, team, symlinks=True)
    CodeIntel(local).index()
    pg_ci = CodeIntel(team, config=Config(store_url=pg_url, store_repo=repo_id))
    pg_ci.index()

    def ask(ci: CodeIntel) -> list[Any]:
        return [_stable(result_json(ci.explore(q, budget=4000))) for q in EXPLORE]
    CodeIntel(local).explore(EXPLORE[0], budget=4000)  # keeps the names
    assert ask(CodeIntel(local)) == ask(pg_ci)
