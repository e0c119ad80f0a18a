"""The server's hold on one repository: the CodeIntel facade, run off the event loop."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from spyglass.errors import (
    BadInput,
    GitRefused,
    IndexUnavailable,
    LimitExceeded,
    OutsideRoot,
    SpyglassError,
    input_fault,
    internal_reason,
)
from spyglass.render import render

if TYPE_CHECKING:
    from spyglass.config import Config
    from spyglass.query.facade import CodeIntel
    from spyglass.types import ToolResult

T = TypeVar("T")
logger = logging.getLogger(__name__)
PROGRESS_INTERVAL = 0.2
WARM_UP_DELAY = 0.05


class IndexCancelled(SpyglassError):
    """The client cancelled the call that was building the index."""


def tool_error(exc: BaseException) -> ToolError:
    """A failure as a message telling the model what to change: domain errors keep their
    text; bad input found deep inside gets its one-line reason; a bug gets its type and
    first line (and is logged; the traceback only with SPYGLASS_DEBUG)."""
    if not isinstance(exc, (SpyglassError, OSError)) or (
            isinstance(exc, OSError) and input_fault(exc)):
        fault = input_fault(exc)
        if fault is not None:
            return ToolError(fault)
        reason = internal_reason(exc)
        logger.error("%s", reason, exc_info=exc if os.environ.get("SPYGLASS_DEBUG") else None)
        return ToolError(reason)
    text = str(exc)
    if isinstance(exc, OutsideRoot):
        text += "; pass a path inside the repository, relative to its root (e.g. 'src/app.py')"
    elif isinstance(exc, LimitExceeded):
        text += "; narrow the request (fewer paths, a sub-folder, a kind) and call again"
    elif isinstance(exc, IndexUnavailable) and not isinstance(exc, (GitRefused, BadInput)):
        text += "; call code_status with index=true (or run `spyglass index`) to build the index"
    elif isinstance(exc, OSError):
        text = f"cannot read {Path(exc.filename).name if exc.filename else 'file'}: " \
               f"{exc.strerror or exc}"
    return ToolError(text)


class Backend:
    """One repository: what discovery found at start-up, the facade opened on first use (so
    answering tools/list never waits for tree-sitter and SQLite), tool-call plumbing."""

    def __init__(self, start: Path, root: Path, config: Config, has_index: bool) -> None:
        self.start = start
        self.root = root
        self.config = config
        self.has_index = has_index
        self.offered: list[str] = []
        self._intel: CodeIntel | None = None
        self._opening = threading.Lock()
        self._index_lock = anyio.Lock()

    @property
    def intel(self) -> CodeIntel:
        """The facade, created on first use (from a worker thread: it imports the engine)."""
        with self._opening:
            if self._intel is None:
                from spyglass.query.facade import CodeIntel
                self._intel = CodeIntel(self.start, config=self.config)
            return self._intel

    @intel.setter
    def intel(self, value: CodeIntel) -> None:
        self._intel = value

    def warm_up(self) -> None:
        """Open the view on a daemon thread (the first tool call then finds it ready)."""
        threading.Thread(target=self._warm, name="spyglass-warm-up", daemon=True).start()

    def _warm(self) -> None:
        time.sleep(WARM_UP_DELAY)  # let the tools/list answer go out first
        try:
            intel = self.intel
            with intel.lock:
                intel.view()
            if not intel.config.required:
                intel.start_bridges()  # language servers warm up in the background
        except Exception as exc:  # noqa: BLE001 - the first tool call reports it properly
            logger.debug("warm-up failed: %s", exc)

    @property
    def start_rel(self) -> str:
        """The start directory relative to the root: the default `path` of scoped tools."""
        try:
            rel = self.start.relative_to(self.root).as_posix()
        except ValueError:
            return ""
        return "" if rel == "." else rel

    def scope(self, path: str | None) -> str | None:
        """A scope argument, defaulting to the start directory (None = the whole root)."""
        if path:
            return path
        return self.start_rel or None

    async def run(self, fn: Callable[[], T]) -> T:
        """Run a blocking facade call on a worker thread; domain errors become ToolErrors.

        A cancelled call returns at once; the worker finishes its (read-only) query alone,
        and the git processes it was waiting on are killed (docs/security.md)."""
        from spyglass.query.facade import run_cancellable, stop_children
        started: list[int] = []
        try:
            return await anyio.to_thread.run_sync(lambda: run_cancellable(fn, started),
                                                  abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            for thread in started:
                stop_children(thread)
            raise
        except ToolError:
            raise
        except Exception as exc:
            raise tool_error(exc) from exc

    async def answer(self, tool: str, fn: Callable[[], ToolResult | dict[str, Any]],
                     defaulted_scope: bool = False) -> CallToolResult:
        """The tool call as structuredContent (the envelope of docs/contract.md) plus compact text.

        `defaulted_scope`: the call was limited to the start directory because it named no
        path; an empty answer then says so, since the symbol may live elsewhere."""
        result = await self.run(fn)
        try:
            if isinstance(result, dict):
                return CallToolResult(
                    content=[TextContent(type="text", text=json.dumps(result))],
                    structured_content=result)
            if defaulted_scope and self.start_rel and not result.results:
                note = (f"searched only under {self.start_rel}/ (the server's start "
                        "directory); pass path='.' to search the whole repository")
                result = replace(result, coverage=replace(
                    result.coverage, limitations=(*result.coverage.limitations, note)))
            text, payload = render(result, tool), to_json(result)
        except Exception as exc:
            raise tool_error(exc) from exc
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=payload)

    async def build_index(self, ctx: Context) -> None:
        """Build or update the snapshot, reporting progress; cancelling the call stops it."""
        state: dict[str, int] = {"done": 0, "total": 0, "persisted": 0}
        cancel = threading.Event()

        def progress(phase: str, done: int, total: int, persisted: int) -> None:
            if cancel.is_set():
                raise IndexCancelled("indexing cancelled by the client")
            state.update(done=done, total=total, persisted=persisted)

        async def pump() -> None:
            last: tuple[int, int, int] | None = None
            while True:
                now = (state["done"], state["total"], state["persisted"])
                if now != last:
                    last = now
                    await ctx.report_progress(now[0], now[1] or None,
                                              f"indexing: parsed {now[0]} of {now[1]} files, "
                                              f"{now[2]} persisted")
                await anyio.sleep(PROGRESS_INTERVAL)

        async with self._index_lock:
            await ctx.report_progress(0, None, f"indexing {self.root}")
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(pump)
                    try:
                        await self.run(lambda: self.intel.index(None, progress))
                    finally:
                        tg.cancel_scope.cancel()
            except anyio.get_cancelled_exc_class():
                cancel.set()
                raise
            except BaseExceptionGroup as group:  # the task group wraps the index's refusal
                refused = [e for e in group.exceptions if isinstance(e, ToolError)]
                if refused:
                    raise refused[0] from None
                raise
            await ctx.report_progress(state["total"], state["total"] or None, "index complete")


def to_json(result: ToolResult) -> dict[str, Any]:
    from spyglass.wire import result_json
    return result_json(result)
