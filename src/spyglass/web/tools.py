"""Tool endpoints: the tools of the surface (spyglass.surface) over HTTP, each answering with
a result envelope; query parameters (or a POST body) parsed as the surface declares them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from spyglass import budget, surface
from spyglass.errors import BadInput
from spyglass.web.http import (
    allowed,
    blocking,
    error,
    flag,
    guarded,
    json_body,
    number,
    repo,
    text,
)
from spyglass.web.overlay import diagnostics_summary

POSITION_HINT = "give name=SYMBOL, or path=FILE&line=N[&column=C]"
KINDS = {"str": str, "int": int, "bool": bool}


def query_value(request: Request, p: surface.Param) -> Any:
    """One declared parameter from the query string (a span: path, start and end)."""
    name = p.http_name
    if p.kind == "str":
        return text(request, name, required=p.required)
    if p.kind == "int":
        value = number(request, name, p.default if isinstance(p.default, int) else None)
        p.check(value)
        return value
    if p.kind == "bool":
        return flag(request, name)
    if p.kind == "strs":
        return request.query_params.getlist(name)
    path = text(request, "path", required=True)
    assert path is not None
    start = number(request, "start", 1) or 1
    return [surface.check_span(path, start, number(request, "end", start) or start)]


def body_value(data: dict[str, Any], p: surface.Param) -> Any:
    """One declared parameter from a JSON body (keys are the MCP names), type-checked."""
    value = data.get(p.name, p.default)
    if value is None:
        if p.required:
            raise BadInput(f"the body needs {p.name!r}")
        return [] if p.kind == "strs" else None
    if p.kind == "strs":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BadInput(f"{p.name} must be a list of strings")
        return value
    want = KINDS.get(p.kind)
    if want is None or not isinstance(value, want) or (want is int and isinstance(value, bool)):
        raise BadInput(f"{p.name} must be a {p.kind}")
    p.check(value)
    return value


async def arguments(request: Request, tool: surface.Tool) -> dict[str, Any]:
    """The values of the tool's parameters offered over HTTP."""
    offered = [p for p in tool.params if p.http is not None]
    if not tool.gated:
        values = {p.name: query_value(request, p) for p in offered}
        for p in offered:  # the web server's start is the root: a scope defaults to all of it
            if p.scoped and p.kind == "str" and not values[p.name]:
                values[p.name] = "."
    else:
        names = ", ".join(f'"{p.name}": ...' for p in offered)
        data = await json_body(request, f"{{{names}}}")  # capped, depth-bounded, an object
        values = {p.name: body_value(data, p) for p in offered}
    if tool.at:
        surface.check_position(values.get("name"), values.get("path"), values.get("line"),
                               values.get("column"), POSITION_HINT)
    return values


def endpoint(tool: surface.Tool) -> Callable[[Request], Any]:
    """GET (or POST) …/<route>: the tool's facade method on the parsed parameters."""

    async def handle(request: Request) -> Response:
        st = repo(request)
        if tool.gated:  # a POST: the mutating-call guards (Origin, admin token) apply
            problem = st.guard.mutation_problem(request)
            if problem:
                return error(problem, 403)
        allowed(st, tool.name)
        values = await arguments(request, tool)
        if tool.name == "code_diagnostics" and not values["paths"]:
            return await blocking(lambda: diagnostics_summary(st.ci))
        return await blocking(lambda: budget.fit(tool.call(st.ci, values), tool,
                                                 budget.chars_of(tool, values), "http"))

    handle.__name__ = tool.method
    handle.__doc__ = f"{'POST' if tool.gated else 'GET'} …/{tool.route} ({tool.name})"
    return guarded(handle)


def routes(prefix: str) -> list[Route]:
    """One route per tool the surface offers over HTTP (docs/web.md lists them)."""
    return [Route(f"{prefix}/{t.route}", endpoint(t), methods=["POST" if t.gated else "GET"])
            for t in surface.TOOLS.values() if t.route]
