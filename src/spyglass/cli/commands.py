"""CLI commands: the surface's tools called on the facade, printed as JSON or as the
renderer's rows (spyglass.render); `index`, `serve` and `web` besides."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spyglass import budget, surface
from spyglass.cli.args import COMMANDS, EXIT_OK
from spyglass.config import load_config
from spyglass.errors import BadInput
from spyglass.render import escape_text, render
from spyglass.types import ToolResult
from spyglass.wire import result_json

if TYPE_CHECKING:  # the query layer (tree-sitter, SQLite) loads only for commands using it
    from spyglass.query.facade import CodeIntel


def _intel(args: argparse.Namespace) -> CodeIntel:
    from spyglass.query.facade import CodeIntel
    start = start_dir(args)
    ci = CodeIntel(start)
    if args.config:
        ci.config = load_config(Path(args.config), repo_root=ci.root)
        ci.config_path = Path(args.config).resolve()
    return ci


def dump(obj: object) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def start_dir(args: argparse.Namespace) -> Path:
    path = Path(args.directory)
    if not path.is_dir():
        raise BadInput(f"-C {args.directory}: not a directory")
    return path


def _print(result: ToolResult, tool: surface.Tool, as_json: bool) -> int:
    if as_json:
        dump(result_json(result))
    else:
        print(render(result, tool.name, people=True))
    return EXIT_OK


def values(tool: surface.Tool, args: argparse.Namespace) -> dict[str, Any]:
    """The tool's parameter values from the command line, checked as the surface says."""
    out: dict[str, Any] = {p.name: getattr(args, p.name) for p in tool.params
                           if p.cli is not None}
    for p in tool.params:
        if p.words and isinstance(out.get(p.name), list):  # `explore how are routes matched`
            out[p.name] = " ".join(out[p.name])
    for p in tool.params:
        value = out.get(p.name)
        p.check(value)
        if p.kind == "spans":
            out[p.name] = [surface.parse_span(text) for text in value or ()]
        elif p.scoped and not value:
            out[p.name] = ["."] if p.kind == "strs" else "."
        elif p.kind == "strs":
            out[p.name] = list(value or ())
    if tool.at:
        if args.at:
            out["path"], out["line"], out["column"] = surface.parse_position(args.at)
        surface.check_position(out.get("name"), out.get("path"), out.get("line"),
                               out.get("column"),
                               f"{tool.command} wants a NAME or --at PATH:LINE[:COL]")
    return out


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
        sys.stderr.write(f"spyglass: {escape_text(message)}\n")
    if getattr(args, "precise_only", False):  # the detached pass `index` started
        ci.precise_pass(getattr(args, "snapshot", None), "wait")
        return EXIT_OK
    mode = "wait" if getattr(args, "precise", False) else "detach"
    if getattr(args, "scip", None):
        mode = "off"  # the user's own SCIP import is the precise facts
    try:
        snap = ci.index(args.ref, progress_cb, wait=not getattr(args, "no_wait", False),
                        on_wait=waiting, precise="off")
    finally:
        if bar is not None:
            bar.stop()
    runs = ci.precise_pass(snap.id, mode) if snap.state == "completed" and mode != "off" \
        else []
    scip_file = getattr(args, "scip", None)
    imported = ci.import_scip(Path(scip_file)) if scip_file else None
    info: dict[str, object] = {"state": snap.state, "repo": snap.repo, "ref": snap.ref,
            "ref_source": snap.ref_source, "commit": snap.commit,
            "indexed_at": snap.indexed_at, "files": snap.files, "parsed": snap.parsed,
            "persisted": snap.persisted, "reused": snap.reused, "root": str(ci.root),
            "store": str(ci.store_root / ".spyglass")}
    if imported is not None:
        info["scip"] = {"tool": imported[0], "documents": imported[1],
                        "ignored": imported[2]}
    if runs:
        info["precise"] = [{"language": r.language, "tool": r.tool, "state": r.state,
                            "files": r.files, "seconds": r.seconds, "peak_mb": r.peak_mb,
                            "error": r.error} for r in runs]
    if args.json:
        dump(info)
    else:
        print(escape_text(f"indexed {ci.repo} at {snap.ref} "
                          f"({(snap.commit or 'working tree')[:12]}; {snap.ref_source}): "
                          f"{snap.files} files, {snap.parsed} parsed, {snap.reused} reused"))
        if imported is not None:
            ignored = f"; ignored (file missing): {', '.join(imported[2][:5])}" \
                if imported[2] else ""
            print(escape_text(f"imported {imported[0]}: {imported[1]} document(s){ignored}"))
        for r in runs:
            why = f": {r.error}" if r.error else ""
            print(escape_text(f"precise pass {r.language} ({r.tool}): {r.state}, {r.files} "
                              f"files, {r.seconds} s, peak {r.peak_mb} MB{why}"))
    return EXIT_OK


def _init(root: Path, args: argparse.Namespace) -> int:
    from spyglass.cli import onboarding
    files = onboarding.plan(root, args.client)
    if args.write:
        onboarding.write(root, files)
        for f in files:
            print(escape_text(f"wrote {root / f.path}"))
        return EXIT_OK
    for f in files:
        print(escape_text(f"# {f.path} (run `spyglass init --write` to write these files)"))
        print(escape_text(f.content, lines=True), end="\n")
    return EXIT_OK


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
    if command == "init":
        return _init(ci.root, args)
    if command == "index":
        return _index(ci, args)
    tool = COMMANDS.get(command)
    if tool is None:
        raise BadInput(f"unknown command {command}")
    given = values(tool, args)
    result = budget.fit(tool.call(ci, given), tool, budget.chars_of(tool, given), "cli")
    return _print(result, tool, args.json)
