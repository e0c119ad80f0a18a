"""The command line's grammar: exit codes and the argparse parser, whose tool subcommands,
options and help are derived from the tool surface (spyglass.surface)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from spyglass import surface

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C), as shells report it: 128 + 2
COMMANDS = {t.command: t for t in surface.TOOLS.values() if t.command}
SPAN_HELP = "PATH:START[-END], 1-based"


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with one line, as specified
        sys.stderr.write(f"spyglass: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _add(c: argparse.ArgumentParser, p: surface.Param) -> None:
    """One declared parameter as a positional argument or an option."""
    help_text = SPAN_HELP if p.kind == "spans" else (p.help or None)
    if p.positional:
        nargs: str | None
        if p.kind in ("strs", "spans") or p.words:
            nargs = "+" if p.required else "*"
        else:
            nargs = None if p.required else "?"
        c.add_argument(p.name, nargs=nargs, help=help_text)
    elif p.kind == "bool":
        c.add_argument(p.option, dest=p.name, action="store_true", help=help_text)
    elif p.kind == "int":
        bounds = [f"default {p.default}"] if p.default is not None else []
        if p.ge is not None or p.le is not None:
            bounds.append(f"{'' if p.ge is None else p.ge}..{'' if p.le is None else p.le}")
        extra = f" ({', '.join(bounds)})" if bounds else ""
        c.add_argument(p.option, dest=p.name, type=int, default=p.default, metavar="N",
                       help=f"{p.help}{extra}")
    else:
        c.add_argument(p.option, dest=p.name, help=help_text)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("spyglass")
    except PackageNotFoundError:  # run from a source tree
        return "unknown"


class _Version(argparse.Action):
    """`--version`: the installed version, read only when asked (importlib.metadata is slow
    to import, and every other command would pay for it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"spyglass {version()}")
        parser.exit()


def _globals(json_output: bool) -> Parser:
    """Options accepted before or after the subcommand. Their defaults live on the main
    parser: here they are suppressed, so a value given before the subcommand survives."""
    g = Parser(add_help=False)
    g.add_argument("-C", dest="directory", default=argparse.SUPPRESS, metavar="DIR",
                   help="run as if started in DIR")
    g.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE",
                   help="host config file (default ~/.config/spyglass/config.toml)")
    g.add_argument("--store", default=argparse.SUPPRESS, metavar="URL",
                   help="the team store (postgresql://…; default [store] url). Prefer the "
                   "config file or $SPYGLASS_STORE_URL: a password here is visible to ps")
    if json_output:
        g.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print the structured result (JSON) instead of text")
    return g


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="spyglass", description="Code intelligence for coding agents: where "
               "symbols are defined and used, who calls them, what a change affects and "
               "which tests to run. `spyglass COMMAND -h` explains a command.",
               epilog="setup: `spyglass init` prints the MCP config for your agent; "
               "`spyglass index` builds the index; `spyglass serve` is the MCP server.")
    p.add_argument("--version", action=_Version, nargs=0, help="show program's version number and exit")
    p.add_argument("-C", dest="directory", default=".", metavar="DIR",
                   help="run as if started in DIR")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="host config file (default ~/.config/spyglass/config.toml)")
    p.add_argument("--store", default=None, metavar="URL",
                   help="the team store (postgresql://…; default [store] url)")
    p.add_argument("--json", action="store_true", default=False,
                   help="print the structured result (JSON) instead of text")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    with_json, without_json = _globals(True), _globals(False)

    def cmd(name: str, help_text: str, json_output: bool = True) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text,
                              parents=[with_json if json_output else without_json])

    c = cmd("index", "build or update the snapshot")
    c.add_argument("--ref", help="commit, branch or tag to index (default: target_branch, HEAD)")
    c.add_argument("--scip", metavar="FILE", help="then import a SCIP index (scip-python, "
                   "scip-typescript, scip-go) of the same commit as precise references")
    c.add_argument("--precise", action="store_true", help="wait for the precise pass "
                   "(scip-python, scip-typescript; docs/precise.md) instead of running it "
                   "in the background")
    c.add_argument("--precise-only", action="store_true",
                   help="run only the precise pass over the newest snapshot (the detached "
                   "pass `index` starts runs this)")
    c.add_argument("--snapshot", type=int, help="with --precise-only: that snapshot's id")
    c.add_argument("--no-wait", action="store_true",
                   help="fail at once if another index job is running (default: wait)")
    c = cmd("export", "write the snapshot as a SCIP index")
    c.add_argument("--scip", metavar="FILE", required=True,
                   help="the SCIP index to write (definitions and exact references)")
    c.add_argument("--ref", help="the snapshot of this ref or commit (default: the newest)")
    for name, tool in COMMANDS.items():
        c = cmd(name, tool.summary)
        for param in tool.params:
            if param.cli is not None:
                _add(c, param)
        if tool.at:
            c.add_argument("--at", metavar="PATH:LINE[:COL]", help="a position, 1-based "
                           "(instead of a name)")
    c = cmd("serve", "MCP server over stdio (or --http)", json_output=False)
    c.add_argument("--http", metavar="HOST:PORT",
                   help="serve MCP over streamable HTTP at this address instead of stdio")
    c.add_argument("--require-index", action="store_true",
                   help="fail at start-up when the repository has no index")
    c.add_argument("--session-log", metavar="FILE",
                   help="append every tool call and its answer size to FILE (JSON lines)")
    _allow_host(c)
    c = cmd("web", "web page and HTTP API", json_output=False)
    c.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; beyond loopback needs "
                   "[codeintel] admin_token)")
    c.add_argument("--port", type=_port, default=8765, help="TCP port (default 8765)")
    _allow_host(c)
    cmd("desktop", "the web page in a native window (needs the [desktop] extra)",
        json_output=False)
    c = cmd("worker", "take index jobs from the team store's queue (docs/team.md)",
            json_output=False)
    c.add_argument("--once", action="store_true",
                   help="stop when the queue has no job for this worker's repositories")
    c.add_argument("--poll", type=float, default=2.0, metavar="S",
                   help="seconds between looks at an empty queue (default 2)")
    c.add_argument("--name", default="", help="this worker's name in the queue "
                   "(default host:pid)")
    c.add_argument("--lease", type=float, default=60.0, metavar="S",
                   help="seconds a job stays this worker's without renewal (default 60): "
                   "after a crash, another worker takes the job once it lapses")
    c = cmd("enqueue", "queue an index job of a repository in the team store")
    c.add_argument("repo", help="the repository's id, as the workers' [team] repos name it")
    c.add_argument("--ref", default="HEAD", help="commit, branch or tag (default HEAD)")
    c = cmd("init", "print or write the MCP config and agent instructions", json_output=False)
    c.add_argument("--client", choices=("claude", "cursor", "vscode", "all"), default="all",
                   help="which agent's MCP config (default: all)")
    c.add_argument("--write", action="store_true",
                   help="write the files into the repository (default: print them)")
    return p


def _allow_host(c: argparse.ArgumentParser) -> None:
    c.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also accept this Host name (besides loopback and the bound address)")


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text!r}")
    return int(text)
