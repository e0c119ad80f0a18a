"""MCP-over-HTTP sessions bounded: idle ones expire, and each client holds a few at most.

The MCP library keeps a session until its client deletes it or it stays idle for
`session_idle_timeout`, and refuses every new client once `max_sessions` are open: 10,000
`initialize` calls in 30 s locked every client out for half an hour (docs/security.md).
Here a client (its address and credential) that opens more than `PER_CLIENT` sessions, or
a server holding `TOTAL`, closes the least recently used idle session first — the one
asking keeps working, a flood only displaces itself — and only when every session is busy
is a new one refused, with a JSON 503."""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from typing import Any

from spyglass.net import ASGIApp, Message, Receive, Scope, Send, header, send_json

IDLE_SECONDS = 600.0  # a session with no request for this long is closed (the library's)
PER_CLIENT = 32  # sessions one client (address + credential) holds; then its oldest idle goes
TOTAL = 256  # sessions the server holds; then the least recently used idle one goes
SESSION_HEADER = b"mcp-session-id"


def client_key(scope: Scope) -> str:
    """Who is asking: the peer address and a digest of the credential it presents."""
    peer = scope.get("client") or ("?", 0)
    auth = header(scope, b"authorization") or ""
    return f"{peer[0]}|{hashlib.sha256(auth.encode()).hexdigest()[:16]}"


class SessionCap:
    """ASGI middleware in front of the MCP app: records each session's client and last
    use, and makes room for a new session by closing idle ones (see the module doc)."""

    def __init__(self, app: ASGIApp, manager: Any, per_client: int = PER_CLIENT,
                 total: int = TOTAL) -> None:
        self.app = app
        self.manager = manager  # the library's StreamableHTTPSessionManager
        self.per_client = per_client
        self.total = total
        self.used: OrderedDict[str, tuple[str, float]] = OrderedDict()  # id -> (client, t)
        self.evicted = 0

    def _live(self) -> dict[str, Any]:
        instances: dict[str, Any] = self.manager._server_instances
        for sid in [s for s in self.used if s not in instances]:
            del self.used[sid]
        return instances

    async def _evict(self, client: str | None) -> bool:
        """Close the least recently used idle session (of `client`, when given)."""
        instances = self._live()
        for sid, (owner, _) in list(self.used.items()):
            transport = instances.get(sid)
            if transport is None or (client is not None and owner != client):
                continue
            if getattr(transport, "_requests_in_flight", 0):
                continue  # a request is being served: not idle
            del self.used[sid]
            await self.manager._discard_session(sid, transport)
            self.evicted += 1
            return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/mcp"):
            await self.app(scope, receive, send)
            return
        sid = header(scope, SESSION_HEADER)
        client = client_key(scope)
        if sid is not None:
            if sid in self.used and self.used[sid][0] == client:
                self.used[sid] = (client, time.monotonic())
                self.used.move_to_end(sid)
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "POST":  # an `initialize`: a new session
            instances = self._live()
            mine = sum(1 for owner, _ in self.used.values() if owner == client)
            full = (mine >= self.per_client and not await self._evict(client)) or (
                len(instances) >= self.total and not await self._evict(None))
            if full:
                await send_json(send, 503, {"error": f"too many open MCP sessions "
                                            f"({len(instances)}), all busy: retry later"},
                                [(b"retry-after", b"5")])
                return

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == SESSION_HEADER:
                        self.used[value.decode("latin-1")] = (client, time.monotonic())
            await send(message)
        await self.app(scope, receive, recording)
