"""The command line's grammar: exit codes and the argparse parser, whose tool subcommands,
options and help are derived from the tool surface (spyglass.surface)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from spyglass import surface

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
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
        if p.kind in ("strs", "spans"):
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


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="spyglass", description="Code intelligence for coding agents.")
    p.add_argument("-C", dest="directory", default=".", help="run as if started in DIR")
    p.add_argument("--config", help="host config file (default ~/.config/spyglass/config.toml)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    def cmd(name: str, help_text: str, json_output: bool = True) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help_text)
        if json_output:
            c.add_argument("--json", action="store_true", help="print the structured result")
        return c

    c = cmd("index", "build or update the snapshot")
    c.add_argument("--ref", help="commit, branch or tag to index (default: target_branch, HEAD)")
    c.add_argument("--no-wait", action="store_true",
                   help="fail at once if another index job is running (default: wait)")
    for name, tool in COMMANDS.items():
        c = cmd(name, tool.summary)
        for param in tool.params:
            if param.cli is not None:
                _add(c, param)
        if tool.at:
            c.add_argument("--at", metavar="PATH:LINE[:COL]", help="a position, 1-based "
                           "(instead of a name)")
    c = cmd("serve", "MCP server over stdio (or --http)", json_output=False)
    c.add_argument("--http", metavar="HOST:PORT")
    c.add_argument("--require-index", action="store_true")
    c.add_argument("--session-log", metavar="FILE")
    _allow_host(c)
    c = cmd("web", "web page and HTTP API", json_output=False)
    c.add_argument("--host", default="127.0.0.1")
    c.add_argument("--port", type=_port, default=8765)
    _allow_host(c)
    return p


def _allow_host(c: argparse.ArgumentParser) -> None:
    c.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also accept this Host name (besides loopback and the bound address)")


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text!r}")
    return int(text)
