"""The MCP tools of docs/tools.md, derived from the tool surface (spyglass.surface): argument
and output schemas, and one handler per tool calling its facade method off the event loop."""

from __future__ import annotations

import hmac
import inspect
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from spyglass import budget, surface
from spyglass.mcp import schemas as sc
from spyglass.mcp.backend import Backend

# idempotentHint is left out: the MCP spec gives it meaning only for tools that write.
ANNOTATIONS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
POSITION_HINT = "give a symbol name, or path and line [and column] of a definition or a use"


class Span(BaseModel):
    path: str
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int | None, Field(ge=1, description="default: start_line")] = None


TYPES: dict[surface.Kind, Any] = {"str": str, "int": int, "bool": bool, "strs": list[str],
                                  "spans": list[Span]}


def parameter(p: surface.Param) -> inspect.Parameter:
    """A declared parameter as a keyword parameter the SDK turns into the argument schema."""
    base = TYPES[p.kind]
    optional = not p.required and p.default is None
    field: dict[str, Any] = {"description": p.help if p.described else None, "ge": p.ge,
                             "le": p.le}
    if p.kind == "spans":
        field["min_length"] = 1
    kind = base | None if optional else base
    annotation = Annotated[kind, Field(**{k: v for k, v in field.items()  # type: ignore[valid-type]
                                          if v is not None})]
    default = inspect.Parameter.empty if p.required else p.default
    return inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)


def output_schema(tool: surface.Tool) -> dict[str, Any]:
    return sc.envelope(sc.item(sc.required_fields(tool.result)))


def _admin(ctx: Context, token: str, name: str) -> None:
    headers = ctx.headers or {}
    given = headers.get("x-spyglass-admin-token") or \
        headers.get("authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise ToolError(f"{name} over HTTP needs the admin token "
                        "(Authorization: Bearer …); use the other tools instead")


def handler(b: Backend, tool: surface.Tool, admin_token: str | None
            ) -> Callable[..., Any]:
    """The async function the SDK calls with the validated arguments of `tool`."""

    async def call(ctx: Context, **args: Any) -> CallToolResult:
        values = dict(args)
        defaulted = False
        other = bool(values.get("repo"))  # another repository of the team store
        for p in tool.params:
            if p.scoped and other:  # its whole root (this server's start is not in it)
                values[p.name] = values.get(p.name) or ("." if p.kind == "str" else ["."])
            elif p.scoped and p.kind == "str":
                defaulted = defaulted or not values.get(p.name)
                values[p.name] = b.scope(values.get(p.name)) or "."
            elif p.scoped:
                values[p.name] = values.get(p.name) or [b.scope(None) or "."]
            elif p.kind == "strs" and values.get(p.name) is None:
                values[p.name] = []
            elif p.kind == "spans":
                values[p.name] = [(s.path, s.start_line, s.end_line or s.start_line)
                                  for s in values[p.name]]
        if tool.gated and admin_token is not None:
            _admin(ctx, admin_token, tool.name)
        if tool.name == "code_status":
            if values.get("index") and other:
                raise ToolError("index=true builds this server's repository; another one "
                                "is indexed by the team's workers (`spyglass enqueue`)")
            if values.get("index"):
                await b.build_index(ctx)
            values["tools"] = tuple(b.offered)

        def run() -> Any:
            if tool.at:
                surface.check_position(values.get("name"), values.get("path"),
                                       values.get("line"), values.get("column"), POSITION_HINT)
            for span in values.get("spans", ()):
                surface.check_span(*span)
            intel = b.intel.for_repo(values.get("repo"))
            if tool.name == "code_status":
                result = intel.status(values["tools"])
            else:
                result = tool.call(intel, values)
            return budget.fit(result, tool, budget.chars_of(tool, values), "mcp")

        return await b.answer(tool.name, run, defaulted_scope=defaulted)

    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context),
         *(parameter(p) for p in tool.params)], return_annotation=CallToolResult)
    call.__name__ = tool.name
    return call


def build_tools(b: Backend, names: Iterable[str], *, admin_token: str | None = None
                ) -> list[Tool]:
    """The Tool objects for `names`, in the order given."""
    tools: list[Tool] = []
    for name in names:
        declared = surface.TOOLS[name]
        tool = Tool.from_function(handler(b, declared, admin_token), name=name,
                                  description=declared.description, annotations=ANNOTATIONS,
                                  context_kwarg="ctx")
        tool.parameters = sc.compact(tool.parameters)
        tool.fn_metadata.output_schema = output_schema(declared)
        tools.append(tool)
    return tools
