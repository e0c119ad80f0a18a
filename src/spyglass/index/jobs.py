"""Index jobs under the writer lock (recovery, build, GC) and the event journal readers watch."""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from spyglass.config import Config
from spyglass.index import postgres
from spyglass.index.builder import Progress, SnapshotBuilder
from spyglass.index.gc import GcStats, collect
from spyglass.index.lock import alive, writer_lock
from spyglass.index.store import (
    Conn,
    SnapshotRow,
    connect,
    log_event,
    open_store,
    store_dir,
    utcnow,
)

UPDATED = "code_graph_updated"


@dataclass(frozen=True, slots=True)
class Event:
    """One journal entry: job lifecycle (accepted, progress, completed, unavailable, failed),
    `code_graph_updated` after a snapshot completes, `gc` after a collection."""

    id: int
    at: str
    snapshot: int | None
    kind: str
    job: int | None
    detail: dict[str, object]


def run_index(store_root: Path, root: Path, config: Config, repo: str, ref: str | None = None,
              progress: Progress | None = None, *, wait: bool = True,
              on_wait: Callable[[str], None] | None = None) -> SnapshotRow:
    """Run one index job: take the writer lock, recover jobs a dead process left behind,
    build the snapshot of `root` into the store at `store_root`, then collect garbage.

    A failed or unavailable job leaves the previous snapshot serving; rerunning retries."""
    folder = store_dir(store_root)
    with writer_lock(folder, wait=wait, on_wait=on_wait):
        conn = open_store(store_root, config.store_url, repo, create=True)
        try:
            with team_locks(conn, repo):
                recover(conn, folder)
                builder = SnapshotBuilder(root, conn, config, repo, progress, folder)
                snap = builder.build(ref)
            if team_gc_lock(conn):
                collect(conn, config.keep_snapshots, builder.job)
            return snap
        finally:
            conn.close()


@contextlib.contextmanager
def team_locks(conn: Conn, repo: str) -> Iterator[None]:
    """In the team store, one build of a repository at a time, across machines (so a
    commit is never indexed twice at once), and no collection while builds run (their
    new units are referenced only once their snapshot completes). A killed worker's
    session ends, and its locks with it. Nothing in the SQLite store: its writer lock."""
    if not isinstance(conn, postgres.Connection):
        yield
        return
    conn.advisory_lock(f"build:{repo}")
    conn.advisory_lock("gc", shared=True)
    try:
        yield
    finally:
        conn.advisory_unlock("gc", shared=True)
        conn.advisory_unlock(f"build:{repo}")


def team_gc_lock(conn: Conn) -> bool:
    """Whether this job may collect garbage now: always in SQLite (under the writer
    lock); in the team store only while no build runs anywhere (tried, never waited)."""
    return not isinstance(conn, postgres.Connection) or conn.advisory_lock("gc", wait=False)


def gc(store_root: Path, keep: int) -> GcStats:
    """Collect garbage on demand (under the writer lock)."""
    folder = store_dir(store_root)
    with writer_lock(folder):
        conn = connect(store_root, create=True)
        try:
            return collect(conn, keep)
        finally:
            conn.close()


def recover(conn: Conn, folder: Path) -> int:
    """Mark jobs whose process died (kill -9, power loss) as failed and remove scratch
    folders that builds of earlier versions left behind. Called with the writer lock held, so no live job can be mistaken for dead."""
    stale = conn.execute("SELECT id, snapshot, pid FROM jobs WHERE state IN "
                         "('accepted', 'progress')").fetchall()
    for job, snap, pid in stale:
        why = f"interrupted: the indexing process (pid {pid}) " + (
            "stopped without finishing" if alive(int(pid)) else "died")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE jobs SET state='failed', error=?, finished_at=? WHERE id=?",
                     (why, utcnow(), job))
        if snap is not None:
            conn.execute("UPDATE snapshots SET state='failed', error=? WHERE id=? AND "
                         "state!='completed'", (why, snap))
        log_event(conn, snap, "failed", why, job=int(job))
        conn.execute("COMMIT")
    conn.execute("UPDATE snapshots SET state='failed', error='interrupted' WHERE state IN "
                 "('accepted', 'progress')")
    for scratch in folder.glob("build-*"):
        shutil.rmtree(scratch, ignore_errors=True)
    return len(stale)


# -- observing ---------------------------------------------------------------------------
def _event(row: tuple[object, ...]) -> Event:
    ev_id, at, snap, kind, detail, job = row
    try:
        parsed = json.loads(str(detail)) if detail else {}
    except ValueError:
        parsed = {"message": detail}
    if not isinstance(parsed, dict):
        parsed = {"message": parsed}
    return Event(int(str(ev_id)), str(at), None if snap is None else int(str(snap)), str(kind),
                 None if job is None else int(str(job)), parsed)


def last_event_id(conn: Conn) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])


def events_since(conn: Conn, after: int, kinds: tuple[str, ...] = ()
                 ) -> list[Event]:
    """Journal entries newer than event id `after` (all kinds, or only `kinds`)."""
    sql = "SELECT id, at, snapshot, kind, detail, job FROM events WHERE id > ?"
    params: list[object] = [after]
    if kinds:
        sql += f" AND kind IN ({','.join('?' * len(kinds))})"
        params += list(kinds)
    return [_event(r) for r in conn.execute(sql + " ORDER BY id", params)]


def wait_for_event(conn: Conn, after: int, kinds: tuple[str, ...] = (UPDATED,),
                   timeout: float = 30.0, interval: float = 0.05) -> Event | None:
    """Block until an event of `kinds` newer than `after` is journaled (by any process), or
    `timeout` passes (then None). Polls `PRAGMA data_version`, which changes only when
    another connection commits, so waiting costs one tiny read per interval."""
    deadline = time.monotonic() + timeout
    version = None
    while True:
        current = conn.execute("PRAGMA data_version").fetchone()[0]
        if current != version:
            version = current
            found = events_since(conn, after, kinds)
            if found:
                return found[0]
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)
