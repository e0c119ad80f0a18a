"""JSON-RPC 2.0 over a child's pipes, the core of the LSP and MCP clients (docs/bridge.md):
one reader thread, synchronous thread-safe requests, server requests answered, the first
malformed message breaks the connection and fails every waiting request at once."""

from __future__ import annotations

import abc
import json
import queue
import threading
from typing import IO, Any, Protocol

Json = Any
MAX_HEADER = 8192
MAX_BODY = 64 * 1024 * 1024


class RpcError(Exception):
    """The server answered with an error, sent something malformed, died or timed out."""


class RpcTimeout(RpcError):
    """No answer within the time given."""


class MethodNotFound(RpcError):
    """A server request this client does not answer (JSON-RPC error -32601)."""


class PathTranslator(Protocol):
    """Maps paths in messages between spyglass and a server that sees other paths (a
    container's /work: bridge/container.py)."""

    def outward(self, message: Json) -> Json: ...

    def inward(self, message: Json) -> Json: ...


class RpcClient(abc.ABC):
    """The framing-independent part: subclasses read and write one message body."""

    def __init__(self, stdin: IO[bytes], stdout: IO[bytes],
                 paths: PathTranslator | None = None) -> None:
        self._in, self._out = stdin, stdout
        self._paths = paths
        self._next = 0
        self._answers: dict[int, queue.Queue[Json]] = {}
        self._lock = threading.Lock()
        self.broken: str | None = None  # why the connection is unusable
        self.session = threading.Lock()  # held by whoever asks a question
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- framing (subclasses) ------------------------------------------------------------
    @abc.abstractmethod
    def _frame(self, body: bytes) -> bytes:
        """One message body as written on the wire (LSP: a Content-Length header)."""

    @abc.abstractmethod
    def _read_body(self) -> bytes | None:
        """The next message body; None at end of file; RpcError when malformed."""

    # -- messages --------------------------------------------------------------------------
    def _send(self, message: Json) -> None:
        if self._paths is not None:
            message = self._paths.outward(message)
        data = self._frame(json.dumps(message).encode())
        with self._lock:
            if self.broken:
                raise RpcError(self.broken)
            try:
                self._in.write(data)
                self._in.flush()
            except (OSError, ValueError) as exc:
                self.broken = f"cannot write to the server: {exc}"
                raise RpcError(self.broken) from exc

    def _read_message(self) -> Json:
        body = self._read_body()
        if body is None:
            return None
        try:
            msg = json.loads(body)
        except ValueError as exc:
            raise RpcError("malformed reply: body is not JSON") from exc
        if not isinstance(msg, dict):
            raise RpcError("malformed reply: message is not an object")
        return self._paths.inward(msg) if self._paths is not None else msg

    def _fail_all(self, reason: str) -> None:
        self.broken = self.broken or reason
        for q in list(self._answers.values()):
            q.put({"error": {"message": self.broken}})

    def _read_loop(self) -> None:
        while True:
            try:
                msg = self._read_message()
            except (RpcError, OSError, ValueError) as exc:
                self._fail_all(str(exc))
                return
            if msg is None:
                self._fail_all("the server exited")
                return
            try:
                self._dispatch(msg)
            except RpcError:
                return

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "id" in msg and "method" in msg:
            try:
                answer = {"result": self._server_request(str(msg["method"]), msg.get("params"))}
            except MethodNotFound as exc:
                answer = {"error": {"code": -32601, "message": str(exc)}}
            self._send({"jsonrpc": "2.0", "id": msg["id"], **answer})
        elif "id" in msg:
            waiting = self._answers.get(msg["id"]) if isinstance(msg["id"], int) else None
            if waiting is not None:
                waiting.put(msg)
        elif isinstance(msg.get("method"), str):
            self._notification(msg["method"], msg.get("params"))

    def _server_request(self, method: str, params: Json) -> Json:
        return None

    def _cancel(self, rid: int) -> None:
        """Tell the server a request is no longer waited for (so it can stop working)."""
        try:
            self._cancel_request(rid)
        except RpcError:
            pass  # the connection broke meanwhile; the reader reports why

    def _cancel_request(self, rid: int) -> None:
        pass

    def _notification(self, method: str, params: Json) -> None:
        pass

    def request(self, method: str, params: Json, timeout: float = 300.0) -> Json:
        """Send a request and wait for its result; RpcError on error, death or timeout."""
        with self._lock:
            self._next += 1
            rid = self._next
        q: queue.Queue[Json] = queue.Queue()
        self._answers[rid] = q
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            msg = q.get(timeout=max(timeout, 0.001))
        except queue.Empty as exc:
            self._cancel(rid)
            raise RpcTimeout(f"{method}: no answer within {timeout:.1f}s") from exc
        finally:
            self._answers.pop(rid, None)
        if not isinstance(msg, dict):
            raise RpcError(f"{method}: malformed reply")
        if "error" in msg:
            err = msg["error"]
            text = err.get("message") if isinstance(err, dict) else err
            raise RpcError(f"{method}: {text}")
        return msg.get("result")

    def notify(self, method: str, params: Json) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})
