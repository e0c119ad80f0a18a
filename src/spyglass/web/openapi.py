"""The OpenAPI 3.1 document of the JSON API, derived from the routes and the tool surface
(served at /api/v1/openapi.json; schemathesis tests the server against it)."""

from __future__ import annotations

import re
from typing import Any

from spyglass import surface

OBJECT: dict[str, Any] = {"type": "object"}
ERROR = {"description": "a JSON error with its reason",
         "content": {"application/json": {"schema": {
             "type": "object", "required": ["error"],
             "properties": {"error": {"type": "string"}}}}}}
KIND_SCHEMA: dict[str, dict[str, Any]] = {
    "str": {"type": "string"}, "int": {"type": "integer"}, "bool": {"type": "boolean"},
    "strs": {"type": "array", "items": {"type": "string"}},
}


def _q(name: str, schema: dict[str, Any], required: bool = False, doc: str = ""
       ) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "in": "query", "required": required, "schema": schema}
    if schema.get("type") == "array":
        out.update(style="form", explode=True)
    if doc:
        out["description"] = doc
    return out


S, I, B = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
# Query parameters of the routes written by hand (tools come from spyglass.surface).
HAND: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("get", "/api/v1/code/repos/{repo_id}"): [_q("full", B)],
    ("get", "/api/v1/code/repos/{repo_id}/events"): [_q("after", I), _q("follow", S)],
    ("get", "/api/v1/code/repos/{repo_id}/file"): [_q("path", S, True)],
    ("get", "/api/v1/code/repos/{repo_id}/lines"): [
        _q("at", {"type": "array", "items": S}, True, "PATH:LINE, repeatable")],
    ("get", "/api/v1/runs/{run_id}/code/graph"): [
        _q("symbol", S), _q("path", S), _q("line", I), _q("depth", I), _q("limit", I),
        _q("references", S), _q("relation", {"type": "string",
                                             "enum": ["callers", "callees", "hierarchy"]})],
}


def _tool_params(tool: surface.Tool) -> list[dict[str, Any]]:
    out = []
    for p in tool.params:
        if p.http is None:
            continue
        if p.kind == "spans":
            out += [_q("path", S, True), _q("start", I), _q("end", I)]
            continue
        schema = dict(KIND_SCHEMA.get(p.kind, S))
        if p.ge is not None:
            schema["minimum"] = p.ge
        if p.le is not None:
            schema["maximum"] = p.le
        out.append(_q(p.http_name, schema, p.required, p.help))
    return out


def _body(tool: surface.Tool) -> dict[str, Any]:
    props = {p.name: dict(KIND_SCHEMA.get(p.kind, S)) for p in tool.params if p.http is not None}
    required = [p.name for p in tool.params if p.http is not None and p.required]
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": props, "required": required}}}}


def document(routes: list[tuple[str, list[str], str]], values: dict[str, list[str]]
             ) -> dict[str, Any]:
    """The document for (path, methods, summary) of every API route; `values` are the path
    parameters this server knows (its repository id, its run ids)."""
    tools = {f"/api/v1/code/repos/{{repo_id}}/{t.route}": t
             for t in surface.TOOLS.values() if t.route}
    paths: dict[str, dict[str, Any]] = {}
    for path, methods, summary in routes:
        if not path.startswith("/api/"):
            continue
        for method in (m.lower() for m in methods if m != "HEAD"):
            params = [{"name": n, "in": "path", "required": True,
                       "schema": {"type": "string", "enum": values[n]} if n in values else S}
                      for n in re.findall(r"{(\w+)}", path)]
            op: dict[str, Any] = {"summary": summary.strip().splitlines()[0] if summary else "",
                                  "responses": {
                                      "200": {"description": "the answer",
                                              "content": {"application/json": {
                                                  "schema": OBJECT}}},
                                      "202": {"description": "accepted"},
                                      "4XX": ERROR}}
            tool = tools.get(path)
            if tool is not None and tool.gated:
                op["requestBody"] = _body(tool)
            elif tool is not None:
                params += _tool_params(tool)
            params += HAND.get((method, path), [])
            if path.endswith("/events"):
                op["responses"]["200"] = {"description": "text/event-stream",
                                          "content": {"text/event-stream": {"schema": S}}}
            if params:
                op["parameters"] = params
            paths.setdefault(path, {})[method] = op
    return {"openapi": "3.1.0",
            "info": {"title": "spyglass web API", "version": "1"},
            "paths": paths}
