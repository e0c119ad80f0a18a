"""The `spyglass` command line (docs/tools.md): argument parsing and dispatch."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spyglass.errors import BadInput, SpyglassError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with one line, as specified
        sys.stderr.write(f"spyglass: {message}\n")
        raise SystemExit(EXIT_USAGE)


def position(text: str) -> tuple[str, int, int | None]:
    """PATH:LINE[:COL] (1-based) → parts."""
    parts = text.rsplit(":", 2)
    try:
        if len(parts) == 3 and parts[2].isdigit() and parts[1].isdigit():
            return parts[0], int(parts[1]), int(parts[2])
        path, line = text.rsplit(":", 1)
        return path, int(line), None
    except ValueError:
        raise BadInput(f"--at wants PATH:LINE[:COL], got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="spyglass", description="Code intelligence for coding agents.")
    p.add_argument("-C", dest="directory", default=".", help="run as if started in DIR")
    p.add_argument("--config", help="host config file (default ~/.config/spyglass/config.toml)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help_text)
        if name not in ("serve", "web"):
            c.add_argument("--json", action="store_true", help="print the structured result")
        return c

    c = cmd("index", "build or update the snapshot")
    c.add_argument("--ref", help="commit, branch or tag to index (default: target_branch, HEAD)")
    c.add_argument("--no-wait", action="store_true",
                   help="fail at once if another index job is running (default: wait)")
    c = cmd("find", "definitions matching a name")
    c.add_argument("name")
    c.add_argument("--kind")
    c.add_argument("--path")
    for name, text in (("refs", "references to a symbol"), ("callers", "direct callers")):
        c = cmd(name, text)
        c.add_argument("name", nargs="?")
        c.add_argument("--at", help="PATH:LINE[:COL], 1-based")
        c.add_argument("--exact", action="store_true", help="only resolved (certain) results")
        if name == "refs":
            c.add_argument("--include-declaration", action="store_true")
    c = cmd("structure", "symbols in a file or package")
    c.add_argument("path")
    for name, text in (("blast-radius", "what a change affects"),
                       ("tests", "tests to run for a change")):
        c = cmd(name, text)
        c.add_argument("targets", nargs="*", help="paths, PATH:LINE[-LINE] or symbols")
        c.add_argument("--diff", help="a git revision or range to take the change from")
        c.add_argument("--depth", type=int, default=3)
    c = cmd("explore", "bounded discovery from a query, path or symbol")
    c.add_argument("query")
    c.add_argument("--budget", type=int, default=2000, help="token budget")
    cmd("status", "index state")
    c = cmd("diagnostics", "parse diagnostics for paths")
    c.add_argument("paths", nargs="*")
    c = cmd("context", "current source of PATH:START[-END] spans")
    c.add_argument("spans", nargs="+")
    c = cmd("serve", "MCP server over stdio (or --http)")
    c.add_argument("--http", metavar="HOST:PORT")
    c.add_argument("--require-index", action="store_true")
    c.add_argument("--session-log", metavar="FILE")
    c = cmd("web", "web page and HTTP API")
    c.add_argument("--host", default="127.0.0.1")
    c.add_argument("--port", type=int, default=8765)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        from spyglass.cli import commands
        return commands.run(args)
    except SpyglassError as exc:
        code = EXIT_USAGE if isinstance(exc, BadInput) else EXIT_FAIL
        sys.stderr.write(f"spyglass: {exc}\n")
        return code
    except KeyboardInterrupt:
        sys.stderr.write("spyglass: interrupted\n")
        return EXIT_FAIL
    except BrokenPipeError:
        return EXIT_OK


def dump(obj: object) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def start_dir(args: argparse.Namespace) -> Path:
    path = Path(args.directory)
    if not path.is_dir():
        raise BadInput(f"-C {args.directory}: not a directory")
    return path


if __name__ == "__main__":
    raise SystemExit(main())
