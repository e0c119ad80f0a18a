"""JSON schemas of the tools: compact input schemas and the result-envelope output schemas."""

from __future__ import annotations

from typing import Any

LOCATION = ("path", "start_line", "end_line", "symbol", "kind", "source", "stale", "uncertain")
SPAN = ("path", "start_line", "end_line", "content_hash", "text", "truncated")
DIAGNOSTIC = ("path", "start_line", "end_line", "column", "severity", "message")
AST_MATCH = ("path", "capture", "node_type", "start_line", "end_line", "text")
STATUS = ("root", "indexed", "fresh", "tools", "hint")


def item(required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    if required:
        out["required"] = list(required)
    return out


def envelope(results: dict[str, Any]) -> dict[str, Any]:
    """The result object of docs/contract.md: results, truncated, coverage, provenance (more keys allowed)."""
    return {
        "type": "object",
        "required": ["results", "truncated", "coverage", "provenance"],
        "properties": {
            "results": {"type": "array", "items": results},
            "truncated": {"type": "boolean"},
            "coverage": {"type": "object"},
            "provenance": {"type": "object"},
        },
    }


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic argument schema without the noise: no titles, `X | None` as plain `X`,
    `$defs` inlined. The published schema stays equivalent for every value a model sends
    (an explicit null for an optional argument is still accepted by the argument model)."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return walk(defs[ref.removeprefix("#/$defs/")])
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("title", "$defs"):
                continue
            if key == "default" and value is None:
                continue
            if key == "properties":
                out[key] = {name: walk(prop) for name, prop in value.items()}
                continue
            out[key] = walk(value)
        options = out.get("anyOf")
        if isinstance(options, list):
            rest = [o for o in options if o != {"type": "null"}]
            if len(rest) == 1 and len(rest) < len(options):
                del out["anyOf"]
                out = {**rest[0], **out}
        return out

    result = walk(schema)
    assert isinstance(result, dict)
    return result
