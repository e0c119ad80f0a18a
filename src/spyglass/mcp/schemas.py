"""JSON schemas of the tools: compact input schemas and the result-envelope output schemas
(the item fields come from the result type the tool surface declares)."""

from __future__ import annotations

import dataclasses
from typing import Any


def required_fields(result: type) -> tuple[str, ...]:
    """The fields every item of a result type carries: its dataclass fields without a
    default (the ones with a default were added later and may be absent in older answers)."""
    return tuple(f.name for f in dataclasses.fields(result)
                 if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)


def item(required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    if required:
        out["required"] = list(required)
    return out


def envelope(results: dict[str, Any]) -> dict[str, Any]:
    """The result envelope of docs/contract.md, of which the schema states the results (an
    array of items with their fields); truncated, coverage and provenance, the same for
    every tool, are left to the contract so that tools/list stays within its budget
    (docs/mcp.md)."""
    return {"type": "object", "required": ["results"],
            "properties": {"results": {"type": "array", "items": results}}}


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
