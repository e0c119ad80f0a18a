"""In-process checks: cancelling an indexing call stops the build; unit-level helpers."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from spyglass.mcp.backend import IndexCancelled
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
