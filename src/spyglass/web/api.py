"""JSON API handlers: the tools of SPEC §3 over HTTP, index jobs, events and run views."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from spyglass.config import ConfigError
from spyglass.errors import BadInput, IndexUnavailable, OutsideRoot, SpyglassError
from spyglass.query.facade import CodeIntel
from spyglass.types import ToolResult
from spyglass.web.graph import build_graph
from spyglass.web.jobs import Busy, Jobs
from spyglass.web.overlay import diagnostics_summary, diff_overlay
from spyglass.web.security import Guard
from spyglass.wire import plain, result_json

RUN_IDS = ("workspace",)
OPTIONAL = {"blast_radius": "code_blast_radius", "suggest_tests": "code_suggest_tests",
            "explore": "code_explore"}
REF_PATTERN = re.compile(r"[A-Za-z0-9_./@{}~^-]{1,200}")


class NotFound(SpyglassError):
    """An unknown repository, run, job or tool (404)."""


class Forbidden(SpyglassError):
    """Refused by policy or by the request guards (403)."""


def slug(name: str) -> str:
    """A repository name as a URL-safe id: `pallets/flask` → `pallets-flask`."""
    return re.sub(r"[^a-z0-9._]+", "-", name.lower()).strip("-") or "repo"


@dataclass
class WebState:
    """What every handler needs: the one facade, the job runner and the guards."""

    ci: CodeIntel
    jobs: Jobs
    guard: Guard
    heartbeat: float = 15.0

    @property
    def repo_id(self) -> str:
        return slug(self.ci.repo)


def state_of(request: Request) -> WebState:
    st: WebState = request.app.state.web
    return st


def error(message: str, status: int, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def error_response(exc: Exception) -> JSONResponse:
    """Domain exceptions → status codes; anything else is a 500 with its message."""
    if isinstance(exc, NotFound):
        return error(str(exc), 404)
    if isinstance(exc, Forbidden):
        return error(str(exc), 403)
    if isinstance(exc, Busy):
        return error(str(exc), 409)
    if isinstance(exc, OutsideRoot):
        return error(str(exc), 400, kind="outside_root")
    if isinstance(exc, BadInput):
        return error(str(exc), 400)
    if isinstance(exc, IndexUnavailable):
        return error(str(exc), 409 if "index the repository first" in str(exc) else 503)
    if isinstance(exc, ConfigError):
        return error(str(exc), 500)
    if isinstance(exc, SpyglassError):
        return error(str(exc), 400)
    return error(f"internal error: {type(exc).__name__}: {exc}", 500)


async def blocking(fn: Callable[[], Any]) -> Response:
    """Run a facade call in the thread pool and answer with its JSON (or an error)."""
    try:
        value = await run_in_threadpool(fn)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a JSON error
        return error_response(exc)
    if isinstance(value, Response):
        return value
    return JSONResponse(result_json(value) if isinstance(value, ToolResult) else value)


# -- parameters ------------------------------------------------------------------------------
def text(request: Request, name: str, required: bool = False) -> str | None:
    value = request.query_params.get(name)
    if value is not None and ("\0" in value or len(value) > 4096):
        raise BadInput(f"{name} is not acceptable")
    if required and not value:
        raise BadInput(f"query parameter {name!r} is required")
    return value or None


def number(request: Request, name: str, default: int | None = None) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise BadInput(f"{name} must be an integer, got {value!r}") from None


def flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "").lower() in ("1", "true", "yes", "on")


def repo(request: Request) -> WebState:
    st = state_of(request)
    if request.path_params.get("repo_id") != st.repo_id:
        raise NotFound(f"unknown repository {request.path_params.get('repo_id')!r}; "
                       f"this server serves {st.repo_id!r}")
    return st


def allowed(st: WebState, tool: str) -> None:
    if tool not in st.ci.config.capabilities:
        raise Forbidden(f"{tool} is not enabled by the configuration or repository policy")


def call_optional(ci: CodeIntel, method: str, lead: str, **kwargs: Any) -> Any:
    """Call a facade method that may not exist yet, with the keyword arguments it accepts."""
    fn = getattr(ci, method, None)
    if fn is None:
        raise NotFound(f"{OPTIONAL[method]} is not available in this version")
    params = inspect.signature(fn).parameters
    given = {k: v for k, v in kwargs.items() if v is not None}
    call = {k: v for k, v in given.items() if k in params}
    args = [given[lead]] if lead in given and lead not in params else []
    return fn(*args, **call)


def features(st: WebState) -> dict[str, bool]:
    caps = st.ci.config.capabilities
    out = {m: hasattr(st.ci, m) and tool in caps for m, tool in OPTIONAL.items()}
    out["ast_query"] = "code_ast_query" in caps
    return out


def guarded(fn: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """Wrap a handler: domain errors raised while reading parameters become JSON errors."""
    async def handler(request: Request) -> Response:
        try:
            result: Response = await fn(request)
        except Exception as exc:  # noqa: BLE001
            return error_response(exc)
        return result
    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler


# -- repositories ----------------------------------------------------------------------------
def _summary(st: WebState) -> dict[str, Any]:
    ci = st.ci
    body = result_json(ci.status())
    report = body["results"][0]
    job = st.jobs.current
    store_job = ci.last_job()
    git = (ci.root / ".git").exists()
    body.update({
        "repo_id": st.repo_id, "repo": ci.repo, "root": str(ci.root),
        "target_ref": ci.config.target_branch or ("HEAD" if git else "working-tree"),
        "indexed": report["indexed"],
        "snapshot": {"commit": report["snapshot_commit"], "ref": report["snapshot_ref"],
                     "indexed_at": report["indexed_at"]} if report["indexed"] else None,
        "job": st.jobs.snapshot_of(job) if job else None,
        "store_job": plain(store_job) if store_job else None,
        "diagnostics": diagnostics_summary(ci),
        "features": features(st),
        "admin_token_required": st.guard.token is not None,
        "last_event_id": st.jobs.last_event_id,
    })
    return body


@guarded
async def list_repos(request: Request) -> Response:
    """GET /api/v1/code/repos: the one repository this server serves."""
    st = state_of(request)

    def work() -> dict[str, Any]:
        snap = st.ci.last_job()
        return {"repos": [{"repo_id": st.repo_id, "repo": st.ci.repo, "root": str(st.ci.root),
                           "indexed": st.ci.has_index and snap is not None,
                           "links": {"self": f"/api/v1/code/repos/{st.repo_id}",
                                     "page": f"/repos/{st.repo_id}"}}]}
    return await blocking(work)


@guarded
async def summary(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}: status envelope plus job, snapshot and diagnostics."""
    st = repo(request)
    return await blocking(lambda: _summary(st))


@guarded
async def start_index(request: Request) -> Response:
    """POST /api/v1/code/repos/{repo_id}/index: accept a background index job (202)."""
    st = repo(request)
    problem = st.guard.mutation_problem(request)
    if problem:
        return error(problem, 403)
    ref: str | None = None
    body = await request.body()
    if body.strip():
        try:
            data = await request.json()
        except ValueError:
            raise BadInput("the request body must be JSON, e.g. {\"ref\": \"main\"}") from None
        if not isinstance(data, dict) or set(data) - {"ref"}:
            raise BadInput("the request body may only hold {\"ref\": REF}")
        ref = data.get("ref") or None
        if ref is not None and (not isinstance(ref, str) or ref.startswith("-")
                                or not REF_PATTERN.fullmatch(ref)):
            raise BadInput(f"not a git revision: {ref!r}")
    try:
        job = st.jobs.start(ref)
    except Busy as exc:
        running = st.jobs.current
        return error(str(exc), 409, job=st.jobs.snapshot_of(running) if running else None)
    base = f"/api/v1/code/repos/{st.repo_id}"
    return JSONResponse({"job_id": job.id, "state": "accepted", "job": st.jobs.snapshot_of(job),
                         "links": {"job": f"{base}/jobs/{job.id}", "events": f"{base}/events"}},
                        status_code=202, headers={"Location": f"{base}/jobs/{job.id}"})


@guarded
async def list_jobs(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/jobs: jobs started by this server, newest first."""
    st = repo(request)
    jobs = [st.jobs.snapshot_of(j) for j in reversed(list(st.jobs.jobs.values()))]
    return JSONResponse({"jobs": jobs})


@guarded
async def get_job(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/jobs/{job_id}: one job, for polling."""
    st = repo(request)
    job = st.jobs.get(request.path_params["job_id"])
    if job is None:
        raise NotFound(f"unknown job {request.path_params['job_id']!r}")
    return JSONResponse({"job": st.jobs.snapshot_of(job),
                         "last_event_id": st.jobs.last_event_id})


@guarded
async def events(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/events: server-sent events (`follow=0`: backlog only)."""
    st = repo(request)
    after = number(request, "after")
    if after is None:
        header = request.headers.get("last-event-id", "")
        after = int(header) if header.isdigit() else 0
    follow = request.query_params.get("follow", "1") not in ("0", "false", "no")
    return StreamingResponse(st.jobs.stream(after, follow, st.heartbeat),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# -- tools -----------------------------------------------------------------------------------
@guarded
async def symbols(request: Request) -> Response:
    """GET …/symbols?q=NAME&kind=K&path=P (code_find_symbol)."""
    st = repo(request)
    allowed(st, "code_find_symbol")
    q = text(request, "q", required=True)
    kind, path = text(request, "kind"), text(request, "path")
    assert q is not None
    return await blocking(lambda: st.ci.find_symbol(q, kind, path))


def _position(request: Request) -> dict[str, Any]:
    name, path = text(request, "name"), text(request, "path")
    line, column = number(request, "line"), number(request, "column")
    if name is None and (path is None or line is None):
        raise BadInput("give name=SYMBOL, or path=FILE&line=N[&column=C]")
    return {"name": name, "path": path, "line": line, "column": column}


@guarded
async def references(request: Request) -> Response:
    """GET …/references?name= or ?path=&line=&column= (code_references)."""
    st = repo(request)
    allowed(st, "code_references")
    pos = _position(request)
    decl, exact = flag(request, "include_declaration"), flag(request, "exact_only")
    return await blocking(lambda: st.ci.references(**pos, include_declaration=decl,
                                                   exact_only=exact))


@guarded
async def callers(request: Request) -> Response:
    """GET …/callers?name= or ?path=&line=&column= (code_callers)."""
    st = repo(request)
    allowed(st, "code_callers")
    pos = _position(request)
    exact = flag(request, "exact_only")
    return await blocking(lambda: st.ci.callers(**pos, exact_only=exact))


@guarded
async def structure(request: Request) -> Response:
    """GET …/structure?path=P (code_structure)."""
    st = repo(request)
    allowed(st, "code_structure")
    path = text(request, "path", required=True)
    assert path is not None
    return await blocking(lambda: st.ci.structure(path))


@guarded
async def diagnostics(request: Request) -> Response:
    """GET …/diagnostics?path=P[&path=Q] (code_diagnostics; no path: bounded summary)."""
    st = repo(request)
    allowed(st, "code_diagnostics")
    paths = request.query_params.getlist("path")
    if not paths:
        return await blocking(lambda: diagnostics_summary(st.ci))
    return await blocking(lambda: st.ci.diagnostics(paths))


@guarded
async def context(request: Request) -> Response:
    """GET …/context?path=P&start=N&end=M (code_context: live source span)."""
    st = repo(request)
    allowed(st, "code_context")
    path = text(request, "path", required=True)
    start = number(request, "start", 1) or 1
    end = number(request, "end", start) or start
    assert path is not None
    return await blocking(lambda: st.ci.context([(path, start, end)]))


@guarded
async def ast_query(request: Request) -> Response:
    """POST …/ast-query {"query", "paths"} (code_ast_query; admin-gated when a token is set)."""
    st = repo(request)
    problem = st.guard.mutation_problem(request)
    if problem:
        return error(problem, 403)
    allowed(st, "code_ast_query")
    try:
        data = await request.json()
    except ValueError:
        raise BadInput("the request body must be JSON {\"query\": ..., \"paths\": [...]}") \
            from None
    query, paths = data.get("query"), data.get("paths", [])
    if not isinstance(query, str) or not isinstance(paths, list) or not all(
            isinstance(p, str) for p in paths):
        raise BadInput("query must be a string and paths a list of strings")
    return await blocking(lambda: st.ci.ast_query(query, paths))


@guarded
async def blast_radius(request: Request) -> Response:
    """GET …/blast-radius?target=T[&target=U]&diff=REV&depth=N (code_blast_radius)."""
    st = repo(request)
    allowed(st, "code_blast_radius")
    targets = request.query_params.getlist("target")
    diff, depth = text(request, "diff"), number(request, "depth")
    return await blocking(lambda: call_optional(st.ci, "blast_radius", "targets",
                                                targets=targets, diff=diff, depth=depth))


@guarded
async def suggest_tests(request: Request) -> Response:
    """GET …/tests?target=T&diff=REV (code_suggest_tests)."""
    st = repo(request)
    allowed(st, "code_suggest_tests")
    targets = request.query_params.getlist("target")
    diff = text(request, "diff")
    return await blocking(lambda: call_optional(st.ci, "suggest_tests", "targets",
                                                targets=targets, diff=diff))


@guarded
async def explore(request: Request) -> Response:
    """GET …/explore?q=QUERY&path=P&budget=N (code_explore)."""
    st = repo(request)
    allowed(st, "code_explore")
    q = text(request, "q", required=True)
    path, budget = text(request, "path"), number(request, "budget")
    return await blocking(lambda: call_optional(st.ci, "explore", "query", query=q,
                                                path=path, budget=budget))


# -- runs ------------------------------------------------------------------------------------
def run(request: Request) -> tuple[WebState, str]:
    st = state_of(request)
    run_id = request.path_params["run_id"]
    if run_id not in RUN_IDS:
        raise NotFound(f"unknown run {run_id!r}: this server has one run, 'workspace' "
                       "(the baseline snapshot composed with the files on disk)")
    return st, run_id


@guarded
async def run_graph(request: Request) -> Response:
    """GET /api/v1/runs/{run_id}/code/graph?symbol=|path=[&line=]&depth=&limit=&references="""
    st, run_id = run(request)
    symbol, path = text(request, "symbol"), text(request, "path")
    line, depth = number(request, "line"), number(request, "depth", 2) or 2
    limit = number(request, "limit", 60) or 60
    refs = request.query_params.get("references", "1") not in ("0", "false", "no")
    return await blocking(lambda: build_graph(st.ci, run_id, symbol, path, line, depth, limit,
                                              refs))


@guarded
async def run_diff_overlay(request: Request) -> Response:
    """GET /api/v1/runs/{run_id}/code/diff-overlay: changed paths and definitions."""
    st, run_id = run(request)
    return await blocking(lambda: diff_overlay(st.ci, run_id))


def static_dir() -> Path:
    return Path(__file__).resolve().parent / "static"
