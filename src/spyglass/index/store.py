"""The SQLite store under `.spyglass/`: schema, connections and snapshot bookkeeping."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from spyglass.errors import IndexUnavailable, OutsideRoot
from spyglass.index import filenames, writer
from spyglass.index import source as src
from spyglass.index.lock import alive
from spyglass.index.schema import FACT_INDEXES as FACT_INDEXES  # noqa: PLC0414 (re-export)
from spyglass.index.schema import SCHEMA as SCHEMA  # noqa: PLC0414 (re-export)

STORE_DIR = ".spyglass"
DB_NAME = "graph.db"
SCHEMA_VERSION = "5"


class Conn(Protocol):
    """A store connection: sqlite3's, or the PostgreSQL team store's (index/postgres.py),
    which speaks the same subset."""

    @property
    def in_transaction(self) -> bool: ...
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...
    def executemany(self, sql: str, seq: Any, /) -> Any: ...
    def executescript(self, script: str, /) -> Any: ...
    def close(self) -> None: ...


def open_store(store_root: Path, url: str | None, repo: str, *, create: bool = False,
               notify: Callable[[str], None] | None = None) -> Conn:
    """The store of a repository: the team store at `url` (PostgreSQL, the repository's
    rows by its id `repo`), else the SQLite store under `store_root/.spyglass/`."""
    if url:
        from spyglass.index import postgres
        return postgres.Connection(url, repo, create=create)
    return connect(store_root, create=create, notify=notify)


def unit_id_base(conn: Conn, count: int) -> int:
    """The id after which a build numbers its `count` new units. The SQLite store has one
    writer at a time (the writer lock); the team store reserves the range atomically."""
    reserve = getattr(conn, "reserve_ids", None)
    if reserve is not None:
        return int(reserve("units", count))
    return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM units").fetchone()[0])


def location(conn: Conn) -> str:
    """Where worker processes open the same store: the database file or the store URL."""
    url = getattr(conn, "url", None)
    if isinstance(url, str):
        return url
    return str(conn.execute("PRAGMA database_list").fetchone()[2])



logger = logging.getLogger(__name__)
CHUNK = 400  # values per `IN (?, …)` list: far below SQLite's variable limit
T = TypeVar("T")


def chunks(items: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    """`items` (duplicates dropped, order kept) in lists of at most `size`, for IN lists:
    the one chunking helper of every layer."""
    unique = list(dict.fromkeys(items))
    for i in range(0, len(unique), size):
        yield unique[i:i + size]


def marks(values: Sequence[object]) -> str:
    """The `?, ?, …` placeholders of an IN list of `values`."""
    return ",".join("?" * len(values))


@functools.cache
def table_columns(table: str) -> tuple[tuple[str, str, bool], ...]:
    """The columns of one of SCHEMA's tables in order: (name, declared type, sole integer
    primary key), read from SCHEMA itself (the one place a column is declared)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    finally:
        conn.close()
    if not info:
        raise KeyError(f"no table {table!r} in the store schema")
    keys = [r for r in info if r[5]]
    return tuple((str(r[1]), str(r[2]), len(keys) == 1 and r[5] == 1 and r[2] == "INTEGER")
                 for r in info)


def columns(table: str) -> tuple[str, ...]:
    """The column names of one of SCHEMA's tables, in order."""
    return tuple(name for name, _, _ in table_columns(table))


def drop_fact_indexes(conn: Conn) -> None:
    for line in FACT_INDEXES.strip().splitlines():
        name = line.split()[5]
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def utcnow() -> str:
    """An ISO-8601 UTC timestamp with second precision, as results carry it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def store_dir(root: Path) -> Path:
    """`root/.spyglass`; refused when it is a symbolic link (a repository could commit one
    pointing anywhere, and the store is written and trusted) or not a folder."""
    folder = root / STORE_DIR
    if folder.is_symlink():
        raise IndexUnavailable(f"{folder} is a symbolic link: spyglass keeps its store only "
                               "in a real folder of the repository (remove the link)")
    if folder.exists() and not folder.is_dir():
        raise writer.WriteRefused(f"{folder} is not a folder: spyglass keeps its index in a "
                                  "folder of that name (remove or rename the file)")
    return folder


def find_store(start: Path) -> Path | None:
    """Walk up from `start` to the first folder holding `.spyglass/graph.db`."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / STORE_DIR / DB_NAME).is_file() and not (folder / STORE_DIR).is_symlink():
            return folder
    return None


def locate(start: Path, root: Path | None = None) -> tuple[Path, Path]:
    """(workspace root, store root) for a start directory.

    The workspace root confines every path a client may read. The store root holds
    `.spyglass/`: the nearest folder above `start` that has one, except that every linked
    worktree of a git repository (`git worktree add`) shares the store of the repository's
    main worktree, while its own files form its overlay."""
    start = start.resolve()
    if not filenames.from_os(str(start))[1]:
        raise IndexUnavailable(f"the folder {filenames.from_os(str(start))[0]} has a path "
                               "that is not valid UTF-8; spyglass needs a UTF-8 path to the "
                               "repository (rename the folder)")
    if root is not None:
        root = root.resolve()
        if start != root and root not in start.parents:
            raise OutsideRoot(f"workspace {start} is outside the repository {root}")
        found: Path | None = root if find_store(root) == root else None
    else:
        found = find_store(start)
    if not src.is_git_repo(root or start):
        here = root or found or start
        return here, found or here
    top = src.git_toplevel(root or start).resolve()
    main = src.main_worktree(top)
    if main is not None and main != top and (found is None or found == main
                                             or found in top.parents):
        return top, main
    if root is not None:
        return root, root
    return (found, found) if found is not None else (top, top)


# -- opening the store: the one writer's checks before SQLite opens a path --------------------
class StoreInvalid(IndexUnavailable):
    """The store's content failed validation during a build (reused facts that are not
    what their source gives): the build stops and the store is rebuilt."""


DB_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal")
REJECTED = f"{DB_NAME}.rejected"  # where a store that failed validation is moved aside
OWNER_KEY = "owner"


def connect(root: Path, *, create: bool = False,
            notify: writer.Notify | None = None) -> sqlite3.Connection:
    """Open (or create) the store of repository `root`. WAL mode: readers never block.

    Before SQLite opens a path, `.spyglass/` is checked to be a real folder of this user
    (opened with O_NOFOLLOW) and the database and its -wal/-shm/-journal files plain files
    or absent (docs/security.md, "The one writer"). The store is then validated: SQLite can
    read it, its schema is exactly spyglass's, and it carries the identity of the folder and
    file it was created in (a store committed to a repository or copied from elsewhere
    cannot). Only the writer (holding the index lock) passes `create`; a store failing any
    check is then moved aside to `graph.db.rejected` and rebuilt, with a message through
    `notify`; a reader is told to run `spyglass index`."""
    folder = store_dir(root)
    try:
        fd = writer.store_folder(folder, create=create)
    except FileNotFoundError:
        raise IndexUnavailable(f"no index in {folder}: run `spyglass index` first") from None
    try:
        for name in DB_FILES:
            writer.plain_or_absent(fd, name, replace=create, where=str(folder), notify=notify)
        if create:
            writer.plain_or_absent(fd, ".gitignore", replace=True, where=str(folder),
                                   notify=notify)
            writer.create_at(fd, ".gitignore", b"*\n")
            if writer.lstat_at(fd, DB_NAME) is None:
                _create(fd, folder)
        conn = _open(folder / DB_NAME, create)
        problem = _problem(conn, fd, create)
        if problem is not None:
            conn.close()
            if not create:
                raise IndexUnavailable(f"the index in {folder} cannot be used: {problem}; run "
                                       "`spyglass index` to rebuild it")
            rejected = _reject(fd, folder, problem, notify)
            conn = _open(folder / DB_NAME, create)
        if create:
            _set_up(conn, fd)
            if problem is not None:  # journaled too: `events` and the web page show it
                log_event(conn, None, "store_rejected", rejected)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-65536")
        return conn
    finally:
        os.close(fd)


def open_file(db: Path) -> sqlite3.Connection:
    """A writing connection of an index worker to the store file `db`, which the indexer
    has validated: checked again to be a plain file (not a link) in a real folder."""
    try:
        fd = writer.store_folder(db.parent, create=False)
    except FileNotFoundError:
        raise IndexUnavailable(f"the index store {db.parent} was deleted while indexing; "
                               "run `spyglass index` again") from None
    try:
        for name in DB_FILES:
            writer.plain_or_absent(fd, name, replace=False, where=str(db.parent))
        if writer.lstat_at(fd, db.name) is None:
            raise IndexUnavailable(f"the index {db} was removed while indexing")
    finally:
        os.close(fd)
    return sqlite3.connect(db, timeout=600.0, isolation_level=None)


SIDE_WAIT_MS = 2000  # how long a question waits for the writer's lock before it skips


def side_write(conn: Conn, write: Callable[[sqlite3.Connection], int], what: str) -> int:
    """Run `write` (what a question keeps for the next one: words, names) in one immediate
    transaction of a connection of its own to `conn`'s store file (`open_file`: the
    validated file, never a link), waiting SIDE_WAIT_MS at most for another writer. Skips
    (0, logged) where the store is no SQLite file, busy (an index is writing), read-only or
    full; else returns what `write` returned."""
    db = location(conn)
    if not isinstance(conn, sqlite3.Connection) or not db:
        return 0
    try:
        out = open_file(Path(db))
    except (IndexUnavailable, OSError) as exc:
        logger.debug("%s not kept: %s", what, exc)
        return 0
    try:
        out.execute(f"PRAGMA busy_timeout={SIDE_WAIT_MS}")
        out.execute("BEGIN IMMEDIATE")
        try:
            kept = write(out)
            out.execute("COMMIT")
        except BaseException:
            if out.in_transaction:
                out.execute("ROLLBACK")
            raise
        return kept
    except sqlite3.Error as exc:
        logger.debug("%s not kept: %s", what, exc)
        return 0
    finally:
        out.close()


NEW_DB = f"{DB_NAME}.new"  # a store being created, renamed to DB_NAME once set up


def _create(fd: int, folder: Path) -> None:
    """Make a new store: a file spyglass creates itself (O_EXCL | O_NOFOLLOW) under a
    temporary name, set up there (schema, WAL, identity) and renamed into place, so SQLite
    never creates a file and readers never see a store half made."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        writer.remove_at(fd, NEW_DB + suffix)
    writer.create_at(fd, NEW_DB)
    conn = _open(folder / NEW_DB, True)
    try:
        _set_up(conn, fd, NEW_DB)
    finally:
        conn.close()
    for suffix in ("-wal", "-shm", "-journal"):
        writer.remove_at(fd, NEW_DB + suffix)
    os.replace(NEW_DB, DB_NAME, src_dir_fd=fd, dst_dir_fd=fd)


def _set_up(conn: sqlite3.Connection, fd: int, name: str = DB_NAME) -> None:
    """Create the schema of a new store (idempotent on an existing one) and record its
    identity (the inode of the file `name`, which keeps it when renamed)."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.executescript(FACT_INDEXES)
    conn.execute("INSERT OR IGNORE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
    if _meta(conn, OWNER_KEY) is None:
        conn.execute("INSERT INTO meta VALUES(?, ?)",
                     (OWNER_KEY, f"{identity(fd, name)}:{secrets.token_hex(8)}"))


def identity(fd: int, name: str = DB_NAME) -> str:
    """What binds a store to the place it was made: the device and inode of `.spyglass/`
    and the inode of `graph.db` (a clone, a copy or an archive gets new ones)."""
    folder = os.fstat(fd)
    db = writer.lstat_at(fd, name)
    return f"{folder.st_dev}:{folder.st_ino}:{db.st_ino if db is not None else 0}"


def owner(conn: Conn) -> str | None:
    """The store's recorded identity (with its creation nonce), None when it has none."""
    try:
        return _meta(conn, OWNER_KEY)
    except sqlite3.DatabaseError:
        return None


def _meta(conn: Conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return str(row[0]) if row else None


@functools.cache
def _expected_schema() -> frozenset[tuple[str, str, str]]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        conn.executescript(FACT_INDEXES)
        return frozenset(_objects(conn))
    finally:
        conn.close()


def _objects(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return [(str(t), str(n), " ".join(str(s).split())) for t, n, s in conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE "
        "'sqlite\\_%' ESCAPE '\\'")]


def _problem(conn: sqlite3.Connection, fd: int, create: bool) -> str | None:
    """Why the opened store may not be used, in words; None when it may (or, for the
    writer, when it is a new empty file to set up)."""
    try:
        version = _schema_version(conn)
        objects = _objects(conn)
        if version is None:
            names = {n for _, n, _ in objects}
            if create and not objects:
                return None  # a new file: the writer sets it up
            if not create and (not names or "meta" in names) \
                    and names <= {n for _, n, _ in _expected_schema()}:
                raise IndexUnavailable(f"the index in {STORE_DIR} is still being created; run "
                                       "`spyglass index` first (or retry once the running "
                                       "build is done)")
            return "it is not a spyglass index (another application's database?)"
        if version != SCHEMA_VERSION:
            return "it was built by another spyglass version"
        expected = _expected_schema()
        extra = [f"{t} {n}" for t, n, s in objects if (t, n, s) not in expected]
        if extra:
            return f"its schema is not spyglass's ({', '.join(sorted(extra)[:3])})"
        recorded = _meta(conn, OWNER_KEY)
        if recorded is None or recorded.rsplit(":", 1)[0] != identity(fd):
            return ("it was not created here: a store that came with the repository, or was "
                    "copied from another folder, is never trusted")
        return None
    except sqlite3.DatabaseError as exc:
        return f"it is damaged ({exc})"


def _reject(fd: int, folder: Path, problem: str, notify: writer.Notify | None) -> str:
    """Move a store that failed validation aside (within `.spyglass/`), its companions
    away, and make the new empty file; returns the message, also sent to `notify`."""
    writer.remove_at(fd, REJECTED)
    os.replace(DB_NAME, REJECTED, src_dir_fd=fd, dst_dir_fd=fd)
    for name in DB_FILES[1:]:
        writer.remove_at(fd, name)
    _create(fd, folder)
    message = (f"the index in {folder} could not be used ({problem}): moved aside to "
               f"{folder / REJECTED} and rebuilt from the repository")
    (notify or logger.warning)(message)
    return message


def reject(root: Path, problem: str, notify: writer.Notify | None = None
           ) -> sqlite3.Connection:
    """For the writer (under the lock), after a build found the store invalid: move it
    aside and return a connection to a new, empty store."""
    folder = store_dir(root)
    fd = writer.store_folder(folder, create=True)
    try:
        message = _reject(fd, folder, problem, notify)
    finally:
        os.close(fd)
    conn = connect(root, create=True, notify=notify)
    log_event(conn, None, "store_rejected", message)
    return conn


def _open(path: Path, create: bool) -> sqlite3.Connection:
    uri = f"file:{quote(str(path))}" + ("" if create else "?mode=rw")
    conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def _schema_version(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError as exc:  # a new, empty file
        if "no such table" not in str(exc):
            raise
        return None
    return str(row[0]) if row else None


@dataclass(frozen=True, slots=True)
class SnapshotRow:
    """A snapshot's bookkeeping row."""

    id: int
    repo: str
    worktree: str
    commit: str | None
    ref: str
    state: str
    started_at: str
    indexed_at: str | None
    files: int
    parsed: int
    persisted: int
    reused: int
    error: str | None
    ref_source: str = ""


def _row(r: tuple[object, ...]) -> SnapshotRow:
    return SnapshotRow(*r)  # type: ignore[arg-type]


_SNAP_COLS = ("id, repo, worktree, commit_sha, ref, state, started_at, indexed_at, files, "
              "parsed, persisted, reused, error, ref_source")


def latest_complete(conn: Conn) -> SnapshotRow | None:
    """The newest snapshot marked complete: what readers see."""
    row = conn.execute(
        f"SELECT {_SNAP_COLS} FROM snapshots WHERE state='completed' ORDER BY id DESC LIMIT 1"
    ).fetchone()
    return _row(row) if row else None


def latest_snapshot(conn: Conn) -> SnapshotRow | None:
    """The newest snapshot row in any state (the one the current or last build made)."""
    row = conn.execute(f"SELECT {_SNAP_COLS} FROM snapshots ORDER BY id DESC LIMIT 1").fetchone()
    return _row(row) if row else None


def snapshot_by_id(conn: Conn, snap: int) -> SnapshotRow | None:
    row = conn.execute(f"SELECT {_SNAP_COLS} FROM snapshots WHERE id=?", (snap,)).fetchone()
    return _row(row) if row else None


@dataclass(frozen=True, slots=True)
class JobRow:
    """One index job of the journal: accepted, progress, completed, unavailable or failed."""

    id: int
    snapshot: int | None
    repo: str
    worktree: str
    ref: str
    ref_source: str
    commit: str | None
    state: str
    started_at: str
    finished_at: str | None
    files: int
    parsed: int
    persisted: int
    reused: int
    error: str | None
    pid: int


_JOB_COLS = ("id, snapshot, repo, worktree, ref, ref_source, commit_sha, state, started_at, "
             "finished_at, files, parsed, persisted, reused, error, pid")


def latest_job(conn: Conn) -> JobRow | None:
    """The newest index job in any state (the current or the last one). A job still
    journaled as accepted or in progress whose process is gone (killed) is shown as
    failed, as the next index run will record it."""
    row = conn.execute(f"SELECT {_JOB_COLS} FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
    if not row:
        return None
    job = JobRow(*row)
    if job.state in ("accepted", "progress") and job.pid > 0 and not alive(job.pid):
        job = dataclasses.replace(job, state="failed", error=(
            f"interrupted: the indexing process (pid {job.pid}) died"))
    return job


def log_event(conn: Conn, snapshot: int | None, kind: str, detail: str = "",
              job: int | None = None, **fields: object) -> None:
    """Journal an event; keyword fields are stored as a JSON detail."""
    if fields:
        detail = json.dumps({"message": detail, **fields} if detail else fields)
    conn.execute("INSERT INTO events(at, snapshot, kind, detail, job) VALUES(?,?,?,?,?)",
                 (utcnow(), snapshot, kind, detail, job))
