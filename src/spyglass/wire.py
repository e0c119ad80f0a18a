"""The JSON shape of query results, shared by the outer layers (mcp, cli, web)."""

from __future__ import annotations

import dataclasses
from typing import Any

from spyglass.types import Accounting, Coverage, Provenance, ToolResult


def plain(value: object) -> Any:
    """Dataclasses → dicts, tuples → lists, recursively; tuples of pairs stay lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def coverage_json(c: Coverage) -> dict[str, Any]:
    return {
        "analysed": c.analysed,
        "analysed_files": list(c.analysed_files),
        "skipped": [{"path": s.path, "reason": s.reason} for s in c.skipped],
        "skipped_total": c.skipped_total,
        "limitations": list(c.limitations),
        "languages": list(c.languages),
        **({"accounting": accounting_json(c.accounting)} if c.accounting else {}),
    }


def accounting_json(a: Accounting) -> dict[str, Any]:
    """The tally of docs/contract.md "Accounting", with `complete` spelled out."""
    return {"occurrences": a.occurrences, "certain": a.certain, "flagged": a.flagged,
            "excluded": a.excluded, "cut": a.cut, "complete": a.complete,
            "by_rule": dict(a.by_rule)}


def provenance_json(p: Provenance) -> dict[str, Any]:
    return {
        "repo": p.repo, "ref": p.ref, "commit": p.commit, "indexed_at": p.indexed_at,
        "workspace_digest": p.workspace_digest, "tree_sitter": p.tree_sitter,
        "grammars": dict(p.grammars), "query_packs": dict(p.query_packs),
        "worktree_mismatch": p.worktree_mismatch,
    }


def result_json(result: ToolResult) -> dict[str, Any]:
    """One tool answer as docs/contract.md's object: results, truncated, coverage, provenance."""
    out: dict[str, Any] = {
        "results": [plain(r) for r in result.results],
        "truncated": result.truncated,
        "coverage": coverage_json(result.coverage),
        "provenance": provenance_json(result.provenance),
    }
    for key, value in result.extra:
        out[key] = plain(value)
    return out
