"""A small LSP client: JSON-RPC over stdio with Content-Length framing (docs/bridge.md)."""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar
from urllib.parse import quote, unquote, urlparse

Json = Any
T = TypeVar("T")
LANGUAGE_IDS = {".py": "python", ".pyi": "python", ".go": "go", ".ts": "typescript",
                ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript",
                ".cjs": "javascript", ".jsx": "javascriptreact", ".mts": "typescript",
                ".cts": "typescript", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
                ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"}
MAX_HEADER = 8192
MAX_BODY = 64 * 1024 * 1024
MAX_ASKS = 6


class LspError(Exception):
    """The server answered with an error, sent something malformed, died or timed out."""


class LspTimeout(LspError):
    """No answer within the time given."""


def uri(path: Path) -> str:
    """file:// URI of an absolute path."""
    return "file://" + quote(str(path.resolve()))


def path_of(u: str) -> Path:
    """Absolute path of a file:// URI."""
    return Path(unquote(urlparse(u).path))


def utf16_col(text: str, col: int) -> int:
    """A code-point column as the UTF-16 column LSP positions count."""
    return len(text[:col].encode("utf-16-le")) // 2


class LspClient:
    """One language server over a pair of pipes; requests are synchronous and thread-safe,
    server requests are answered, the first malformed message breaks the connection."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes], root: Path,
                 settings: Json = None) -> None:
        self.root = root.resolve()
        self.settings = settings if settings is not None else {}
        self._in, self._out = stdin, stdout
        self._next = 0
        self._answers: dict[int, queue.Queue[Json]] = {}
        self._lock = threading.Lock()
        self.broken: str | None = None  # why the connection is unusable
        self.synced: dict[Path, tuple[int, str]] = {}  # open documents: version, text
        self.progress_active = 0
        self.server_info = ""
        self.session = threading.Lock()  # held by whoever asks a question (sync + ask)
        self.last_logged = ""  # the server's last error message (window/logMessage)
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- framing -------------------------------------------------------------------------
    def _send(self, message: Json) -> None:
        body = json.dumps(message).encode()
        with self._lock:
            if self.broken:
                raise LspError(self.broken)
            try:
                self._in.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self._in.flush()
            except (OSError, ValueError) as exc:
                self.broken = f"cannot write to the server: {exc}"
                raise LspError(self.broken) from exc

    def _read_message(self) -> Json:
        length = -1
        seen = 0
        while True:
            line = self._out.readline(MAX_HEADER)
            if not line:
                return None
            seen += len(line)
            if seen > MAX_HEADER or not line.endswith(b"\n"):
                raise LspError("malformed reply: header too long")
            line = line.strip()
            if not line:
                break
            name, colon, value = line.decode("ascii", "replace").partition(":")
            if not colon:
                raise LspError(f"malformed reply: header line {line[:40]!r}")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value)
                except ValueError as exc:
                    raise LspError("malformed reply: bad Content-Length") from exc
        if not 0 <= length <= MAX_BODY:
            raise LspError("malformed reply: missing or out-of-range Content-Length")
        body = self._out.read(length)
        if len(body) < length:
            return None
        try:
            msg = json.loads(body)
        except ValueError as exc:
            raise LspError("malformed reply: body is not JSON") from exc
        if not isinstance(msg, dict):
            raise LspError("malformed reply: message is not an object")
        return msg

    def _fail_all(self, reason: str) -> None:
        self.broken = self.broken or reason
        for q in list(self._answers.values()):
            q.put({"error": {"message": self.broken}})

    def _read_loop(self) -> None:
        while True:
            try:
                msg = self._read_message()
            except (LspError, OSError, ValueError) as exc:
                self._fail_all(str(exc))
                return
            if msg is None:
                self._fail_all("the server exited")
                return
            try:
                self._dispatch(msg)
            except LspError:
                return

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "id" in msg and "method" in msg:
            self._send({"jsonrpc": "2.0", "id": msg["id"],
                        "result": self._server_request(str(msg["method"]), msg.get("params"))})
        elif "id" in msg:
            waiting = self._answers.get(msg["id"]) if isinstance(msg["id"], int) else None
            if waiting is not None:
                waiting.put(msg)
        elif msg.get("method") in ("window/logMessage", "window/showMessage"):
            params = msg.get("params")
            if isinstance(params, dict) and params.get("type") == 1:  # an error
                self.last_logged = str(params.get("message", ""))[:300]
        elif msg.get("method") == "$/progress":
            params = msg.get("params")
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
    def request(self, method: str, params: Json, timeout: float = 300.0) -> Json:
        """Send a request and wait for its result; LspError on error, death or timeout."""
        with self._lock:
            self._next += 1
            rid = self._next
        q: queue.Queue[Json] = queue.Queue()
        self._answers[rid] = q
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            msg = q.get(timeout=max(timeout, 0.001))
        except queue.Empty as exc:
            raise LspTimeout(f"{method}: no answer within {timeout:.1f}s") from exc
        finally:
            self._answers.pop(rid, None)
        if not isinstance(msg, dict):
            raise LspError(f"{method}: malformed reply")
        if "error" in msg:
            err = msg["error"]
            text = err.get("message") if isinstance(err, dict) else err
            raise LspError(f"{method}: {text}")
        return msg.get("result")

    def notify(self, method: str, params: Json) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

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
        deadline = time.monotonic() + timeout
        items = self.request("textDocument/prepareCallHierarchy",
                             self._pos(path, line, col), timeout) or []
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
