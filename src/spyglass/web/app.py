"""The Starlette application (page + JSON API) and `spyglass web`, bound to 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from spyglass.config import load_config
from spyglass.net import listen
from spyglass.query.facade import CodeIntel
from spyglass.web import api, tools
from spyglass.web.http import WebState
from spyglass.web.jobs import HEARTBEAT_SECONDS, Jobs
from spyglass.web.security import LOOPBACK, Guard, HostCheck

REPO = "/api/v1/code/repos/{repo_id}"


async def page(request: Request) -> Response:
    """The single-page UI (the same page for `/` and `/repos/{repo_id}`)."""
    return FileResponse(api.static_dir() / "index.html",
                        headers={"Cache-Control": "no-cache"})


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
        Route("/repos/{repo_id}", page, methods=get),
        Route("/api/v1/code/repos", api.list_repos, methods=get),
        Route(REPO, api.summary, methods=get),
        Route(REPO + "/index", api.start_index, methods=post),
        Route(REPO + "/jobs", api.list_jobs, methods=get),
        Route(REPO + "/jobs/{job_id}", api.get_job, methods=get),
        Route(REPO + "/events", api.events, methods=get),
        *tools.routes(REPO),  # the tools of spyglass.surface
        Route("/api/v1/runs/{run_id}/code/graph", api.run_graph, methods=get),
        Route("/api/v1/runs/{run_id}/code/diff-overlay", api.run_diff_overlay, methods=get),
        Mount("/static", StaticFiles(directory=api.static_dir()), name="static"),
    ]


def create_app(ci: CodeIntel, host: str = "127.0.0.1", port: int | None = None,
               heartbeat: float = HEARTBEAT_SECONDS) -> Starlette:
    """One app per repository: one CodeIntel (it has a lock), one job runner."""
    guard = Guard(host, port, ci.config.admin_token)
    jobs = Jobs(ci)
    jobs.check_external()  # remember the current snapshot: later ones are announced
    app = Starlette(routes=routes(), middleware=[Middleware(HostCheck, guard=guard)],
                    exception_handlers={404: not_found, 405: not_allowed})
    app.state.web = WebState(ci, jobs, guard, heartbeat)
    return app


def run_web(start: Path, host: str, port: int, config_path: str | None,
            err: TextIO = sys.stderr) -> int:
    """`spyglass web`: serve the page and API until interrupted."""
    import asyncio

    import uvicorn

    ci = CodeIntel(start)
    if config_path:
        ci.config = load_config(Path(config_path), repo_root=ci.root)
    host = host.strip("[]") or "127.0.0.1"
    sock = listen(host, port)
    port = sock.getsockname()[1]
    app = create_app(ci, host, port)
    shown = f"[{host}]" if ":" in host else host
    if host not in LOOPBACK:
        err.write(f"spyglass: warning: the web server is reachable on {host}; POST requests "
                  "need a same-origin Origin" + (" and the admin token\n" if
                                                 ci.config.admin_token else
                                                 "; set an admin token in the config\n"))
    err.write(f"spyglass: {ci.repo} ({ci.root}) at http://{shown}:{port}/\n")
    err.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=2)
    try:
        asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
