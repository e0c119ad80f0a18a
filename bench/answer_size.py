"""Answer sizes as an MCP client sees them: characters of text and of structuredContent for
ordinary questions (a one-line change, a central class, a whole file) on real corpora.

    .venv/bin/python bench/answer_size.py [--corpus cobra --corpus flask] [--max-chars N]

The text and structured content are made exactly as the MCP server makes them (the answer
budget, then render.py and wire.py); `--max-chars 0` shows the answers unbudgeted."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy.compare import prepare_root

from spyglass import surface
from spyglass.query.facade import CodeIntel
from spyglass.render import render
from spyglass.types import ToolResult
from spyglass.wire import result_json

# Per corpus: a central definition, a whole file, and a line inside a function body of
# that file (the one-line change).
CASES: dict[str, dict[str, str]] = {
    "cobra": {"symbol": "Command", "file": "command.go", "line_after": "func (c *Command) Name() string {"},
    "client_golang": {"symbol": "Registry", "file": "prometheus/registry.go",
                      "line_after": "func (r *Registry) Register(c Collector) error {"},
    "flask": {"symbol": "Flask", "file": "src/flask/helpers.py",
              "line_after": "def get_debug_flag() -> bool:"},
    "requests": {"symbol": "Session", "file": "src/requests/models.py",
                 "line_after": "    def prepare_method(self, method: str | None) -> None:"},
    "httpx": {"symbol": "Client", "file": "httpx/_models.py",
              "line_after": "    def raise_for_status(self) -> Response:"},
    "trpc": {"symbol": "TRPCError", "file": "src/unstable-core-do-not-import/error/TRPCError.ts",
             "line_after": "export function getTRPCErrorFromUnknown(cause: unknown): TRPCError {"},
}


def one_line_change(root: Path, file: str, after: str) -> int:
    """Edit the line after `after` (a comment appended) and return its number."""
    path = root / file
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, text in enumerate(lines) if text.rstrip("\n") == after) + 1
    marker = "  # changed" if file.endswith(".py") else "  // changed"
    lines[index] = lines[index].rstrip("\n") + marker + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return index + 1


def sized(ci: CodeIntel, tool: str, values: dict[str, Any], max_chars: int | None
          ) -> tuple[int, int, int]:
    """(text characters, structured characters, results) of one call as MCP answers it."""
    declared = surface.TOOLS[tool]
    result: ToolResult = declared.call(ci, values)
    try:
        from spyglass import budget
    except ImportError:  # a version without answer budgets
        budget = None  # type: ignore[assignment]
    if budget is not None:
        chars = budget.chars_of(declared, values) if max_chars is None else max_chars
        result = budget.fit(result, declared, chars, "mcp")
    text = render(result, tool)
    return len(text), len(json.dumps(result_json(result))), len(result.results)


def questions(case: dict[str, str], line: int) -> list[tuple[str, dict[str, Any]]]:
    file, symbol = case["file"], case["symbol"]
    return [
        ("code_suggest_tests", {"targets": [], "depth": 3}),
        ("code_blast_radius", {"targets": [], "depth": 3}),
        ("code_blast_radius", {"targets": [file], "depth": 3}),
        ("code_suggest_tests", {"targets": [file], "depth": 3}),
        ("code_references", {"name": symbol}),
        ("code_callers", {"path": file, "line": line - 1}),
        ("code_find_symbol", {"name": symbol, "path": "."}),
        ("code_structure", {"path": file}),
        ("code_context", {"spans": [(file, 1, 100_000)]}),
        ("code_diagnostics", {"paths": ["."]}),
        ("code_ast_query", {"query": "(identifier) @i", "paths": [file]}),
        ("code_explore", {"query": symbol, "budget": 2000, "path": "."}),
        ("code_status", {}),
    ]


def run(names: list[str], max_chars: int | None, report: Callable[[str], None]) -> None:
    for name in names:
        case = CASES[name]
        parent = Path(tempfile.mkdtemp(prefix=f"spyglass-size-{name}-"))
        try:
            root = prepare_root(name, parent)
            ci = CodeIntel(root)
            ci.index()
            line = one_line_change(root, case["file"], case["line_after"])
            for tool, values in questions(case, line):
                if tool == "code_status":
                    values = {}
                    result = ci.status()
                    text, data, n = len(render(result, tool)), len(json.dumps(
                        result_json(result))), 1
                else:
                    text, data, n = sized(ci, tool, values, max_chars)
                what = ", ".join(f"{k}={v}" for k, v in values.items() if v not in ([], None))
                report(f"{name:14} {tool:20} {what[:60]:60} text {text:>7}  structured "
                       f"{data:>8}  results {n:>5}")
        finally:
            shutil.rmtree(parent, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", choices=sorted(CASES))
    ap.add_argument("--max-chars", type=int, default=None,
                    help="the budget (default: each tool's default; 0: none)")
    args = ap.parse_args()
    run(args.corpus or ["cobra", "flask"], args.max_chars, print)


if __name__ == "__main__":
    main()
