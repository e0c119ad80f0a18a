"""Workspace probe: the files a workspace holds and their content ids, kept by stat."""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spyglass.config import IndexRules
from spyglass.index import confined, filenames, gitcall, gitguard, gitindex
from spyglass.index import source as src
from spyglass.syntax.langpack import pack_for_path

STATE_VERSION = 1  # of saved_state's layout
RACY_NS = 2_000_000_000  # a file changed this recently is re-hashed on the next refresh
# spyglass's own folder: git never descends into it (a `.gitignore` there that is a FIFO, or
# anything else a repository committed there, is never read by git on spyglass's behalf)
STORE_EXCLUDE = "--exclude=/.spyglass/"
StatKey = tuple[int, int, int, int]  # mtime_ns, ctime_ns, size, inode


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


@dataclass(slots=True)
class Seen:
    """A supported file as last looked at."""

    key: StatKey
    blob: str


class Probe:
    """The files of one workspace (a git worktree or a plain folder) and their blob ids.

    A refresh first stats what it already knows — watched folders, supported files, the git
    state files and a few control files. When nothing changed, that is all it does: no
    listing, no hashing, no git process. A changed folder (a file added, removed or
    renamed), `.gitignore` or git index re-lists the workspace; a file whose stat changed,
    or whose change is too recent to trust its stat, is hashed again — unless git's own
    index recorded that very stat, when git's blob id is taken."""

    def __init__(self, root: Path, max_bytes: int, rules: IndexRules = src.DEFAULT_RULES
                 ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.rules = rules
        self.is_git = src.is_git_repo(root)
        self.git_dir: Path | None = None
        self.common_dir: Path | None = None
        self.object_format = "sha1"  # of blob ids: the repository's (sha256 repositories)
        self.ignores = gitguard.IgnoreScan(root)  # no FIFO `.gitignore` reaches git
        if self.is_git:
            found = gitguard.discover(root)
            self.ignores = gitguard.IgnoreScan(root, found.top if found else None)
            self.git_dir, self.common_dir = src.git_dirs(root)
            self.object_format = gitcall.repo_config(root).object_format
        self.listing: list[src.SourceFile] = []  # every file, with skip reasons
        self.reasons: dict[str, str] = {}  # listed path -> why it is skipped
        self.tracked: frozenset[str] = frozenset()
        self.untracked: frozenset[str] = frozenset()
        self.deleted: frozenset[str] = frozenset()  # tracked, but missing on disk
        self.current: dict[str, str] = {}  # supported, analysable path -> blob id
        self.unreadable: dict[str, str] = {}
        self.generation = 0  # bumps whenever `current` changes
        self._seen: dict[str, Seen] = {}
        self._others: dict[str, Seen] = {}  # files outside `current` whose id was asked for
        self._candidates: list[tuple[str, str]] = []  # (path, absolute path)
        self._dirs: list[tuple[str, int]] = []  # (absolute folder, mtime_ns)
        self._control: dict[str, StatKey | None] = {}
        self._extra: set[str] = set()
        self._ignored: list[src.SourceFile] | None = None
        self._ignored_at = 0
        self._index: tuple[tuple[StatKey | None, ...], dict[str, gitindex.IndexEntry]] | None = None
        self._git_key: tuple[StatKey | None, ...] = ()
        self.listed = 0  # how many times the workspace was listed (for tests and benches)
        self.hashed = 0  # how many files were hashed

    @property
    def git_state(self) -> tuple[StatKey | None, ...]:
        """The git state files' stats as of the last refresh (changes when HEAD moves)."""
        return self._git_key

    # -- the cheap part ---------------------------------------------------------------------
    def git_key(self) -> tuple[StatKey | None, ...]:
        """Stats of the files that change when HEAD moves or the index is written."""
        if self.git_dir is None or self.common_dir is None:
            return ()
        paths = [self.git_dir / "HEAD", self.git_dir / "index", self.common_dir / "packed-refs"]
        head = (gitguard.read_small(self.git_dir / "HEAD") or b"").decode(
            "utf-8", "replace").strip()  # bounded, a regular file only
        if head.startswith("ref: "):
            paths.append(self.common_dir / head[5:])
        return tuple(_stat(p) for p in paths)

    def watch(self, paths: Iterable[str]) -> None:
        """Also watch these workspace paths (e.g. files resolvers read, such as tsconfig.json):
        their appearance, change or removal forces a re-listing."""
        for p in paths:
            if p not in self._extra:
                self._extra.add(p)
                self._control[p] = _stat(self.root / p)

    def _listing_stale(self, git_key: tuple[StatKey | None, ...]) -> bool:
        if not self.listed or git_key[1:2] != self._git_key[1:2]:  # the git index changed
            return True
        stat = os.stat
        for full, mtime in self._dirs:
            try:
                if stat(full).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return any(_stat(self.root / p) != k for p, k in self._control.items())

    def files(self) -> list[src.SourceFile]:
        """Every file of the workspace with its skip reason, as last listed (listing it
        now if it never was): no file is read or hashed."""
        if not self.listed:
            self._list()
        return self.listing

    def refresh(self) -> bool:
        """Bring `current` up to date; True when HEAD, the index or `current` changed."""
        git_key = self.git_key()
        moved = git_key != self._git_key
        relisted = self._listing_stale(git_key)
        if relisted:
            self._list()
        self._git_key = git_key
        changed = self._stat_files(relisted)
        if changed:
            self.generation += 1
        return changed or moved

    def _suspects(self) -> list[str]:
        """Candidates whose stat moved, or whose change is too recent to trust the stat."""
        now = time.time_ns()
        seen = self._seen
        stat = os.lstat  # a file swapped for a link changes its key (and is not read)
        out: list[str] = []
        for path, full in self._candidates:
            old = seen.get(path)
            try:
                st = stat(full)
            except OSError:
                out.append(path)
                continue
            if old is None or old.key != (st.st_mtime_ns, st.st_ctime_ns, st.st_size,
                                          st.st_ino) or now - st.st_mtime_ns < RACY_NS:
                out.append(path)
        return out

    def _stat_files(self, relisted: bool) -> bool:
        suspects = self._suspects()
        if not suspects and not relisted:
            return False
        current = dict(self.current) if not relisted else {
            p: self._seen[p].blob for p, _ in self._candidates if p in self._seen}
        unreadable = {p: r for p, r in self.unreadable.items() if p not in suspects} \
            if not relisted else {}
        known = self._git_index() if any(p not in self._seen for p in suspects) else {}
        for path in suspects:
            current.pop(path, None)
            full = os.path.join(self.root, path)
            try:
                st = os.lstat(full)
                entry = known.get(path) if path not in self._seen else None
                if entry is not None and stat_module.S_ISREG(st.st_mode) \
                        and gitindex.matches(entry, st):
                    self._seen[path] = Seen(stat_key(st), entry.blob)  # git hashed it
                    current[path] = entry.blob
                    continue
                data, st = confined.read(self.root, path, self.max_bytes)
                key = stat_key(st)
            except FileNotFoundError:
                self._seen.pop(path, None)
                continue
            except confined.Refused as exc:
                unreadable[path] = (f"oversized: {exc.size} bytes > max_file_bytes "
                                    f"{self.max_bytes}" if exc.size is not None
                                    else f"unreadable: {exc.strerror}")
                continue
            except OSError as exc:
                unreadable[path] = f"unreadable: {exc.strerror}"
                continue
            self.hashed += 1
            self._seen[path] = Seen(key, src.blob_hash(data, self.object_format))
            current[path] = self._seen[path].blob
        if relisted:
            for gone in set(self._seen) - set(current):
                del self._seen[gone]
        changed = current != self.current or unreadable != self.unreadable
        self.current, self.unreadable = current, unreadable
        return changed

    def blob_of(self, path: str) -> str | None:
        """The blob id of a workspace file as it is on disk now, computed by spyglass (no git
        process reads the work tree): a supported file's from the refresh, any other's from
        git's stat cache or by hashing it (kept by stat). None: missing, unreadable or not a
        regular file."""
        if path in self.current:
            return self.current[path]
        full = os.path.join(self.root, path)
        try:
            st = os.lstat(full)
            if not stat_module.S_ISREG(st.st_mode):
                return None
            key = stat_key(st)
            seen = self._others.get(path)
            if seen is not None and seen.key == key and time.time_ns() - st.st_mtime_ns >= \
                    RACY_NS:
                return seen.blob
            entry = self._git_index().get(path)
            if entry is not None and gitindex.matches(entry, st):
                blob = entry.blob
            else:
                blob = _hash_file(full, st.st_size, self.object_format)
                self.hashed += 1
        except OSError:
            return None
        self._others[path] = Seen(key, blob)
        return blob

    def _git_index(self) -> dict[str, gitindex.IndexEntry]:
        """The git index's stat cache (re-read when the index file changes)."""
        if self.git_dir is None or self.common_dir is None:
            return {}
        key = self._git_key[1:2]
        if self._index is None or self._index[0] != key:
            self._index = (key, gitindex.read_index(self.git_dir, self.common_dir))
        return self._index[1]

    # -- a saved refresh ------------------------------------------------------------------------
    def saved_state(self) -> tuple[Any, ...]:
        """What a refresh found unchanged is judged by — the git state files', folders',
        control files' and candidate files' stats — as plain tuples (for a cache file)."""
        seen = self._seen
        files = tuple((p, seen[p].key) for p, _ in self._candidates if p in seen)
        return (STATE_VERSION, str(self.root), self._git_key, tuple(self._dirs),
                tuple(self._control.items()), files, not self.unreadable)

    def unchanged_since(self, state: tuple[Any, ...]) -> bool:
        """Whether a refresh now would find nothing changed since `state` was saved (by this
        or an earlier process): the same checks as a refresh's cheap part — git state,
        folder mtimes, control files, every candidate's stat, none changed too recently to
        trust — without listing, hashing or reading git's index."""
        if len(state) != 7 or state[0] != STATE_VERSION or state[1] != str(self.root) \
                or not state[6]:
            return False
        _, _, git_key, dirs, control, files, _ = state
        if tuple(git_key) != self.git_key():
            return False
        stat = os.stat
        try:
            for full, mtime in dirs:
                if stat(full).st_mtime_ns != mtime:
                    return False
        except OSError:
            return False
        for path, key in control:
            if _stat(self.root / path) != key:  # an absolute path stays itself
                return False
        now = time.time_ns()
        lstat = os.lstat
        root = str(self.root)
        for path, key in files:
            try:
                st = lstat(os.path.join(root, path))
            except OSError:
                return False
            if (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino) != tuple(key) \
                    or now - st.st_mtime_ns < RACY_NS:
                return False
        return True

    # -- the listing --------------------------------------------------------------------------
    def _list(self) -> None:
        self.listed += 1
        folders: list[str] = []
        if self.is_git:
            files, folders = self._git_listing()
        else:
            files = src.disk_files(self.root, self.max_bytes, folders, self.rules)
        self.listing = files
        self.reasons = {f.path: f.skipped for f in files if f.skipped}
        self._candidates = [(f.path, os.path.join(self.root, f.path)) for f in files
                            if f.skipped is None and pack_for_path(f.path)]
        self._watch_dirs(files, folders)
        control = [f.path for f in files if f.path.rsplit("/", 1)[-1] == ".gitignore"]
        self._control = {p: _stat(self.root / p) for p in [*control, *self._extra]}
        if self.git_dir is not None and self.common_dir is not None:
            for extra in (self.common_dir / "info" / "exclude",):
                self._control[str(extra)] = _stat(extra)

    def _git_listing(self) -> tuple[list[src.SourceFile], list[str]]:
        """One `git ls-files` for tracked, deleted and untracked-not-ignored paths (wholly
        untracked folders collapsed, so an unignored `node_modules/` is not walked), then a
        second one expanding the new folders that are not skipped by name."""
        tracked: set[str] = set()
        deleted: set[str] = set()
        untracked: set[str] = set()
        folders: list[str] = []
        undecodable: set[str] = set()  # stand-ins for names that are not UTF-8
        self.ignores.check()
        for tag, path, exact in _tagged(gitcall.run(self.root, "ls-files", "-z", "-t", "--cached",
                                                "--deleted", "--others", "--exclude-standard",
                                                STORE_EXCLUDE, "--directory")):
            if not exact:
                undecodable.add(path)
                if tag != "R":
                    continue
            if tag == "?" and path.endswith("/"):
                folders.append(path)
            elif tag == "?":
                untracked.add(path)
            elif tag == "R":
                deleted.add(path)
            else:
                tracked.add(path)
        files: list[src.SourceFile] = []
        expand = []
        walked: list[str] = []
        for folder in folders:
            reason = src.folder_skipped(folder, self.rules, False)
            if reason:
                files.append(src.SourceFile(folder, "", 0, reason))
            else:
                expand.append(f":(literal){folder}")
                walked += _walk_folders(self.root, folder.rstrip("/"), self.rules)
        if expand:
            pruned = [] if self.rules.include else [*self.rules.skip_dirs,
                                                    *self.rules.untracked_skip_dirs]
            excludes = [f":(exclude,glob)**/{d}/**" for d in sorted(
                {*src.ALWAYS_SKIPPED, *pruned})]
            out = gitcall.run(self.root, "ls-files", "-z", "--others", "--exclude-standard",
                              STORE_EXCLUDE, "--", *expand, *excludes)
            for raw in out.split(b"\0"):
                if raw:
                    name, exact = filenames.from_bytes(raw)
                    (untracked if exact else undecodable).add(name)
        self.tracked, self.untracked = frozenset(tracked), frozenset(untracked)
        self.deleted = frozenset(deleted)
        for path in sorted((tracked - deleted) | untracked):
            reason = src.skip_reason(path, 0, self.max_bytes, self.rules, path in tracked)
            if reason is None and pack_for_path(path) is not None:
                reason = self._file_reason(path)
            files.append(src.SourceFile(path, "", 0, reason))
        files += [src.SourceFile(p, "", 0, filenames.UNDECODABLE) for p in sorted(undecodable)
                  if p not in deleted]
        return filenames.unique(files), walked

    def ignored(self) -> list[src.SourceFile]:
        """Untracked paths `.gitignore` excludes (folders collapsed). Costs a walk of the
        workspace, so it is computed on demand (status), not on every refresh."""
        if not self.is_git:
            return [f for f in self.listing if f.skipped == "ignored by .gitignore"]
        if self._ignored is None or self._ignored_at != self.listed:
            self.ignores.check()
            out = gitcall.run(self.root, "ls-files", "-z", "--others", "--ignored",
                              "--exclude-standard", STORE_EXCLUDE, "--directory")
            self._ignored = [src.SourceFile(filenames.from_bytes(p)[0], "", 0,
                                            "ignored by .gitignore")
                             for p in out.split(b"\0") if p and not p.startswith(b".spyglass/")]
            self._ignored_at = self.listed
        return self._ignored

    def _file_reason(self, path: str) -> str | None:
        try:
            st = os.lstat(os.path.join(self.root, path))
        except OSError:
            return None  # deleted on disk: not a candidate, noticed by the stat pass
        if stat_module.S_ISLNK(st.st_mode):
            return "symlink (never followed)"
        if st.st_size > self.max_bytes:
            return f"oversized: {st.st_size} bytes > max_file_bytes {self.max_bytes}"
        return None

    def _watch_dirs(self, files: list[src.SourceFile], folders: list[str]) -> None:
        """Watch every folder holding a listed file, and every other folder the listing
        walked (empty or new untracked ones): a folder's mtime moves when an entry is added,
        removed or renamed in it. Edits in place are caught by the files' own stats."""
        dirs = {""}
        for f in files:
            if f.skipped and (f.path.endswith("/") or f.skipped.startswith("skipped directory")):
                continue
            parts = f.path.split("/")[:-1]
            for i in range(len(parts)):
                dirs.add("/".join(parts[:i + 1]))
        dirs.update(folders)
        self._dirs = []
        for d in dirs:
            full = os.path.join(self.root, d)
            try:
                self._dirs.append((full, os.stat(full).st_mtime_ns))
            except OSError:
                continue


def _hash_file(full: str, size: int, object_format: str) -> str:
    """The blob id of a file read in chunks (any size, bounded memory)."""
    h = hashlib.new(object_format, b"blob %d\0" % size)
    with open(full, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _walk_folders(root: Path, top: str, rules: IndexRules) -> list[str]:
    """A new untracked folder and its subfolders (folders skipped by name pruned)."""
    out = [top]
    for folder, dirs, _ in os.walk(root / top):
        rel_dir = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = [] if rel_dir.count("/") >= src.MAX_DEPTH else [  # os.walk recurses
            d for d in dirs if src.folder_skipped(f"{rel_dir}/{d}/", rules, False) is None]
        out += [f"{rel_dir}/{d}" for d in dirs]
    return out


def _tagged(out: bytes) -> Iterable[tuple[str, str, bool]]:
    """(tag, name as text, whether the name is exact) of `ls-files -t -z` output."""
    for entry in out.split(b"\0"):
        if len(entry) > 2:
            yield (chr(entry[0]), *filenames.from_bytes(entry[2:]))


def _stat(path: Path) -> StatKey | None:
    try:
        return stat_key(os.stat(path))
    except OSError:
        return None
