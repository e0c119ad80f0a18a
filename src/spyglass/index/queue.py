"""The team store's index queue: jobs of (repository, ref) taken by `spyglass worker`s.

A job is claimed with `FOR UPDATE SKIP LOCKED` and held by a lease the worker renews while
it builds; a worker that dies (kill -9, a lost machine) stops renewing, and once the lease
lapses any worker takes the job again. The build itself runs under the repository's
session lock in the store (index/jobs.py `team_locks`), so one repository is never built
twice at once, and a snapshot is published in one transaction, so nothing is torn.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from spyglass.config import Config
from spyglass.errors import SpyglassError
from spyglass.index import postgres
from spyglass.index.jobs import run_index

LEASE_SECONDS = 60.0
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Job:
    """One queued index job."""

    id: int
    repo: str
    ref: str
    state: str
    attempts: int
    worker: str
    snapshot: int | None
    error: str | None


_COLS = "id, repo, ref, state, attempts, worker, snapshot, error"


def enqueue(conn: postgres.Connection, repo: str, ref: str) -> Job:
    """Queue an index job of `repo` at `ref`, or return the same job already waiting."""
    with conn.lock, conn.errors(), conn.raw.transaction():
        conn.raw.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                         (f"enqueue:{repo}",))
        row = conn.raw.execute(
            f"SELECT {_COLS} FROM {postgres.SCHEMA_NAME}.queue WHERE repo=%s AND ref=%s "
            "AND state='queued' ORDER BY id LIMIT 1", (repo, ref)).fetchone()
        if row is None:
            row = conn.raw.execute(
                f"INSERT INTO {postgres.SCHEMA_NAME}.queue(repo, ref, state, enqueued_at) "
                f"VALUES(%s, %s, 'queued', %s) RETURNING {_COLS}",
                (repo, ref, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))).fetchone()
    assert row is not None
    return Job(*row)


def claim(conn: postgres.Connection, repos: Sequence[str], worker: str,
          lease: float = LEASE_SECONDS) -> Job | None:
    """Take the oldest job of one of `repos` that is queued or whose lease lapsed."""
    now = time.time()
    with conn.lock:
        row = conn.raw.execute(
            f"UPDATE {postgres.SCHEMA_NAME}.queue SET state='running', worker=%s, "
            "lease_until=%s, attempts=attempts+1 WHERE id = (SELECT id FROM "
            f"{postgres.SCHEMA_NAME}.queue WHERE repo = ANY(%s) AND (state='queued' OR "
            "(state='running' AND lease_until < %s)) ORDER BY id FOR UPDATE SKIP LOCKED "
            f"LIMIT 1) RETURNING {_COLS}", (worker, now + lease, list(repos), now)).fetchone()
    return Job(*row) if row else None


def renew(conn: postgres.Connection, job: int, worker: str,
          lease: float = LEASE_SECONDS) -> bool:
    """Extend a held lease; False when the job is no longer this worker's."""
    with conn.lock:
        cur = conn.raw.execute(
            f"UPDATE {postgres.SCHEMA_NAME}.queue SET lease_until=%s WHERE id=%s AND "
            "worker=%s AND state='running'", (time.time() + lease, job, worker))
    return bool(cur.rowcount == 1)


def finish(conn: postgres.Connection, job: Job, worker: str, snapshot: int | None,
           error: str | None) -> None:
    """Record a job's end: done, failed for good, or queued again for another try."""
    state = "done" if error is None else (
        "failed" if job.attempts >= MAX_ATTEMPTS else "queued")
    with conn.lock:
        conn.raw.execute(
            f"UPDATE {postgres.SCHEMA_NAME}.queue SET state=%s, snapshot=%s, error=%s, "
            "lease_until=0 WHERE id=%s AND worker=%s", (state, snapshot, error, job.id, worker))


def jobs(conn: postgres.Connection, repo: str | None = None, limit: int = 1000,
         job: int | None = None) -> list[Job]:
    """The queue's jobs, newest first (of one repository, or all; or the one job `job`)."""
    where, params = "WHERE TRUE", list[object]()
    if repo:
        where, params = where + " AND repo=%s", [*params, repo]
    if job is not None:
        where, params = where + " AND id=%s", [*params, job]
    with conn.lock, conn.errors():
        rows = conn.raw.execute(f"SELECT {_COLS} FROM {postgres.SCHEMA_NAME}.queue {where} "
                                f"ORDER BY id DESC LIMIT {int(limit)}", params).fetchall()
    return [Job(*r) for r in rows]


class Lease:
    """Renews a job's lease on a thread of its own (its own connection) while a build runs."""

    def __init__(self, url: str, job: int, worker: str, lease: float = LEASE_SECONDS) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url, job, worker, lease),
                                        daemon=True, name=f"lease-{job}")
        self.lost = False

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self, url: str, job: int, worker: str, lease: float) -> None:
        conn = postgres.Connection(url, "")
        try:
            while not self._stop.wait(lease / 3):
                if not renew(conn, job, worker, lease):
                    self.lost = True
                    return
        finally:
            conn.close()


def work(url: str, repos: dict[str, Path], config: Config, *, once: bool = False,
         poll: float = 2.0, lease: float = LEASE_SECONDS, name: str = "",
         log: Callable[[str], None] = lambda _: None) -> int:
    """Take jobs for the configured repositories (id → the worker's own clone or mirror)
    and build each into the team store until stopped (`once`: until the queue has none).
    Returns the number of jobs done."""
    worker = name or f"{socket.gethostname()}:{os.getpid()}"
    conn = postgres.Connection(url, "", create=True)
    done = 0
    try:
        while True:
            job = claim(conn, sorted(repos), worker, lease)
            if job is None:
                if once:
                    return done
                time.sleep(poll)
                continue
            log(f"job {job.id}: {job.repo} at {job.ref} (try {job.attempts})")
            snapshot, error = None, None
            with Lease(url, job.id, worker, lease):
                try:
                    root = repos[job.repo]
                    team = dataclasses.replace(config, store_url=url, store_repo=job.repo)
                    snap = run_index(root, root, team, job.repo, job.ref)
                    snapshot = snap.id
                except SpyglassError as exc:
                    error = postgres.redact_text(str(exc), url)
            finish(conn, job, worker, snapshot, error)
            log(f"job {job.id}: " + (f"snapshot {snapshot}" if error is None else error))
            done += 1
    finally:
        conn.close()
