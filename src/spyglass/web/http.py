"""Handler plumbing: shared state, parameters, domain errors → JSON status codes."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from spyglass.config import ConfigError
from spyglass.errors import (
    BadInput,
    IndexUnavailable,
    OutsideRoot,
    SpyglassError,
    input_fault,
    internal_reason,
)
from spyglass.net import json_depth_problem
from spyglass.query.facade import CodeIntel, run_cancellable, stop_children
from spyglass.types import ToolResult
from spyglass.web.jobs import Busy, Jobs
from spyglass.web.security import Guard
from spyglass.wire import result_json

logger = logging.getLogger("spyglass.web")
# Facade methods whose tools the page shows only when the configuration enables them.
FEATURE_TOOLS = {"blast_radius": "code_blast_radius", "suggest_tests": "code_suggest_tests",
                 "explore": "code_explore"}


MAX_OTHERS = 16  # states of other store repositories kept (each one facade)


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
    # the other repositories of the team store, by repo_id (docs/team.md)
    others: dict[str, WebState] = field(default_factory=dict)

    @property
    def repo_id(self) -> str:
        return slug(self.ci.repo)

    def for_id(self, repo_id: str | None) -> WebState | None:
        """The state answering for `repo_id`: this repository, or another one of the team
        store that this server answers for (blocking: it may ask the store)."""
        if repo_id == self.repo_id:
            return self
        if not repo_id or not self.ci.config.store_url:
            return None
        if repo_id in self.others:
            return self.others[repo_id]
        for r in self.ci.repos.listing():
            if slug(r.repo) == repo_id:
                ci = self.ci.for_repo(r.repo)
                if ci is self.ci:
                    return self
                st = WebState(ci, Jobs(ci), self.guard, self.heartbeat)
                if len(self.others) >= MAX_OTHERS:
                    self.others.pop(next(iter(self.others)))
                self.others[repo_id] = st
                return st
        return None


def state_of(request: Request) -> WebState:
    st: WebState = request.app.state.web
    return st


def error(message: str, status: int, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def error_response(exc: Exception) -> JSONResponse:
    """Domain exceptions → status codes; bad input found deep inside → 400; anything else
    is a bug: a 500 with a one-line reason, logged (the traceback only with SPYGLASS_DEBUG)."""
    if isinstance(exc, ClientDisconnect):  # also what the body cap tells a reading handler
        return error("the client went away (or the body exceeded max_request_bytes)", 400)
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
    fault = input_fault(exc)
    if fault is not None:
        return error(fault, 400)
    reason = internal_reason(exc)
    logger.error("%s", reason, exc_info=exc if os.environ.get("SPYGLASS_DEBUG") else None)
    return error(reason, 500)


async def json_body(request: Request, example: str) -> dict[str, Any]:
    """The request body as a JSON object (size capped while it streamed in, depth bounded)."""
    raw = await request.body()
    try:
        data = json.loads(raw)
    except RecursionError:
        raise BadInput("the JSON body is nested too deeply") from None
    except ValueError:
        raise BadInput(f"the request body must be JSON, e.g. {example}") from None
    problem = json_depth_problem(data)
    if problem:
        raise BadInput(problem)
    if not isinstance(data, dict):
        raise BadInput(f"the request body must be a JSON object, e.g. {example}")
    return data


async def blocking(fn: Callable[[], Any]) -> Response:
    """Run a facade call in the thread pool and answer with its JSON (or an error); if the
    request is cancelled, the git processes the call waits on are killed."""
    started: list[int] = []
    try:
        value = await run_in_threadpool(run_cancellable, fn, started)
    except anyio.get_cancelled_exc_class():
        for thread in started:
            stop_children(thread)
        raise
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
    wanted = request.path_params.get("repo_id")
    found = st.for_id(wanted)
    if found is None:
        also = " and the repositories of its team store (GET /api/v1/code/repos)" \
            if st.ci.config.store_url else ""
        raise NotFound(f"unknown repository {wanted!r}; this server serves "
                       f"{st.repo_id!r}{also}")
    return found


def allowed(st: WebState, tool: str) -> None:
    if tool not in st.ci.config.capabilities:
        raise Forbidden(f"{tool} is not enabled by the configuration or repository policy")


def features(st: WebState) -> dict[str, bool]:
    caps = st.ci.config.capabilities
    out = {m: tool in caps for m, tool in FEATURE_TOOLS.items()}
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
