"""Snapshot builder: enumerate, reuse unchanged units, parse the rest in a pool, persist."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass
from pathlib import Path

from spyglass.config import Config
from spyglass.errors import IndexUnavailable
from spyglass.index import confined, gitcall
from spyglass.index import source as src
from spyglass.index.lifeline import bind_to_parent
from spyglass.index.store import (
    CHUNK,
    FACT_INDEXES,
    STORE_DIR,
    Conn,
    SnapshotRow,
    StoreInvalid,
    columns,
    drop_fact_indexes,
    latest_complete,
    location,
    log_event,
    snapshot_by_id,
    unit_id_base,
    utcnow,
)
from spyglass.index.units import binary_or_undecodable, contexts, ctx_key, pack_key
from spyglass.index.worker import ChunkItem, process, process_chunk
from spyglass.syntax.langpack import (
    LanguagePack,
    all_packs,
    claimable,
    claims_signature,
    extension,
    pack_for_path,
    signature,
    unsupported_language,
)
from spyglass.types import FileContext

__all__ = ["Progress", "SnapshotBuilder", "binary_or_undecodable", "contexts", "ctx_key"]

CHUNK_FILES = int(os.environ.get("SPYGLASS_CHUNK_FILES", "64"))  # files per chunk/transaction
CHUNK_BYTES = 4 * 1024 * 1024  # a chunk closes early at this many bytes of source
# Seconds to pause after each persisted chunk: lets tests kill or race a build mid-way.
CHUNK_DELAY = float(os.environ.get("SPYGLASS_TEST_CHUNK_DELAY", "0") or 0)
POOL_THRESHOLD = 48  # below this many files to parse, a pool costs more than it saves
# Chunks read ahead per worker: enough to keep each busy, few enough to bound memory.
IN_FLIGHT_PER_WORKER = 2

# Reused units parsed again per index run to validate the store's content (_spot_check),
# chosen among files of at most SPOT_MAX_BYTES (cheap, and far from the parse budget).
SPOT_CHECK = 3
SPOT_MAX_BYTES = 64 * 1024
DEF_COLUMNS = ", ".join(columns("defs")[1:])  # a defs row without its unit

Progress = Callable[[str, int, int, int], None]  # phase, done, total, persisted


@dataclass(frozen=True, slots=True)
class WorkItem:
    """A file whose facts are not in the store yet."""

    path: str
    blob: str
    language: str
    ctx: FileContext
    ctx_key: str


class SnapshotBuilder:
    """Builds one snapshot of a repository root into an open store connection.

    The caller holds the writer lock (see `jobs.run_index`). Every run is journaled as a
    job: accepted → progress (parsed/persisted counts) → completed | unavailable | failed."""

    def __init__(self, root: Path, conn: Conn, config: Config, repo: str,
                 progress: Progress | None = None, store: Path | None = None) -> None:
        self.root = root
        self.conn = conn
        self.config = config
        self.repo = repo
        self.progress = progress or (lambda *a: None)
        self.store = store or root / STORE_DIR
        self.job = 0
        self.from_disk = False

    # -- enumeration ---------------------------------------------------------------------
    def choose_ref(self, ref: str | None) -> tuple[str, str]:
        """The ref to index and where it came from (always reported)."""
        self.from_disk = not src.is_git_repo(self.root)
        if self.from_disk and (self.root / ".git").exists():
            raise IndexUnavailable(f"{self.root / '.git'} exists but git cannot read it: the "
                                   "repository looks damaged (try `git fsck`)")
        if self.from_disk:
            if ref:
                raise IndexUnavailable(f"{self.root} is not a git repository: --ref {ref} "
                                       "cannot be used")
            return "working-tree", "not a git repository: files on disk"
        if ref:
            return ref, "--ref"
        if self.config.target_branch:
            return self.config.target_branch, "config target_branch"
        return "HEAD", f"default: HEAD ({src.head(self.root).describe()})"

    def _enumerate(self, ref: str, origin: str) -> tuple[str | None, list[src.SourceFile]]:
        max_bytes = self.config.limits.max_file_bytes
        if self.from_disk:
            return None, src.disk_files(self.root, max_bytes, rules=self.config.index)
        commit = src.resolve_commit(self.root, ref, origin)
        return commit, src.git_files(self.root, commit, max_bytes, self.config.index)

    def _reader(self, commit: str | None, files: list[src.SourceFile],
                blobs: gitcall.BlobReader | None = None) -> Callable[[str], bytes | None]:
        """A file's bytes: from disk, or from the commit's blobs through `blobs` (one git
        process for every read)."""
        shas = {f.path: f.blob for f in files}

        def read(path: str) -> bytes | None:
            if commit is None:
                return confined.read_or_none(self.root, path,
                                             self.config.limits.max_file_bytes)
            sha = shas.get(path)
            return blobs.read(sha) if sha and blobs is not None else None
        return read

    def _claim(self, commit: str | None, files: list[src.SourceFile],
               packs: dict[str, LanguagePack]) -> None:
        """Files whose extension a pack claims by content (a C++ `.h`): read, and their
        pack decided by their text (syntax/langpack.py `claims`)."""
        paths = [f.path for f in files if f.path in packs and claimable(f.path)]
        if not paths:
            return
        if commit is None:
            texts: Iterable[tuple[str, bytes | None]] = (
                (p, self._reader(None, files)(p)) for p in paths)
        else:  # decisions of earlier builds are kept by blob: only new blobs are read
            by_sha: dict[str, list[str]] = {}
            for f in files:
                if f.path in packs and claimable(f.path) and f.blob:
                    by_sha.setdefault(f.blob, []).append(f.path)
            digest, known = claims_signature(), {}
            shas = list(by_sha)
            for i in range(0, len(shas), CHUNK):
                chunk = shas[i:i + CHUNK]
                known.update({(str(b), str(e)): str(lang) for b, e, lang in self.conn.execute(
                    f"SELECT blob, ext, language FROM claims WHERE digest = ? AND blob IN "
                    f"({','.join('?' * len(chunk))})", (digest, *chunk))})
            fresh: list[tuple[str, str, str, str]] = []
            for sha, found in by_sha.items():
                for p in found:
                    lang = known.get((sha, extension(p)))
                    if lang in all_packs():
                        packs[p] = all_packs()[lang]
            unread = [sha for sha, found in by_sha.items()
                      if any((sha, extension(p)) not in known for p in found)]
            for sha, text in src.read_blobs(self.root, unread,
                                            max_bytes=self.config.limits.max_file_bytes):
                for p in by_sha[sha]:
                    pack = pack_for_path(p, text)
                    if pack is not None:
                        packs[p] = pack
                        fresh.append((sha, extension(p), digest, pack.name))
            if fresh:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.executemany("INSERT OR REPLACE INTO claims VALUES(?,?,?,?)", fresh)
                self.conn.execute("DELETE FROM claims WHERE digest != ?", (digest,))
                self.conn.execute("COMMIT")
            return
        for path, data in texts:
            pack = pack_for_path(path, data) if data is not None else None
            if pack is not None:
                packs[path] = pack

    # -- the job -------------------------------------------------------------------------
    def build(self, ref: str | None = None) -> SnapshotRow:
        conn = self.conn
        try:
            ref_used, origin = self.choose_ref(ref)
        except IndexUnavailable as exc:
            self._open_job(ref or "", "--ref")
            self._finish_job("unavailable", None, str(exc))
            raise
        self._open_job(ref_used, origin)
        try:
            commit, files = self._enumerate(ref_used, origin)
        except IndexUnavailable as exc:
            self._finish_job("unavailable", None, str(exc))
            raise
        conn.execute("UPDATE jobs SET commit_sha=?, files=? WHERE id=?",
                     (commit, len(files), self.job))
        if commit is not None:
            reused = self._reuse_snapshot(commit, ref_used, origin)
            if reused is not None:
                return reused
        cur = conn.execute(
            "INSERT INTO snapshots(repo, worktree, commit_sha, ref, state, started_at, files, "
            "signature, ref_source) VALUES(?,?,?,?,?,?,?,?,?)",
            (self.repo, str(self.root), commit, ref_used, "progress", utcnow(), len(files),
             self._signature(), origin))
        snap = int(cur.lastrowid or 0)
        conn.execute("UPDATE jobs SET state='progress', snapshot=? WHERE id=?", (snap, self.job))
        log_event(conn, snap, "progress", job=self.job, parsed=0, persisted=0,
                  files=len(files))
        try:
            self._run(snap, commit, files)
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            message = str(exc) or type(exc).__name__
            conn.execute("UPDATE snapshots SET state='failed', error=? WHERE id=?",
                         (message, snap))
            self._finish_job("failed", snap, message)
            raise
        row = snapshot_by_id(conn, snap)
        assert row is not None
        return row

    def _open_job(self, ref: str, origin: str) -> None:
        cur = self.conn.execute(
            "INSERT INTO jobs(repo, worktree, ref, ref_source, state, started_at, pid) "
            "VALUES(?,?,?,?,?,?,?)",
            (self.repo, str(self.root), ref, origin, "accepted", utcnow(), os.getpid()))
        self.job = int(cur.lastrowid or 0)
        log_event(self.conn, None, "accepted", job=self.job, ref=ref, ref_source=origin)

    def _finish_job(self, state: str, snap: int | None, error: str | None) -> None:
        self.conn.execute("UPDATE jobs SET state=?, snapshot=COALESCE(?, snapshot), error=?, "
                          "finished_at=? WHERE id=?", (state, snap, error, utcnow(), self.job))
        log_event(self.conn, snap, state, error or "", job=self.job)

    def _signature(self) -> str:
        """The packs' signature, and the skip rules when they are not the defaults: a
        commit indexed under other rules is listed again."""
        if self.config.index == src.DEFAULT_RULES:
            return signature()
        rules = hashlib.sha1(self.config.index.key.encode()).hexdigest()[:8]
        return f"{signature()}+{rules}"

    def _reuse_snapshot(self, commit: str, ref: str, origin: str) -> SnapshotRow | None:
        """A commit indexed before (same packs) is not parsed again: serve that snapshot,
        or a copy of its membership when it is not the newest or was built elsewhere."""
        conn = self.conn
        done = conn.execute(
            "SELECT id, worktree, ref, ref_source FROM snapshots WHERE repo=? AND "
            "commit_sha=? AND state='completed' AND signature=? ORDER BY id DESC LIMIT 1",
            (self.repo, commit, self._signature())).fetchone()
        if done is None:
            return None
        newest = latest_complete(conn)
        conn.execute("BEGIN IMMEDIATE")
        if getattr(conn, "shared", False) or (newest is not None and newest.id == done[0]
                                              and tuple(done[1:]) == (str(self.root), ref,
                                                                      origin)):
            snap = int(done[0])
            conn.execute("UPDATE jobs SET state='completed', snapshot=?, finished_at=?, "
                         "reused=(SELECT COUNT(unit) FROM snapshot_files WHERE snapshot=?) "
                         "WHERE id=?", (snap, utcnow(), snap, self.job))
            log_event(conn, snap, "completed", "snapshot already indexed", job=self.job)
        else:
            cur = conn.execute(
                "INSERT INTO snapshots(repo, worktree, commit_sha, ref, state, started_at, "
                "indexed_at, files, reused, signature, ref_source) SELECT repo, ?, commit_sha, "
                "?, 'completed', ?, ?, files, files, signature, ? FROM snapshots WHERE id=?",
                (str(self.root), ref, utcnow(), utcnow(), origin, done[0]))
            snap = int(cur.lastrowid or 0)
            conn.execute("INSERT INTO snapshot_files SELECT ?, path, unit, blob, size, language, "
                         "skipped FROM snapshot_files WHERE snapshot=?", (snap, done[0]))
            conn.execute("UPDATE jobs SET state='completed', snapshot=?, finished_at=? "
                         "WHERE id=?", (snap, utcnow(), self.job))
            log_event(conn, snap, "completed", f"membership of snapshot {done[0]} reused",
                      job=self.job)
            log_event(conn, snap, "code_graph_updated", job=self.job, commit=commit, ref=ref)
        conn.execute("COMMIT")
        row = snapshot_by_id(conn, snap)
        if row is None:
            return None
        # This run parsed nothing: it reports reuse, not the counts of the run that parsed.
        units = conn.execute("SELECT COUNT(unit) FROM snapshot_files WHERE snapshot=?",
                             (snap,)).fetchone()[0]
        return dataclasses.replace(row, parsed=0, persisted=0, reused=int(units))

    def _run(self, snap: int, commit: str | None, files: list[src.SourceFile]) -> None:
        conn = self.conn
        packs: dict[str, LanguagePack] = {}
        skipped: dict[str, str] = {}
        for f in files:
            if f.skipped:
                skipped[f.path] = f.skipped
                continue
            pack = pack_for_path(f.path)
            if pack is not None:
                packs[f.path] = pack
            else:
                lang = unsupported_language(f.path)
                skipped[f.path] = f"unsupported language: {lang}" if lang else "not source code"
        self._claim(commit, files, packs)
        blobs = gitcall.BlobReader(self.root, self.config.limits.max_file_bytes)
        try:
            ctxs = contexts(files, packs, self._reader(commit, files, blobs))
        finally:
            blobs.close()
        # Disk sources have no blob ids yet: hash the supported files now.
        contents: dict[str, bytes] = {}
        if commit is None:
            files = [self._hash_disk(f, packs, contents, skipped) for f in files]
        existing = self._existing_units({f.path for f in files if f.path in packs})
        membership: dict[str, int] = {}
        todo: list[WorkItem] = []
        for f in files:
            pack = packs.get(f.path)
            if pack is None or f.path in skipped:
                continue
            ctx = ctxs[f.path]
            key = ctx_key(ctx)
            unit = existing.get((f.path, f.blob, pack.cache_key, key))
            if unit is not None:
                membership[f.path] = unit
            else:
                todo.append(WorkItem(f.path, f.blob, pack.name, ctx, key))
        self._spot_check(commit, files, packs, ctxs, membership)
        conn.execute("UPDATE snapshots SET reused=? WHERE id=?", (len(membership), snap))
        conn.execute("UPDATE jobs SET reused=? WHERE id=?", (len(membership), self.job))
        empty = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM units)").fetchone()[0]
        # An interrupted first build left its units without the fact indexes: this run
        # goes on in bulk, or builds them first.
        unindexed = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM sqlite_master WHERE "
                                 "type = 'index' AND name = 'refs_target')").fetchone()[0]
        bulk = bool(empty or unindexed) and len(todo) > 500
        if bulk:
            drop_fact_indexes(conn)
        elif unindexed:
            conn.executescript(FACT_INDEXES)
        self.progress("parse", 0, len(todo), 0)
        persisted = self._parse_and_store(snap, commit, todo, contents, membership, skipped,
                                          {f.path: f.size for f in files})
        if bulk:
            conn.executescript(FACT_INDEXES)
        with_unit = [(snap, f.path, membership.get(f.path), f.blob, f.size,
                      packs[f.path].name if f.path in packs else None, skipped.get(f.path))
                     for f in files]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT OR REPLACE INTO snapshot_files VALUES(?,?,?,?,?,?,?)",
                         with_unit)
        now = utcnow()
        conn.execute("UPDATE snapshots SET state='completed', indexed_at=?, parsed=?, "
                     "persisted=? WHERE id=?", (now, len(todo), persisted, snap))
        conn.execute("UPDATE jobs SET state='completed', finished_at=?, parsed=?, persisted=? "
                     "WHERE id=?", (now, len(todo), persisted, self.job))
        log_event(conn, snap, "completed", job=self.job, parsed=len(todo), persisted=persisted,
                  reused=len(membership))
        log_event(conn, snap, "code_graph_updated", job=self.job,
                  commit=commit or "working-tree")
        conn.execute("COMMIT")

    def _hash_disk(self, f: src.SourceFile, packs: dict[str, LanguagePack],
                   contents: dict[str, bytes], skipped: dict[str, str]) -> src.SourceFile:
        if f.path not in packs or f.skipped:
            return f
        try:
            data = confined.read_bytes(self.root, f.path, self.config.limits.max_file_bytes)
        except OSError as exc:
            skipped[f.path] = f"unreadable: {exc.strerror}"
            return f
        blob = src.blob_hash(data)
        contents[blob] = data
        return src.SourceFile(f.path, blob, len(data), None)

    def _spot_check(self, commit: str | None, files: list[src.SourceFile],
                    packs: dict[str, LanguagePack], ctxs: dict[str, FileContext],
                    membership: dict[str, int]) -> None:
        """Validate reused facts: a few reused units (small files, picked at random) are
        parsed again and their definitions compared with the stored rows, which must be
        exactly what the same bytes give. A store whose rows were edited or lost raises
        `StoreInvalid` (jobs.run_index then rebuilds it, with a message)."""
        sizes = {f.path: f.size for f in files}
        small = [p for p in sorted(membership) if sizes.get(p, 0) <= SPOT_MAX_BYTES]
        if not small:
            return
        sample = random.sample(small, min(SPOT_CHECK, len(small)))
        blobs = gitcall.BlobReader(self.root) if commit is not None else None
        try:
            read = self._reader(commit, files, blobs)
            for path in sample:
                data = read(path)
                if data is None or len(data) > SPOT_MAX_BYTES or binary_or_undecodable(data):
                    continue
                want = [tuple(r) for r in process((path, data, packs[path].name,
                                                   ctxs[path]))[1]]
                have = [tuple(r) for r in self.conn.execute(
                    f"SELECT {DEF_COLUMNS} FROM defs WHERE unit=? ORDER BY idx",
                    (membership[path],))]
                if want != have:
                    raise StoreInvalid(f"the stored facts of {path} are not what its source "
                                       "gives (rows edited or lost)")
        finally:
            if blobs is not None:
                blobs.close()

    def _existing_units(self, paths: set[str]) -> dict[tuple[str, str, str, str], int]:
        out: dict[tuple[str, str, str, str], int] = {}
        for uid, path, blob, pack, ctx in self.conn.execute(
                "SELECT id, path, blob, pack, ctx FROM units"):
            if path in paths:
                out[(path, blob, pack, ctx)] = uid
        return out

    def _items(self, commit: str | None, todo: list[WorkItem], contents: dict[str, bytes],
               skipped: dict[str, str]) -> Iterator[tuple[WorkItem, bytes]]:
        by_blob: dict[str, list[WorkItem]] = {}
        for item in todo:
            by_blob.setdefault(item.blob, []).append(item)
        if commit is None:
            stream: Iterator[tuple[str, bytes]] = ((b, contents[b]) for b in by_blob)
        else:
            stream = src.read_blobs(self.root, by_blob, strict=True)
        for blob, data in stream:
            reason = binary_or_undecodable(data)
            for item in by_blob[blob]:
                if reason:
                    skipped[item.path] = reason
                else:
                    yield item, data

    def _parse_and_store(self, snap: int, commit: str | None, todo: list[WorkItem],
                         contents: dict[str, bytes], membership: dict[str, int],
                         skipped: dict[str, str], sizes: dict[str, int]) -> int:
        """Parse in worker processes, each inserting its chunk's facts into the store in
        one transaction of its own; this process journals progress after every chunk.

        Work streams in bounded batches: blobs are read in chunk order as the pool takes
        them, and at most `IN_FLIGHT_PER_WORKER` chunks per worker are read ahead, so the
        memory held is a few chunks' bytes and facts, never the repository's."""
        # Largest files first (sizes from the listing): the last chunks are the light ones,
        # so no worker is left finishing a heavy chunk while the others idle.
        todo = sorted(todo, key=lambda item: -sizes.get(item.path, 0))
        conn = self.conn
        base = unit_id_base(conn, len(todo))
        store = location(conn)
        chunks = _chunks(self._items(commit, todo, contents, skipped), base)
        persisted = 0

        def record(chunk: list[ChunkItem], count: int) -> None:
            nonlocal persisted
            persisted += count
            membership.update((item[1], item[0]) for item in chunk)
            self._journal_chunk(snap, persisted, len(todo))
            if CHUNK_DELAY:
                time.sleep(CHUNK_DELAY)

        workers = os.cpu_count() or 1
        if len(todo) < POOL_THRESHOLD or workers < 2:
            for chunk in chunks:
                record(chunk, process_chunk(chunk, store))
            return persisted
        # Workers die with this process (kill -9 included) and list themselves in the lock
        # file, so they can never keep the store locked (index/lifeline.py).
        pool = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("fork"),
                                   initializer=bind_to_parent,
                                   initargs=(os.getpid(), str(self.store)))
        try:
            # Fork every worker before the first blob is read: a worker forked later would
            # inherit the `git cat-file` pipe and keep it open, and git would never end.
            pool.submit(int).result()
            pending: dict[Future[int], list[ChunkItem]] = {}
            for chunk in chunks:
                pending[pool.submit(process_chunk, chunk, store)] = chunk
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        record(pending.pop(future), future.result())
            for future in as_completed(pending):
                record(pending[future], future.result())
        except BaseException:
            # Interrupted (Ctrl-C) or failed: stop now, workers included. A chunk a worker
            # committed stays in the store, and the next run reuses its units; the chunks
            # under way roll back with the killed workers.
            for proc in list((pool._processes or {}).values()):
                proc.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(cancel_futures=True)
        return persisted

    def _journal_chunk(self, snap: int, persisted: int, total: int) -> None:
        """After a chunk is in the store: the job's progress counters and a progress event."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("UPDATE snapshots SET persisted=?, parsed=? WHERE id=?",
                         (persisted, persisted, snap))
            conn.execute("UPDATE jobs SET persisted=?, parsed=? WHERE id=?",
                         (persisted, persisted, self.job))
            log_event(conn, snap, "progress", job=self.job, parsed=persisted,
                      persisted=persisted, total=total)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self.progress("parse", persisted, total, persisted)


def _chunks(items: Iterator[tuple[WorkItem, bytes]], base: int) -> Iterator[list[ChunkItem]]:
    """Items in chunks of CHUNK_FILES (fewer past CHUNK_BYTES of source), with unit ids
    numbered on from `base`."""
    chunk: list[ChunkItem] = []
    size = 0
    for k, (item, data) in enumerate(items):
        chunk.append((base + 1 + k, item.path, item.blob, data, item.language,
                      pack_key(item.language), item.ctx, item.ctx_key))
        size += len(data)
        if len(chunk) == CHUNK_FILES or size >= CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk

