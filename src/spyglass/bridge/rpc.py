"""JSON-RPC 2.0 over a child's pipes, the core of the LSP and MCP clients (docs/bridge.md):
one reader thread, synchronous thread-safe requests, server requests answered. Messages are
parsed strictly: the first malformed one (not JSON, not a JSON-RPC 2.0 object, a response to
a request never sent or already answered) breaks the connection and fails every waiting
request at once, and its text is never repeated (a forged answer must not reach a note)."""

from __future__ import annotations

import abc
import json
import queue
import re
import threading
from typing import IO, Any, Protocol

Json = Any
MAX_HEADER = 8192
MAX_BODY = 64 * 1024 * 1024
MAX_TEXT = 200  # characters of a server's own message (an error, a log line) ever repeated
BROKEN = " broken"  # the key of the message a waiting request gets when the connection breaks
MAX_ABANDONED = 1024  # requests given up on whose late answers are still accepted
_UNPRINTABLE = re.compile(r"[^\x20-\x7e]+")


def server_text(text: object) -> str:
    """A server's own message as it may appear in a note: printable ASCII, one line,
    bounded (the server may run what a hostile repository made it run)."""
    return _UNPRINTABLE.sub(" ", str(text)).strip()[:MAX_TEXT]


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
        self._abandoned: dict[int, None] = {}  # timed out: a late answer is dropped
        self._ids = threading.Lock()  # guards _answers and _abandoned
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
        except (ValueError, RecursionError) as exc:
            raise RpcError("malformed reply: body is not JSON") from exc
        if not isinstance(msg, dict):
            raise RpcError("malformed reply: message is not an object")
        check_shape(msg)
        return self._paths.inward(msg) if self._paths is not None else msg

    def _fail_all(self, reason: str) -> None:
        self.broken = self.broken or reason
        with self._ids:
            waiting = list(self._answers.values())
        for q in waiting:
            q.put({BROKEN: self.broken})

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
            except RpcError as exc:
                self._fail_all(str(exc))
                return

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:
            try:
                answer = {"result": self._server_request(msg["method"], msg.get("params"))}
            except MethodNotFound as exc:
                answer = {"error": {"code": -32601, "message": str(exc)}}
            self._send({"jsonrpc": "2.0", "id": msg["id"], **answer})
        elif "method" in msg:
            self._notification(msg["method"], msg.get("params"))
        else:
            rid = msg["id"]
            with self._ids:
                waiting = self._answers.pop(rid, None) if isinstance(rid, int) else None
                late = waiting is None and isinstance(rid, int) and \
                    self._abandoned.pop(rid, 0) is None
            if waiting is not None:
                waiting.put(msg)
            elif not late:
                raise RpcError("malformed reply: an answer to a request never sent "
                               "(or answered twice)")

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
        with self._ids:
            self._answers[rid] = q
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            msg = q.get(timeout=max(timeout, 0.001))
        except queue.Empty as exc:
            with self._ids:
                if self._answers.pop(rid, None) is not None:
                    self._abandoned[rid] = None  # its answer may still come: dropped then
                    while len(self._abandoned) > MAX_ABANDONED:
                        del self._abandoned[next(iter(self._abandoned))]
            self._cancel(rid)
            raise RpcTimeout(f"{method}: no answer within {timeout:.1f}s") from exc
        except RpcError:
            with self._ids:
                self._answers.pop(rid, None)
            raise
        if BROKEN in msg:
            raise RpcError(f"{method}: {msg[BROKEN]}")
        if "error" in msg:
            err = msg["error"]
            raise RpcError(f"{method}: the server answered an error: "
                           f"{server_text(err.get('message'))}")
        return msg.get("result")

    def notify(self, method: str, params: Json) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check_shape(msg: dict[str, Any]) -> None:
    """RpcError unless `msg` is a JSON-RPC 2.0 request, notification or response."""
    if msg.get("jsonrpc") != "2.0":
        raise RpcError("malformed reply: not a JSON-RPC 2.0 message")
    if "method" in msg:
        if not isinstance(msg["method"], str) or ("id" in msg and not _is_id(msg["id"])) or \
                not isinstance(msg.get("params"), (dict, list, type(None))) or \
                "result" in msg or "error" in msg:
            raise RpcError("malformed reply: a bad request or notification")
        return
    if not _is_id(msg.get("id")) and not ("error" in msg and msg.get("id") is None):
        raise RpcError("malformed reply: a response without a valid id")
    if ("result" in msg) == ("error" in msg):
        raise RpcError("malformed reply: a response needs exactly one of result and error")
    err = msg.get("error")
    if "error" in msg and not (isinstance(err, dict) and isinstance(err.get("code"), int)
                               and isinstance(err.get("message"), str)):
        raise RpcError("malformed reply: an error without a code and a message")
    if msg.get("id") is None:
        raise RpcError("malformed reply: the server reports an error in a message "
                       "it could not parse")
