"""A small MCP client for external code-intelligence servers (docs/bridge.md): newline-
delimited JSON-RPC over the launcher's pipes, the initialize handshake, tools/list (again
after the server's notifications/tools/list_changed), and tools/call of the declared
code-intelligence tools only."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, Any

from spyglass.bridge.lsp import uri
from spyglass.bridge.rpc import (
    MAX_BODY,
    Json,
    MethodNotFound,
    PathTranslator,
    RpcClient,
    RpcError,
    server_text,
)

PROTOCOL = "2025-11-25"  # the newest revision reached through the initialize handshake
MAX_PAGES = 20  # tools/list pages read
# Argument names the contract's tools use (seed 000's six tools), by what they carry.
ARG_NAMES = {"path": ("path", "file"), "line": ("line",), "column": ("column", "col"),
             "name": ("name", "symbol"), "overlay": ("overlay",)}


class McpClient(RpcClient):
    """One MCP server over a pair of pipes."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes], root: Path,
                 paths: PathTranslator | None = None) -> None:
        self.root = root.resolve()
        self.server_info = ""
        self.tools: dict[str, dict[str, Any]] = {}  # declared tools by name: inputSchema
        self.tools_changed = False  # the server said its tool list changed: list it again
        self.last_logged = ""
        super().__init__(stdin, stdout, paths)

    def _frame(self, body: bytes) -> bytes:
        return body + b"\n"

    def _read_body(self) -> bytes | None:
        while True:
            line = self._out.readline(MAX_BODY + 1)
            if not line:
                return None
            if len(line) > MAX_BODY or not line.endswith(b"\n"):
                raise RpcError("malformed reply: message line too long or cut")
            if line.strip():
                return line

    def _server_request(self, method: str, params: Json) -> Json:
        if method == "ping":
            return {}
        if method == "roots/list":
            return {"roots": [{"uri": uri(self.root), "name": self.root.name}]}
        raise MethodNotFound(f"spyglass does not answer {method}")

    def _cancel_request(self, rid: int) -> None:
        self.notify("notifications/cancelled", {"requestId": rid,
                                                "reason": "spyglass stopped waiting"})

    def _notification(self, method: str, params: Json) -> None:
        if method == "notifications/tools/list_changed":  # re-listed by the next question
            self.tools_changed = True  # (never from the reader thread: it would wait on itself)
        elif method == "notifications/message" and isinstance(params, dict) and \
                params.get("level") in ("error", "critical", "alert", "emergency"):
            self.last_logged = server_text(params.get("data", ""))

    def initialize(self, timeout: float = 60.0) -> None:
        """The handshake, then the server's declared tools (tools/list, every page)."""
        result = self.request("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {"roots": {"listChanged": False}},
            "clientInfo": {"name": "spyglass", "version": _version()}}, timeout)
        if not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
            raise RpcError("initialize: malformed reply")
        info = result.get("serverInfo")
        if isinstance(info, dict):
            self.server_info = f"{info.get('name', '')} {info.get('version', '')}".strip()[:80]
        self.notify("notifications/initialized", {})
        self.list_tools(timeout)

    def list_tools(self, timeout: float) -> None:
        """The server's declared tools (tools/list, every page), replacing the last list."""
        self.tools_changed = False  # a change announced while listing is listed next time
        tools_now: dict[str, dict[str, Any]] = {}
        cursor: object = None
        for _ in range(MAX_PAGES):
            page = self.request("tools/list", {"cursor": cursor} if cursor else {}, timeout)
            tools = page.get("tools") if isinstance(page, dict) else None
            if not isinstance(tools, list):
                raise RpcError("tools/list: malformed reply")
            for tool in tools:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    schema = tool.get("inputSchema")
                    tools_now[tool["name"]] = schema if isinstance(schema, dict) else {}
            cursor = page.get("nextCursor")
            if not cursor:
                break
        self.tools = tools_now

    def takes(self, tool: str, argument: str) -> bool:
        """Whether the declared tool's input schema names `argument` (never assumed)."""
        props = self.tools.get(tool, {}).get("properties")
        return isinstance(props, dict) and argument in props

    def arguments(self, tool: str, values: dict[str, object]) -> dict[str, object]:
        """The call's arguments under the names the tool's input schema declares (all the
        contract's names when it declares none)."""
        props = self.tools.get(tool, {}).get("properties")
        out: dict[str, object] = {}
        for what, value in values.items():
            names = ARG_NAMES[what]
            if not isinstance(props, dict):
                out[names[0]] = value
                continue
            name = next((n for n in names if n in props), None)
            if name is not None:
                out[name] = value
        return out

    def call(self, tool: str, values: dict[str, object], timeout: float) -> Json:
        """tools/call of a declared tool: its structured result, or the JSON of its text."""
        if tool not in self.tools:
            raise RpcError(f"the server does not declare {tool}")
        result = self.request("tools/call", {"name": tool,
                                             "arguments": self.arguments(tool, values)}, timeout)
        if not isinstance(result, dict):
            raise RpcError(f"{tool}: malformed reply")
        content = result.get("content")
        texts = [c.get("text", "") for c in content if isinstance(c, dict)] \
            if isinstance(content, list) else []
        if result.get("isError"):
            raise RpcError(f"{tool} failed: " + server_text(" ".join(map(str, texts))))
        if "structuredContent" in result:
            return result["structuredContent"]
        try:
            found = json.loads(next(t for t in texts if isinstance(t, str) and t.strip()))
            # the JSON of a text result: its paths mapped as a message's are (a container)
            return self._paths.inward(found) if self._paths is not None else found
        except (StopIteration, ValueError) as exc:
            raise RpcError(f"malformed reply: {tool} returned no JSON result") from exc

    def sites(self, tool: str, values: dict[str, object], timeout: float
              ) -> tuple[set[tuple[str, int]], set[str]]:
        """(root-relative path, 1-based line) of the locations a tool answers (a list of
        CodeLocation objects, or an envelope holding one under `results`), and the files
        of the locations it flags `stale: true` (its own index is older than the file)."""
        payload = self.call(tool, values, timeout)
        items = payload.get("results") if isinstance(payload, dict) else payload
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise RpcError(f"malformed reply: {tool} did not return a list of locations")
        out: set[tuple[str, int]] = set()
        stale: set[str] = set()
        for item in items:
            path, line = item.get("path"), item.get("start_line", item.get("line"))
            if not isinstance(path, str) or not isinstance(line, int) or \
                    isinstance(line, bool) or line < 1:
                raise RpcError(f"malformed reply: {tool} location without path and line")
            rel = self._relative(path)
            if rel is not None:
                out.add((rel, line))
                if item.get("stale") is True:
                    stale.add(rel)
        return out, stale

    def _relative(self, path: str) -> str | None:
        """A root-relative path, or None for one outside the workspace."""
        p = Path(path)
        full = p if p.is_absolute() else self.root / p
        try:
            rel = full.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None
        return rel if rel != "." else None

    def shutdown(self, timeout: float = 2.0) -> None:
        """MCP has no shutdown request: closing stdin ends the server (the launcher kills
        its group afterwards)."""
        try:
            self._in.close()
        except OSError:
            pass


def _version() -> str:
    try:
        return version("spyglass")
    except PackageNotFoundError:
        return "0"
