"""CLI commands: call the query facade, print JSON or aligned rows for people."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spyglass.cli.main import EXIT_OK, dump, position, start_dir, terminal_safe
from spyglass.config import load_config
from spyglass.errors import BadInput
from spyglass.types import ToolResult
from spyglass.wire import plain, result_json

if TYPE_CHECKING:  # the query layer (tree-sitter, SQLite) loads only for commands using it
    from spyglass.query.facade import CodeIntel


def _intel(args: argparse.Namespace) -> CodeIntel:
    from spyglass.query.facade import CodeIntel
    start = start_dir(args)
    ci = CodeIntel(start)
    if args.config:
        ci.config = load_config(Path(args.config), repo_root=ci.root)
    return ci


def _rows(result: ToolResult) -> list[tuple[str, str, str, str]]:
    rows = []
    for r in result.results:
        d = plain(r)
        if "start_line" in d and "symbol" in d:
            flag = "?" if d.get("uncertain") else ("~" if d.get("stale") else "")
            rows.append((f"{d['path']}:{d['start_line']}", d["kind"], d["symbol"], flag))
        elif "message" in d:
            rows.append((f"{d['path']}:{d['start_line']}:{d['column']}", d["severity"],
                         d["message"], ""))
        elif "text" in d and "content_hash" in d:
            rows.append((f"{d['path']}:{d['start_line']}-{d['end_line']}", "source",
                         d["text"].rstrip("\n"), ""))
        else:
            rows.append(("", "", str(d), ""))
    return rows


def _print(result: ToolResult, as_json: bool) -> int:
    if as_json:
        dump(result_json(result))
        return EXIT_OK
    from rich.console import Console
    console = Console(highlight=False, soft_wrap=True)
    rows = _rows(result)
    width = max((len(r[0]) for r in rows), default=0)
    kwidth = max((len(r[1]) for r in rows), default=0)
    for loc, kind, symbol, flag in rows:
        mark = f"  [yellow]{'uncertain' if flag == '?' else 'stale'}[/]" if flag else ""
        console.print(f"[cyan]{_escape(loc.ljust(width))}[/]  "
                      f"[magenta]{_escape(kind.ljust(kwidth))}[/]  "
                      f"{_escape(symbol, lines=kind == 'source')}{mark}")
    if not rows:
        console.print("no results", style="dim")
    for limitation in result.coverage.limitations:
        console.print(f"note: {_escape(limitation)}", style="yellow")
    if result.truncated:
        console.print("(truncated: raise max_matches_per_request to see more)", style="yellow")
    return EXIT_OK


def _escape(text: str, lines: bool = False) -> str:
    """Repository text for rich: control characters escaped, markup brackets literal."""
    from rich.markup import escape
    return escape(terminal_safe(text, lines))


def _index(ci: CodeIntel, args: argparse.Namespace) -> int:
    progress_cb: Any = None
    bar: Any = None
    if sys.stderr.isatty() and not args.json:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
        bar = Progress("[progress.description]{task.description}", BarColumn(),
                       MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
        task = bar.add_task("indexing", total=None)
        bar.start()

        def progress_cb(phase: str, done: int, total: int, persisted: int) -> None:
            bar.update(task, completed=done, total=total or None,
                       description=f"parsing ({persisted} persisted)")
    def waiting(message: str) -> None:
        sys.stderr.write(f"spyglass: {message}\n")
    try:
        snap = ci.index(args.ref, progress_cb, wait=not getattr(args, "no_wait", False),
                        on_wait=waiting)
    finally:
        if bar is not None:
            bar.stop()
    info = {"state": snap.state, "repo": snap.repo, "ref": snap.ref,
            "ref_source": snap.ref_source, "commit": snap.commit,
            "indexed_at": snap.indexed_at, "files": snap.files, "parsed": snap.parsed,
            "persisted": snap.persisted, "reused": snap.reused, "root": str(ci.root),
            "store": str(ci.store_root / ".spyglass")}
    if args.json:
        dump(info)
    else:
        print(terminal_safe(f"indexed {ci.repo} at {snap.ref} "
                            f"({(snap.commit or 'working tree')[:12]}; {snap.ref_source}): "
                            f"{snap.files} files, {snap.parsed} parsed, {snap.reused} reused"))
    return EXIT_OK


def _status(ci: CodeIntel, args: argparse.Namespace) -> int:
    result = ci.status()
    if args.json:
        dump(result_json(result))
        return EXIT_OK
    report = plain(result.results[0])

    def show(line: str) -> None:  # every line of the report, control characters escaped
        print(terminal_safe(line))
    show(f"root       {report['root']}")
    show(f"repo       {report['repo']}")
    if report["indexed"]:
        show(f"snapshot   {report['snapshot_ref']} {report['snapshot_commit'] or '(disk)'} "
              f"indexed {report['indexed_at']}")
        if report.get("snapshot_ref_source"):
            show(f"ref        {report['snapshot_ref_source']}")
    else:
        show(f"snapshot   none: {report['hint']}")
    if report.get("job_state"):
        error = f": {report['job_error']}" if report.get("job_error") else ""
        show(f"last job   {report['job_state']} ({report.get('job_parsed') or 0} parsed, "
              f"{report.get('job_persisted') or 0} persisted){error}")
    if report.get("head"):
        base = (report.get("overlay_base") or "none")[:12]
        show(f"workspace  {report['head']}, merge-base {base}")
    for lang in report["languages"]:
        show(f"language   {lang['language']:<12} {lang['files']:>6} files {lang['lines']:>8} lines")
    for reason, n in report["skipped_by_reason"]:
        show(f"skipped    {n:>6}  {reason}")
    changed = len(report["overlay_added"]) + len(report["overlay_modified"]) + len(
        report["overlay_deleted"])
    show(f"overlay    {len(report['overlay_added'])} added, {len(report['overlay_modified'])} "
          f"modified, {len(report['overlay_deleted'])} deleted")
    for kind, paths in report.get("overlay_kinds") or []:
        if paths:
            shown = ", ".join(paths[:5]) + (f", … ({len(paths)} in all)" if len(paths) > 5 else "")
            show(f"  {kind:<9}  {shown}")
    for old, new in report.get("overlay_renamed") or []:
        show(f"  renamed    {old} -> {new}")
    show(f"freshness  {'fresh' if not changed else 'overlay applied (answers follow disk)'}")
    if report["worktree_mismatch"]:
        show(f"mismatch   {report['worktree_mismatch']}")
    return EXIT_OK


def _spans(texts: list[str]) -> list[tuple[str, int, int]]:
    out = []
    for text in texts:
        path, _, lines = text.rpartition(":")
        if not path:
            raise BadInput(f"context wants PATH:START[-END], got {text!r}")
        start, _, end = lines.partition("-")
        if not start.isdigit() or (end and not end.isdigit()):
            raise BadInput(f"context wants PATH:START[-END], got {text!r}")
        out.append((path, int(start), int(end or start)))
    return out


def run(args: argparse.Namespace) -> int:
    """Dispatch one parsed command line."""
    command = args.command
    if command == "serve":
        from spyglass.mcp.server import serve
        return serve(start_dir(args), http=args.http, require_index=args.require_index,
                     session_log=args.session_log, config_path=args.config,
                     allow_hosts=args.allow_host)
    if command == "web":
        from spyglass.web.app import run_web
        return run_web(start_dir(args), args.host, args.port, args.config,
                       allow_hosts=args.allow_host)
    ci = _intel(args)
    if command == "index":
        return _index(ci, args)
    if command == "status":
        return _status(ci, args)
    if command == "find":
        return _print(ci.find_symbol(args.name, args.kind, args.path), args.json)
    if command in ("refs", "callers"):
        path = line = column = None
        if args.at:
            path, line, column = position(args.at)
        elif not args.name:
            raise BadInput(f"{command} wants a NAME or --at PATH:LINE[:COL]")
        if command == "refs":
            result = ci.references(args.name, path, line, column, args.include_declaration,
                                   args.exact)
        else:
            result = ci.callers(args.name, path, line, column, args.exact)
        return _print(result, args.json)
    if command == "structure":
        return _print(ci.structure(args.path), args.json)
    if command == "diagnostics":
        return _print(ci.diagnostics(args.paths), args.json)
    if command == "context":
        return _print(ci.context(_spans(args.spans)), args.json)
    if command in ("blast-radius", "tests", "explore"):
        from spyglass.cli import impact
        return impact.run(ci, args, _print)
    raise BadInput(f"unknown command {command}")
