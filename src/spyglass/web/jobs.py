"""Background index jobs (one at a time) and the event log the server-sent event stream reads."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from spyglass.errors import IndexUnavailable, SpyglassError
from spyglass.query.facade import CodeIntel
from spyglass.wire import plain

TERMINAL = frozenset({"completed", "failed", "unavailable"})
MAX_EVENTS = 2000
HEARTBEAT_SECONDS = 15.0
OVERLAY_SECONDS = 1.0  # how often an open event stream has the workspace checked (stat probe)
SNAPSHOT_KEYS = ("id", "commit", "ref", "indexed_at", "files", "parsed", "persisted", "reused")


def utcnow() -> str:
    """An ISO-8601 UTC timestamp with second precision."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Busy(SpyglassError):
    """An index job is already running; the message names it."""


@dataclass
class Job:
    """One index run started by this server: its state and coverage counters."""

    id: str
    ref: str | None
    state: str = "accepted"
    phase: str = "enumerate"
    parsed: int = 0
    persisted: int = 0
    reused: int = 0
    total: int = 0
    started_at: str = field(default_factory=utcnow)
    finished_at: str | None = None
    error: str | None = None
    snapshot: dict[str, Any] | None = None
    skipped: dict[str, int] | None = None  # by reason, once the job's `coverage` event is out
    diagnostics: int | None = None

    @property
    def done(self) -> bool:
        return self.state in TERMINAL

    def as_json(self) -> dict[str, Any]:
        """The job as an API object (`done` is true in a terminal state)."""
        return {**asdict(self), "done": self.done}


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of the event log (a job state, code_graph_updated or coverage)."""

    id: int
    kind: str
    at: str
    data: dict[str, Any]

    def sse(self) -> str:
        """The event in text/event-stream framing."""
        body = json.dumps({"event_id": self.id, "kind": self.kind, "at": self.at, **self.data})
        return f"id: {self.id}\nevent: {self.kind}\ndata: {body}\n\n"


class Jobs:
    """Runs index jobs in a background thread and keeps a bounded, numbered event log."""

    def __init__(self, ci: CodeIntel) -> None:
        self.ci = ci
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.jobs: dict[str, Job] = {}
        self.current: Job | None = None
        self.thread: threading.Thread | None = None
        self._events: deque[Event] = deque(maxlen=MAX_EVENTS)
        self._next_event = 1
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._seen: tuple[object, object] | None = None
        self._digest: str | None = None
        self._overlay_at = 0.0

    # -- jobs ------------------------------------------------------------------------------
    def start(self, ref: str | None) -> Job:
        """Accept a new job, or raise Busy while one is running."""
        with self._lock:
            running = self.current
            if running is not None and running.state not in TERMINAL:
                raise Busy(f"index job {running.id} is already running ({running.state})")
            job = Job(f"job-{next(self._ids)}", ref)
            self.jobs[job.id] = job
            self.current = job
        self.emit("accepted", {"job": job.as_json()})
        self.thread = threading.Thread(target=self._run, args=(job,), daemon=True,
                                       name=f"spyglass-index-{job.id}")
        self.thread.start()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self.jobs.get(job_id)

    def snapshot_of(self, job: Job) -> dict[str, Any]:
        with self._lock:
            return job.as_json()

    def _progress(self, job: Job, phase: str, done: int, total: int, persisted: int) -> None:
        with self._lock:
            job.state, job.phase = "progress", phase
            job.parsed, job.total, job.persisted = done, total, persisted
            data = {"job": job.as_json()}
        self.emit("progress", data)

    def _waiting(self, job: Job, why: str) -> None:
        with self._lock:
            job.state, job.phase = "progress", why
            data = {"job": job.as_json()}
        self.emit("progress", data)

    def _run(self, job: Job) -> None:
        extra: dict[str, Any] = {}
        if "on_wait" in inspect.signature(self.ci.index).parameters:
            extra["on_wait"] = lambda why: self._waiting(job, str(why))
        try:
            row = self.ci.index(job.ref, lambda *a: self._progress(job, *a), **extra)
        except IndexUnavailable as exc:
            self._finish(job, "unavailable", str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - any failure is reported, then retryable
            self._finish(job, "failed", f"{type(exc).__name__}: {exc}" if str(exc)
                         else type(exc).__name__)
            return
        done = plain(row) if row is not None else {}
        snapshot = {k: done.get(k) for k in SNAPSHOT_KEYS}
        with self._lock:
            job.state, job.phase, job.finished_at = "completed", "done", utcnow()
            # The snapshot's own counts: an unchanged commit parses nothing and reuses all
            # (the progress counter counts files seen, not files parsed).
            for name in ("parsed", "persisted", "reused"):
                if isinstance(done.get(name), int):
                    setattr(job, name, done[name])
            job.total = max(job.total, job.parsed + job.reused)
            job.snapshot = snapshot
            self._seen = (snapshot["id"], snapshot["indexed_at"])
            data = {"job": job.as_json()}
        self.emit("completed", data)
        self.emit("code_graph_updated", {"job_id": job.id, "source": "web", **snapshot})
        self._coverage(job)

    def _coverage(self, job: Job) -> None:
        """Skipped files by reason and diagnostics of the new view, as a `coverage` event."""
        # Runs after `completed` is out: it may wait for the facade's lock.
        from spyglass.web.overlay import diagnostics_summary
        try:
            status = plain(self.ci.status().results[0])
            skipped = {str(k): int(v) for k, v in status.get("skipped_by_reason", [])}
            diagnostics = int(diagnostics_summary(self.ci)["count"])
        except SpyglassError:
            return
        with self._lock:
            job.skipped, job.diagnostics = skipped, diagnostics
            data = {"job": job.as_json()}
        self.emit("coverage", data)

    def _finish(self, job: Job, state: str, error: str) -> None:
        with self._lock:
            job.state, job.error, job.finished_at = state, error, utcnow()
            data = {"job": job.as_json()}
        self.emit(state, data)

    # -- snapshots made elsewhere (CLI, another server) ------------------------------------
    def check_external(self) -> None:
        """Emit code_graph_updated when a snapshot completed that this server did not build."""
        try:
            row = self.ci.last_job()
        except (SpyglassError, OSError, ValueError):
            return
        done = plain(row) if row is not None else {}
        if done.get("state") != "completed":
            return
        key = (done.get("id"), done.get("indexed_at"))
        with self._lock:
            seen, self._seen = self._seen, key
            busy = self.current is not None and self.current.state not in TERMINAL
        if seen is not None and seen != key and not busy:
            self.emit("code_graph_updated", {"job_id": None, "source": "external",
                                             **{k: done.get(k) for k in SNAPSHOT_KEYS}})

    # -- the workspace overlay ---------------------------------------------------------------
    def check_overlay(self, interval: float = OVERLAY_SECONDS) -> bool:
        """Emit `workspace_changed` when the files on disk differ from the last check.

        Cheap: the view's stat probe (index/probe.py) finds changed files by stat; only a
        changed file is hashed and parsed. Checked at most once per `interval` however many
        streams are open, and only once a snapshot exists (no live parse of everything)."""
        now = time.monotonic()
        with self._lock:
            if now - self._overlay_at < interval:
                return False
            self._overlay_at = now
            busy = self.current is not None and self.current.state not in TERMINAL
        if busy or self._seen is None or not self.ci.has_index:
            return False
        try:
            with self.ci.lock:
                self.ci.view()
                digest = self.ci.provenance().workspace_digest
        except (SpyglassError, OSError, ValueError):
            return False
        with self._lock:
            before, self._digest = self._digest, digest
        if before is None or before == digest:
            return False
        self.emit("workspace_changed", {"workspace_digest": digest, "previous": before})
        return True

    # -- event log -------------------------------------------------------------------------
    def emit(self, kind: str, data: dict[str, Any]) -> Event:
        """Append an event and wake every waiting stream (from any thread)."""
        with self._lock:
            event = Event(self._next_event, kind, utcnow(), data)
            self._next_event += 1
            self._events.append(event)
            waiters = list(self._waiters)
        for loop, flag in waiters:
            try:
                loop.call_soon_threadsafe(flag.set)
            except RuntimeError:  # that stream's loop is gone
                pass
        return event

    @property
    def last_event_id(self) -> int:
        with self._lock:
            return self._next_event - 1

    def since(self, after: int) -> list[Event]:
        with self._lock:
            return [e for e in self._events if e.id > after]

    async def wait(self, after: int, timeout: float) -> list[Event]:
        """Events after `after`, waiting up to `timeout` seconds for the first one."""
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.append(entry)
        try:
            events = self.since(after)
            if events:
                return events
            try:
                await asyncio.wait_for(entry[1].wait(), timeout)
            except TimeoutError:
                return []
            return self.since(after)
        finally:
            with self._lock:
                self._waiters.remove(entry)

    async def stream(self, after: int, follow: bool,
                     heartbeat: float = HEARTBEAT_SECONDS) -> AsyncIterator[str]:
        """The text/event-stream body: the backlog after `after`, then live events."""
        yield "retry: 3000\n: connected\n\n"
        for event in self.since(after):
            yield event.sse()
            after = event.id
        if not follow:
            return
        quiet_since = time.monotonic()
        while True:
            events = await self.wait(after, min(heartbeat, OVERLAY_SECONDS))
            if not events:
                await run_in_threadpool(self.check_overlay)
                if time.monotonic() - quiet_since >= heartbeat:
                    await run_in_threadpool(self.check_external)
                    yield ": keep-alive\n\n"
                    quiet_since = time.monotonic()
                continue
            quiet_since = time.monotonic()
            for event in events:
                yield event.sse()
                after = event.id
