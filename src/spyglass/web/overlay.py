"""The run views' JSON: the workspace overlay as a diff, and the repository diagnostics."""

from __future__ import annotations

from typing import Any

from spyglass.errors import IndexUnavailable
from spyglass.query.facade import CodeIntel
from spyglass.wire import plain, result_json


def diff_overlay(ci: CodeIntel, run_id: str) -> dict[str, Any]:
    """Added/modified/deleted paths vs the snapshot, with definitions added/removed/changed."""
    try:
        result = ci.overlay_diff()
    except IndexUnavailable as exc:
        raise IndexUnavailable(f"{exc} (POST /api/v1/code/repos/{{repo_id}}/index)") from None
    return {"run_id": run_id, **result_json(result)}


def diagnostics_summary(ci: CodeIntel) -> dict[str, Any]:
    """Parse diagnostics of every analysed file in the view (baseline + overlay), bounded."""
    out: dict[str, Any] = plain(ci.diagnostics_summary())
    return out
