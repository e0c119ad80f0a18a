"""The server's hold on one repository: the CodeIntel facade, run off the event loop."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from spyglass.errors import IndexUnavailable, LimitExceeded, OutsideRoot, SpyglassError
from spyglass.mcp.render import render

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
    """A domain error as a message telling the model what to change."""
    text = str(exc)
    if isinstance(exc, OutsideRoot):
        text += "; pass a path inside the repository, relative to its root (e.g. 'src/app.py')"
    elif isinstance(exc, LimitExceeded):
        text += "; narrow the request (fewer paths, a sub-folder, a kind) and call again"
    elif isinstance(exc, IndexUnavailable):
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

        A cancelled call returns at once; the worker finishes its (read-only) query alone."""
        try:
            return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
        except (SpyglassError, OSError) as exc:
            raise tool_error(exc) from exc

    async def answer(self, tool: str, fn: Callable[[], ToolResult | dict[str, Any]],
                     defaulted_scope: bool = False) -> CallToolResult:
        """The tool call as structuredContent (the envelope of docs/contract.md) plus compact text.

        `defaulted_scope`: the call was limited to the start directory because it named no
        path; an empty answer then says so, since the symbol may live elsewhere."""
        result = await self.run(fn)
        payload = result if isinstance(result, dict) else to_json(result)
        if defaulted_scope and self.start_rel and not payload.get("results"):
            coverage = payload.setdefault("coverage", {})
            note = (f"searched only under {self.start_rel}/ (the server's start directory); "
                    "pass path='.' to search the whole repository")
            coverage["limitations"] = [*coverage.get("limitations", []), note]
        return CallToolResult(content=[TextContent(type="text", text=render(payload, tool))],
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
            await ctx.report_progress(state["total"], state["total"] or None, "index complete")


def to_json(result: ToolResult) -> dict[str, Any]:
    from spyglass.wire import result_json
    return result_json(result)
