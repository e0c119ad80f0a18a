"""The SQLite store under `.spyglass/`: schema, connections and snapshot bookkeeping."""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from spyglass.errors import IndexUnavailable, OutsideRoot
from spyglass.index import filenames
from spyglass.index import source as src

STORE_DIR = ".spyglass"
DB_NAME = "graph.db"
SCHEMA_VERSION = "4"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A unit is one parsed file version: facts keyed by path, content hash, pack and context.
CREATE TABLE IF NOT EXISTS units(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, blob TEXT NOT NULL, pack TEXT NOT NULL,
  ctx TEXT NOT NULL, language TEXT NOT NULL, module TEXT NOT NULL, lines INTEGER NOT NULL,
  size INTEGER NOT NULL, package TEXT NOT NULL DEFAULT '', build TEXT NOT NULL DEFAULT '',
  UNIQUE(path, blob, pack, ctx));
CREATE TABLE IF NOT EXISTS defs(
  unit INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL,
  full TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  name_line INTEGER NOT NULL, name_col INTEGER NOT NULL, parent INTEGER NOT NULL,
  params_min INTEGER NOT NULL DEFAULT -1, params_max INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY(unit, idx)) WITHOUT ROWID;
-- Resolved base classes / embedded types of class-like definitions.
CREATE TABLE IF NOT EXISTS bases(unit INTEGER NOT NULL, idx INTEGER NOT NULL, base TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS refs(
  unit INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
  end_col INTEGER NOT NULL, role TEXT NOT NULL, scope INTEGER NOT NULL, qualifier TEXT NOT NULL,
  head TEXT NOT NULL, target TEXT, conf TEXT NOT NULL, args INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY(unit, line, col))
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imports(
  unit INTEGER NOT NULL, idx INTEGER NOT NULL, module TEXT NOT NULL, name TEXT, alias TEXT NOT NULL,
  line INTEGER NOT NULL, col INTEGER NOT NULL, scope INTEGER NOT NULL, reexport INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS aliases(unit INTEGER NOT NULL, alias TEXT NOT NULL, target TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS diags(
  unit INTEGER NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL, col INTEGER NOT NULL,
  message TEXT NOT NULL, severity TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots(
  id INTEGER PRIMARY KEY, repo TEXT NOT NULL, worktree TEXT NOT NULL, commit_sha TEXT,
  ref TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL, indexed_at TEXT,
  files INTEGER NOT NULL DEFAULT 0, parsed INTEGER NOT NULL DEFAULT 0,
  persisted INTEGER NOT NULL DEFAULT 0, reused INTEGER NOT NULL DEFAULT 0, error TEXT,
  signature TEXT NOT NULL DEFAULT '', ref_source TEXT NOT NULL DEFAULT '');
-- Complete file membership of a snapshot, supported or not.
CREATE TABLE IF NOT EXISTS snapshot_files(
  snapshot INTEGER NOT NULL, path TEXT NOT NULL, unit INTEGER, blob TEXT NOT NULL,
  size INTEGER NOT NULL, language TEXT, skipped TEXT, PRIMARY KEY(snapshot, path))
  WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS snapshot_files_unit ON snapshot_files(unit, snapshot);
-- The job journal: one row per `spyglass index` run, whatever became of it.
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY, snapshot INTEGER, repo TEXT NOT NULL, worktree TEXT NOT NULL,
  ref TEXT NOT NULL, ref_source TEXT NOT NULL, commit_sha TEXT, state TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, files INTEGER NOT NULL DEFAULT 0,
  parsed INTEGER NOT NULL DEFAULT 0, persisted INTEGER NOT NULL DEFAULT 0,
  reused INTEGER NOT NULL DEFAULT 0, error TEXT, pid INTEGER NOT NULL DEFAULT 0);
-- An imported SCIP index (docs/bridge.md), one row per document, kept with the snapshot it
-- was imported into (garbage collection drops it with that snapshot); `digest` is the SHA-1
-- of the file's content at import, `occ` its occurrences as JSON, `import` the SHA-1 of the
-- imported file (which import a row belongs to).
CREATE TABLE IF NOT EXISTS scip_docs(
  snapshot INTEGER NOT NULL, path TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL,
  occ TEXT NOT NULL, import TEXT NOT NULL, PRIMARY KEY(snapshot, path)) WITHOUT ROWID;
-- The symbol relationships of an import (is_reference/is_implementation/...: REL_* bits).
CREATE TABLE IF NOT EXISTS scip_rels(
  snapshot INTEGER NOT NULL, tool TEXT NOT NULL, symbol TEXT NOT NULL, related TEXT NOT NULL,
  bits INTEGER NOT NULL, PRIMARY KEY(snapshot, tool, symbol, related)) WITHOUT ROWID;
-- The precise pass (docs/precise.md): one row per snapshot and language.
CREATE TABLE IF NOT EXISTS precise_runs(
  snapshot INTEGER NOT NULL, language TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL,
  files INTEGER NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0,
  peak_mb REAL NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '', at TEXT NOT NULL,
  PRIMARY KEY(snapshot, language)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS claims(
  blob TEXT NOT NULL, ext TEXT NOT NULL, digest TEXT NOT NULL, language TEXT NOT NULL,
  PRIMARY KEY(blob, ext, digest)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events(
  id INTEGER PRIMARY KEY, at TEXT NOT NULL, snapshot INTEGER, kind TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '', job INTEGER);
"""


# Secondary indexes of the fact tables: a build into an empty store creates them after the
# bulk load (one sort each) instead of maintaining them row by row.
FACT_INDEXES = """
CREATE INDEX IF NOT EXISTS defs_name ON defs(name);
CREATE INDEX IF NOT EXISTS defs_full ON defs(full);
CREATE INDEX IF NOT EXISTS bases_base ON bases(base);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target) WHERE target IS NOT NULL;
CREATE INDEX IF NOT EXISTS refs_unresolved ON refs(name) WHERE target IS NULL;
CREATE INDEX IF NOT EXISTS refs_ambiguous ON refs(name) WHERE conf = 'ambiguous';
CREATE INDEX IF NOT EXISTS imports_unit ON imports(unit);
CREATE INDEX IF NOT EXISTS aliases_target ON aliases(target);
CREATE INDEX IF NOT EXISTS aliases_alias ON aliases(alias);
CREATE INDEX IF NOT EXISTS diags_unit ON diags(unit);
"""


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


def drop_fact_indexes(conn: sqlite3.Connection) -> None:
    for line in FACT_INDEXES.strip().splitlines():
        name = line.split()[5]
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def utcnow() -> str:
    """An ISO-8601 UTC timestamp with second precision, as results carry it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def store_dir(root: Path) -> Path:
    """`root/.spyglass`; refused when it is a symbolic link (a repository could commit one
    pointing anywhere, and the store is written and trusted)."""
    folder = root / STORE_DIR
    if folder.is_symlink():
        raise IndexUnavailable(f"{folder} is a symbolic link: spyglass keeps its store only "
                               "in a real folder of the repository (remove the link)")
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


def connect(root: Path, *, create: bool = False) -> sqlite3.Connection:
    """Open (or create) the store of repository `root`. WAL mode: readers never block.

    Only the writer (holding the index lock) passes `create`; a store of another schema
    version is then rebuilt from scratch (it holds derived data only)."""
    folder = store_dir(root)
    if create:
        folder.mkdir(exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
    path = folder / DB_NAME
    conn = _open(path, create)
    version = _schema_version(conn)
    if version is None and not create:  # the first build has created the file, not the schema
        conn.close()
        raise IndexUnavailable(f"the index in {folder} is still being created; index the "
                               "repository first (or retry once the running build is done)")
    if version not in (None, SCHEMA_VERSION):
        if not create:
            conn.close()
            raise IndexUnavailable(f"the index in {folder} was built by another spyglass "
                                   "version; run `spyglass index` to rebuild it")
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        conn = _open(path, create)
    if create:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        conn.executescript(FACT_INDEXES)
        conn.execute("INSERT OR IGNORE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def _open(path: Path, create: bool) -> sqlite3.Connection:
    uri = f"file:{path}" + ("" if create else "?mode=rw")
    conn = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def _schema_version(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # a new, empty file
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


def latest_complete(conn: sqlite3.Connection) -> SnapshotRow | None:
    """The newest snapshot marked complete: what readers see."""
    row = conn.execute(
        f"SELECT {_SNAP_COLS} FROM snapshots WHERE state='completed' ORDER BY id DESC LIMIT 1"
    ).fetchone()
    return _row(row) if row else None


def latest_snapshot(conn: sqlite3.Connection) -> SnapshotRow | None:
    """The newest snapshot row in any state (the one the current or last build made)."""
    row = conn.execute(f"SELECT {_SNAP_COLS} FROM snapshots ORDER BY id DESC LIMIT 1").fetchone()
    return _row(row) if row else None


def snapshot_by_id(conn: sqlite3.Connection, snap: int) -> SnapshotRow | None:
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


def latest_job(conn: sqlite3.Connection) -> JobRow | None:
    """The newest index job in any state (the current or the last one)."""
    row = conn.execute(f"SELECT {_JOB_COLS} FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
    return JobRow(*row) if row else None


def log_event(conn: sqlite3.Connection, snapshot: int | None, kind: str, detail: str = "",
              job: int | None = None, **fields: object) -> None:
    """Journal an event; keyword fields are stored as a JSON detail."""
    if fields:
        detail = json.dumps({"message": detail, **fields} if detail else fields)
    conn.execute("INSERT INTO events(at, snapshot, kind, detail, job) VALUES(?,?,?,?,?)",
                 (utcnow(), snapshot, kind, detail, job))
