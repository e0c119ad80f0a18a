"""File sources: a commit's git objects, or a plain folder on disk, with the skip rules."""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from spyglass.config import IndexRules
from spyglass.errors import GitRefused, IndexUnavailable, UnknownRef
from spyglass.index import confined, filenames, gitcall

# Never source, whatever the rules say: version-control and spyglass's own folders.
ALWAYS_SKIPPED = frozenset({".git", ".spyglass", ".hg", ".svn"})
DEFAULT_RULES = IndexRules()

def blob_hash(data: bytes, object_format: str = "sha1") -> str:
    """The git blob id of `data` (in the repository's object format: sha1, or sha256), so
    disk files and git objects share one key space."""
    return hashlib.new(object_format, b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One path in a snapshot: its content id and size, or why it is skipped."""

    path: str
    blob: str
    size: int
    skipped: str | None = None


MAX_DEPTH = 200  # folder levels: deeper folders are skipped (the walks recurse per level)


def deep_reason(depth: int) -> str:
    return (f"skipped directory: nested {depth} folders deep (more than {MAX_DEPTH}; "
            "nothing below that depth is read)")


def skip_reason(path: str, size: int, max_bytes: int, rules: IndexRules = DEFAULT_RULES,
                tracked: bool = False) -> str | None:
    """Why a path is skipped by the generic rules (folder names, size). The reason names
    the rule, so the user can change it (docs/indexing.md "Skip rules")."""
    reason = dir_reason(path.split("/")[:-1], rules, tracked)
    if reason is not None and not included(path, rules):
        return reason
    if size > max_bytes:
        return f"oversized: {size} bytes > max_file_bytes {max_bytes}"
    return None


def dir_reason(parts: list[str], rules: IndexRules, tracked: bool) -> str | None:
    """Why a path under these folders is skipped by name or depth, or None."""
    if len(parts) > MAX_DEPTH:
        return deep_reason(len(parts))
    for part in parts:
        if part in ALWAYS_SKIPPED:
            return f"skipped directory {part}/"
        if part in rules.skip_dirs:
            return f"skipped directory {part}/ ([index] skip_dirs)"
        if not tracked and part in rules.untracked_skip_dirs:
            return f"skipped directory {part}/ ([index] untracked_skip_dirs; not tracked by git)"
    return None


def folder_skipped(folder: str, rules: IndexRules, tracked: bool) -> str | None:
    """Why a whole folder (`a/b/`) is skipped by name — None when an include glob could
    bring something under it back, so it must be walked."""
    reason = dir_reason(folder.rstrip("/").split("/"), rules, tracked)
    return None if reason is None or (rules.include and folder.split("/")[0] not in
                                      ALWAYS_SKIPPED) else reason


def included(path: str, rules: IndexRules) -> bool:
    """Whether an `[index] include` glob brings `path` back."""
    return bool(rules.include) and _include_spec(rules.include).match_file(path) and \
        not any(p in ALWAYS_SKIPPED for p in path.split("/")[:-1])


@functools.lru_cache(maxsize=8)
def _include_spec(globs: tuple[str, ...]) -> pathspec.PathSpec:  # type: ignore[type-arg]
    return pathspec.GitIgnoreSpec.from_lines(globs)


def is_git_repo(root: Path) -> bool:
    """Whether `root` lies in a git work tree spyglass may read. False for a plain folder
    (or a bare repository); GitRefused when git refuses it (dubious ownership) or when its
    work tree is configured elsewhere (`core.worktree`) — never a plain folder then."""
    res = gitcall.call(root, "rev-parse", "--absolute-git-dir", "--is-bare-repository",
                       "--is-inside-work-tree", "--show-toplevel")
    refused = gitcall.refusal(res.stderr.decode("utf-8", "replace"))
    if refused is not None:
        raise refused
    lines = res.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 3 or lines[1] == "true":
        return False  # not a repository, a damaged one (the builder says so), or bare
    git_dir = Path(lines[0]).resolve()
    if lines[2] != "true" and (root.resolve() == git_dir or git_dir in root.resolve().parents):
        return False  # inside the .git folder itself
    top = Path(lines[3]).resolve() if len(lines) > 3 else None
    if lines[2] != "true" or top is None or _dot_git(top) != git_dir:
        raise GitRefused(f"{git_dir} sets its work tree elsewhere (core.worktree = "
                         f"{lines[3] if len(lines) > 3 else '?'}): spyglass reads only the "
                         f"folder holding the repository; unset it with `git config --unset "
                         f"core.worktree`")
    return True


def _dot_git(top: Path) -> Path | None:
    """The git dir `top/.git` leads to (a folder, or a `gitdir:` file of a linked worktree
    or submodule)."""
    dot = top / ".git"
    if dot.is_dir():
        return dot.resolve()
    try:
        text = dot.read_text("utf-8", "replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[7:].strip())
    return (target if target.is_absolute() else top / target).resolve()


def git_toplevel(root: Path) -> Path:
    return Path(os.fsdecode(gitcall.run(root, "rev-parse", "--show-toplevel").strip()))


def git_dirs(root: Path) -> tuple[Path, Path]:
    """(this worktree's git dir, the repository's common git dir), absolute."""
    out = os.fsdecode(gitcall.run(root, "rev-parse", "--path-format=absolute", "--git-dir",
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
    branch = gitcall.run(root, "symbolic-ref", "--quiet", "--short", "HEAD",
                 check=False).decode().strip() or None
    sha = gitcall.run(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}",
              check=False).decode().strip() or None
    return Head(sha, branch)


def is_shallow(root: Path) -> bool:
    return gitcall.run(root, "rev-parse", "--is-shallow-repository",
               check=False).decode().strip() == "true"


def resolve_commit(root: Path, ref: str, origin: str = "--ref") -> str:
    """The commit id a ref names; a clear error for bad refs, repositories without commits
    and refs beyond the history of a shallow clone."""
    res = gitcall.call(root, "rev-parse", "--verify", "--quiet", "--end-of-options",
                       f"{ref}^{{commit}}")
    if res.returncode == 0:
        return res.stdout.decode().strip()
    # A name (not an object id) whose object is gone: the repository is damaged.
    named = gitcall.call(root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
    oid = named.stdout.decode().strip() if named.returncode == 0 else ""
    if oid and not oid.startswith(ref) and not is_shallow(root) \
            and gitcall.call(root, "cat-file", "-e", oid).returncode != 0:
        raise IndexUnavailable(f"ref {ref!r} names commit {oid[:12]}, but that git object is "
                               "missing or corrupt: the repository is damaged (`git fsck` "
                               "lists what is missing)")
    if ref == "HEAD" and head(root).sha is None:
        raise IndexUnavailable("the repository has no commits yet: commit something first, "
                               "or index a folder that is not a git repository")
    hint = (" (this is a shallow clone: the commit may lie beyond its history; "
            "`git fetch --unshallow` fetches it)" if is_shallow(root) else "")
    raise UnknownRef(f"ref {ref!r} ({origin}) does not name a commit in this "
                           f"repository{hint}")


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits, or None (unrelated or shallow history)."""
    if a == b:
        return a
    out = gitcall.run(root, "merge-base", a, b, check=False).decode().strip()
    return out or None


def has_commit(root: Path, sha: str) -> bool:
    return gitcall.call(root, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


TreeEntry = tuple[str, bytes, bytes, str, bytes, bool]  # path, mode, type, id, size, exact name


def tree_entries(root: Path, commit: str, sizes: bool = False) -> list[TreeEntry]:
    """Every entry of a commit's tree (`ls-tree -r`). Without `sizes` only trees are read:
    no blob is opened, so a partial clone's missing blob is never asked for."""
    out = gitcall.run(root, "ls-tree", "-r", "-z", "--full-tree", *(["-l"] if sizes else []),
                      commit)
    entries: list[TreeEntry] = []
    for entry in out.split(b"\0"):
        if entry:
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, oid, *size = meta.split(None, 3)
            path, exact = filenames.from_bytes(raw_path)  # not UTF-8: a skipped stand-in
            entries.append((path, mode, kind, oid.decode(), size[0].strip() if size else b"-",
                            exact))
    return entries


def tree_blobs(root: Path, commit: str) -> dict[str, str]:
    """Path -> blob id of a commit's regular files (symlinks and submodules left out)."""
    return {path: oid for path, mode, kind, oid, _, exact in tree_entries(root, commit)
            if kind == b"blob" and mode != b"120000" and exact}


def git_files(root: Path, commit: str, max_bytes: int, rules: IndexRules = DEFAULT_RULES
              ) -> list[SourceFile]:
    """Complete file membership of a commit (ls-tree), with skip reasons. In a partial
    clone, a blob that is not present locally is skipped with the reason (never fetched):
    the tree is listed without sizes, and only the present blobs are sized."""
    missing = gitcall.missing_objects(root, commit)
    entries = tree_entries(root, commit, sizes=not missing)
    sizes: dict[str, int] = {}
    present = [oid for _, _, kind, oid, _, _ in entries if kind == b"blob" and oid not in missing]
    if missing and present:
        check = gitcall.run(root, "cat-file", "--batch-check=%(objectname) %(objectsize)",
                            input="".join(f"{oid}\n" for oid in present).encode())
        for line in check.decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                sizes[parts[0]] = int(parts[1])
    files: list[SourceFile] = []
    for path, mode, kind, oid, size_text, exact in entries:
        if size_text == b"BAD":
            raise IndexUnavailable(f"git object {oid} ({path}) is missing or corrupt: "
                                   "the repository is damaged (try `git fsck`)")
        if not exact:
            files.append(SourceFile(path, oid, 0, filenames.UNDECODABLE))
            continue
        if oid in missing:
            files.append(SourceFile(path, oid, 0, f"partial clone: blob {oid[:12]} is not "
                                                  f"present locally; {gitcall.PARTIAL_HINT}"))
            continue
        size = int(size_text) if size_text.isdigit() else sizes.get(oid, 0)
        reason = ("git submodule" if kind == b"commit" else "symlink (never followed)"
                  if mode == b"120000" else skip_reason(path, size, max_bytes, rules, True))
        files.append(SourceFile(path, oid, size, reason))
    return filenames.unique(files)


def read_blobs(root: Path, shas: Iterable[str], strict: bool = False,
               max_bytes: int | None = None) -> Iterator[tuple[str, bytes]]:
    """Stream blob contents with one `git cat-file --batch` process (no filters apply). A
    missing object is passed over, or with `strict` reported as a corrupt repository (or,
    in a partial clone, as an object never fetched). A blob over `max_bytes` is passed
    over too, read through without being kept (callers size blobs first: `blob_sizes`)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return
    proc = gitcall.batch(root, "cat-file", "--batch")
    assert proc.stdin is not None and proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for sha in wanted:
                proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for sha in wanted:
            header = proc.stdout.readline()
            parts = header.split()
            if len(parts) < 3 or parts[1] != b"blob":
                if strict and gitcall.repo_config(root).promisor:
                    raise gitcall.partial_clone_error(f"object {sha}")
                if strict:
                    raise IndexUnavailable(f"git object {sha} is missing or corrupt: the "
                                           "repository is damaged (try `git fsck`)")
                continue
            data = gitcall.read_blob(proc.stdout, int(parts[2]), max_bytes)
            if data is not None:
                yield sha, data
    finally:
        gitcall.finish(proc)
        writer.join(gitcall.FINISH_SECONDS)


def blob_sizes(root: Path, shas: Iterable[str]) -> dict[str, int]:
    """The size of each blob git holds (`cat-file --batch-check`: no content is read). A
    blob it cannot size (a partial clone's missing one) is left out: the reader that
    follows drops a blob over its limit anyway, and reports the missing one."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    out = gitcall.call(root, "cat-file", "--batch-check=%(objectname) %(objectsize)",
                       input="".join(f"{sha}\n" for sha in wanted).encode()).stdout
    sizes: dict[str, int] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def disk_files(root: Path, max_bytes: int, folders: list[str] | None = None,
               rules: IndexRules = DEFAULT_RULES) -> list[SourceFile]:
    """Files of a folder that is not a git repository; `.gitignore` files apply only with
    `[index] gitignore_outside_git` (as ripgrep's --no-require-git); never follows
    symlinks (os.fwalk: each folder is entered by descriptor, so one swapped for a link
    while walking is not entered). Content hashes are computed lazily by the caller (blob
    is '' here). The folders walked are appended to `folders` when given."""
    files: list[SourceFile] = []
    specs: list[tuple[str, pathspec.PathSpec]] = []  # type: ignore[type-arg]
    for folder, dirs, names, dirfd in os.fwalk(root, follow_symlinks=False):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        if ".gitignore" in names and rules.gitignore_outside_git:
            data = confined.read_or_none(root, rel + ".gitignore", max_bytes)
            if data is not None:
                lines = data.decode("utf-8", "replace").splitlines()
                specs.append((rel, pathspec.GitIgnoreSpec.from_lines(lines)))

        def ignored(path: str, is_dir: bool) -> bool:
            for base, spec in specs:
                if path.startswith(base) and spec.match_file(
                        path[len(base):] + ("/" if is_dir else "")):
                    return True
            return False

        keep = []
        depth = rel.count("/") + 1  # of the folders listed below
        for d in sorted(dirs):
            full = rel + filenames.from_os(d)[0]
            if d in (".git", ".spyglass"):
                continue
            if depth > MAX_DEPTH:
                files.append(SourceFile(full + "/", "", 0, deep_reason(depth)))
                continue
            if not filenames.from_os(d)[1]:
                files.append(SourceFile(full + "/", "", 0, filenames.UNDECODABLE))
            elif _is_link(d, dirfd):
                files.append(SourceFile(full, "", 0, "symlink (never followed)"))
            elif (why := folder_skipped(full + "/", rules, False)) is not None:
                files.append(SourceFile(full + "/", "", 0, why))
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
            files.append(SourceFile(path, "", size,
                                    reason or skip_reason(path, size, max_bytes, rules)))
    return filenames.unique(files)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return True  # gone or unreadable: not walked either way
