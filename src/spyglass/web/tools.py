"""Tool endpoints: the tools of docs/tools.md over HTTP, each answering with a result envelope."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from spyglass.errors import BadInput
from spyglass.web.http import (
    allowed,
    blocking,
    call_tool,
    error,
    flag,
    guarded,
    number,
    repo,
    text,
)
from spyglass.web.overlay import diagnostics_summary


@guarded
async def symbols(request: Request) -> Response:
    """GET …/symbols?q=NAME&kind=K&path=P (code_find_symbol)."""
    st = repo(request)
    allowed(st, "code_find_symbol")
    q = text(request, "q", required=True)
    kind, path = text(request, "kind"), text(request, "path")
    assert q is not None
    return await blocking(lambda: st.ci.find_symbol(q, kind, path))


def _position(request: Request) -> dict[str, Any]:
    name, path = text(request, "name"), text(request, "path")
    line, column = number(request, "line"), number(request, "column")
    if name is None and (path is None or line is None):
        raise BadInput("give name=SYMBOL, or path=FILE&line=N[&column=C]")
    return {"name": name, "path": path, "line": line, "column": column}


@guarded
async def references(request: Request) -> Response:
    """GET …/references?name= or ?path=&line=&column= (code_references)."""
    st = repo(request)
    allowed(st, "code_references")
    pos = _position(request)
    decl, exact = flag(request, "include_declaration"), flag(request, "exact_only")
    return await blocking(lambda: st.ci.references(**pos, include_declaration=decl,
                                                   exact_only=exact))


@guarded
async def callers(request: Request) -> Response:
    """GET …/callers?name= or ?path=&line=&column= (code_callers)."""
    st = repo(request)
    allowed(st, "code_callers")
    pos = _position(request)
    exact = flag(request, "exact_only")
    return await blocking(lambda: st.ci.callers(**pos, exact_only=exact))


@guarded
async def structure(request: Request) -> Response:
    """GET …/structure?path=P (code_structure)."""
    st = repo(request)
    allowed(st, "code_structure")
    path = text(request, "path", required=True)
    assert path is not None
    return await blocking(lambda: st.ci.structure(path))


@guarded
async def diagnostics(request: Request) -> Response:
    """GET …/diagnostics?path=P[&path=Q] (code_diagnostics; no path: bounded summary)."""
    st = repo(request)
    allowed(st, "code_diagnostics")
    paths = request.query_params.getlist("path")
    if not paths:
        return await blocking(lambda: diagnostics_summary(st.ci))
    return await blocking(lambda: st.ci.diagnostics(paths))


@guarded
async def context(request: Request) -> Response:
    """GET …/context?path=P&start=N&end=M (code_context: live source span)."""
    st = repo(request)
    allowed(st, "code_context")
    path = text(request, "path", required=True)
    start = number(request, "start", 1) or 1
    end = number(request, "end", start) or start
    assert path is not None
    return await blocking(lambda: st.ci.context([(path, start, end)]))


@guarded
async def ast_query(request: Request) -> Response:
    """POST …/ast-query {"query", "paths"} (code_ast_query; admin-gated when a token is set)."""
    st = repo(request)
    problem = st.guard.mutation_problem(request)
    if problem:
        return error(problem, 403)
    allowed(st, "code_ast_query")
    try:
        data = await request.json()
    except ValueError:
        raise BadInput("the request body must be JSON {\"query\": ..., \"paths\": [...]}") \
            from None
    query, paths = data.get("query"), data.get("paths", [])
    if not isinstance(query, str) or not isinstance(paths, list) or not all(
            isinstance(p, str) for p in paths):
        raise BadInput("query must be a string and paths a list of strings")
    return await blocking(lambda: st.ci.ast_query(query, paths))


@guarded
async def blast_radius(request: Request) -> Response:
    """GET …/blast-radius?target=T[&target=U]&diff=REV&depth=N (code_blast_radius)."""
    st = repo(request)
    allowed(st, "code_blast_radius")
    targets = request.query_params.getlist("target")
    diff, depth = text(request, "diff"), number(request, "depth")
    return await blocking(lambda: call_tool(st.ci, "blast_radius",
                                            targets=targets, diff=diff, depth=depth))


@guarded
async def suggest_tests(request: Request) -> Response:
    """GET …/tests?target=T&diff=REV (code_suggest_tests)."""
    st = repo(request)
    allowed(st, "code_suggest_tests")
    targets = request.query_params.getlist("target")
    diff = text(request, "diff")
    return await blocking(lambda: call_tool(st.ci, "suggest_tests",
                                            targets=targets, diff=diff))


@guarded
async def explore(request: Request) -> Response:
    """GET …/explore?q=QUERY&path=P&budget=N (code_explore)."""
    st = repo(request)
    allowed(st, "code_explore")
    q = text(request, "q", required=True)
    path, budget = text(request, "path"), number(request, "budget")
    return await blocking(lambda: call_tool(st.ci, "explore", query=q,
                                            path=path, budget=budget))
