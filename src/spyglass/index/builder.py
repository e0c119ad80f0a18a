"""Snapshot builder: enumerate, reuse unchanged units, parse the rest in a pool, persist."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import tempfile
import sqlite3
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from spyglass.config import Config
from spyglass.errors import IndexUnavailable
from spyglass.index import source as src
from spyglass.index.store import FACT_INDEXES, SnapshotRow, drop_fact_indexes, latest_job, \
    log_event, utcnow
from spyglass.index.worker import SCRATCH_TABLES, ChunkItem, process_chunk, resolver_for
from spyglass.syntax.langpack import LanguagePack, pack_for_path, signature, unsupported_language
from spyglass.types import FileContext

CHUNK_FILES = 64  # files per worker chunk and per write transaction
POOL_THRESHOLD = 48  # below this many files to parse, a pool costs more than it saves

Progress = Callable[[str, int, int, int], None]  # phase, done, total, persisted


@dataclass(frozen=True, slots=True)
class WorkItem:
    """A file whose facts are not in the store yet."""

    path: str
    blob: str
    language: str
    ctx: FileContext
    ctx_key: str


def binary_or_undecodable(data: bytes) -> str | None:
    """Why bytes cannot be analysed as source text, or None."""
    if b"\0" in data[:8192]:
        return "binary file"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte {exc.start})"
    return None


def contexts(files: list[src.SourceFile], packs: dict[str, LanguagePack],
             read: Callable[[str], bytes | None]) -> dict[str, FileContext]:
    """Each supported file's resolution context, from its language's resolver."""
    by_lang: dict[str, list[str]] = {}
    for f in files:
        if f.path in packs:
            by_lang.setdefault(packs[f.path].name, []).append(f.path)
    out: dict[str, FileContext] = {}
    for language, paths in by_lang.items():
        module = resolver_for(packs[paths[0]].resolver)
        if module is None:
            out.update({p: FileContext(p, p.rsplit(".", 1)[0]) for p in paths})
        else:
            out.update(module.module_keys(paths, read))
    return out


def _ctx_key(ctx: FileContext) -> str:
    text = ctx.module + "\0" + "\0".join(f"{k}={v}" for k, v in ctx.settings)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class SnapshotBuilder:
    """Builds one snapshot of a repository root into an open store connection."""

    def __init__(self, root: Path, conn: sqlite3.Connection, config: Config, repo: str,
                 progress: Progress | None = None) -> None:
        self.root = root
        self.conn = conn
        self.config = config
        self.repo = repo
        self.progress = progress or (lambda *a: None)

    # -- enumeration ---------------------------------------------------------------------
    def _enumerate(self, ref: str | None) -> tuple[str | None, str, list[src.SourceFile]]:
        max_bytes = self.config.limits.max_file_bytes
        if src.is_git_repo(self.root):
            ref = ref or self.config.target_branch or "HEAD"
            commit = src.resolve_commit(self.root, ref)
            return commit, ref, src.git_files(self.root, commit, max_bytes)
        if ref:
            raise IndexUnavailable(f"{self.root} is not a git repository: --ref {ref} "
                                   "cannot be used")
        return None, "working-tree", src.disk_files(self.root, max_bytes)

    def _reader(self, commit: str | None, files: list[src.SourceFile]
                ) -> Callable[[str], bytes | None]:
        blobs = {f.path: f.blob for f in files}

        def read(path: str) -> bytes | None:
            if commit is None:
                try:
                    return (self.root / path).read_bytes()
                except OSError:
                    return None
            sha = blobs.get(path)
            if not sha:
                return None
            return next((d for _, d in src.read_blobs(self.root, [sha])), None)
        return read

    # -- the job -------------------------------------------------------------------------
    def build(self, ref: str | None = None) -> SnapshotRow:
        commit, ref_used, files = self._enumerate(ref)
        conn = self.conn
        if commit is not None:
            done = conn.execute(
                "SELECT id FROM snapshots WHERE repo=? AND commit_sha=? AND state='completed' "
                "AND signature=? AND worktree=? ORDER BY id DESC LIMIT 1",
                (self.repo, commit, signature(), str(self.root))).fetchone()
            if done:
                conn.execute("UPDATE snapshots SET ref=? WHERE id=?", (ref_used, done[0]))
                log_event(conn, done[0], "completed", "snapshot already indexed")
                row = latest_job(conn)
                assert row is not None
                return row
        cur = conn.execute(
            "INSERT INTO snapshots(repo, worktree, commit_sha, ref, state, started_at, files, "
            "signature) VALUES(?,?,?,?,?,?,?,?)",
            (self.repo, str(self.root), commit, ref_used, "accepted", utcnow(), len(files),
             signature()))
        snap = int(cur.lastrowid or 0)
        log_event(conn, snap, "accepted", ref_used)
        try:
            self._run(snap, commit, files)
        except BaseException as exc:
            conn.execute("ROLLBACK") if conn.in_transaction else None
            conn.execute("UPDATE snapshots SET state='failed', error=? WHERE id=?",
                         (str(exc) or type(exc).__name__, snap))
            log_event(conn, snap, "failed", str(exc))
            raise
        row = latest_job(conn)
        assert row is not None
        return row

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
        ctxs = contexts(files, packs, self._reader(commit, files))
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
            key = _ctx_key(ctx)
            unit = existing.get((f.path, f.blob, pack.cache_key, key))
            if unit is not None:
                membership[f.path] = unit
            else:
                todo.append(WorkItem(f.path, f.blob, pack.name, ctx, key))
        conn.execute("UPDATE snapshots SET state='progress', reused=? WHERE id=?",
                     (len(membership), snap))
        bulk = not existing and len(todo) > 500
        if bulk:
            drop_fact_indexes(conn)
        self.progress("parse", 0, len(todo), 0)
        persisted = self._parse_and_store(snap, commit, todo, contents, membership, skipped)
        if bulk:
            conn.executescript(FACT_INDEXES)
        with_unit = [(snap, f.path, membership.get(f.path), f.blob, f.size,
                      packs[f.path].name if f.path in packs else None, skipped.get(f.path))
                     for f in files]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT OR REPLACE INTO snapshot_files VALUES(?,?,?,?,?,?,?)",
                         with_unit)
        conn.execute("UPDATE snapshots SET state='completed', indexed_at=?, parsed=?, "
                     "persisted=? WHERE id=?", (utcnow(), len(todo), persisted, snap))
        log_event(conn, snap, "completed")
        log_event(conn, snap, "code_graph_updated", commit or "working-tree")
        conn.execute("COMMIT")

    def _hash_disk(self, f: src.SourceFile, packs: dict[str, LanguagePack],
                   contents: dict[str, bytes], skipped: dict[str, str]) -> src.SourceFile:
        if f.path not in packs or f.skipped:
            return f
        try:
            data = (self.root / f.path).read_bytes()
        except OSError as exc:
            skipped[f.path] = f"unreadable: {exc.strerror}"
            return f
        blob = src.blob_hash(data)
        contents[blob] = data
        return src.SourceFile(f.path, blob, len(data), None)

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
            stream = src.read_blobs(self.root, by_blob)
        for blob, data in stream:
            reason = binary_or_undecodable(data)
            for item in by_blob[blob]:
                if reason:
                    skipped[item.path] = reason
                else:
                    yield item, data

    def _parse_and_store(self, snap: int, commit: str | None, todo: list[WorkItem],
                         contents: dict[str, bytes], membership: dict[str, int],
                         skipped: dict[str, str]) -> int:
        """Parse in worker processes that write scratch databases; this process is the one
        writer and copies each finished chunk into the store in its own transaction."""
        items = list(self._items(commit, todo, contents, skipped))
        conn = self.conn
        base = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM units").fetchone()[0])
        blobs: dict[int, str] = {}
        chunks: list[list[ChunkItem]] = []
        for k, (item, data) in enumerate(items):
            uid = base + 1 + k
            blobs[uid] = item.blob
            if k % CHUNK_FILES == 0:
                chunks.append([])
            chunks[-1].append((uid, item.path, data, item.language, pack_key(item.language),
                               item.ctx, item.ctx_key))
        scratch_dir = Path(tempfile.mkdtemp(prefix="build-", dir=self.root / ".spyglass"))
        persisted = 0
        pool: ProcessPoolExecutor | None = None
        try:
            names = [str(scratch_dir / f"chunk-{i}.db") for i in range(len(chunks))]
            done: Iterator[tuple[str, int]]
            if len(items) >= POOL_THRESHOLD and (os.cpu_count() or 1) > 1:
                pool = ProcessPoolExecutor(max_workers=os.cpu_count(),
                                           mp_context=multiprocessing.get_context("fork"))
                futures = [pool.submit(process_chunk, c, n) for c, n in zip(chunks, names)]
                done = (f.result() for f in as_completed(futures))
            else:
                done = (process_chunk(c, n) for c, n in zip(chunks, names))
            for path, count in done:
                self._copy_chunk(path, blobs, membership)
                persisted += count
                conn.execute("UPDATE snapshots SET persisted=?, parsed=? WHERE id=?",
                             (persisted, persisted, snap))
                self.progress("parse", persisted, len(items), persisted)
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            shutil.rmtree(scratch_dir, ignore_errors=True)
        return persisted

    def _copy_chunk(self, path: str, blobs: dict[int, str], membership: dict[str, int]) -> None:
        """Copy one scratch database into the store: one transaction, one statement a table."""
        conn = self.conn
        conn.execute("ATTACH DATABASE ? AS chunk", (path,))
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for uid, upath in conn.execute("SELECT id, path FROM chunk.units").fetchall():
                    membership[str(upath)] = int(uid)
                    conn.execute("UPDATE chunk.units SET blob=? WHERE id=?", (blobs[int(uid)], uid))
                for table, cols in SCRATCH_TABLES.items():
                    conn.execute(f"INSERT OR REPLACE INTO main.{table}({cols}) "
                                 f"SELECT {cols} FROM chunk.{table}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute("DETACH DATABASE chunk")
        os.unlink(path)


def pack_key(language: str) -> str:
    from spyglass.syntax.langpack import all_packs
    return all_packs()[language].cache_key
