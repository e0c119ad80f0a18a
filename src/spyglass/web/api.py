"""Repository endpoints: summary, index jobs, job polling, server-sent events, run views."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel, read_small
from spyglass.web.graph import build_graph, relation_status
from spyglass.web.http import (
    NotFound,
    WebState,
    blocking,
    error,
    features,
    flag,
    guarded,
    json_body,
    number,
    repo,
    slug,
    state_of,
    text,
)
from spyglass.web.jobs import Busy
from spyglass.web.overlay import diagnostics_summary, diff_overlay
from spyglass.web.source import file_view, line_texts, parse_positions
from spyglass.wire import plain, provenance_json, result_json

RUN_IDS = ("workspace",)
REF_PATTERN = re.compile(r"[A-Za-z0-9_./@{}~^-]{1,200}")


# -- repositories ----------------------------------------------------------------------------
def has_snapshot(ci: CodeIntel) -> bool:
    """Whether a completed snapshot exists, found without composing a view."""
    # With no snapshot, composing the view would parse every file live.
    if not ci.has_index:
        return False
    if ci.provenance().indexed_at is not None:  # the current view already has one
        return True
    row = plain(ci.last_job())
    return isinstance(row, dict) and row.get("state") == "completed"


def branch_of(root: Path) -> str | None:
    """The branch HEAD names, read from git's HEAD file (no process): None when detached.
    `.git` (a file) and HEAD are read bounded and only as regular files: a link to
    /dev/zero or a FIFO is never read without end, nor waited on."""
    git = root / ".git"
    if git.is_file():  # a linked worktree: `gitdir: PATH`
        line = (read_small(git) or b"").decode("utf-8", "replace").strip()
        if not line.startswith("gitdir:"):
            return None
        gitdir = Path(line[7:].strip())
        git = gitdir if gitdir.is_absolute() else root / gitdir
    head = (read_small(git / "HEAD") or b"").decode("utf-8", "replace").strip()
    prefix = "ref: refs/heads/"
    return head[len(prefix):][:200] if head.startswith(prefix) else None


def _summary(st: WebState, full: bool) -> dict[str, Any]:
    """The repository summary; `partial` (no status, coverage) until a snapshot exists."""
    # Without a snapshot, status and coverage parse every file live: the empty state must
    # not wait for that, so they are computed only on `full` and never while a job runs.
    ci = st.ci
    running = st.jobs.current is not None and not st.jobs.current.done
    partial = (not full or running) and not has_snapshot(ci)
    body: dict[str, Any]
    if partial:
        body = {"results": [], "truncated": False, "coverage": None,
                "provenance": provenance_json(ci.provenance())}
        report: dict[str, Any] = {"indexed": False}
    else:
        body = result_json(ci.status())
        report = body["results"][0]
    job = st.jobs.current
    store_job = getattr(ci, "last_index_job", ci.last_job)()
    git = (ci.root / ".git").exists()
    body.update({
        "partial": partial,
        "repo_id": st.repo_id, "repo": ci.repo, "root": str(ci.root),
        "target_ref": ci.config.target_branch or ("HEAD" if git else "working-tree"),
        "branch": branch_of(ci.root) if git else None,
        "indexed": report["indexed"],
        "snapshot": {"commit": report["snapshot_commit"], "ref": report["snapshot_ref"],
                     "indexed_at": report["indexed_at"]} if report["indexed"] else None,
        "job": st.jobs.snapshot_of(job) if job else None,
        "store_job": plain(store_job) if store_job else None,
        "queued": [_queued_json(j) for j in ci.queued_jobs(limit=5)]
        if ci.config.store_url else [],
        "diagnostics": None if partial else diagnostics_summary(ci),
        "features": features(st),
        "relations": relation_status(ci),
        "admin_token_required": st.guard.token is not None,
        "last_event_id": st.jobs.last_event_id,
    })
    return body


@guarded
async def list_repos(request: Request) -> Response:
    """GET /api/v1/code/repos: this server's repository, then those of its team store."""
    st = state_of(request)

    def work() -> dict[str, Any]:
        snap = st.ci.last_job()
        repos = [{"repo_id": st.repo_id, "repo": st.ci.repo, "root": str(st.ci.root),
                  "indexed": st.ci.has_index and snap is not None,
                  "links": {"self": f"/api/v1/code/repos/{st.repo_id}",
                            "page": f"/repos/{st.repo_id}"}}]
        for r in st.ci.repos.listing():
            rid = slug(r.repo)
            if r.repo == st.ci.store_repo or any(x["repo_id"] == rid for x in repos):
                continue
            repos.append({"repo_id": rid, "repo": r.repo, "root": None, "indexed": True,
                          "store": plain(r),
                          "links": {"self": f"/api/v1/code/repos/{rid}",
                                    "page": f"/repos/{rid}"}})
        return {"repos": repos}
    return await blocking(work)


@guarded
async def summary(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}[?full=1]: status envelope, job, snapshot, diagnostics."""
    st = repo(request)
    full = flag(request, "full")
    return await blocking(lambda: _summary(st, full))


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
        data = await json_body(request, '{"ref": "main"}')
        if set(data) - {"ref"}:
            raise BadInput("the request body may only hold {\"ref\": REF}")
        ref = data.get("ref") or None
        if ref is not None and (not isinstance(ref, str) or ref.startswith("-")
                                or not REF_PATTERN.fullmatch(ref)):
            raise BadInput(f"not a git revision: {ref!r}")
    if st.ci.config.store_url:  # the team's workers build it (docs/team.md)
        return await blocking(lambda: _enqueue(st, ref))
    try:
        job = st.jobs.start(ref)
    except Busy as exc:
        running = st.jobs.current
        return error(str(exc), 409, job=st.jobs.snapshot_of(running) if running else None)
    base = f"/api/v1/code/repos/{st.repo_id}"
    return JSONResponse({"job_id": job.id, "state": "accepted", "job": st.jobs.snapshot_of(job),
                         "links": {"job": f"{base}/jobs/{job.id}", "events": f"{base}/events"}},
                        status_code=202, headers={"Location": f"{base}/jobs/{job.id}"})


QUEUED = "queue-"  # the id prefix of a job on the team store's queue


def _enqueue(st: WebState, ref: str | None) -> Response:
    """Put an index job of the repository on the team store's queue (202)."""
    job = st.ci.enqueue(ref)
    base = f"/api/v1/code/repos/{st.repo_id}"
    job_id = f"{QUEUED}{job.id}"
    return JSONResponse({"job_id": job_id, "state": "queued", "job": _queued_json(job),
                         "links": {"job": f"{base}/jobs/{job_id}"}},
                        status_code=202, headers={"Location": f"{base}/jobs/{job_id}"})


def _queued_json(job: Any) -> dict[str, Any]:
    body: dict[str, Any] = plain(job)
    body["id"] = f"{QUEUED}{job.id}"
    body["queue"] = True
    return body


@guarded
async def list_jobs(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/jobs: jobs started by this server, then the team
    store's queue's jobs of the repository, newest first."""
    st = repo(request)
    jobs = [st.jobs.snapshot_of(j) for j in reversed(list(st.jobs.jobs.values()))]
    if not st.ci.config.store_url:
        return JSONResponse({"jobs": jobs})

    def work() -> dict[str, Any]:
        return {"jobs": jobs + [_queued_json(j) for j in st.ci.queued_jobs()]}
    return await blocking(work)


@guarded
async def get_job(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/jobs/{job_id}: one job, for polling."""
    st = repo(request)
    wanted = str(request.path_params["job_id"])
    if wanted.startswith(QUEUED) and wanted[len(QUEUED):].isdigit() \
            and len(wanted) < 30 and st.ci.config.store_url:
        def work() -> dict[str, Any]:
            found = st.ci.queued_jobs(limit=1, job=int(wanted[len(QUEUED):]))
            if not found:
                raise NotFound(f"unknown job {wanted!r}")
            return {"job": _queued_json(found[0])}
        return await blocking(work)
    job = st.jobs.get(request.path_params["job_id"])
    if job is None:
        raise NotFound(f"unknown job {request.path_params['job_id']!r}")
    return JSONResponse({"job": st.jobs.snapshot_of(job),
                         "last_event_id": st.jobs.last_event_id})


@guarded
async def events(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/events: server-sent events (`follow=0`: backlog only)."""
    st = repo(request)
    header = request.headers.get("last-event-id", "")  # a reconnecting EventSource sends it
    after = int(header) if header.isdigit() else (number(request, "after") or 0)
    if after > st.jobs.last_event_id:
        after = 0  # an id from before this server started: replay what this one has
    follow = request.query_params.get("follow", "1") not in ("0", "false", "no")
    return StreamingResponse(st.jobs.stream(after, follow, st.heartbeat),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


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
    name = request.query_params.get("relation", "callers")
    return await blocking(lambda: build_graph(st.ci, run_id, symbol, path, line, depth, limit,
                                              refs, name))


@guarded
async def source_file(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/file?path=: a workspace file's lines and outline."""
    st = repo(request)
    path = text(request, "path", required=True)
    assert path is not None
    return await blocking(lambda: file_view(st.ci, path))


@guarded
async def source_lines(request: Request) -> Response:
    """GET /api/v1/code/repos/{repo_id}/lines?at=PATH:LINE…: the line of code at each row."""
    st = repo(request)
    positions = parse_positions(request.query_params.getlist("at"))
    return await blocking(lambda: line_texts(st.ci, positions))


@guarded
async def run_diff_overlay(request: Request) -> Response:
    """GET /api/v1/runs/{run_id}/code/diff-overlay: changed paths and definitions."""
    st, run_id = run(request)
    return await blocking(lambda: diff_overlay(st.ci, run_id))


def static_dir() -> Path:
    return Path(__file__).resolve().parent / "static"
