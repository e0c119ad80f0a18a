"""A small stdlib LSP client: JSON-RPC over stdio with Content-Length framing."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlparse

Json = Any
LANGUAGE_IDS = {".py": "python", ".go": "go", ".ts": "typescript", ".tsx": "typescriptreact",
                ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
                ".jsx": "javascriptreact", ".mts": "typescript", ".cts": "typescript"}


class LspError(Exception):
    """The server answered with an error or died."""


def uri(path: Path) -> str:
    """file:// URI of an absolute path."""
    return "file://" + quote(str(path.resolve()))


def path_of(u: str) -> Path:
    """Absolute path of a file:// URI."""
    return Path(unquote(urlparse(u).path))


class LspClient:
    """One language server process; requests are synchronous, server requests answered."""

    def __init__(self, cmd: list[str], root: Path, env: dict[str, str] | None = None,
                 settings: Json = None) -> None:
        self.root = root.resolve()
        self.settings = settings if settings is not None else {}
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env={**os.environ, **(env or {})})
        self._next = 0
        self._answers: dict[int, queue.Queue[Json]] = {}
        self._lock = threading.Lock()
        self.opened: set[Path] = set()
        self.progress_active = 0
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- framing -------------------------------------------------------------------------
    def _send(self, message: Json) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read_message(self) -> Json:
        out = self.proc.stdout
        assert out is not None
        length = -1
        while True:
            line = out.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(out.read(length))

    def _read_loop(self) -> None:
        while True:
            msg = self._read_message()
            if msg is None:
                for q in self._answers.values():
                    q.put({"error": {"message": "server exited"}})
                return
            if "id" in msg and "method" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"],
                            "result": self._server_request(msg["method"], msg.get("params"))})
            elif "id" in msg:
                waiting = self._answers.get(msg["id"])
                if waiting is not None:
                    waiting.put(msg)
            elif msg.get("method") == "$/progress":
                kind = msg.get("params", {}).get("value", {}).get("kind")
                self.progress_active += 1 if kind == "begin" else -1 if kind == "end" else 0

    def _server_request(self, method: str, params: Json) -> Json:
        if method == "workspace/configuration":
            return [self.settings.get(item.get("section", ""), None)
                    for item in params.get("items", [])]
        if method == "workspace/workspaceFolders":
            return [{"uri": uri(self.root), "name": self.root.name}]
        return None

    # -- requests ------------------------------------------------------------------------
    def request(self, method: str, params: Json, timeout: float = 300.0) -> Json:
        """Send a request and wait for its result."""
        self._next += 1
        rid = self._next
        q: queue.Queue[Json] = queue.Queue()
        self._answers[rid] = q
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            msg = q.get(timeout=timeout)
        except queue.Empty as exc:
            raise LspError(f"{method}: no answer in {timeout}s") from exc
        finally:
            self._answers.pop(rid, None)
        if "error" in msg:
            raise LspError(f"{method}: {msg['error'].get('message')}")
        return msg.get("result")

    def notify(self, method: str, params: Json) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, init_options: Json = None) -> Json:
        caps = {
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": {
                "references": {}, "callHierarchy": {}, "synchronization": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            },
            "window": {"workDoneProgress": True},
        }
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri(self.root), "rootPath": str(self.root),
            "capabilities": caps, "initializationOptions": init_options,
            "workspaceFolders": [{"uri": uri(self.root), "name": self.root.name}],
        })
        self.notify("initialized", {})
        if self.settings:
            self.notify("workspace/didChangeConfiguration", {"settings": self.settings})
        return result

    def open(self, path: Path) -> None:
        """didOpen a file once."""
        path = path.resolve()
        if path in self.opened:
            return
        self.opened.add(path)
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": LANGUAGE_IDS.get(path.suffix, "plaintext"),
            "version": 1, "text": path.read_text(encoding="utf-8", errors="replace")}})

    def _pos(self, path: Path, line: int, col: int) -> Json:
        return {"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": col}}

    def references(self, path: Path, line: int, col: int) -> list[tuple[str, int, int]]:
        """(relative path, 1-based line, 0-based col) of references, declaration excluded."""
        params = {**self._pos(path, line, col), "context": {"includeDeclaration": False}}
        return self._locations(self.request("textDocument/references", params) or [])

    def incoming_calls(self, path: Path, line: int, col: int
                       ) -> list[tuple[str, int, int, str]]:
        """(relative path, 1-based line, 0-based col, caller name) of each call site."""
        items = self.request("textDocument/prepareCallHierarchy",
                             self._pos(path, line, col)) or []
        out: list[tuple[str, int, int, str]] = []
        for item in items:
            for call in self.request("callHierarchy/incomingCalls", {"item": item}) or []:
                caller = call["from"]
                rel = self._rel(caller["uri"])
                if rel is None:
                    continue
                for rng in call.get("fromRanges", []):
                    start = rng["start"]
                    out.append((rel, start["line"] + 1, start["character"], caller["name"]))
        return sorted(set(out))

    def document_symbols(self, path: Path) -> Json:
        return self.request("textDocument/documentSymbol",
                            {"textDocument": {"uri": uri(path)}}) or []

    def _rel(self, u: str) -> str | None:
        p = path_of(u)
        try:
            return p.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _locations(self, locs: Json) -> list[tuple[str, int, int]]:
        out: set[tuple[str, int, int]] = set()
        for loc in locs:
            rel = self._rel(loc.get("uri") or loc.get("targetUri"))
            if rel is None:
                continue
            rng = loc.get("range") or loc.get("targetSelectionRange")
            out.add((rel, rng["start"]["line"] + 1, rng["start"]["character"]))
        return sorted(out)

    def wait_idle(self, quiet: float = 1.0, limit: float = 120.0) -> None:
        """Wait until no work-done progress is active for `quiet` seconds."""
        deadline = time.monotonic() + limit
        calm_since = time.monotonic()
        while time.monotonic() < deadline:
            if self.progress_active > 0:
                calm_since = time.monotonic()
            elif time.monotonic() - calm_since >= quiet:
                return
            time.sleep(0.1)

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (LspError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
