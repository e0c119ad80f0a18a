"""CLI commands blast-radius, tests and explore: call the facade, print rows plus the extras."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from spyglass.cli.main import terminal_safe
from spyglass.query.facade import CodeIntel
from spyglass.types import ToolResult
from spyglass.wire import plain

PrintFn = Callable[[ToolResult, bool], int]


def run(ci: CodeIntel, args: argparse.Namespace, print_fn: PrintFn) -> int:
    """Dispatch `blast-radius`, `tests` or `explore`; --json prints the structured result."""
    if args.command == "blast-radius":
        result = ci.blast_radius(list(args.targets), args.diff, args.depth)
    elif args.command == "tests":
        result = ci.suggest_tests(list(args.targets), args.diff, args.depth)
    else:
        result = ci.explore(args.query, args.budget)
    code = print_fn(result, args.json)
    if not args.json:
        for line in extra_lines(result):
            print(terminal_safe(line))
    return code


def extra_lines(result: ToolResult) -> list[str]:
    """The grouped parts of an answer, for people: commands, files, neighbourhoods, notes."""
    extra = {k: plain(v) for k, v in result.extra}
    out: list[str] = []
    if "change" in extra:
        change = extra["change"]
        out.append(f"change: {change['origin']} ({len(change['files'])} file(s), "
                   f"{change['symbols']} symbol(s))")
    if extra.get("files"):
        files = extra["files"]
        out.append(f"files: {len(files)} affected, "
                   f"{sum(1 for f in files if f['test'])} of them tests")
    for symbol in extra.get("symbols", []):
        callers = ", ".join(f"{c['path']}:{c['line']}" for c in symbol["callers"]) or "-"
        callees = ", ".join(f"{c['path']}:{c['line']}" for c in symbol["callees"]) or "-"
        out.append(f"{symbol['symbol']}: callers {callers}; callees {callees}")
    for command in extra.get("commands", []):
        out.append(f"run ({command['framework']}): {command['command']}")
    for note in extra.get("notes", []):
        out.append(f"note: {note}")
    return out
