"""File sources: a commit's git objects, or a plain folder on disk, with the skip rules."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from spyglass.errors import IndexUnavailable
from spyglass.index import confined, filenames

SKIP_DIRS = frozenset({"node_modules", "target", "dist", "build", ".venv", "venv", ".next",
                       ".turbo", "vendor", "generated", "__pycache__", ".git", ".spyglass",
                       ".hg", ".svn", ".tox", ".mypy_cache", ".pytest_cache"})

# Git must never run anything configured by the repository it reads.
GIT_SAFETY = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
              "-c", "diff.external=", "-c", "core.pager=cat", "-c", "protocol.allow=never"]


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1",
               LC_ALL="C")
    return env


def git(root: Path, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    """Run a read-only git command in `root` and return stdout."""
    proc = subprocess.run(["git", *GIT_SAFETY, *args], cwd=root, env=git_env(), input=input,
                          capture_output=True, check=False)
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        text = msg[-1] if msg else f"exit status {proc.returncode}"
        hint = ""
        if any(w in text for w in ("bad object", "not a tree", "corrupt", "missing", "bad tree",
                                   "unable to read", "not a git repository")):
            hint = " (the repository looks damaged: try `git fsck`)"
        raise IndexUnavailable(f"git {args[0]} failed: {text}{hint}")
    return proc.stdout


def blob_hash(data: bytes) -> str:
    """The git blob id of `data`, so disk files and git objects share one key space."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One path in a snapshot: its content id and size, or why it is skipped."""

    path: str
    blob: str
    size: int
    skipped: str | None = None


def skip_reason(path: str, size: int, max_bytes: int) -> str | None:
    """Why a path is skipped by the generic rules (directory skip list, size)."""
    parts = path.split("/")
    for part in parts[:-1]:
        if part in SKIP_DIRS:
            return f"skipped directory {part}/"
    if size > max_bytes:
        return f"oversized: {size} bytes > max_file_bytes {max_bytes}"
    return None


def is_git_repo(root: Path) -> bool:
    proc = subprocess.run(["git", *GIT_SAFETY, "rev-parse", "--is-inside-work-tree"], cwd=root,
                          env=git_env(), capture_output=True, check=False)
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


def git_toplevel(root: Path) -> Path:
    return Path(os.fsdecode(git(root, "rev-parse", "--show-toplevel").strip()))


def git_dirs(root: Path) -> tuple[Path, Path]:
    """(this worktree's git dir, the repository's common git dir), absolute."""
    out = os.fsdecode(git(root, "rev-parse", "--path-format=absolute", "--git-dir",
                          "--git-common-dir")).splitlines()  # OS paths: surrogateescape
    return Path(out[0]), Path(out[1])


def main_worktree(root: Path) -> Path | None:
    """The main worktree of the repository `root` belongs to (where a shared store lives),
    or None for a bare repository."""
    _, common = git_dirs(root)
    if common.name != ".git":
        return None
    return common.parent.resolve()


@dataclass(frozen=True, slots=True)
class Head:
    """What HEAD is: a commit (None before the first commit) on a branch, or detached."""

    sha: str | None
    branch: str | None

    @property
    def detached(self) -> bool:
        return self.sha is not None and self.branch is None

    def describe(self) -> str:
        if self.sha is None:
            return f"unborn branch {self.branch}" if self.branch else "no commits"
        return f"branch {self.branch}" if self.branch else f"detached at {self.sha[:12]}"


def head(root: Path) -> Head:
    branch = git(root, "symbolic-ref", "--quiet", "--short", "HEAD",
                 check=False).decode().strip() or None
    sha = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}",
              check=False).decode().strip() or None
    return Head(sha, branch)


def is_shallow(root: Path) -> bool:
    return git(root, "rev-parse", "--is-shallow-repository",
               check=False).decode().strip() == "true"


def resolve_commit(root: Path, ref: str, origin: str = "--ref") -> str:
    """The commit id a ref names; a clear error for bad refs, repositories without commits
    and refs beyond the history of a shallow clone."""
    proc = subprocess.run(["git", *GIT_SAFETY, "rev-parse", "--verify", "--quiet",
                           f"{ref}^{{commit}}"], cwd=root, env=git_env(),
                          capture_output=True, check=False)
    if proc.returncode == 0:
        return proc.stdout.decode().strip()
    if ref == "HEAD" and head(root).sha is None:
        raise IndexUnavailable("the repository has no commits yet: commit something first, "
                               "or index a folder that is not a git repository")
    hint = (" (this is a shallow clone: the commit may lie beyond its history; "
            "`git fetch --unshallow` fetches it)" if is_shallow(root) else "")
    raise IndexUnavailable(f"ref {ref!r} ({origin}) does not name a commit in this "
                           f"repository{hint}")


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits, or None (unrelated or shallow history)."""
    if a == b:
        return a
    out = git(root, "merge-base", a, b, check=False).decode().strip()
    return out or None


def has_commit(root: Path, sha: str) -> bool:
    proc = subprocess.run(["git", *GIT_SAFETY, "cat-file", "-e", f"{sha}^{{commit}}"],
                          cwd=root, env=git_env(), capture_output=True, check=False)
    return proc.returncode == 0


def git_files(root: Path, commit: str, max_bytes: int) -> list[SourceFile]:
    """Complete file membership of a commit (ls-tree), with skip reasons."""
    out = git(root, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    files: list[SourceFile] = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha, size_text = meta.split(None, 3)
        path, exact = filenames.from_bytes(raw_path)
        if size_text.strip() == b"BAD":
            raise IndexUnavailable(f"git object {sha.decode()} ({path}) is missing or corrupt: "
                                   "the repository is damaged (try `git fsck`)")
        size = int(size_text) if size_text.strip() != b"-" else 0
        reason: str | None
        if not exact:
            reason = filenames.UNDECODABLE
        elif kind == b"commit":
            reason = "git submodule"
        elif mode == b"120000":
            reason = "symlink (never followed)"
        else:
            reason = skip_reason(path, size, max_bytes)
        files.append(SourceFile(path, sha.decode(), size, reason))
    return filenames.unique(files)


def read_blobs(root: Path, shas: Iterable[str], strict: bool = False
               ) -> Iterator[tuple[str, bytes]]:
    """Stream blob contents with one `git cat-file --batch` process. A missing object is
    passed over, or with `strict` reported as a corrupt repository."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return
    proc = subprocess.Popen(["git", *GIT_SAFETY, "cat-file", "--batch"], cwd=root,
                            env=git_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    import threading

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for sha in wanted:
                proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for sha in wanted:
            header = proc.stdout.readline()
            parts = header.split()
            if len(parts) < 3 or parts[1] != b"blob":
                if strict:
                    raise IndexUnavailable(f"git object {sha} is missing or corrupt: the "
                                           "repository is damaged (try `git fsck`)")
                continue
            size = int(parts[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)
            yield sha, data
    finally:
        proc.stdout.close()
        proc.wait()
        writer.join()


def disk_files(root: Path, max_bytes: int, folders: list[str] | None = None
               ) -> list[SourceFile]:
    """Files of a folder that is not a git repository; honours .gitignore, never follows
    symlinks (os.fwalk: each folder is entered by descriptor, so one swapped for a link
    while walking is not entered). Content hashes are computed lazily by the caller (blob
    is '' here). The folders walked are appended to `folders` when given."""
    files: list[SourceFile] = []
    specs: list[tuple[str, pathspec.PathSpec]] = []  # type: ignore[type-arg]
    for folder, dirs, names, dirfd in os.fwalk(root, follow_symlinks=False):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        if ".gitignore" in names:
            data = confined.read_or_none(root, rel + ".gitignore", max_bytes)
            if data is not None:
                lines = data.decode("utf-8", "replace").splitlines()
                specs.append((rel, pathspec.PathSpec.from_lines("gitwildmatch", lines)))

        def ignored(path: str, is_dir: bool) -> bool:
            for base, spec in specs:
                if path.startswith(base) and spec.match_file(
                        path[len(base):] + ("/" if is_dir else "")):
                    return True
            return False

        keep = []
        for d in sorted(dirs):
            full = rel + filenames.from_os(d)[0]
            if d in (".git", ".spyglass"):
                continue
            if not filenames.from_os(d)[1]:
                files.append(SourceFile(full + "/", "", 0, filenames.UNDECODABLE))
            elif _is_link(d, dirfd):
                files.append(SourceFile(full, "", 0, "symlink (never followed)"))
            elif d in SKIP_DIRS:
                files.append(SourceFile(full + "/", "", 0, f"skipped directory {d}/"))
            elif ignored(full, True):
                files.append(SourceFile(full + "/", "", 0, "ignored by .gitignore"))
            else:
                keep.append(d)
        dirs[:] = keep
        if folders is not None:
            folders.append(rel.rstrip("/"))
        for name in sorted(names):
            path, exact = filenames.from_os(name)
            path = rel + path
            if not exact:
                files.append(SourceFile(path, "", 0, filenames.UNDECODABLE))
                continue
            try:
                st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            except OSError as exc:
                files.append(SourceFile(path, "", 0, f"unreadable: {exc.strerror}"))
                continue
            if stat.S_ISLNK(st.st_mode):
                files.append(SourceFile(path, "", 0, "symlink (never followed)"))
                continue
            if not stat.S_ISREG(st.st_mode):
                files.append(SourceFile(path, "", 0, "not a regular file"))
                continue
            size = st.st_size
            reason = "ignored by .gitignore" if ignored(path, False) else None
            files.append(SourceFile(path, "", size, reason or skip_reason(path, size, max_bytes)))
    return filenames.unique(files)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return True  # gone or unreadable: not walked either way
