"""Server middleware: refuse tools not offered, write the session log, warm the view up,
give every tool error a reason; one-line server logs."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from spyglass.errors import BadInput

BARE = re.compile(r"(Error executing tool \S+:?\s*)+")


class RefuseUnoffered:
    """A call to a tool this server does not offer gets an isError result saying why
    (denied by policy, left out by SPYGLASS_MCP_TOOLS, no index) instead of "unknown tool"."""

    def __init__(self, reasons: Mapping[str, str]) -> None:
        self.reasons = dict(reasons)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
                       ) -> HandlerResult:
        if ctx.method == "tools/call" and ctx.request_id is not None:
            name = (ctx.params or {}).get("name")
            if isinstance(name, str) and name in self.reasons:
                return CallToolResult(is_error=True, content=[TextContent(
                    type="text", text=f"{name} is not available here: {self.reasons[name]}")])
        return await call_next(ctx)


def _size(result: HandlerResult) -> int:
    if result is None:
        return 0
    if isinstance(result, BaseModel):
        return len(result.model_dump_json(by_alias=True, exclude_none=True))
    return len(json.dumps(result, default=str))


def _error_text(result: HandlerResult) -> str | None:
    if isinstance(result, CallToolResult) and result.is_error:
        return " ".join(c.text for c in result.content if isinstance(c, TextContent))
    if isinstance(result, dict) and result.get("isError"):
        return " ".join(str(c.get("text", "")) for c in result.get("content", [])
                        if isinstance(c, dict))
    return None


class SessionLog:
    """One JSON line per request: time, method, tool, arguments, duration, result size, error.

    The file the user named is appended to as a plain file only: opened with O_NOFOLLOW
    and O_NONBLOCK (a link in its place is not followed, a FIFO cannot block the server)
    and checked to be a regular file before the first line."""

    def __init__(self, path: str) -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                         | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0), 0o644)
        except OSError as exc:
            why = {errno.ELOOP: "it is a symbolic link (never followed)",
                   errno.ENXIO: "it is a FIFO, not a regular file"}.get(
                exc.errno or 0, exc.strerror or str(exc))
            raise BadInput(f"cannot write the session log {path}: {why}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise BadInput(f"cannot write the session log {path}: not a regular file")
        os.set_blocking(fd, True)
        self.out: IO[str] = open(fd, "a", encoding="utf-8", buffering=1)  # noqa: SIM115

    def close(self) -> None:
        self.out.close()

    def write(self, record: dict[str, Any]) -> None:
        try:
            self.out.write(json.dumps(record, default=str, ensure_ascii=False) + "\n")
        except OSError as exc:  # a full disk must not take the server down
            sys.stderr.write(f"spyglass: session log: {exc}\n")

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
                       ) -> HandlerResult:
        if ctx.request_id is None:  # notifications are not requests
            return await call_next(ctx)
        params = ctx.params or {}
        record: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
            "method": ctx.method,
            "tool": params.get("name") if ctx.method == "tools/call" else None,
            "arguments": params.get("arguments") if ctx.method == "tools/call" else None,
        }
        began = time.perf_counter()
        try:
            result = await call_next(ctx)
        except BaseException as exc:
            record.update(duration_ms=round((time.perf_counter() - began) * 1000, 2),
                          result_size=0, error=str(exc) or type(exc).__name__)
            self.write(record)
            raise
        record.update(duration_ms=round((time.perf_counter() - began) * 1000, 2),
                      result_size=_size(result), error=_error_text(result))
        self.write(record)
        return result


class WarmUp:
    """After the first tools/list, open the repository view in the background: the client
    lists tools at once, the model's first call comes later and finds the view ready."""

    def __init__(self, start: Callable[[], None]) -> None:
        self.start: Callable[[], None] | None = start

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
                       ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "tools/list" and self.start is not None:
            start, self.start = self.start, None
            start()
        return result


# The SDK's argument validation error (pydantic's text): the count, the model, then per
# error a location line and an indented message line with its input.
VALIDATION = re.compile(r"(?:Error executing tool \S+:\s*)?\d+ validation errors? for \S+\n")
PROBLEM = re.compile(r"^(\S[^\n]*)\n\s+([^\n\[]+?)\s*\[type=(\w+)(?:, input_value=(.*?), "
                     r"input_type=(\w+))?\]", re.MULTILINE)
# What each kind of parameter takes, as the error states it.
FORMS = {"str": "a string", "int": "an integer", "bool": "true or false",
         "strs": "a list of strings",
         "spans": 'a list of {"path": "a.py", "start_line": 3, "end_line": 9} objects'}
ELEMENTS = {"strs": "a string",
            "spans": 'an object {"path": "a.py", "start_line": 3, "end_line": 9}'}
SPAN_FIELDS = {"path": "a string (the file)", "start_line": "an integer >= 1",
               "end_line": "an integer >= 1 (default: start_line)"}


def readable_validation(tool: str, text: str) -> str | None:
    """pydantic's multi-line argument error as one line naming each argument and the form
    it takes (None: `text` is not one)."""
    from spyglass import surface
    if not VALIDATION.match(text):
        return None
    declared = surface.TOOLS.get(tool)
    kinds = {p.name: p.kind for p in declared.params} if declared else {}
    said = []
    for where, message, kind, value, type_ in PROBLEM.findall(text):
        parts = where.split(".")
        at = parts[0] + "".join(f"[{x}]" if x.isdigit() else f".{x}" for x in parts[1:])
        field = parts[-1] if len(parts) > 1 and not parts[-1].isdigit() else ""
        kind_of = kinds.get(parts[0], "")
        if kind_of == "spans" and field:
            form = SPAN_FIELDS.get(field, "")
        elif len(parts) > 1 and parts[-1].isdigit():  # one element of a list
            form = ELEMENTS.get(kind_of, "")
        else:
            form = FORMS.get(kind_of, "")
        if kind == "missing":
            got = "missing"
        elif value:
            got = f"got {value if len(value) <= 60 else value[:59] + '…'}" + (
                f" ({type_})" if type_ else "")
        else:
            got = message.strip().rstrip(".").lower()
        said.append(f"{at}: {got}" + (f"; expected {form}" if form else ""))
    if not said:
        return None
    return f"{tool}: invalid argument " + "; ".join(said)


class ReasonedErrors:
    """A tool error must say why: the SDK's bare "Error executing tool X" (what is left of an
    exception raised outside the backend) gets the reason that it was a server fault, and
    its argument validation errors become one readable line."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
                       ) -> HandlerResult:
        result = await call_next(ctx)
        text = _error_text(result) if ctx.method == "tools/call" else None
        name = str((ctx.params or {}).get("name", "the tool"))
        readable = readable_validation(name, text) if text else None
        if readable is not None:
            return CallToolResult(is_error=True, content=[TextContent(type="text",
                                                                       text=readable)])
        if text is not None and (not text.strip() or BARE.fullmatch(text.strip())):
            name = (ctx.params or {}).get("name", "the tool")
            result = CallToolResult(is_error=True, content=[TextContent(
                type="text", text=f"{name} failed: internal error in the server (logged on "
                "its stderr); the other tools still answer")])
        return result


class OneLineLogs(logging.Filter):
    """Log records carry no traceback (a one-line `Type: message` instead) unless
    SPYGLASS_DEBUG is set: the operator sees what failed, never a wall of frames."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not os.environ.get("SPYGLASS_DEBUG"):
            exc = record.exc_info[1]
            if exc is not None:
                cause = exc.__cause__ or exc
                record.msg = f"{record.getMessage()}: {type(cause).__name__}: {cause}"
                record.args = None
            record.exc_info = None
            record.exc_text = None
        return True
