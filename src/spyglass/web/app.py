"""The Starlette application (page + JSON API) and `spyglass web`, bound to 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from spyglass.config import load_config
from spyglass.errors import SpyglassError
from spyglass.net import (
    BodyCap,
    TokenGate,
    is_loopback,
    listen,
    refuse_open_bind,
    serve_until_stopped,
)
from spyglass.query.facade import CodeIntel, stop_children
from spyglass.web import api, openapi, tools
from spyglass.web.http import WebState
from spyglass.web.jobs import HEARTBEAT_SECONDS, Jobs
from spyglass.web.security import Guard, HostCheck, page_path

REPO = "/api/v1/code/repos/{repo_id}"


async def page(request: Request) -> Response:
    """The single-page UI: `/` and `/repos` list the repositories, `/repos/{repo_id}` is one
    repository (its state in the query string); an unknown repository is a 404 page."""
    status = 200
    wanted = request.path_params.get("repo_id")
    st = request.app.state.web
    if wanted is not None and wanted != st.repo_id:
        try:  # another repository of the team store (asks the store)
            known = await run_in_threadpool(st.for_id, wanted)
        except SpyglassError:
            known = None
        if known is None:
            status = 404  # the page says so and links to the repository list
    return FileResponse(api.static_dir() / "index.html", status_code=status,
                        headers={"Cache-Control": "no-cache"})


async def favicon(request: Request) -> Response:
    return FileResponse(api.static_dir() / "favicon.svg", media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})


async def openapi_document(request: Request) -> Response:
    """GET /api/v1/openapi.json: the API as OpenAPI 3.1 (docs/web.md)."""
    listed = [(r.path, sorted(r.methods or ()), (r.endpoint.__doc__ or ""))
              for r in request.app.routes if isinstance(r, Route)]
    known = {"repo_id": [request.app.state.web.repo_id], "run_id": list(api.RUN_IDS)}
    return JSONResponse(openapi.document(listed, known))


async def not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"no such endpoint: {request.method} {request.url.path}"},
                        status_code=404)


async def not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"{request.method} is not allowed on {request.url.path}"},
                        status_code=405)


def routes() -> list[Route | Mount]:
    """Every endpoint of the page and the API (docs/web.md lists them)."""
    get, post = ["GET"], ["POST"]
    return [
        Route("/", page, methods=get),
        Route("/repos", page, methods=get),
        Route("/repos/{repo_id}", page, methods=get),
        Route("/favicon.ico", favicon, methods=get),
        Route("/api/v1/openapi.json", openapi_document, methods=get),
        Route("/api/v1/code/repos", api.list_repos, methods=get),
        Route(REPO, api.summary, methods=get),
        Route(REPO + "/index", api.start_index, methods=post),
        Route(REPO + "/jobs", api.list_jobs, methods=get),
        Route(REPO + "/jobs/{job_id}", api.get_job, methods=get),
        Route(REPO + "/events", api.events, methods=get),
        Route(REPO + "/file", api.source_file, methods=get),
        Route(REPO + "/lines", api.source_lines, methods=get),
        *tools.routes(REPO),  # the tools of spyglass.surface
        Route("/api/v1/runs/{run_id}/code/graph", api.run_graph, methods=get),
        Route("/api/v1/runs/{run_id}/code/diff-overlay", api.run_diff_overlay, methods=get),
        Mount("/static", StaticFiles(directory=api.static_dir()), name="static"),
    ]


def create_app(ci: CodeIntel, host: str = "127.0.0.1", port: int | None = None,
               heartbeat: float = HEARTBEAT_SECONDS, allow_hosts: Sequence[str] = ()
               ) -> Starlette:
    """One app per repository: one CodeIntel (it has a lock), one job runner.

    In front of the routes: the Host allowlist (and beyond loopback the admin token on every
    API request), then the request-body cap, enforced while the body streams in."""
    guard = Guard(host, port, ci.config.admin_token, (*ci.config.allowed_hosts, *allow_hosts))
    jobs = Jobs(ci)
    jobs.check_external()  # remember the current snapshot: later ones are announced
    gates = [Middleware(HostCheck, guard=guard)]
    if guard.open:
        gates.append(Middleware(TokenGate, token=guard.token, open_paths=page_path))
    gates.append(Middleware(BodyCap, limit=ci.config.limits.max_request_bytes))
    # Responses compressed when the browser asks (the page's scripts and answer JSON are
    # text; the event stream is never buffered: GZipMiddleware leaves text/event-stream).
    gates.append(Middleware(GZipMiddleware, minimum_size=1024))
    app = Starlette(routes=routes(), middleware=gates,
                    exception_handlers={404: not_found, 405: not_allowed})
    app.state.web = WebState(ci, jobs, guard, heartbeat)
    return app


def run_web(start: Path, host: str, port: int, config_path: str | None,
            err: TextIO = sys.stderr, allow_hosts: Sequence[str] = ()) -> int:
    """`spyglass web`: serve the page and API until interrupted."""
    host = host.strip("[]") or "127.0.0.1"
    config = load_config(Path(config_path) if config_path else None)
    refuse_open_bind(host, config.admin_token, "spyglass web")  # before any work
    ci = CodeIntel(start)
    if config_path:
        ci.config = load_config(Path(config_path), repo_root=ci.root)
    sock = listen(host, port)
    port = sock.getsockname()[1]
    app = create_app(ci, host, port, allow_hosts=allow_hosts)
    shown = f"[{host}]" if ":" in host else host
    if not is_loopback(host):
        names = ", ".join(sorted(app.state.web.guard.names))
        err.write(f"spyglass: warning: the web server is reachable on {host}; every API "
                  f"request needs the admin token; Host names accepted: {names}\n")
    def ready() -> None:
        err.write(f"spyglass: {ci.repo} ({ci.root}) at http://{shown}:{port}/\n")
        err.flush()
    serve_until_stopped(app, sock, lifespan="off", ready=ready,
                        on_stop=stop_children)
    return 0
