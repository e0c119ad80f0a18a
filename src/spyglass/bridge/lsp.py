"""A small LSP client: JSON-RPC over stdio with Content-Length framing (docs/bridge.md)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar
from urllib.parse import quote, unquote, urlparse

from spyglass.bridge.rpc import (
    MAX_BODY,
    MAX_HEADER,
    Json,
    PathTranslator,
    RpcClient,
    RpcError,
    RpcTimeout,
    server_text,
)

T = TypeVar("T")
LANGUAGE_IDS = {".py": "python", ".pyi": "python", ".go": "go", ".ts": "typescript",
                ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript",
                ".cjs": "javascript", ".jsx": "javascriptreact", ".mts": "typescript",
                ".cts": "typescript", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
                ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".ipp": "cpp"}
MAX_ASKS = 6
WARM_UP_QUERY = "zzspyglasswarmup"  # a workspace/symbol query that matches nothing


LspError = RpcError
LspTimeout = RpcTimeout


def uri(path: Path) -> str:
    """file:// URI of an absolute path."""
    return "file://" + quote(str(path.resolve()))


def path_of(u: str) -> Path:
    """Absolute path of a file:// URI."""
    return Path(unquote(urlparse(u).path))


def utf16_col(text: str, col: int) -> int:
    """A code-point column as the UTF-16 column LSP positions count."""
    return len(text[:col].encode("utf-16-le")) // 2


class LspClient(RpcClient):
    """One language server over a pair of pipes (Content-Length framing); requests are
    synchronous and thread-safe, server requests are answered."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes], root: Path,
                 settings: Json = None, paths: PathTranslator | None = None) -> None:
        self.root = root.resolve()
        self.settings = settings if settings is not None else {}
        self.synced: dict[Path, tuple[int, str]] = {}  # open documents: version, text
        self.progress_active = 0
        self.server_info = ""
        self.capabilities: dict[str, Any] = {}  # the server's, from its initialize answer
        self.last_logged = ""  # the server's last error message (window/logMessage)
        super().__init__(stdin, stdout, paths)

    # -- framing -------------------------------------------------------------------------
    def _frame(self, body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def _read_body(self) -> bytes | None:
        """One body after its header block: `Content-Length` exactly once (decimal digits),
        `Content-Type` optional, nothing else, every line ending in CRLF; a header is never
        repeated in the error (it may be a forged message)."""
        length: int | None = None
        seen = 0
        while True:
            line = self._out.readline(MAX_HEADER)
            if not line:
                if seen:
                    raise LspError("malformed reply: the stream ended inside a header")
                return None
            seen += len(line)
            if seen > MAX_HEADER or not line.endswith(b"\r\n"):
                raise LspError("malformed reply: a header line too long or not ending in CRLF")
            if line == b"\r\n":
                break
            name, colon, value = line[:-2].partition(b":")
            name, value = name.strip().lower(), value.strip()
            if not colon or name not in (b"content-length", b"content-type"):
                raise LspError("malformed reply: not an LSP header")
            if name == b"content-length":
                if length is not None or not value.isdigit() or len(value) > 12:
                    raise LspError("malformed reply: bad Content-Length")
                length = int(value)
        if length is None or length > MAX_BODY:
            raise LspError("malformed reply: missing or out-of-range Content-Length")
        body = self._out.read(length)
        if len(body) != length:
            raise LspError("malformed reply: the stream ended inside a message")
        return body

    def _cancel_request(self, rid: int) -> None:
        self.notify("$/cancelRequest", {"id": rid})

    def _notification(self, method: str, params: Json) -> None:
        if method in ("window/logMessage", "window/showMessage"):
            if isinstance(params, dict) and params.get("type") == 1:  # an error
                self.last_logged = server_text(params.get("message", ""))
        elif method == "$/progress":
            value = params.get("value") if isinstance(params, dict) else None
            kind = value.get("kind") if isinstance(value, dict) else None
            self.progress_active += 1 if kind == "begin" else -1 if kind == "end" else 0

    def _server_request(self, method: str, params: Json) -> Json:
        if method == "workspace/configuration" and isinstance(params, dict):
            return [self.settings.get(item.get("section", ""), None)
                    for item in params.get("items", []) if isinstance(item, dict)]
        if method == "workspace/workspaceFolders":
            return [{"uri": uri(self.root), "name": self.root.name}]
        return None

    # -- requests ------------------------------------------------------------------------
    def initialize(self, init_options: Json = None, timeout: float = 60.0,
                   process_id: int | None = -1) -> Json:
        """initialize + initialized. `process_id` is the client's pid the server may watch
        (-1: ours); None in a pid namespace, where our pid means nothing (or another
        process) and a server polling it would exit."""
        caps = {
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": {
                "references": {}, "callHierarchy": {}, "definition": {},
                "synchronization": {"didSave": False},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            },
            "window": {"workDoneProgress": True},
        }
        result = self.request("initialize", {
            "processId": os.getpid() if process_id == -1 else process_id, "rootUri": uri(self.root), "rootPath": str(self.root),
            "capabilities": caps, "initializationOptions": init_options,
            "workspaceFolders": [{"uri": uri(self.root), "name": self.root.name}],
        }, timeout=timeout)
        if not isinstance(result, dict):
            raise LspError("initialize: malformed reply")
        caps_of = result.get("capabilities")
        self.capabilities = caps_of if isinstance(caps_of, dict) else {}
        info = result.get("serverInfo")
        if isinstance(info, dict):
            version = str(info.get("version", ""))
            if version.startswith("{"):  # gopls: its build info as JSON
                try:
                    version = str(json.loads(version).get("Version", ""))
                except (ValueError, AttributeError):
                    version = ""
            self.server_info = f"{info.get('name', '')} {version}".strip()[:80]
        self.notify("initialized", {})
        if self.settings:
            self.notify("workspace/didChangeConfiguration", {"settings": self.settings})
        return result

    def sync(self, path: Path, text: str) -> None:
        """Make the server see `text` as the content of `path`: didOpen the first time,
        didChange (full text) when it differs from what the server has."""
        path = path.resolve()
        known = self.synced.get(path)
        if known is not None and known[1] == text:
            return
        if known is None:
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri(path), "languageId": LANGUAGE_IDS.get(path.suffix, "plaintext"),
                "version": 1, "text": text}})
            self.synced[path] = (1, text)
            return
        version = known[0] + 1
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri(path), "version": version},
            "contentChanges": [{"text": text}]})
        self.synced[path] = (version, text)

    def warm_up(self, timeout: float) -> None:
        """Have the server read the whole workspace before the first question: one
        workspace/symbol request (a query nothing matches) makes basedpyright parse and
        bind every file, which its first references and call hierarchy otherwise pay
        (idna under load: 5.3 s and 3.8 s without it, 0.7 s and 0.5 s after). Best effort:
        a server without workspace symbols is not asked; an error or a timeout (the
        request is cancelled) changes nothing."""
        if not self.capabilities.get("workspaceSymbolProvider"):
            return
        try:
            self.request("workspace/symbol", {"query": WARM_UP_QUERY}, timeout)
        except RpcError:
            pass

    def open(self, path: Path) -> None:
        """didOpen a file with its content on disk, once."""
        if path.resolve() not in self.synced:
            self.sync(path, path.read_text(encoding="utf-8", errors="replace"))

    def _pos(self, path: Path, line: int, col: int) -> Json:
        return {"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": col}}

    def references(self, path: Path, line: int, col: int, timeout: float = 300.0,
                   declaration: bool = False) -> list[tuple[str, int, int]]:
        """(relative path, 1-based line, 0-based col) of references."""
        params = {**self._pos(path, line, col), "context": {"includeDeclaration": declaration}}
        return self._locations(self.request("textDocument/references", params, timeout) or [])

    def definition(self, path: Path, line: int, col: int, timeout: float = 300.0
                   ) -> list[tuple[str, int, int]]:
        result = self.request("textDocument/definition", self._pos(path, line, col), timeout)
        return self._locations([result] if isinstance(result, dict) else result or [])

    def incoming_calls(self, path: Path, line: int, col: int, timeout: float = 300.0
                       ) -> list[tuple[str, int, int, str]]:
        """(relative path, 1-based line, 0-based col, caller name) of each call site."""
        return self.call_hierarchy(path, line, col, timeout) or []

    def call_hierarchy(self, path: Path, line: int, col: int, timeout: float = 300.0
                       ) -> list[tuple[str, int, int, str]] | None:
        """The incoming calls of the symbol at the position, or None when the server has
        no call hierarchy item for it (tsc for a function held in a typed `let`): "no
        item" is not "no callers"."""
        deadline = time.monotonic() + timeout
        items = self.request("textDocument/prepareCallHierarchy",
                             self._pos(path, line, col), timeout) or []
        if not _objects(items):
            return None
        out: list[tuple[str, int, int, str]] = []
        for item in _objects(items):
            left = deadline - time.monotonic()
            for call in _objects(self.request("callHierarchy/incomingCalls", {"item": item},
                                              left) or []):
                caller = call.get("from")
                if not isinstance(caller, dict):
                    raise LspError("callHierarchy/incomingCalls: malformed reply")
                rel = self._rel(caller.get("uri"))
                if rel is None:
                    continue
                for rng in _objects(call.get("fromRanges", [])):
                    start = _start(rng)
                    out.append((rel, start[0] + 1, start[1], str(caller.get("name", ""))))
        return sorted(set(out))

    def document_symbols(self, path: Path) -> Json:
        return self.request("textDocument/documentSymbol",
                            {"textDocument": {"uri": uri(path)}}) or []

    def _rel(self, u: object) -> str | None:
        if not isinstance(u, str):
            raise LspError("malformed reply: location without a uri")
        p = path_of(u)
        try:
            return p.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _locations(self, locs: Json) -> list[tuple[str, int, int]]:
        out: set[tuple[str, int, int]] = set()
        for loc in _objects(locs):
            rel = self._rel(loc.get("uri") or loc.get("targetUri"))
            if rel is None:
                continue
            line, col = _start(loc.get("range") or loc.get("targetSelectionRange"))
            out.add((rel, line + 1, col))
        return sorted(out)

    def wait_idle(self, quiet: float = 1.0, limit: float = 120.0) -> None:
        """Wait until no work-done progress is active for `quiet` seconds (or `limit`)."""
        deadline = time.monotonic() + limit
        calm_since = time.monotonic()
        while time.monotonic() < deadline and not self.broken:
            if self.progress_active > 0:
                calm_since = time.monotonic()
            elif time.monotonic() - calm_since >= quiet:
                return
            time.sleep(0.05)

    def shutdown(self, timeout: float = 5.0) -> None:
        """shutdown + exit, best effort."""
        try:
            self.request("shutdown", None, timeout=timeout)
            self.notify("exit", None)
        except LspError:
            pass


def _objects(value: Json) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise LspError("malformed reply: expected a list of objects")
    return value


def _start(rng: Json) -> tuple[int, int]:
    try:
        start = rng["start"]
        return int(start["line"]), int(start["character"])
    except (KeyError, TypeError, ValueError) as exc:
        raise LspError("malformed reply: bad range") from exc


def settle(ask: Callable[[float], T], deadline: float, pause: float = 0.2) -> T:
    """Re-ask until two consecutive answers agree (a server's first answers may be
    partial), at most MAX_ASKS times. An answer that has not settled by `deadline`
    (time.monotonic()) is not trusted: LspTimeout."""
    last = ask(max(deadline - time.monotonic(), 0.001))
    for _ in range(MAX_ASKS):
        if deadline - time.monotonic() <= pause:
            raise LspTimeout("the server's answers did not settle within the budget")
        time.sleep(pause)
        again = ask(max(deadline - time.monotonic(), 0.001))
        if again == last:
            return again
        last = again
    return last
