"""CLI commands: the surface's tools called on the facade, printed as JSON or as the
renderer's rows (spyglass.render); `index`, `serve` and `web` besides."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spyglass import budget, surface
from spyglass.cli.args import COMMANDS, EXIT_OK
from spyglass.config import Config, load_config
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


def _export(ci: CodeIntel, args: argparse.Namespace) -> int:
    """`spyglass export --scip FILE [--ref REF]` (docs/indexing.md "SCIP export")."""
    done = ci.export_scip(Path(args.scip), args.ref)
    if args.json:
        dump(dataclasses.asdict(done))
        return EXIT_OK
    print(escape_text(
        f"wrote {done.file}: snapshot {done.snapshot} ({done.ref}"
        f"{'; ' + done.commit[:12] if done.commit else ''}), {done.documents} documents, "
        f"{done.symbols} symbols, {done.definitions} definitions, {done.references} exact "
        f"references; left out: {done.omitted_uncertain} uncertain references, "
        f"{done.omitted_external} to names no file of the snapshot defines"))
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


def _team_config(args: argparse.Namespace) -> tuple[Config, str]:
    config = load_config(Path(args.config) if args.config else None)
    if not config.store_url:
        raise BadInput("no team store: give --store URL or set [store] url (docs/team.md)")
    return config, config.store_url


def _worker(args: argparse.Namespace) -> int:
    from spyglass.query.facade import run_worker
    config, url = _team_config(args)
    if not config.team_repos:
        raise BadInput("a worker indexes the repositories of [team] repos in its host "
                       "config; none is configured (docs/team.md)")
    repos = {k: Path(v) for k, v in config.team_repos}
    for repo, path in repos.items():
        if not path.is_dir():
            raise BadInput(f"[team] repos: {repo} → {path} is not a folder")

    def log(line: str) -> None:
        print(escape_text(line), file=sys.stderr, flush=True)
    done = run_worker(url, repos, config, once=args.once, poll=max(args.poll, 0.1),
                      lease=max(args.lease, 1.0), name=args.name, log=log)
    print(f"{done} job(s) done")
    return EXIT_OK


def _enqueue(args: argparse.Namespace) -> int:
    from spyglass.query.facade import enqueue_job
    config, url = _team_config(args)
    known = dict(config.team_repos)
    if known and args.repo not in known:
        raise BadInput(f"{args.repo} is not among the repositories of [team] repos: "
                       f"{', '.join(sorted(known))}")
    job = enqueue_job(url, args.repo, args.ref)
    if args.json:
        dump({"job": job.id, "repo": job.repo, "ref": job.ref, "state": job.state})
    else:
        print(f"job {job.id}: {job.repo} at {job.ref} ({job.state})")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Dispatch one parsed command line."""
    command = args.command
    if args.store:
        if not args.store.startswith(("postgresql://", "postgres://")):
            raise BadInput("--store must be a postgresql:// URL")
        os.environ["SPYGLASS_STORE_URL"] = args.store  # read by every config load
    if command == "worker":
        return _worker(args)
    if command == "enqueue":
        return _enqueue(args)
    if command == "serve":
        from spyglass.mcp.server import serve
        return serve(start_dir(args), http=args.http, require_index=args.require_index,
                     session_log=args.session_log, config_path=args.config,
                     allow_hosts=args.allow_host)
    if command == "web":
        from spyglass.web.app import run_web
        return run_web(start_dir(args), args.host, args.port, args.config,
                       allow_hosts=args.allow_host)
    if command == "desktop":
        from spyglass.desktop.window import run_desktop
        return run_desktop(start_dir(args), args.config)
    ci = _intel(args)
    if command == "init":
        return _init(ci.root, args)
    if command == "index":
        return _index(ci, args)
    if command == "export":
        return _export(ci, args)
    tool = COMMANDS.get(command)
    if tool is None:
        raise BadInput(f"unknown command {command}")
    given = values(tool, args)
    if tool.name == "code_find_symbol" and not str(given.get("name") or "").strip():
        raise BadInput("find wants a name or a pattern such as '*parse*'")
    ci = ci.for_repo(given.get("repo"))
    result = budget.fit(tool.call(ci, given), tool, budget.chars_of(tool, given), "cli")
    _unknown_name(tool, given, result)
    return _print(result, tool, args.json)


def _unknown_name(tool: surface.Tool, given: dict[str, Any], result: ToolResult) -> None:
    """`find NAME` with a plain name that names no definition (no glob, no filter) is bad
    input, as for every command taking a name (`refs`, `callers`, …): exit 2, the reason
    and any "did you mean" on stderr. A pattern or a filtered search finding nothing is an
    answer (exit 0, "no results")."""
    name = str(given.get("name") or "")
    if tool.name != "code_find_symbol" or result.results or given.get("kind") or \
            given.get("path") not in (None, "", ".") or any(c in name for c in "*?["):
        return
    close = next((n.split("; ", 1)[1] for n in result.coverage.limitations
                  if n.startswith(f"no definition named {name!r}; ")), "")
    hint = close or f"try a pattern such as '*{name.split('.')[-1]}*'"
    raise BadInput(f"no definition named {name!r}; {hint}")
