"""Answer sizes as an MCP client sees them: characters of text and of structuredContent for
ordinary questions (a one-line change, a central class, a whole file) on real corpora.

    .venv/bin/python bench/answer_size.py [--corpus cobra --corpus flask] [--max-chars N]
    .venv/bin/python bench/answer_size.py --history GITDIR [--commits 30] [--rev main]

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

# Per corpus: a central definition, a central function (its callees), a whole file, and a
# line inside a function body of that file (the one-line change).
CASES: dict[str, dict[str, str]] = {
    "cobra": {"symbol": "Command", "function": "Command.ExecuteC", "file": "command.go",
              "line_after": "func (c *Command) Name() string {"},
    "client_golang": {"symbol": "Registry", "function": "Registry.Gather",
                      "file": "prometheus/registry.go",
                      "line_after": "func (r *Registry) Register(c Collector) error {"},
    "flask": {"symbol": "Flask", "function": "Flask.wsgi_app", "file": "src/flask/helpers.py",
              "line_after": "def get_debug_flag() -> bool:"},
    "requests": {"symbol": "Session", "function": "Session.send",
                 "file": "src/requests/models.py",
                 "line_after": "    def prepare_method(self, method: str | None) -> None:"},
    "httpx": {"symbol": "Client", "function": "Client.send", "file": "httpx/_models.py",
              "line_after": "    def raise_for_status(self) -> Response:"},
    "trpc": {"symbol": "TRPCError", "function": "resolveResponse",
             "file": "src/unstable-core-do-not-import/error/TRPCError.ts",
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
        ("code_callees", {"name": case["function"]}),
        ("code_type_hierarchy", {"name": symbol}),
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


def history(gitdir: Path, n: int, rev: str, report: Callable[[str], None]) -> dict[str, Any]:
    """code_suggest_tests for the changed hunks of the `n` newest commits changing source and
    tests (bench/test_suggest_eval.py picks them): text and structured sizes unbudgeted and
    budgeted, and recall@10 of the test files the budgeted answer shows (its tests, then
    its per-file rows) beside the unbudgeted answer's."""
    import statistics
    import subprocess

    import test_suggest_eval as ev
    from benchgit import GIT_SAFETY, git_env

    from spyglass import budget
    from spyglass.query.testmap import runnable
    tool = surface.TOOLS["code_suggest_tests"]
    work = Path(tempfile.mkdtemp(prefix="spyglass-size-history-"))
    root = work / "repo"
    rows: list[tuple[int, int, int, int, float, float]] = []
    try:
        subprocess.run(["git", *GIT_SAFETY, "-c", "protocol.file.allow=always", "clone",
                        "-q", "--shared", "--no-checkout", str(gitdir), str(root)],
                       env=git_env(), check=True)
        for c in ev.pick_commits(root, n, 3000, rev):
            ev.git(root, "checkout", "-q", "-f", "--detach", c.parent)
            ev.git(root, "clean", "-q", "-f", "-d", "-x", "-e", ".spyglass")
            CodeIntel(root).index()
            ev.git(root, "read-tree", "-u", "--reset", c.sha)
            raw = CodeIntel(root).suggest_tests(ev.line_targets(root, c), None, 3)
            fitted = budget.fit(raw, tool, surface.DEFAULT_CHARS, "mcp")
            truth = set([p for p in c.tests if runnable(p)] or c.tests)
            omitted = dict(fitted.extra).get("omitted")
            shown = [t.path for t in dict(fitted.extra)["tests"]]  # type: ignore[attr-defined]
            rows_of = [f.path for f in omitted.by_file] if omitted else []  # type: ignore[attr-defined]
            visible = list(dict.fromkeys(shown + rows_of))[:10]
            unbudgeted = list(dict.fromkeys(
                t.path for t in dict(raw.extra)["tests"]))[:10]  # type: ignore[attr-defined]
            rows.append((len(render(raw, tool.name)), len(json.dumps(result_json(raw))),
                         len(render(fitted, tool.name)), len(json.dumps(result_json(fitted))),
                         len(truth & set(visible)) / len(truth),
                         len(truth & set(unbudgeted)) / len(truth)))
            report(f"{c.sha[:10]} text {rows[-1][0]:>7} -> {rows[-1][2]:>6}  structured "
                   f"{rows[-1][1]:>8} -> {rows[-1][3]:>6}  {c.subject[:50]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"repo": str(gitdir), "commits": len(rows),
            "text_median_before": statistics.median(r[0] for r in rows),
            "text_max_before": max(r[0] for r in rows),
            "structured_max_before": max(r[1] for r in rows),
            "text_median": statistics.median(r[2] for r in rows),
            "text_max": max(r[2] for r in rows),
            "structured_max": max(r[3] for r in rows),
            "recall@10_budgeted": round(statistics.fmean(r[4] for r in rows), 3),
            "recall@10_unbudgeted": round(statistics.fmean(r[5] for r in rows), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", choices=sorted(CASES))
    ap.add_argument("--max-chars", type=int, default=None,
                    help="the budget (default: each tool's default; 0: none)")
    ap.add_argument("--history", type=Path, help="a git directory: measure code_suggest_tests "
                    "on the changed hunks of its newest commits instead")
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--rev", default="origin/HEAD")
    args = ap.parse_args()
    if args.history:
        print(json.dumps(history(args.history, args.commits, args.rev,
                                 lambda s: print(s, file=sys.stderr)), indent=1))
        return
    run(args.corpus or ["cobra", "flask"], args.max_chars, print)


if __name__ == "__main__":
    main()
