"""The view a query reads: a baseline snapshot composed with the workspace overlay."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spyglass.config import Config
from spyglass.errors import IndexUnavailable
from spyglass.index import confined, writer
from spyglass.index import source as src
from spyglass.index.overlay import OverlayReport, classify, classify_disk
from spyglass.index.probe import Probe
from spyglass.index.store import (
    Conn,
    SnapshotRow,
    columns,
    owner,
    snapshot_by_id,
    store_dir,
    table_columns,
)
from spyglass.index.units import binary_or_undecodable, contexts, ctx_key
from spyglass.syntax.langpack import LanguagePack, claimable, pack_for_path, pack_named
from spyglass.types import FileContext

if TYPE_CHECKING:
    from spyglass.index.worker import Rows

FACT_TABLES = ("units", "defs", "bases", "refs", "imports", "aliases", "diags", "tokens")
OVERLAY_KEEP = 256  # parsed overlay units kept for reuse by content hash when unused
VIEW_STATE = "view-state.json"  # the store's file of the last clean refresh (_save_state)
OLD_VIEW_STATE = "view-state.marshal"  # what earlier versions wrote: removed, never read
STATE_MAX = 64 << 20  # bytes of saved state read (a kernel tree's is a few MB)

def _overlay_table(table: str) -> str:
    """The overlay's temp copy of a store fact table: the same columns, without the store's
    constraints (an integer primary key stays one)."""
    cols = ", ".join(f"{name} {kind}" + (" PRIMARY KEY" if key else "")
                     for name, kind, key in table_columns(table))
    return f"CREATE TEMP TABLE IF NOT EXISTS o{table}({cols});\n"


# The overlay's tables are derived from the store's schema; its indexes are its own.
OVERLAY_SCHEMA = "".join(_overlay_table(t) for t in FACT_TABLES) + """
CREATE INDEX IF NOT EXISTS temp.odefs_name ON odefs(name);
CREATE INDEX IF NOT EXISTS temp.odefs_full ON odefs(full);
CREATE INDEX IF NOT EXISTS temp.odefs_unit ON odefs(unit, idx);
CREATE INDEX IF NOT EXISTS temp.orefs_target ON orefs(target);
CREATE INDEX IF NOT EXISTS temp.orefs_unit ON orefs(unit, line);
CREATE INDEX IF NOT EXISTS temp.orefs_name ON orefs(name);
CREATE INDEX IF NOT EXISTS temp.otokens_name ON otokens(name);
CREATE TEMP TABLE IF NOT EXISTS vfiles(path TEXT PRIMARY KEY, unit INTEGER, language TEXT,
  source TEXT NOT NULL, stale INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS temp.vfiles_unit ON vfiles(unit);
"""

# One insert per overlay table, naming the store's columns in order.
_INSERT = {t: f"INSERT INTO temp.o{t}({', '.join(columns(t))}) VALUES("
              f"{','.join('?' * len(columns(t)))})" for t in FACT_TABLES}

# The two table sets a fact query runs against: the persisted baseline and the overlay.
BASELINE = {t: f"main.{t}" for t in FACT_TABLES}
OVERLAY = {t: f"temp.o{t}" for t in FACT_TABLES}

def _state(saved: object) -> tuple[Any, ...] | None:
    """The saved state as `_save_state` wrote it — [newest, snapshot, commit, probe state]
    — with the probe's stat keys back as tuples (the probe compares tuples); None for
    anything of another shape. Linear in the file: 80,000 files' state loads in ~70 ms of
    CPU against ~57 ms for `marshal` (which had no limits)."""
    if not isinstance(saved, list) or len(saved) != 4 or not isinstance(saved[3], list) \
            or len(saved[3]) != 7:
        return None
    probe = list(saved[3])
    files = probe[5]
    if not isinstance(files, dict):
        return None
    paths, keys = files.get("paths"), files.get("keys")
    if not isinstance(paths, list) or not isinstance(keys, list) \
            or len(keys) != 4 * len(paths):
        return None
    numbers = iter(keys)
    probe[5] = tuple(zip(paths, zip(numbers, numbers, numbers, numbers)))
    try:
        probe[2] = tuple(tuple(k) if isinstance(k, list) else k for k in probe[2])
        probe[4] = tuple((str(p), tuple(k) if isinstance(k, list) else k) for p, k in probe[4])
    except (TypeError, ValueError):
        return None
    return saved[0], saved[1], saved[2], tuple(probe)


def _encoded(probe_state: tuple[Any, ...]) -> list[Any]:
    """The probe's saved state for JSON: its candidate files as a list of paths and one
    flat list of their four stat numbers (parsed back ~2x faster than nested lists)."""
    out = list(probe_state)
    files = out[5]
    out[5] = {"paths": [p for p, _ in files], "keys": [n for _, key in files for n in key]}
    return out


VRow = tuple[int | None, str | None, str, int]  # unit, language, source, stale


@dataclass
class Changes:
    """How the workspace's content differs from the baseline snapshot: the overlay."""

    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    recontext: list[str] = field(default_factory=list)  # same bytes, new resolution context
    blobs: dict[str, str] = field(default_factory=dict)
    snapshot: int | None = None

    @property
    def paths(self) -> list[str]:
        return sorted(self.added + self.modified + self.deleted)

    def digest(self) -> str:
        """The workspace content digest: the baseline plus every overlaid path's content."""
        h = hashlib.sha1(f"{self.snapshot}\n".encode())
        for tag, group in (("A", self.added), ("M", self.modified), ("C", self.recontext),
                           ("D", self.deleted)):
            for path in sorted(group):
                h.update(f"{tag} {path} {self.blobs.get(path, '-')}\n".encode())
        return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Member:
    """One file of the baseline snapshot."""

    unit: int | None
    blob: str
    language: str | None
    skipped: str | None
    ctx: str = ""


@dataclass(frozen=True, slots=True)
class Scope:
    """What an overlay projection belongs to; nothing of it is persisted."""

    repo: str
    workspace: str
    base: str | None
    snapshot: int | None
    digest: str


class View:
    """Baseline snapshot + workspace overlay, materialised as temp tables of one connection."""

    def __init__(self, root: Path, conn: Conn, config: Config,
                 repo: str = "", *, detached: bool = False) -> None:
        self.root = root
        # detached: no checkout of the repository here (a front end answering for another
        # repository of the team store): the newest snapshot as it is, no overlay, no disk
        self.detached = detached
        self.conn = conn
        self.config = config
        self.repo = repo or root.name
        conn.executescript(OVERLAY_SCHEMA)
        self.probe = Probe(root, config.limits.max_file_bytes, config.index)
        self.snapshot: SnapshotRow | None = None
        self._members: dict[str, Member] | None = {}
        self._wholesale = False  # temp.vfiles holds the snapshot's files as they are (clean start)
        self._saved: tuple[int, ...] | None = None
        self._clean: tuple[object, ...] | None = None  # the saved state a clean start checked
        self._clean_newest: int | None = None  # the newest snapshot when it was saved
        self.changes = Changes()
        self.live_skipped: dict[str, str] = {}
        self.head = src.Head(None, None)
        self.base: str | None = None
        self.mismatch: str | None = None
        self.refreshes = 0  # refreshes that rebuilt the projection (for tests and benches)
        self._key: tuple[object, ...] | None = None
        self._projected: tuple[int | None, int] | None = None
        self._rows: dict[str, VRow] = {}
        self._parsed: dict[tuple[str, str, str], int] = {}
        self._ctx: tuple[int, dict[str, str], dict[str, LanguagePack]] | None = None
        self._ctx_full: dict[str, FileContext] = {}
        self._report: tuple[tuple[object, ...], OverlayReport] | None = None
        self._merge_bases: dict[tuple[str, str], str | None] = {}
        self._next_unit = -1
        self.memo: dict[str, tuple[tuple[object, ...], object]] = {}  # per state_key
        self.notes: list[str] = []  # said in every answer's limitations (query/answer.py)

    # -- refresh ---------------------------------------------------------------------------
    def end_read(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")

    @property
    def members(self) -> dict[str, Member]:
        """The baseline snapshot's files by path (read on first use)."""
        if self._members is None:
            self._load_members()
        assert self._members is not None
        return self._members

    def refresh(self) -> None:
        """Bring the view in line with the store's newest snapshot and the files on disk.
        Opens the read transaction the rest of the answer runs in."""
        self.end_read()
        self.conn.execute("BEGIN")
        newest, state = self.conn.execute(
            "SELECT (SELECT MAX(id) FROM snapshots WHERE state='completed'), "
            "(SELECT state FROM snapshots WHERE id=?)",
            (self.snapshot.id if self.snapshot else -1,)).fetchone()
        if self.detached:
            self._take_snapshot(newest)
            return
        if self._wholesale and self._clean is not None and self.snapshot is not None \
                and newest == self._clean_newest and self.probe.unchanged_since(self._clean):
            return  # still the clean start's workspace
        if self._key is None and self._projected is None and self._clean_start(newest):
            return
        self._sync(newest, state)

    def _take_snapshot(self, newest: int | None) -> None:
        """Detached: the view is the newest complete snapshot's files, as they are."""
        if newest is None or (self.snapshot is not None and self.snapshot.id == newest):
            return
        snap = snapshot_by_id(self.conn, newest)
        if snap is None:
            return
        self.snapshot, self.base = snap, snap.commit
        self.head = src.Head(snap.commit, None)
        self._wholesale_files(snap, None)
        self.refreshes += 1

    def _wholesale_files(self, snap: SnapshotRow, mismatch: str | None) -> None:
        """The view is `snap`'s files as indexed, nothing overlaid (one SQL statement)."""
        self._members = None
        self.mismatch = mismatch
        self.changes = Changes(snapshot=snap.id)
        self.live_skipped = {}
        self.conn.execute("DELETE FROM temp.vfiles")
        self.conn.execute(
            "INSERT INTO temp.vfiles(path, unit, language, source, stale) SELECT path, unit, "
            "language, 'cached-index', 0 FROM main.snapshot_files WHERE snapshot=? AND unit IS "
            "NOT NULL AND language IS NOT NULL AND skipped IS NULL", (snap.id,))
        self._rows = {}
        self._wholesale = True

    def _complete(self) -> None:
        """After a clean start: probe the workspace now (for what needs its listing)."""
        if self._wholesale and not self.detached:
            newest = self.snapshot.id if self.snapshot else None
            self._sync(newest, "completed")

    def _clean_start(self, newest: int | None) -> bool:
        """A process's first refresh, when an earlier refresh (of this or another process)
        saved the workspace as exactly its baseline snapshot — nothing overlaid — and the
        workspace's stats say nothing changed since (Probe.unchanged_since): the view is the
        snapshot's files, taken in one SQL statement, without listing, hashing or resolving
        the workspace's files (docs/kernel.md). The baseline is the newest snapshot or,
        pinned, an older one of HEAD's commit (HEAD an ancestor of the newest's commit, e.g.
        back on main after indexing a branch): with the same newest snapshot and the same
        HEAD the merge-base is the same commit, so the saved choice stands. A plain folder
        (not a git repository) starts clean the same way from its snapshot without commit,
        judged by the same stats (folders' mtimes, every file's). The next refresh probes as
        usual."""
        if not newest:
            return False
        saved = self._load_state()
        if saved is None or len(saved) != 4 or saved[0] != newest \
                or not isinstance(saved[3], tuple):
            return False
        snap = snapshot_by_id(self.conn, saved[1]) if isinstance(saved[1], int) else None
        if snap is None or snap.state != "completed" or saved[2] != snap.commit \
                or (snap.commit is None) == self.probe.is_git:
            return False  # a git workspace's baseline is a commit; a folder's is none
        try:
            if not self.probe.unchanged_since(saved[3]):
                return False
        except (TypeError, ValueError, IndexError, OSError):  # a state of another shape
            return False
        head = src.head(self.root) if self.probe.is_git else src.Head(None, None)
        if head.sha != snap.commit:
            return False  # nothing taken: the full refresh starts from scratch
        self.snapshot, self.base, self.head = snap, snap.commit, head
        self._wholesale_files(snap, self._mismatch())
        self._clean = saved[3]
        self._clean_newest = newest
        return True

    def _load_state(self) -> tuple[Any, ...] | None:
        """The saved state of the last clean refresh, if this store saved it: a bounded
        plain file of `.spyglass/` (never a link), JSON of lists, strings and numbers only,
        carrying the identity of the store that wrote it (a file copied or committed with
        the repository is ignored)."""
        try:
            fd = writer.store_folder(store_dir(self.root), create=False)
        except (OSError, IndexUnavailable):  # gone, or not a plain folder of this user
            return None
        try:
            data = writer.read_at(fd, VIEW_STATE, STATE_MAX)
        finally:
            os.close(fd)
        if data is None:
            return None
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError):
            return None
        mine = owner(self.conn)
        if not isinstance(obj, dict) or mine is None or obj.get("owner") != mine:
            return None
        return _state(obj.get("state"))

    def _save_state(self) -> None:
        """After a refresh that overlaid nothing (the workspace is the snapshot's commit):
        the probe's stats, for the next process's clean start. Written once per change."""
        snap = self.snapshot
        if snap is None or (snap.commit is None) == self.probe.is_git \
                or self.base != snap.commit or self.changes.paths or self.changes.recontext \
                or self.live_skipped or self.head.sha != snap.commit:
            return
        newest = self._key[0] if self._key is not None else None
        if not isinstance(newest, int):
            return
        key = (newest, snap.id, self.probe.listed, self.probe.generation, self.probe.hashed)
        if key == self._saved:
            return
        self._saved = key
        mine = owner(self.conn)
        if mine is None:
            return
        data = json.dumps({"owner": mine, "state": [
            newest, snap.id, snap.commit, _encoded(self.probe.saved_state())]}).encode()
        if len(data) > STATE_MAX:
            return
        try:
            fd = writer.store_folder(store_dir(self.root), create=False)
            try:
                writer.write_at(fd, VIEW_STATE, data)
                writer.remove_at(fd, OLD_VIEW_STATE)
            finally:
                os.close(fd)
        except (OSError, IndexUnavailable):
            return  # a read-only store: no clean start next time, answers unchanged

    def _sync(self, newest: int | None, state: str | None) -> None:
        if self._wholesale:  # the clean start's rows go; the projection below writes its own
            self.conn.execute("DELETE FROM temp.vfiles")
            self._rows = {}
            self._wholesale = False
            self._clean = None
            self._clean_newest = None
        self.probe.refresh()
        key = (newest, self.probe.git_state)
        if key != self._key or (self.snapshot is not None and state != "completed"):
            self._choose_baseline(newest)
            self._key = key
        projected = (self.snapshot.id if self.snapshot else None, self.probe.generation)
        if projected != self._projected:
            self._project()
            self._projected = projected
        self._save_state()

    def _choose_baseline(self, newest_id: int | None) -> None:
        """The newest complete snapshot, or — pinned — the complete snapshot of the
        merge-base of HEAD and that snapshot's commit, when there is one."""
        newest = snapshot_by_id(self.conn, newest_id) if newest_id else None
        chosen, base = newest, None
        self.head = src.head(self.root) if self.probe.is_git else src.Head(None, None)
        if newest is not None and newest.commit and self.head.sha:
            pair = (self.head.sha, newest.commit)
            if pair not in self._merge_bases:
                self._merge_bases[pair] = src.merge_base(self.root, *pair)
            base = self._merge_bases[pair]
            if base and base != newest.commit:
                row = self.conn.execute(
                    "SELECT MAX(id) FROM snapshots WHERE state='completed' AND commit_sha=? "
                    "AND repo=?", (base, newest.repo)).fetchone()
                if row[0] is not None:
                    chosen = snapshot_by_id(self.conn, int(row[0])) or newest
        self.base = base
        if (chosen.id if chosen else None) != (self.snapshot.id if self.snapshot else None):
            self.snapshot = chosen
            self._load_members()
        self.mismatch = self._mismatch()

    def _mismatch(self) -> str | None:
        snap = self.snapshot
        if snap is None:
            return None
        here = str(self.root)
        if snap.commit is None:
            return None if snap.worktree == here else (
                f"index was built from the folder {snap.worktree}; this workspace is {here}")
        if not self.probe.is_git:
            return (f"index was built from git commit {snap.commit[:12]}, but {here} is not "
                    "a git repository")
        if self.base is None and not src.has_commit(self.root, snap.commit):
            return (f"index was built for another repository: commit {snap.commit[:12]} is "
                    f"not in the repository at {here}")
        if snap.worktree != here:
            base = (self.base or "?")[:12]
            return (f"index was built in worktree {snap.worktree} (shared store); this "
                    f"worktree {here} is answered through its overlay against {base}")
        return None

    def _load_members(self) -> None:
        members: dict[str, Member] = {}
        self._members = members
        if self.snapshot is None:
            return
        for path, unit, blob, language, skipped, ctx in self.conn.execute(
                "SELECT f.path, f.unit, f.blob, f.language, f.skipped, COALESCE(u.ctx, '') "
                "FROM snapshot_files f LEFT JOIN units u ON u.id = f.unit WHERE f.snapshot=?",
                (self.snapshot.id,)):
            members[path] = Member(unit, blob, language, skipped, ctx)

    def _pack(self, path: str, read: Callable[[str], bytes | None]) -> LanguagePack | None:
        """The file's pack: the index's language for an unchanged member, else by its
        extension, or by its text where a pack claims the extension (a C++ `.h`)."""
        if not claimable(path):
            return pack_for_path(path)
        member = self.members.get(path)
        if member is not None and member.language and \
                member.blob == self.probe.current.get(path):
            return pack_named(member.language)
        return pack_for_path(path, read(path))

    def _contexts(self) -> tuple[dict[str, str], dict[str, LanguagePack]]:
        """Each workspace file's resolution-context key (recomputed after a re-listing)."""
        current = self.probe.current
        stamp = self.probe.listed * 1_000_003 + len(current)
        if self._ctx is None or self._ctx[0] != stamp:
            read_paths: list[str] = []

            def read(path: str) -> bytes | None:
                read_paths.append(path)
                return confined.read_or_none(self.root, path, self.config.limits.max_file_bytes)
            packs = {p: pk for p in current if (pk := self._pack(p, read)) is not None}
            files = [src.SourceFile(p, "", 0) for p in current]
            ctxs = contexts(files, packs, read)
            self.probe.watch(read_paths)
            self._ctx = (stamp, {p: ctx_key(c) for p, c in ctxs.items()}, packs)
            self._ctx_full = ctxs
        return self._ctx[1], self._ctx[2]

    def _project(self) -> None:
        """Recompute the overlay from content: a file is overlaid when its bytes (or its
        resolution context) differ from the baseline's; everything else is the baseline."""
        self.refreshes += 1
        current = self.probe.current
        keys, packs = self._contexts()
        changes = Changes(snapshot=self.snapshot.id if self.snapshot else None)
        self.live_skipped = dict(self.probe.unreadable)
        rows: dict[str, VRow] = {}
        live: list[str] = []
        for path, blob in current.items():
            m = self.members.get(path)
            if m is None or m.language is None:
                changes.added.append(path)
            elif m.blob != blob:
                changes.modified.append(path)
            elif m.skipped is not None or m.unit is None:
                continue  # skipped in the baseline for its content (binary, …): still so
            elif m.ctx != keys.get(path, m.ctx):
                changes.recontext.append(path)
            else:
                rows[path] = (m.unit, m.language, "cached-index", 0)
                continue
            changes.blobs[path] = blob
            live.append(path)
        reasons = self.probe.reasons
        for path, m in self.members.items():
            if m.unit is not None and path not in current:
                if path in reasons:
                    self.live_skipped[path] = reasons[path]
                elif path not in self.live_skipped:
                    changes.deleted.append(path)
        if self.config.live_reparse or self.snapshot is None:
            for path in live:
                row = self._overlay_unit(path, packs.get(path))
                if row is not None:
                    rows[path] = row
        else:
            for path in live:
                m = self.members.get(path)
                if m is not None and m.unit is not None:
                    rows[path] = (m.unit, m.language, "cached-index", 1)
        self.changes = changes
        self._apply(rows)
        self._forget_unused({r[0] for r in rows.values() if r[0] is not None and r[0] < 0})

    def _overlay_unit(self, path: str, pack: LanguagePack | None) -> VRow | None:
        ctx = self._ctx_full.get(path)
        if pack is None or ctx is None:
            return None
        try:
            data = confined.read_bytes(self.root, path, self.config.limits.max_file_bytes)
        except OSError as exc:
            self.live_skipped[path] = f"unreadable: {exc.strerror}"
            return None
        key = (path, src.blob_hash(data), ctx_key(ctx))
        unit = self._parsed.pop(key, None)  # re-inserted below: most recently used last
        if unit is None:
            reason = binary_or_undecodable(data)
            if reason:
                self.live_skipped[path] = reason
                return None
            from spyglass.index.worker import process  # parsing: only for an edited file
            pack = pack_for_path(path, data) or pack  # a `.h` edited into C++ (or back)
            unit = self._store_live(path, key[1], process((path, data, pack.name, ctx)))
        self._parsed[key] = unit
        return (unit, pack.name, "text-fallback", 0)

    def _apply(self, rows: dict[str, VRow]) -> None:
        """Update temp.vfiles by difference: only paths whose row changed are written."""
        old = self._rows
        gone = [(p,) for p in old if old[p] != rows.get(p)]
        new = [(p, *r) for p, r in rows.items() if old.get(p) != r]
        self.conn.executemany("DELETE FROM temp.vfiles WHERE path=?", gone)
        self.conn.executemany("INSERT INTO temp.vfiles VALUES(?,?,?,?,?)", new)
        self._rows = rows

    def _forget_unused(self, used: set[int]) -> None:
        unused = [k for k, uid in self._parsed.items() if uid not in used]
        for key in unused[:max(0, len(unused) - OVERLAY_KEEP)]:
            uid = self._parsed.pop(key)
            for table in FACT_TABLES[1:]:
                self.conn.execute(f"DELETE FROM temp.o{table} WHERE unit=?", (uid,))
            self.conn.execute("DELETE FROM temp.ounits WHERE id=?", (uid,))

    def _store_live(self, path: str, blob: str, rows: Rows) -> int:
        meta, defs, refs, imports, aliases, diags, bases, tokens = rows
        uid = self._next_unit
        self._next_unit -= 1
        conn = self.conn
        conn.execute(_INSERT["units"],
                     (uid, path, blob, "", "", *meta))
        conn.executemany(_INSERT["defs"], [(uid, *d) for d in defs])
        conn.executemany(_INSERT["bases"], [(uid, *b) for b in bases])
        conn.executemany(_INSERT["refs"], [(uid, *r) for r in refs])
        conn.executemany(_INSERT["imports"], [(uid, *i) for i in imports])
        conn.executemany(_INSERT["aliases"], [(uid, *a) for a in aliases])
        conn.executemany(_INSERT["diags"], [(uid, *g) for g in diags])
        conn.executemany(_INSERT["tokens"], [(uid, *t) for t in tokens])
        return uid

    # -- reading ---------------------------------------------------------------------------
    def each(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Run a fact query (written with {units}, {defs}, … placeholders) over baseline and
        overlay, joined to the view's files as alias `f` (the overlay's tables are skipped
        while no file was parsed live: they are empty)."""
        out: list[tuple[object, ...]] = self.conn.execute(sql.format(**BASELINE),
                                                          params).fetchall()
        if self._next_unit != -1:  # the overlay's tables hold rows only once a unit was stored
            out.extend(self.conn.execute(sql.format(**OVERLAY), params).fetchall())
        return out

    def listed_files(self) -> tuple[list[tuple[str, str | None]], bool]:
        """Every workspace file with its skip reason (None: analysable), and whether the
        reasons are the snapshot's own (a clean start: the workspace is the snapshot, read
        in one SQL statement instead of listing the workspace)."""
        if self._wholesale and self.snapshot is not None:
            return [(str(p), None if r is None else str(r)) for p, r in self.conn.execute(
                "SELECT path, skipped FROM main.snapshot_files WHERE snapshot=?",
                (self.snapshot.id,))], True
        return [(f.path, f.skipped) for f in self.disk_files()], False

    @property
    def state_key(self) -> tuple[object, ...]:
        """Changes whenever what the view answers from may have changed (for memos)."""
        return (self.snapshot.id if self.snapshot else None, self._wholesale,
                self.probe.listed, self.probe.generation, self.changes.digest())

    def disk_files(self) -> list[src.SourceFile]:
        """The workspace's files as last listed (supported or not, with skip reasons);
        detached, the snapshot's."""
        if self.detached:
            if self.snapshot is None:
                return []
            return [src.SourceFile(str(p), str(b), int(n), None if k is None else str(k))
                    for p, b, n, k in self.conn.execute(
                        "SELECT path, blob, size, skipped FROM main.snapshot_files WHERE "
                        "snapshot=? ORDER BY path", (self.snapshot.id,))]
        self._complete()
        return self.probe.listing

    @property
    def scope(self) -> Scope:
        return Scope(self.repo, str(self.root), self.base,
                     self.snapshot.id if self.snapshot else None, self.changes.digest())

    def overlay(self) -> OverlayReport:
        """The overlay's changes by kind (committed, staged, unstaged, untracked, deleted,
        target), relative to the pinned merge-base. Computed on demand and cached."""
        self._complete()
        digest = self.changes.digest()
        key = (digest, self.probe.git_state, self.probe.generation, self.base)
        if self._report is None or self._report[0] != key:
            if self.probe.is_git:
                commit = self.snapshot.commit if self.snapshot else None
                report = classify(self.probe, self.head, self.base, commit, digest)
            else:
                report = classify_disk(self.root, self.changes.added, self.changes.modified,
                                       self.changes.deleted, digest)
            self._report = (key, report)
        return self._report[1]
