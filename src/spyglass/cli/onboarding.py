"""`spyglass init`: the MCP config for Claude Code, Cursor and VS Code, and the agent
instructions (AGENTS.md / CLAUDE.md) saying when to prefer spyglass over grep
(docs/onboarding.md). Prints by default; `--write` merges into the repository's files."""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spyglass import surface
from spyglass.errors import BadInput, IndexUnavailable
from spyglass.query.facade import (
    read_repository_file,
    repository_file_kind,
    write_repository_file,
)

BEGIN, END = "<!-- spyglass:begin -->", "<!-- spyglass:end -->"
MAX_BYTES = 1 << 20  # a config or instructions file larger than this is not ours to edit


@dataclass(frozen=True)
class Planned:
    """One file `init` writes: where, and its whole new content."""

    path: str  # relative to the repository root
    content: str


def server_command() -> list[str]:
    """How an agent starts the server: the `spyglass` script installed beside this
    interpreter (absolute, so the agent needs no PATH), else the interpreter itself."""
    script = Path(sys.executable).parent / "spyglass"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "spyglass"]


def cli_program() -> str:
    """How the user's shell runs spyglass: `spyglass` when that name on PATH is this very
    program, else its absolute path (a virtual environment's script is not on PATH unless
    the environment is activated) or `python -m spyglass`."""
    command = server_command()
    for folder in os.environ.get("PATH", "").split(os.pathsep):  # PATH read, nothing run
        candidate = os.path.join(folder, "spyglass") if os.path.isabs(folder) else ""
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            same = os.path.realpath(candidate) == os.path.realpath(command[0])
            return "spyglass" if same else shlex.join(command)
    return shlex.join(command)


def _server(folder: str) -> dict[str, Any]:
    program, *rest = server_command()
    return {"command": program, "args": [*rest, "serve", "-C", folder]}


# client → (config file, top-level key, the folder argument the client expands)
CLIENTS = {
    "claude": (".mcp.json", "mcpServers", "."),
    "cursor": (".cursor/mcp.json", "mcpServers", "${workspaceFolder}"),
    "vscode": (".vscode/mcp.json", "servers", "${workspaceFolder}"),
}


def instructions() -> str:
    """The agent section: when to use which tool, and the CLI for sub-agents without MCP."""
    cli = {t.name: t.command for t in surface.TOOLS.values() if t.command}
    prog = cli_program()
    rows = [
        ("where is X defined", "code_find_symbol", "NAME  (globs: '*Conf*')"),
        ("who uses X (before renaming or changing a signature)", "code_references",
         "NAME  or --at PATH:LINE"),
        ("who calls X (before changing behaviour)", "code_callers", "NAME"),
        ("unsure where something lives", "code_explore", "'words or a name'"),
        ("what does my change affect", "code_blast_radius", "--diff HEAD"),
        ("which tests to run after editing", "code_suggest_tests", "--diff HEAD"),
        ("outline of a file or folder", "code_structure", "PATH"),
        ("current source of lines before editing", "code_context", "PATH:START-END"),
    ]
    intro = ("This repository is indexed by spyglass (MCP server `spyglass`). Prefer its "
             "tools to grep/find for structural questions: they resolve names through "
             "imports, scopes and types, flag guesses as `uncertain`, and say whether each "
             "answer is fresh against the files on disk. Use grep for plain text (log "
             "messages, comments, config values).")
    lines = [BEGIN, "## Code navigation: spyglass", "", intro, ""]
    for question, tool, args in rows:
        if tool in cli:
            lines.append(f"- {question}: `{tool}` (CLI: `{prog} {cli[tool]} {args}`)")
    cli_note = ("Sub-agents without the MCP tools run the same queries on the command line "
                f"from the repository root (`{prog} COMMAND -h` for options; `--json` for "
                "the structured result). Results cite `path:line`; read spans with "
                f"`{prog} context` before editing, never edit from index results. "
                f"`{prog} index` updates the index after a commit; uncommitted edits are "
                "followed automatically.")
    lines += ["", cli_note, END]
    return "\n".join(lines) + "\n"


def _read(root: Path, rel: str) -> str | None:
    """A file's text, or None when it does not exist; never through a symbolic link (read
    through descriptors, index/confined.py)."""
    for part in [*reversed(Path(rel).parents), Path(rel)]:
        if str(part) != "." and repository_file_kind(root, part.as_posix()) == "symlink":
            raise BadInput(f"{rel}: {part} is a symbolic link; spyglass init writes only "
                           "regular files inside the repository")
    found = repository_file_kind(root, rel)
    if found is None:
        return None
    if found != "file":
        raise BadInput(f"{rel} exists and is not a regular file")
    try:
        return read_repository_file(root, rel, MAX_BYTES).decode("utf-8")
    except OSError as exc:
        if getattr(exc, "size", None) is not None:
            raise BadInput(f"{rel} is larger than {MAX_BYTES} bytes; edit it by hand") from None
        raise BadInput(f"cannot read {rel}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"cannot read {rel}: {exc}") from None


def _config(root: Path, client: str) -> Planned:
    rel, key, folder = CLIENTS[client]
    text = _read(root, rel)
    data: Any = {}
    if text is not None and text.strip():
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BadInput(f"{rel} is not valid JSON ({exc}); fix it or remove it, nothing "
                           "was written") from None
        if not isinstance(data, dict) or not isinstance(data.get(key, {}), dict):
            raise BadInput(f"{rel}: expected an object with a {key!r} object; nothing was "
                           "written")
    servers = dict(data.get(key, {}))
    servers["spyglass"] = {"type": "stdio", **_server(folder)} if client == "vscode" \
        else _server(folder)
    data = {**data, key: servers}
    return Planned(rel, json.dumps(data, indent=2) + "\n")


def _section(root: Path, rel: str) -> Planned:
    text = _read(root, rel) or ""
    section = instructions()
    start, end = text.find(BEGIN), text.find(END)
    if start != -1 and end > start:
        new = text[:start] + section.rstrip("\n") + text[end + len(END):]
    else:
        new = text + ("\n" if text and not text.endswith("\n") else "") + \
            ("\n" if text else "") + section
    return Planned(rel, new)


def plan(root: Path, client: str) -> list[Planned]:
    """Every file `init` would write for `client` ("all" for every client)."""
    clients = list(CLIENTS) if client == "all" else [client]
    out = [_config(root, c) for c in clients]
    out.append(_section(root, "AGENTS.md"))
    if "claude" in clients:
        out.append(_section(root, "CLAUDE.md"))
    return out


def write(root: Path, files: list[Planned]) -> None:
    """Write each file atomically through the one writer (index/writer.py): a new temporary
    file of a random name (O_EXCL | O_NOFOLLOW) renamed over it, every folder on the way
    reached without following a link, so nothing the repository ships — a link named like
    a temporary file, a linked folder — is written through."""
    for f in files:
        try:
            write_repository_file(root, f.path, f.content.encode("utf-8"))
        except IndexUnavailable as exc:
            raise BadInput(f"{f.path}: {exc}; nothing more was written") from None
