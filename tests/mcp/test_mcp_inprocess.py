"""In-process checks: cancelling an indexing call stops the build; unit-level helpers."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from spyglass.mcp.backend import IndexCancelled, call_flexible
from spyglass.mcp.schemas import compact
from spyglass.mcp.server import build_server


@pytest.mark.anyio
async def test_cancelling_an_index_call_stops_the_build(fresh_repo: Path) -> None:
    built = build_server(fresh_repo, environ={})
    assert built.backend is not None
    stopped = threading.Event()

    def slow_index(ref: str | None, progress: Any) -> None:
        try:
            for done in range(3000):
                progress("parse", done, 3000, done)
                time.sleep(0.005)
        except IndexCancelled:
            stopped.set()
            raise

    built.backend.intel.index = slow_index  # type: ignore[method-assign]
    seen = anyio.Event()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        if done >= 5:
            seen.set()

    async with Client(built.server, mode="legacy") as client:
        async with anyio.create_task_group() as tg:
            async def call() -> None:
                await client.call_tool("code_status", {"index": True},
                                       progress_callback=progress)
            tg.start_soon(call)
            with anyio.fail_after(20):
                await seen.wait()
            tg.cancel_scope.cancel()
        assert await anyio.to_thread.run_sync(stopped.wait, 10)
        # The server is still serving after the cancellation.
        result = await client.call_tool("code_find_symbol", {"name": "helper"})
        assert not result.is_error


@pytest.mark.anyio
async def test_explore_falls_back_to_the_builtin_ranking(indexed_repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from spyglass.query.facade import CodeIntel

    def missing(self: CodeIntel, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("not in this build")

    monkeypatch.setattr(CodeIntel, "explore", missing, raising=False)
    built = build_server(indexed_repo, environ={})
    async with Client(built.server, mode="legacy") as client:
        result = await client.call_tool("code_explore", {"query": "helper", "budget": 400})
        assert not result.is_error, result.content[0].text
        body = result.structured_content
        assert body is not None
        top = body["results"][0]
        assert (top["path"], top["start_line"], top["kind"]) == ("pkg/util.py", 1, "func")
        assert any(c.startswith("pkg/main.py:5") for c in top["callers"])
        assert top["tests"] == ["tests/test_util.py:5 test_util.test_helper"]
        assert "text" not in top and "pkg/util.py:1-2  func" in result.content[0].text
        words = await client.call_tool("code_explore", {"query": "greet someone"})
        assert words.structured_content is not None
        top3 = [r["symbol"] for r in words.structured_content["results"][:3]]
        assert "pkg.util.Greeter.greet" in top3, top3
        outline = await client.call_tool("code_explore", {"query": "pkg/main.py"})
        assert outline.structured_content is not None
        assert {r["path"] for r in outline.structured_content["results"]} == {"pkg/main.py"}


def test_call_flexible_passes_what_the_method_accepts() -> None:
    def positional(paths: list[str], depth: int = 3) -> tuple[list[str], int]:
        return paths, depth

    def named(targets: list[str], diff: str | None = None) -> tuple[list[str], str | None]:
        return targets, diff

    assert call_flexible(positional, "targets", targets=["a"], diff="HEAD", depth=2) == (["a"], 2)
    assert call_flexible(named, "targets", targets=["a"], diff=None, depth=2) == (["a"], None)


def test_compact_schema_drops_noise_keeps_meaning() -> None:
    schema = {"type": "object", "title": "fArguments", "properties": {
        "path": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                 "title": "Path", "description": "d"},
        "spans": {"type": "array", "items": {"$ref": "#/$defs/Span"}}},
        "$defs": {"Span": {"type": "object", "title": "Span",
                           "properties": {"title": {"type": "string", "title": "Title"}}}}}
    assert compact(schema) == {"type": "object", "properties": {
        "path": {"type": "string", "description": "d"},
        "spans": {"type": "array", "items": {"type": "object",
                                             "properties": {"title": {"type": "string"}}}}}}
