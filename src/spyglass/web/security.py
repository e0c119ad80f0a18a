"""Request guards: Host allowlist (DNS rebinding), Origin and admin token on mutating calls,
the admin token on every API request beyond loopback (docs/security.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from spyglass.net import LOOPBACK as loopback_names
from spyglass.net import allowed_names, is_loopback, token_problem

LOOPBACK = frozenset(loopback_names)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     (b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")),
)


HOST_NAME = re.compile(r"[a-z0-9.-]+|\[[0-9a-f:.]+\]")


def split_host(value: str) -> tuple[str, int | None]:
    """`host[:port]` or `[v6]:port` as (lowercase host without brackets, port or None); a
    value that is not exactly that (`127.0.0.1:80@evil.com`, a path, a bad port) gives
    the host "" (no server has that name)."""
    value = value.strip().lower()
    if value.startswith("["):
        host, sep, rest = value.partition("]")
        host, port = host + sep, rest.removeprefix(":")
    elif value.count(":") == 1:
        host, _, port = value.partition(":")
    else:
        host, port = value, ""
    if not HOST_NAME.fullmatch(host) or port and not (port.isdigit() and len(port) <= 5):
        return "", None
    return host.strip("[]"), int(port) if port else None


class Guard:
    """Who may talk to the server: names it is reachable by, and the admin token if any."""

    def __init__(self, host: str, port: int | None, token: str | None,
                 extra_hosts: Iterable[str] = ()) -> None:
        self.port = port
        self.token = token or None
        # Beyond loopback every API request needs the token (the page itself does not).
        self.open = not is_loopback(host)
        # Loopback names, the bound address (not a wildcard) and the configured names.
        self.names = allowed_names(host, extra_hosts)

    def host_ok(self, header: str | None) -> bool:
        """The Host header names this server (defeats DNS rebinding from a web page)."""
        if header is None:
            return False
        name, port = split_host(header)
        if name not in self.names:
            return False
        return self.port is None or port is None or port == self.port

    def origin_problem(self, request: Request) -> str | None:
        """Why a state-changing request must be refused because of where it came from."""
        origin = request.headers.get("origin")
        if request.headers.get("sec-fetch-site") == "cross-site":
            return "cross-site request refused"
        if origin is None:
            return None  # not a browser (browsers send Origin on cross-origin POSTs)
        if origin == "null":
            return "Origin 'null' is not allowed"
        try:
            parts = urlsplit(origin)
            origin_port = parts.port
        except ValueError:
            return f"Origin {origin!r} is not a valid origin"
        if parts.scheme != request.url.scheme or not parts.hostname:  # http here: https
            return f"Origin {origin!r} is not allowed (not {request.url.scheme}://)"
        host, host_port = split_host(request.headers.get("host", ""))
        port = origin_port or (443 if parts.scheme == "https" else 80)
        own_port = host_port or (443 if request.url.scheme == "https" else 80)
        name = parts.hostname.lower()
        same_host = name == host or (name in LOOPBACK and host in LOOPBACK)
        if not same_host or port != own_port:
            return f"Origin {origin!r} is not this server ({request.headers.get('host')})"
        return None

    def token_problem(self, request: Request) -> str | None:
        """Why the admin token check fails (None when no token is configured or it matches)."""
        return token_problem(request.headers.get("authorization"), self.token)

    def mutation_problem(self, request: Request) -> str | None:
        """Origin first, then the admin token: the reason for a 403, or None."""
        return self.origin_problem(request) or self.token_problem(request)


def page_path(path: str) -> bool:
    """The page and its static files: no repository data, loadable without the token."""
    return path in ("/", "/repos", "/favicon.ico") or path.startswith(("/repos/", "/static/"))


class HostCheck:
    """ASGI middleware: refuse requests whose Host is not this server and API requests from
    another site (Origin, Sec-Fetch-Site); add security headers."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.responses import JSONResponse
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"host")
        if not self.guard.host_ok(raw.decode("latin-1") if raw is not None else None):
            response = JSONResponse({"error": "Host header is not this server: use its "
                                     "address, a loopback name, or a name in allowed_hosts "
                                     "([codeintel]) or --allow-host"}, status_code=421)
            await response(scope, receive, send)
            return
        if not page_path(scope.get("path", "")):
            # A page on another site may not drive the API, reads included (a GET with
            # ?diff= runs git): browsers mark such requests cross-site or with an Origin.
            problem = self.guard.origin_problem(Request(scope))
            if problem is not None:
                await JSONResponse({"error": problem}, status_code=403)(scope, receive, send)
                return

        async def send_with_headers(message: dict[str, object]) -> None:
            if message["type"] == "http.response.start":
                existing = list(message.get("headers") or [])  # type: ignore[call-overload]
                names = {k.lower() for k, _ in existing}
                existing += [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message["headers"] = existing
            await send(message)
        await self.app(scope, receive, send_with_headers)  # type: ignore[arg-type]
