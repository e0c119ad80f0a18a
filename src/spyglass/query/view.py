"""The view a query reads: the baseline snapshot composed with live facts of changed files."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from spyglass.config import Config
from spyglass.index import source as src
from spyglass.index.builder import binary_or_undecodable, contexts
from spyglass.index.store import SnapshotRow, latest_complete
from spyglass.index.worker import Rows, process
from spyglass.syntax.langpack import LanguagePack, pack_for_path
from spyglass.types import FileContext

FACT_TABLES = ("units", "defs", "bases", "refs", "imports", "aliases", "diags")

OVERLAY_SCHEMA = """
CREATE TEMP TABLE IF NOT EXISTS ounits(
  id INTEGER PRIMARY KEY, path TEXT, blob TEXT, pack TEXT, ctx TEXT, language TEXT,
  module TEXT, lines INTEGER, size INTEGER, package TEXT);
CREATE TEMP TABLE IF NOT EXISTS odefs(unit, idx, name, qualname, full, kind, start_line,
  end_line, name_line, name_col, parent);
CREATE INDEX IF NOT EXISTS temp.odefs_name ON odefs(name);
CREATE INDEX IF NOT EXISTS temp.odefs_full ON odefs(full);
CREATE INDEX IF NOT EXISTS temp.odefs_unit ON odefs(unit, idx);
CREATE TEMP TABLE IF NOT EXISTS obases(unit, idx, base);
CREATE TEMP TABLE IF NOT EXISTS orefs(unit, name, line, col, end_col, role, scope, qualifier,
  head, target, conf);
CREATE INDEX IF NOT EXISTS temp.orefs_target ON orefs(target);
CREATE INDEX IF NOT EXISTS temp.orefs_unit ON orefs(unit, line);
CREATE INDEX IF NOT EXISTS temp.orefs_name ON orefs(name);
CREATE TEMP TABLE IF NOT EXISTS oimports(unit, idx, module, name, alias, line, col, scope,
  reexport);
CREATE TEMP TABLE IF NOT EXISTS oaliases(unit, alias, target);
CREATE TEMP TABLE IF NOT EXISTS odiags(unit, line, end_line, col, message, severity);
CREATE TEMP TABLE IF NOT EXISTS vfiles(path TEXT PRIMARY KEY, unit INTEGER, language TEXT,
  source TEXT NOT NULL, stale INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS temp.vfiles_unit ON vfiles(unit);
"""

# The two table sets a fact query runs against: the persisted baseline and the overlay.
BASELINE = {t: f"main.{t}" for t in FACT_TABLES}
OVERLAY = {t: f"temp.o{t}" for t in FACT_TABLES}


@dataclass
class Changes:
    """How the files on disk differ from the baseline snapshot."""

    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return sorted(self.added + self.modified + self.deleted)

    def digest(self) -> str:
        h = hashlib.sha1()
        for group in (self.added, self.modified, self.deleted):
            h.update("\0".join(sorted(group)).encode() + b"\1")
        return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Member:
    """One supported file of the baseline snapshot."""

    unit: int | None
    blob: str
    language: str | None
    skipped: str | None


class View:
    """Baseline snapshot + live overlay, materialised as temp tables of one connection."""

    def __init__(self, root: Path, conn: sqlite3.Connection, config: Config) -> None:
        self.root = root
        self.conn = conn
        self.config = config
        conn.executescript(OVERLAY_SCHEMA)
        self.snapshot: SnapshotRow | None = None
        self.members: dict[str, Member] = {}
        self.changes = Changes()
        self.live_skipped: dict[str, str] = {}
        self._stat_cache: dict[str, tuple[int, int, str]] = {}
        self._parsed: dict[tuple[str, str, str], int] = {}  # (path, blob, ctx) → overlay unit
        self._next_unit = -1
        self._state: tuple[int | None, str] | None = None
        self._disk_files: list[src.SourceFile] = []

    # -- refresh ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the view in line with the store's newest snapshot and the files on disk."""
        snap = latest_complete(self.conn)
        if snap is None or self.snapshot is None or snap.id != self.snapshot.id:
            self.snapshot = snap
            self._load_members()
        changes, current = self._scan()
        state = (self.snapshot.id if self.snapshot else None, changes.digest())
        if state == self._state:
            return
        self.changes = changes
        self._rebuild(current)
        self._state = state

    def _load_members(self) -> None:
        self.members = {}
        if self.snapshot is None:
            return
        for path, unit, blob, language, skipped in self.conn.execute(
                "SELECT path, unit, blob, language, skipped FROM snapshot_files WHERE snapshot=?",
                (self.snapshot.id,)):
            self.members[path] = Member(unit, blob, language, skipped)

    def _hash(self, path: str, st: os.stat_result) -> str:
        key = (st.st_mtime_ns, st.st_size)
        cached = self._stat_cache.get(path)
        if cached is not None and cached[:2] == key:
            return cached[2]
        data = (self.root / path).read_bytes()
        blob = src.blob_hash(data)
        self._stat_cache[path] = (key[0], key[1], blob)
        return blob

    def _scan(self) -> tuple[Changes, dict[str, str]]:
        """Compare disk with the baseline by stat, hashing only files whose stat changed."""
        changes = Changes()
        current: dict[str, str] = {}
        max_bytes = self.config.limits.max_file_bytes
        files = src.disk_files(self.root, max_bytes)
        self._disk_files = files
        self.live_skipped = {}
        seen: set[str] = set()
        for f in files:
            if f.skipped is not None or pack_for_path(f.path) is None:
                continue
            seen.add(f.path)
            try:
                blob = self._hash(f.path, os.stat(self.root / f.path))
            except OSError as exc:
                self.live_skipped[f.path] = f"unreadable: {exc.strerror}"
                continue
            current[f.path] = blob
            member = self.members.get(f.path)
            if member is None or member.language is None:
                changes.added.append(f.path)
            elif member.blob != blob:
                changes.modified.append(f.path)
        for path, member in self.members.items():
            if member.language is not None and path not in seen and member.skipped is None:
                changes.deleted.append(path)
        return changes, current

    def _rebuild(self, current: dict[str, str]) -> None:
        conn = self.conn
        live = set(self.changes.added) | set(self.changes.modified)
        if self.snapshot is None:
            live = set(current)
        parse_live = self.config.live_reparse or self.snapshot is None
        rows: list[tuple[str, int | None, str | None, str, int]] = []
        for path, member in self.members.items():
            if member.language is None or member.skipped is not None:
                continue
            if path in self.changes.deleted:
                continue
            if path in live and parse_live:
                continue
            rows.append((path, member.unit, member.language, "cached-index",
                         int(path in live)))
        if parse_live and live:
            rows.extend(self._parse_live(sorted(live), current))
        conn.execute("DELETE FROM temp.vfiles")
        conn.executemany("INSERT INTO temp.vfiles VALUES(?,?,?,?,?)", rows)

    def _parse_live(self, paths: list[str], current: dict[str, str]
                    ) -> list[tuple[str, int | None, str | None, str, int]]:
        packs: dict[str, LanguagePack] = {}
        for p in paths:
            pack = pack_for_path(p)
            if pack is not None:
                packs[p] = pack
        universe = [src.SourceFile(p, "", 0) for p in set(current) | set(self.members)]

        def read(path: str) -> bytes | None:
            try:
                return (self.root / path).read_bytes()
            except OSError:
                return None
        ctxs: dict[str, FileContext] = contexts(universe, {**{p: pk for p in current if (
            pk := pack_for_path(p)) is not None}}, read)
        out: list[tuple[str, int | None, str | None, str, int]] = []
        for path in paths:
            pack = packs.get(path)
            ctx = ctxs.get(path)
            if pack is None or ctx is None:
                continue
            key = (path, current[path], ctx.module)
            unit = self._parsed.get(key)
            if unit is None:
                data = read(path)
                if data is None:
                    self.live_skipped[path] = "unreadable"
                    continue
                reason = binary_or_undecodable(data)
                if reason:
                    self.live_skipped[path] = reason
                    continue
                unit = self._store_live(path, current[path], process((path, data, pack.name, ctx)))
                self._parsed[key] = unit
            out.append((path, unit, pack.name, "text-fallback", 0))
        return out

    def _store_live(self, path: str, blob: str, rows: Rows) -> int:
        meta, defs, refs, imports, aliases, diags, bases = rows
        uid = self._next_unit
        self._next_unit -= 1
        conn = self.conn
        conn.execute("INSERT INTO temp.ounits VALUES(?,?,?,?,?,?,?,?,?,?)",
                     (uid, path, blob, "", "", meta[0], meta[1], meta[2], meta[3], meta[4]))
        conn.executemany("INSERT INTO temp.odefs VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                         [(uid, *d) for d in defs])
        conn.executemany("INSERT INTO temp.obases VALUES(?,?,?)", [(uid, *b) for b in bases])
        conn.executemany("INSERT INTO temp.orefs VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                         [(uid, *r) for r in refs])
        conn.executemany("INSERT INTO temp.oimports VALUES(?,?,?,?,?,?,?,?,?)",
                         [(uid, *i) for i in imports])
        conn.executemany("INSERT INTO temp.oaliases VALUES(?,?,?)", [(uid, *a) for a in aliases])
        conn.executemany("INSERT INTO temp.odiags VALUES(?,?,?,?,?,?)",
                         [(uid, *g) for g in diags])
        return uid

    # -- reading ---------------------------------------------------------------------------
    def each(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Run a fact query (written with {units}, {defs}, … placeholders) over baseline and
        overlay, joined to the view's files as alias `f`."""
        out: list[tuple[object, ...]] = []
        for tables in (BASELINE, OVERLAY):
            out.extend(self.conn.execute(sql.format(**tables), params).fetchall())
        return out

    def disk_files(self) -> list[src.SourceFile]:
        """The workspace's files as last scanned (supported or not, with skip reasons)."""
        return self._disk_files
