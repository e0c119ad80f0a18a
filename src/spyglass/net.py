"""Listening sockets and request gates shared by the HTTP servers (MCP and web): loopback
names, the Host allowlist, the admin token beyond loopback, the request-body cap
(docs/security.md)."""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Literal

from spyglass.errors import BadInput

# The names of this machine's loopback interface, in the order Host headers are listed.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD = frozenset({"0.0.0.0", "::", ""})
MAX_JSON_DEPTH = 64
MAX_CONNECTIONS = 128  # beyond: 503 at once instead of an ever longer queue

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """A bind address or host name that only this machine can reach."""
    host = host.strip("[]").lower()
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_names(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Host names a request may name: loopback, the bind address (unless a wildcard), extra."""
    bound = bind.strip("[]").lower()
    names = set(LOOPBACK) | {n.strip("[]").lower() for n in extra if n.strip()}
    if bound not in WILDCARD:
        names.add(bound)
    return frozenset(names)


def refuse_open_bind(bind: str, token: str | None, server: str) -> None:
    """Start-up check: beyond loopback, every request needs the admin token, so one must exist."""
    if not is_loopback(bind) and not token:
        raise BadInput(f"{server} refuses to listen on {bind} without an admin token: set "
                       "admin_token in [codeintel] of the host config (--config), or bind "
                       "127.0.0.1")


def token_problem(authorization: str | None, token: str | None) -> str | None:
    """Why `Authorization: Bearer …` fails the admin token (None: no token set, or it matches)."""
    if not token:
        return None
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return "admin token required: send 'Authorization: Bearer <token>'"
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        return "admin token does not match"
    return None


def json_depth_problem(value: object, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why a decoded JSON value nests too deep (iterative: no recursion on hostile input)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return f"the JSON body nests deeper than {limit} levels"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json(send: Send, status: int, body: dict[str, Any],
                    headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()), *headers]})
    await send({"type": "http.response.body", "body": data})


class BodyCap:
    """ASGI middleware: refuse a request body over `limit` bytes with 413 while it streams in
    (a declared Content-Length first), so an oversized POST never sits in memory whole."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header(scope, b"content-length")
        reason = f"the request body is larger than max_request_bytes ({self.limit})"
        if declared is not None and (not declared.strip().isdigit()
                                     or int(declared) > self.limit):
            await send_json(send, 413 if declared.strip().isdigit() else 400,
                            {"error": reason if declared.strip().isdigit()
                             else "Content-Length is not a number"},
                            [(b"connection", b"close")])
            return
        seen = 0
        started = refused = False

        async def capped() -> Message:
            # Over the cap: answer 413 now and tell the app the client went away, so it stops
            # reading; nothing of the body is kept.
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    if not started:
                        await send_json(send, 413, {"error": reason},
                                        [(b"connection", b"close")])
                    return {"type": "http.disconnect"}
            return message

        async def tracking(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, capped, tracking)


class TokenGate:
    """ASGI middleware for servers bound beyond loopback: every request but the `open` paths
    (the page and its static files, which hold no repository data) needs the admin token."""

    def __init__(self, app: ASGIApp, token: str | None,
                 open_paths: Callable[[str], bool] | None = None) -> None:
        self.app = app
        self.token = token
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not (
                self.open_paths is not None and self.open_paths(scope.get("path", ""))):
            problem = token_problem(header(scope, b"authorization"), self.token) \
                if self.token else ("this server is reachable beyond loopback and has no "
                                    "admin token: every request is refused")
            if problem is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send_json(send, 401, {"error": problem},
                                [(b"www-authenticate", b'Bearer realm="spyglass"')])
                return
        await self.app(scope, receive, send)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0 picks a free one); a clear error if taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    except (OverflowError, UnicodeError, ValueError) as exc:
        sock.close()
        raise BadInput(f"cannot listen on {host}:{port}: {exc}") from exc
    sock.listen(128)
    return sock


class Shutdown:
    """ASGI middleware: once the server is stopping, a request still reading (an event
    stream waiting for its client to leave) is told the client left, and its response is
    completed, so Ctrl-C ends the server at once and without a traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.stopping: Any = None  # an asyncio.Event, made on the server's loop

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        import asyncio
        if scope["type"] != "http" or self.stopping is None:
            await self.app(scope, receive, send)
            return
        stopping = self.stopping
        started = complete = False

        async def until_stopping() -> Message:
            if stopping.is_set():
                return {"type": "http.disconnect"}
            got = asyncio.ensure_future(receive())
            stop = asyncio.ensure_future(stopping.wait())
            done, _ = await asyncio.wait({got, stop}, return_when=asyncio.FIRST_COMPLETED)
            if got in done:
                stop.cancel()
                return got.result()
            got.cancel()
            return {"type": "http.disconnect"}

        async def tracking(message: Message) -> None:
            nonlocal started, complete
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                complete = True
            await send(message)

        await self.app(scope, until_stopping, tracking)
        if started and not complete and stopping.is_set():
            await send({"type": "http.response.body", "body": b"", "more_body": False})


class Overload:
    """ASGI middleware: past `limit` requests in progress, a JSON 503 at once (with
    Retry-After) instead of an ever longer queue; uvicorn's own limit, above it, is the
    backstop for connections that never send a request."""

    def __init__(self, app: ASGIApp, limit: int = MAX_CONNECTIONS) -> None:
        self.app = app
        self.limit = limit
        self.active = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.active >= self.limit:
            await send_json(send, 503, {"error": f"server busy: {self.active} requests in "
                                        "progress; retry shortly"},
                            [(b"retry-after", b"1"), (b"connection", b"close")])
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1


class RefuseCrossSite:
    """ASGI middleware: a request a browser marks `Sec-Fetch-Site: cross-site` (a page on
    another site) is refused with 403, with or without an Origin header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (header(scope, b"sec-fetch-site") or "").strip(
                ).lower() == "cross-site":
            await send_json(send, 403, {"error": "cross-site request refused"})
            return
        await self.app(scope, receive, send)


def serve_until_stopped(app: ASGIApp, sock: socket.socket, lifespan: Literal["on", "off"],
                        ready: Callable[[], None] | None = None,
                        on_stop: Callable[[], object] | None = None) -> None:
    """Serve `app` on `sock` with uvicorn until SIGINT or SIGTERM, then stop promptly and
    quietly: open streams end, no ASGI traceback, exit status 0. The signal handlers are in
    place before `ready` announces the server, so even an early signal stops it cleanly.
    `on_stop` runs at the signal (it kills the child processes requests wait on, which
    would otherwise hold the request threads, and the exit, until they end)."""
    import asyncio
    import signal

    import uvicorn

    gate = Shutdown(Overload(app))
    gate.stopping = asyncio.Event()
    loop: list[asyncio.AbstractEventLoop] = []

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:  # uvicorn's, minus re-raising
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            self.should_exit = True
            if on_stop is not None:
                on_stop()
            if loop:
                loop[0].call_soon_threadsafe(gate.stopping.set)
            else:
                gate.stopping.set()

        def capture_signals(self) -> Any:  # ours are installed already (below)
            return contextlib.nullcontext()

    server = Server(uvicorn.Config(gate, log_level="warning", lifespan=lifespan,
                                   timeout_graceful_shutdown=2,
                                   limit_concurrency=2 * MAX_CONNECTIONS))

    async def main() -> None:
        loop.append(asyncio.get_running_loop())
        await server.serve(sockets=[sock])

    previous = {sig: signal.signal(sig, server.handle_exit)
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if ready is not None:
            ready()
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
