"""The MCP tools of docs/tools.md: names, descriptions, argument and output schemas, handlers."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from spyglass.mcp import schemas as sc
from spyglass.mcp.backend import Backend

if TYPE_CHECKING:
    from spyglass.query.facade import CodeIntel

ANNOTATIONS = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

DESCRIPTIONS = {
    "code_explore": ("Start here when unsure where something lives: ranked definitions for a "
                     "name, words or a path, with callers, tests and path:line citations. No "
                     "source text."),
    "code_find_symbol": ("Find definitions by name, qualified name or glob, optionally by kind "
                         "and path."),
    "code_references": ("Every use of a symbol (call, import, type, read, write), by name or by "
                        "path+line[+column] of a definition or use. Use before renaming or "
                        "changing a signature (for a rename pass include_declaration: "
                        "declarations and name-keeping imports too)."),
    "code_callers": ("Direct callers, one per call site; symbol = the calling function. Use "
                     "before changing behaviour."),
    "code_structure": "Outline of the symbols in a file or folder. Cheaper than reading files.",
    "code_blast_radius": ("Conservative set of symbols, files, packages and tests a change "
                          "affects, each with evidence. Use before a non-trivial edit."),
    "code_suggest_tests": ("Focused tests to run for a change, with evidence and a runnable "
                           "command. Use after editing."),
    "code_status": ("Index state: snapshot, freshness, languages, skipped files, limits, "
                    "enabled tools; index=true builds or updates the index."),
    "code_context": ("Current source of line spans, live from disk, with a content hash. Read "
                     "spans this way before editing; never edit from index results."),
    "code_diagnostics": "Syntax errors (tree-sitter) in files or folders; check after editing.",
    "code_ast_query": ("Run a tree-sitter query over files; captures with positions. For "
                       "structural searches the other tools do not cover."),
}
_LOC = sc.envelope(sc.item(sc.LOCATION))
OUTPUTS = {
    "code_explore": _LOC, "code_find_symbol": _LOC, "code_references": _LOC,
    "code_callers": _LOC, "code_structure": _LOC, "code_blast_radius": _LOC,
    "code_suggest_tests": _LOC, "code_status": sc.envelope(sc.item(sc.STATUS)),
    "code_context": sc.envelope(sc.item(sc.SPAN)),
    "code_diagnostics": sc.envelope(sc.item(sc.DIAGNOSTIC)),
    "code_ast_query": sc.envelope(sc.item(sc.AST_MATCH)),
}

Name = Annotated[str | None, Field(description="symbol name or qualified name")]
PathArg = Annotated[str | None, Field(description="file or folder (relative to the root)")]
Line = Annotated[int | None, Field(ge=1, description="1-based line, with path")]
Column = Annotated[int | None, Field(ge=1, description="1-based column, with path and line")]
Exact = Annotated[bool, Field(description="only resolved (certain) results")]
Paths = Annotated[list[str] | None, Field(description="files or folders (default: start dir)")]
Targets = Annotated[list[str] | None, Field(
    description="paths, path:line[-line] ranges or symbol names (default: the workspace diff)")]
Diff = Annotated[str | None, Field(description="git revision or range to take the change from")]
Depth = Annotated[int, Field(ge=1, le=10, description="call-graph hops")]


class Span(BaseModel):
    path: str
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int | None, Field(ge=1, description="default: start_line")] = None


def _position(path: str | None, line: int | None, column: int | None) -> None:
    if line is None and column is not None:
        raise ToolError("column needs line and path")
    if line is not None and not path:
        raise ToolError("line needs path: give path and line of a definition or a use, "
                        "or give name instead")


def build_tools(b: Backend, names: Iterable[str], *, admin_token: str | None = None
                ) -> list[Tool]:
    """The Tool objects for `names` (those the facade can back), in the order given."""

    def ci() -> CodeIntel:
        return b.intel

    async def code_explore(
        ctx: Context,
        query: Annotated[str, Field(description="symbol name, words, or a path")],
        path: Annotated[str | None, Field(description="only under this folder")] = None,
        budget: Annotated[int, Field(ge=200, le=20000, description="answer size in tokens")] = 2000,
    ) -> CallToolResult:
        scope = b.scope(path)

        return await b.answer("code_explore",
                              lambda: ci().explore(query=query, budget=budget, path=scope),
                              defaulted_scope=not path)

    async def code_find_symbol(
        ctx: Context,
        name: Annotated[str, Field(description="name, qualified name (mod.Class.meth) or glob (*Conf*)")],
        kind: Annotated[str | None, Field(description="func, method, class, struct, interface, "
                                                       "type, const, var, field, test…")] = None,
        path: Annotated[str | None, Field(description="only under this file or folder")] = None,
    ) -> CallToolResult:
        scope = b.scope(path)
        return await b.answer("code_find_symbol", lambda: ci().find_symbol(name, kind, scope),
                              defaulted_scope=not path)

    async def code_references(
        ctx: Context, name: Name = None, path: PathArg = None, line: Line = None,
        column: Column = None, include_declaration: bool = False, exact_only: Exact = False,
    ) -> CallToolResult:
        _position(path, line, column)
        return await b.answer("code_references", lambda: ci().references(
            name, path, line, column, include_declaration, exact_only))

    async def code_callers(
        ctx: Context, name: Name = None, path: PathArg = None, line: Line = None,
        column: Column = None, exact_only: Exact = False,
    ) -> CallToolResult:
        _position(path, line, column)
        return await b.answer("code_callers", lambda: ci().callers(name, path, line, column,
                                                                   exact_only))

    async def code_structure(ctx: Context, path: PathArg = None) -> CallToolResult:
        target = b.scope(path) or "."
        return await b.answer("code_structure", lambda: ci().structure(target))

    async def code_context(
        ctx: Context,
        spans: Annotated[list[Span], Field(min_length=1, description="spans to read")],
    ) -> CallToolResult:
        wanted = [(s.path, s.start_line, s.end_line or s.start_line) for s in spans]
        for path, start, end in wanted:
            if end < start:
                raise ToolError(f"{path}: end_line {end} is before start_line {start}")
        return await b.answer("code_context", lambda: ci().context(wanted))

    async def code_diagnostics(ctx: Context, paths: Paths = None) -> CallToolResult:
        chosen = paths or [b.scope(None) or "."]
        return await b.answer("code_diagnostics", lambda: ci().diagnostics(chosen))

    async def code_ast_query(
        ctx: Context,
        query: Annotated[str, Field(description="tree-sitter query, e.g. (call) @c")],
        paths: Paths = None,
    ) -> CallToolResult:
        if admin_token is not None:
            headers = ctx.headers or {}
            given = headers.get("x-spyglass-admin-token") or \
                headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), admin_token.encode()):
                raise ToolError("code_ast_query over HTTP needs the admin token "
                                "(Authorization: Bearer …); use the other tools instead")
        chosen = paths or [b.scope(None) or "."]
        return await b.answer("code_ast_query", lambda: ci().ast_query(query, chosen))

    async def code_status(
        ctx: Context,
        index: Annotated[bool, Field(description="build/update the index first (progress "
                                                 "notifications; cancellable)")] = False,
    ) -> CallToolResult:
        if index:
            await b.build_index(ctx)
        return await b.answer("code_status", lambda: ci().status(tuple(b.offered)))

    async def code_blast_radius(
        ctx: Context, targets: Targets = None, diff: Diff = None, depth: Depth = 3,
    ) -> CallToolResult:
        return await b.answer("code_blast_radius",
                              lambda: ci().blast_radius(targets or [], diff, depth))

    async def code_suggest_tests(
        ctx: Context, targets: Targets = None, diff: Diff = None, depth: Depth = 3,
    ) -> CallToolResult:
        return await b.answer("code_suggest_tests",
                              lambda: ci().suggest_tests(targets or [], diff, depth))

    handlers: dict[str, Callable[..., Any]] = {
        "code_explore": code_explore, "code_find_symbol": code_find_symbol,
        "code_references": code_references, "code_callers": code_callers,
        "code_structure": code_structure, "code_blast_radius": code_blast_radius,
        "code_suggest_tests": code_suggest_tests, "code_status": code_status,
        "code_context": code_context, "code_diagnostics": code_diagnostics,
        "code_ast_query": code_ast_query,
    }
    tools: list[Tool] = []
    for name in names:
        tool = Tool.from_function(handlers[name], name=name, description=DESCRIPTIONS[name],
                                  annotations=ANNOTATIONS)
        tool.parameters = sc.compact(tool.parameters)
        tool.fn_metadata.output_schema = OUTPUTS[name]
        tools.append(tool)
    return tools


