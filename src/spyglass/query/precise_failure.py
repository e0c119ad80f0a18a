"""The file a precise tool says it crashed on (docs/precise.md, "When a tool fails on a
file"): read from the tail of its error output, kept only if it names a workspace file."""

from __future__ import annotations

import re
from pathlib import Path

# scip-python ends a crash in its per-file walk with the object it threw, printed by node:
# `{ currentFilepath: '/abs/path.py', error: Error: Debug Failure ... }`.
_FAILED = re.compile(r"currentFilepath:\s*(['\"`])(.+?)\1")


def failing_file(text: str, root: Path) -> str | None:
    """The workspace-relative path of the file the tool's output says it failed on (the
    last one named), or None (no file named, or one outside the workspace)."""
    found = _FAILED.findall(text)
    if not found:
        return None
    named = found[-1][1].replace("\\'", "'")
    base = str(root.resolve())
    if not named.startswith(base + "/"):
        return None
    rel = named[len(base) + 1:]
    return rel if rel and ".." not in rel.split("/") else None
