"""Shared helpers of the bridge tests: the processes a launched child runs as, and the fake
server (fake_lsp.py) with the small repository it answers about."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from spyglass.config import LspServer

HERE = Path(__file__).resolve().parent
NEEDS_BWRAP = "bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)"

CORE = "def target():\n    return 1\n"
USE = ("from pkg.core import target\n\n\ndef caller_a():\n    return target()\n\n\n"
       "def caller_b():\n    return target()\n\n\ndef caller_c():\n    return 2\n")
# 0-based lines the fake server answers: the import and caller_a's call are confirmed,
# caller_b's call (line 9) is refuted, caller_c's line 13 is a site only the server knows.
ANSWERS = {"refs": [["pkg/use.py", 0], ["pkg/use.py", 4], ["pkg/use.py", 12]],
           "calls": [["pkg/use.py", 4, "caller_a"], ["pkg/use.py", 12, "caller_c"]]}


def has_bwrap() -> bool:
    return shutil.which("bwrap") is not None


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                out += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return out


def leaf(pid: int, deadline: float = 10.0) -> int:
    """The innermost process under `pid` (the server under guard and bubblewrap), once the
    chain has settled: a process whose command line is no longer a wrapper's."""
    end = time.monotonic() + deadline
    while True:
        current = pid
        while kids := children(current):
            current = kids[0]
        program = cmdline(current).split(" ")[0]
        wrapper = "guard.py" in cmdline(current) or Path(program).name in ("bwrap", "env")
        if current != pid and program and not wrapper:
            return current
        if time.monotonic() > end:
            raise AssertionError(f"no server process under {pid}")
        time.sleep(0.02)


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def environ_names(pid: int) -> tuple[set[str], bytes]:
    with open(f"/proc/{pid}/environ", "rb") as fh:
        raw = fh.read()
    return {e.split(b"=", 1)[0].decode() for e in raw.split(b"\0") if e}, raw


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


def python() -> str:
    """The interpreter by its real path (the launcher makes its installation visible)."""
    return os.path.realpath(sys.executable)


def server(mode: str = "ok", execution: str = "host", binds: tuple[str, ...] = ()
           ) -> LspServer:
    return LspServer("python", (python(), str(HERE / "fake_lsp.py"), mode), (), execution,
                     execution == "host", "fake", binds)


def venv_python() -> str:
    """The test interpreter as invoked (the venv's, so the `mcp` SDK imports)."""
    return sys.executable


def host_config(folder: Path, server: LspServer) -> Path:
    """A host config file naming `server` (a host-executed fake) as its only bridge."""
    table = "codeintel.mcp" if server.protocol == "mcp" else "codeintel.lsp"
    path = folder / "host.toml"
    path.write_text(f'[[{table}]]\nname = "{server.label}"\nlanguage = "{server.language}"\n'
                    f"command = {json.dumps(list(server.command))}\n"
                    'execution = "host"\nallow_host_mcp = true\n')
    return path


def mcp_server(mode: str = "ok", execution: str = "host", log: str = "",
               tools: tuple[str, ...] = ("code_references", "code_callers")) -> LspServer:
    """The fake external MCP server (fake_mcp.py) as a `[[codeintel.mcp]]` entry."""
    command = (venv_python(), str(HERE / "fake_mcp.py"), mode) + ((log,) if log else ())
    return LspServer("python", command, (), execution, execution == "host", "fake-mcp",
                     (str(HERE),) if execution == "sandbox" else (), "{}", "mcp", tools)


MISSING = LspServer("python", ("no-such-language-server-xyz", "--stdio"), (), "host", True,
                    "ghost")
# The failure paths of a language server (docs/bridge.md "Failure semantics"):
CASES = {  # server, budget (ms), what the note says
    "missing": (MISSING, 5000, "binary not found: 'no-such-language-server-xyz'"),
    "fail-start": (server("fail-start"), 10000, "start-up failed"),
    "crash": (server("crash"), 10000, "crashed (exit 5)"),
    "hang": (server("hang"), 400, "no answer within 400 ms"),
    "malformed": (server("malformed"), 10000, "malformed reply"),
    "forged": (server("forged"), 10000, "malformed reply: an answer to a request never sent"),
    "injected": (server("injected"), 10000, "malformed reply: not an LSP header"),
}
