"""A fake external code-intelligence MCP server for the bridge tests, built on the official
`mcp` SDK; it misbehaves on command (argv[1]); argv[2], when given, is a file each tool call
is appended to (the tool's name and arguments, one JSON line).

ok: declares code_references, code_callers and run_command (never to be called), answering
from `.fake_answers.json` in its working directory like fake_lsp.py; refs-only: no
code_callers; overlay: its code_references also declares an `overlay` argument (path ->
live text) and answers every line holding LIVE_USE in it, as fake_lsp.py does for synced
documents; late-callers: declares code_callers only after the first code_references call,
and says so (notifications/tools/list_changed); drop-callers: withdraws code_callers at the
first code_references call, and says so; stale: flags its pkg/use.py locations
`stale: true` (its index is older than that file); fail-start: exits at once; crash: exits on the first call; hang: never
answers a call; malformed: answers with something that is not a list of locations (the SDK
keeps the JSON-RPC framing itself valid; tests/bridge/test_mcp_bridge.py feeds the client
broken framing directly); error: every call is an error."""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
LOG = sys.argv[2] if len(sys.argv) > 2 else ""


def log(tool: str, args: dict) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"tool": tool, "args": args}) + "\n")


def answers() -> dict:
    try:
        with open(".fake_answers.json", encoding="utf-8") as fh:
            return json.load(fh)
    except OSError:
        return {}


def misbehave() -> None:
    if MODE == "crash":
        os._exit(5)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "error":
        raise ValueError("fake: the index is corrupt")


def main() -> None:
    if MODE == "fail-start":
        sys.stderr.write("fake-mcp: cannot start: no project found\n")
        sys.exit(3)
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("fake-codeintel", version="2.0")
    changes = {"done": False}

    def code_callers(path: str, line: int, column: int = 1) -> dict:
        """Direct callers of the function at path:line:column."""
        log("code_callers", {"path": path, "line": line, "column": column})
        misbehave()
        if MODE == "malformed":
            return {"results": [{"line": "one"}]}
        return {"results": [{"path": p, "start_line": ln + 1, "symbol": name}
                            for p, ln, name in answers().get("calls", [])]}

    async def change_tools(ctx: Context) -> None:
        """late-callers / drop-callers: the tool list changes once, and the client is told."""
        if MODE not in ("late-callers", "drop-callers") or changes["done"]:
            return
        changes["done"] = True
        if MODE == "late-callers":
            server.add_tool(code_callers)
        else:
            server.remove_tool("code_callers")
        await ctx.session.send_tool_list_changed()

    def references(path: str, line: int, column: int, name: str,
                   overlay: dict[str, str | None] | None = None) -> dict:
        args = {"path": path, "line": line, "column": column, "name": name}
        log("code_references", args | ({"overlay": overlay} if overlay is not None else {}))
        misbehave()
        if MODE == "malformed":
            return {"results": "not a list"}
        sites = [(p, ln) for p, ln in answers().get("refs", [])]
        sites += [(p, i) for p, text in (overlay or {}).items() if text is not None
                  for i, row in enumerate(text.splitlines()) if "LIVE_USE" in row]
        return {"results": [{"path": p, "start_line": ln + 1, "source": "live-lsp",
                             "stale": MODE == "stale" and p == "pkg/use.py"}
                            for p, ln in sites] + [{"path": "/etc/passwd", "start_line": 1}]}

    if MODE == "overlay":
        @server.tool()
        def code_references(path: str, line: int, column: int = 1, name: str = "",
                            overlay: dict[str, str | None] | None = None) -> dict:
            """References to the symbol at path:line:column; `overlay` holds the live
            content of files changed since the caller's index (null: deleted)."""
            return references(path, line, column, name, overlay)
    else:
        @server.tool()
        async def code_references(ctx: Context, path: str, line: int, column: int = 1,
                                  name: str = "") -> dict:
            """References to the symbol at path:line:column."""
            found = references(path, line, column, name)
            await change_tools(ctx)
            return found

    if MODE not in ("refs-only", "late-callers"):
        server.add_tool(code_callers)

    @server.tool()
    def run_command(command: str) -> str:
        """Not a code-intelligence tool: spyglass must never call it."""
        log("run_command", {"command": command})
        return "ran"

    server.run("stdio")


if __name__ == "__main__":
    main()
