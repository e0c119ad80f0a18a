"""`spyglass serve`: discovery, tool selection and the stdio / streamable-HTTP transports."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from spyglass.config import ALL_TOOLS, Config, Limits
from spyglass.errors import BadInput, SpyglassError
from spyglass.mcp.filter import ToolFilter, resolve_tool_filter, warn_tool_filter
from spyglass.net import (
    BodyCap,
    RefuseCrossSite,
    TokenGate,
    allowed_names,
    is_loopback,
    listen,
    refuse_open_bind,
    serve_until_stopped,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from spyglass.mcp.backend import Backend
    from spyglass.mcp.middleware import SessionLog

NAME = "spyglass"

INSTRUCTIONS = """\
spyglass answers structural questions about this repository from a tree-sitter code graph; \
every result carries path:line, its source (cached-index or live text-fallback) and flags \
uncertain or stale answers with evidence. For a non-trivial edit:
1. locate: code_find_symbol (or code_explore when unsure of the name);
2. impact: code_references / code_callers / code_blast_radius;
3. read the live spans with code_context before editing; never edit from index results alone;
4. edit;
5. verify: code_suggest_tests, run those tests, code_diagnostics for syntax.
Paths are relative to the repository root; lines and columns are 1-based. When a tool \
reports an unsupported language, no results or no index, fall back to search and reading \
files. code_status shows freshness and can build the index (index=true). Answers fit \
max_chars (default 8000): a cut answer lists what it left out per file and how to narrow."""


@dataclass
class Built:
    """A configured server and what it offers."""

    server: MCPServer[Any]
    offered: list[str]
    refused: dict[str, str] = field(default_factory=dict)
    backend: Backend | None = None
    log: SessionLog | None = None


def _reasons(flt: ToolFilter, host: tuple[str, ...], narrowed: tuple[str, ...]
             ) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in ALL_TOOLS:
        if name not in host:
            out[name] = "not approved by the host config ([codeintel] capabilities)"
        elif name not in narrowed:
            out[name] = "denied by repository policy (spyglass.toml [policy] capabilities)"
        elif name not in flt.selected:
            out[name] = f"not selected by SPYGLASS_MCP_TOOLS={flt.raw!r}"
    return out


def build_server(start: Path, *, environ: Mapping[str, str] | None = None,
                 require_index: bool = False, config_path: str | None = None,
                 http: bool = False, session_log: str | None = None,
                 stderr: TextIO | None = None) -> Built:
    """Discover the index from `start`, pick the tools and register them on an MCPServer."""
    from mcp.server.mcpserver import MCPServer

    from spyglass.config import load_config
    from spyglass.mcp.middleware import ReasonedErrors, RefuseUnoffered, SessionLog, WarmUp

    err = stderr or sys.stderr
    flt = resolve_tool_filter(os.environ if environ is None else environ)
    start = start.resolve()
    backend: Backend | None = None
    offered: list[str] = []
    refused: dict[str, str]
    tools: list[Any] = []
    host_config = load_config(Path(config_path) if config_path else None)
    if not host_config.enabled:
        err.write("spyglass: [codeintel] enabled = false in the host config: serving no tools\n")
        refused = dict.fromkeys(ALL_TOOLS, "code intelligence is disabled in the host config")
    else:
        from spyglass.mcp.backend import Backend
        from spyglass.mcp.tools import build_tools
        from spyglass.query.discovery import discover

        root, _store_root, has_index = discover(start)
        config = load_config(Path(config_path) if config_path else None, repo_root=root)
        if require_index and not has_index:
            err.write(f"spyglass: no .spyglass index for {root} (searched up from {start}); "
                      "--require-index: serving no tools (run `spyglass index`)\n")
            refused = dict.fromkeys(ALL_TOOLS, "no index: the server runs with --require-index "
                                    "and found no .spyglass/ (run `spyglass index`)")
        else:
            backend = Backend(start, root, config, has_index)
            offered = [t for t in flt.selected if t in config.capabilities]
            refused = _reasons(flt, host_config.capabilities, config.capabilities)
            backend.offered = offered
            tools = build_tools(backend, offered,
                                admin_token=config.admin_token if http else None)
            if not has_index:
                err.write(f"spyglass: no index for {root}: answering from live parsing; "
                          "code_status index=true or `spyglass index` builds one\n")
    warn_tool_filter(err, flt, offered)
    server: MCPServer[Any] = MCPServer(NAME, instructions=INSTRUCTIONS, version=_version(),
                                       tools=tools, log_level="WARNING")
    log = SessionLog(session_log) if session_log else None
    if log is not None:
        server.middleware.append(log)
    server.middleware.append(ReasonedErrors())
    server.middleware.append(RefuseUnoffered(refused))
    if backend is not None:
        server.middleware.append(WarmUp(backend.warm_up))
    return Built(server, offered, refused, backend, log)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("spyglass")
    except PackageNotFoundError:
        return "0"


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT, [V6]:PORT, :PORT or PORT (host defaults to 127.0.0.1)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise BadInput(f"--http wants HOST:PORT, got {text!r}")
    return host, int(port)


def security_settings(host: str, port: int, extra_hosts: Sequence[str] = ()) -> Any:
    """Host and Origin allowlists for DNS-rebinding protection: loopback names, the bound
    address and the configured `allowed_hosts`, each with the bound port."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = sorted(allowed_names(host, extra_hosts))
    hosts = [f"[{n}]:{port}" if ":" in n else f"{n}:{port}" for n in names]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts])  # served over http: no https://


def http_app(built: Built, host: str, port: int, token: str | None = None,
             extra_hosts: Sequence[str] = ()) -> Any:
    """The streamable-HTTP ASGI app behind spyglass's gates: the request-body cap (while the
    body streams in) and, beyond loopback, the admin token on every request."""
    config = built.backend.config if built.backend is not None else None
    limit = config.limits.max_request_bytes if config else Limits().max_request_bytes
    hosts = (*(config.allowed_hosts if config else ()), *extra_hosts)
    from spyglass.mcp.sessions import TOTAL, SessionCap
    idle = config.mcp_session_idle_s if config else Config.mcp_session_idle_s
    app: Any = built.server.streamable_http_app(
        transport_security=security_settings(host, port, hosts), host=host,
        max_request_body_size=limit, session_idle_timeout=idle, max_sessions=2 * TOTAL)
    app = SessionCap(app, built.server.session_manager)  # idle sessions make room
    app = RefuseCrossSite(BodyCap(app, limit))
    if not is_loopback(host):
        app = TokenGate(app, token or (config.admin_token if config else None))
    return app


def serve_http(built: Built, address: str, err: TextIO, token: str | None = None,
               extra_hosts: Sequence[str] = ()) -> None:
    from spyglass.query.facade import stop_children
    host, port = parse_address(address)
    refuse_open_bind(host, token, "spyglass serve --http")
    sock = listen(host, port)
    port = sock.getsockname()[1]
    app = http_app(built, host, port, token, extra_hosts)
    if not is_loopback(host):
        configured = built.backend.config.allowed_hosts if built.backend else ()
        names = ", ".join(sorted(allowed_names(host, (*configured, *extra_hosts))))
        err.write(f"spyglass: warning: MCP over HTTP is exposed on {host}; every request "
                  "needs the admin token (Authorization: Bearer …); Host names accepted: "
                  f"{names} (port {port})\n")
    shown = f"[{host}]" if ":" in host else host

    def ready() -> None:
        err.write(f"spyglass: MCP over streamable HTTP at http://{shown}:{port}/mcp\n")
        err.flush()
    serve_until_stopped(app, sock, lifespan="on", ready=ready,
                        on_stop=stop_children)


def serve(start: Path, http: str | None = None, require_index: bool = False,
          session_log: str | None = None, config_path: str | None = None,
          allow_hosts: Sequence[str] = ()) -> int:
    """Run the MCP server until the client goes away (stdio) or it is interrupted (HTTP)."""
    import logging

    from spyglass.config import load_config
    from spyglass.mcp.middleware import OneLineLogs

    err = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=err,
                        format="spyglass: %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(OneLineLogs())
    token: str | None = None
    if http is not None:  # refuse an open bind without a token before any work
        token = load_config(Path(config_path) if config_path else None).admin_token
        refuse_open_bind(parse_address(http)[0], token, "spyglass serve --http")
    built = build_server(start, require_index=require_index, config_path=config_path,
                         http=http is not None, session_log=session_log, stderr=err)
    if built.backend is not None and built.backend.config.required \
            and built.backend.config.lsp:
        try:  # `[codeintel] required = true`: no server without its language servers
            built.backend.intel.start_bridges()
        except SpyglassError as exc:
            err.write(f"spyglass: {exc}\n")
            return 2
    try:
        if http is not None:
            serve_http(built, http, err, token, allow_hosts)
        else:
            import anyio
            anyio.run(built.server.run_stdio_async)
    except KeyboardInterrupt:
        pass
    finally:
        if built.log is not None:
            built.log.close()
    return 0
