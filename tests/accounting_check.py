"""The accounting invariant asserted on one answer (bench/accuracy/invariant.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from accuracy.invariant import violations

from spyglass.query.facade import CodeIntel
from spyglass.types import ToolResult


def assert_accounted(ci: CodeIntel, result: ToolResult, path: str, line: int, col: int,
                     calls: bool) -> None:
    found = violations(ci, result, path, line, col, calls)
    assert not found, found
