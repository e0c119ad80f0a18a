"""What git would open in a repository, checked before git runs: regular files only, and a
`.git` file or link that belongs to this work tree (docs/security.md, "Bounded git")."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from spyglass.errors import GitRefused

SMALL = 4096  # HEAD, a `.git` file, gitdir/commondir back-links: a line each
CONFIG_BYTES = 1 << 20  # a git dir's config, read for `core.worktree`
MAX_ENTRIES = 20_000  # entries of refs/ looked at per call (the timeout covers the rest)
MAX_DIRS = 200_000  # work-tree folders a `.gitignore` scan looks into
UNREAD = -1  # the mtime of a folder the next scan must read (never a real one)


def read_small(path: Path | str, limit: int = SMALL) -> bytes | None:
    """A regular file's first `limit` bytes, never blocking (a FIFO opens at once with
    O_NONBLOCK and is refused, so is a device); None when missing or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        want = min(limit, st.st_size)
        parts: list[bytes] = []
        while want > 0 and (part := os.read(fd, min(want, 1 << 24))):
            parts.append(part)
            want -= len(part)
        return b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)


def kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "symbolic link")):
        if test(mode):
            return name
    return "regular file" if stat.S_ISREG(mode) else "special file"


def blocking(path: str) -> str | None:
    """Why git opening `path` could block or read without end (a FIFO, device or socket,
    itself or behind a link), or None (a regular file, a folder, or nothing there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return None
    return kind(st.st_mode)


@dataclass(frozen=True, slots=True)
class GitDirs:
    """Where git finds the repository from a folder: its work tree, git dir, common dir."""

    top: Path
    git_dir: Path
    common_dir: Path


def _line_path(data: bytes, prefix: bytes, base: Path) -> Path | None:
    text = data.split(b"\n", 1)[0].strip()
    if not text.startswith(prefix):
        return None
    target = Path(os.fsdecode(text[len(prefix):].strip()))
    return target if target.is_absolute() else base / target


OWN_DESCRIPTORS = ("/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/",
                   "/proc/thread-self/fd/")  # each process's own: not ours to check
MAX_INCLUDES = 64  # config files an include chain may name before the rest are left to git


def includes(config: Path, seen: set[str] | None = None) -> list[Path]:
    """Files a config file includes (`[include]` / `[includeIf …]` `path = …`), followed
    through nested includes: relative to the including file, `~` expanded."""
    seen = set() if seen is None else seen
    data = read_small(config, CONFIG_BYTES)
    if data is None:
        return []
    found: list[Path] = []
    for section, line in _config_lines(data):
        m = re.match(r"path\s*=\s*(.*)$", line, re.IGNORECASE)
        if not m or section not in ("include", "includeif"):
            continue
        value = os.path.expanduser(m.group(1).split(" #")[0].split(" ;")[0].strip()
                                   .strip('"'))
        target = Path(value) if os.path.isabs(value) else config.parent / value
        if str(target) in seen or len(seen) >= MAX_INCLUDES:
            continue
        seen.add(str(target))
        found.append(target)
        if blocking(str(target)) is None:
            found += includes(target, seen)
    return found


def _config_lines(data: bytes) -> Iterator[tuple[str, str]]:
    """A git config file's lines with the section each stands in (lower-cased), the
    `[section]` header cut off a line that also holds a value."""
    section = ""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        head = re.match(r"\[\s*([A-Za-z0-9.-]+)", line)
        if head:
            section = head.group(1).lower()
            line = line[line.find("]") + 1:].strip()
        yield section, line


def _core(git_dir: Path, key: str) -> str | None:
    """A `core.<key>` value of a git dir's own config (read bounded), or None."""
    data = read_small(git_dir / "config", CONFIG_BYTES)
    if data is None:
        return None
    for section, line in _config_lines(data):
        m = re.match(rf"{key}\s*=\s*(.*)$", line, re.IGNORECASE)
        if section == "core" and m:
            return m.group(1).strip().strip('"')
    return None


def _core_worktree(git_dir: Path) -> Path | None:
    """`core.worktree` of a git dir's own config (a submodule's points back at it)."""
    value = _core(git_dir, "worktree")
    if value is None:
        return None
    return Path(value) if os.path.isabs(value) else git_dir / value


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def belongs(top: Path, git_dir: Path) -> bool:
    """Whether a git dir reached through `top/.git` (a file or link) is this work tree's.
    A linked worktree's `gitdir` back-link must name `top/.git`; a `core.worktree` (a
    submodule's) must name `top`; with neither (`--separate-git-dir`), it must stand
    alone: not a `.git` folder of another work tree nor inside one, not bare. git itself
    accepts any target."""
    back = read_small(git_dir / "gitdir")
    if back is not None:
        link = _line_path(b"gitdir:" + back, b"gitdir:", git_dir)
        return link is not None and _same(link, top / ".git")
    worktree = _core_worktree(git_dir)
    if worktree is not None:
        return _same(worktree, top)
    real = Path(os.path.realpath(git_dir))
    if real.name == ".git" or any(p.name == ".git" for p in real.parents):
        return False  # another work tree's own git dir, or one of its modules/worktrees
    return (_core(git_dir, "bare") or "false").lower() not in ("true", "yes", "on", "1")


def _through(top: Path, dot: Path) -> Path:
    """The git dir a `.git` file or link leads to, when it belongs to `top`."""
    try:
        st = os.stat(dot)
    except OSError as exc:
        raise GitRefused(f"{dot} is a link to nothing ({exc.strerror}): not a git "
                         "directory") from None
    if stat.S_ISREG(st.st_mode):
        data = read_small(dot)
        target = _line_path(data or b"", b"gitdir:", top)
        if target is None:
            raise GitRefused(f"{dot} is a file without a `gitdir:` line: not a git "
                             "repository spyglass can read")
    elif stat.S_ISDIR(st.st_mode):
        target = Path(os.path.realpath(dot))
    else:
        raise GitRefused(f"{dot} leads to a {kind(st.st_mode)}: not a git directory")
    if not belongs(top, target):
        raise GitRefused(f"{dot} points at {target}, a git directory that does not belong to "
                         "this work tree (another work tree's, or bare; no `gitdir` back-link "
                         f"or `core.worktree` naming {top}): spyglass does not read another "
                         "repository through it")
    return target


def _bare(folder: Path) -> bool:
    return os.path.lexists(folder / "HEAD") and (folder / "objects").is_dir() \
        and (folder / "refs").is_dir()


def discover(root: Path) -> GitDirs | None:
    """The git dir git's discovery finds from `root` (`.git` in it or a parent, or a bare
    repository), checked as `belongs` says; None outside any repository."""
    start = Path(os.path.abspath(root))
    for folder in (start, *start.parents):
        dot = folder / ".git"
        try:
            mode = os.lstat(dot).st_mode
        except OSError:
            if _bare(folder):
                return GitDirs(folder, folder, _common(folder))
            continue
        if stat.S_ISDIR(mode):
            git_dir = dot
        elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            git_dir = _through(folder, dot)
        else:
            raise GitRefused(f"{dot} is a {kind(mode)}: not a git directory")
        return GitDirs(folder, git_dir, _common(git_dir))
    return None


def _common(git_dir: Path) -> Path:
    data = read_small(git_dir / "commondir")
    found = _line_path(b"c:" + data, b"c:", git_dir) if data else None
    return found or git_dir


def _entries(folder: Path, recurse: bool, budget: list[int]) -> str | None:
    """The first entry under `folder` git could block on (see `blocking`)."""
    todo = [folder]
    while todo and budget[0] > 0:
        try:
            it = os.scandir(todo.pop())
        except OSError:
            continue
        with it:
            for entry in it:
                budget[0] -= 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if recurse:
                            todo.append(Path(entry.path))
                        continue
                    if entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                why = blocking(entry.path)
                if why is not None:
                    return f"{entry.path} is a {why}"
    return None


def check_git_dir(dirs: GitDirs) -> None:
    """GitRefused when a file git reads in the git dir is not a regular file: HEAD, index,
    packed-refs, shallow, config, commondir, info/exclude, objects/info/alternates, loose
    refs… (git opens them without O_NONBLOCK: a FIFO hangs it, a device never ends)."""
    budget = [MAX_ENTRIES]
    places = [(dirs.git_dir, False), (dirs.git_dir / "info", False),
              (dirs.git_dir / "refs", True)]
    if dirs.common_dir != dirs.git_dir:
        places += [(dirs.common_dir, False), (dirs.common_dir / "refs", True)]
    places += [(dirs.common_dir / "info", False), (dirs.common_dir / "objects" / "info", False)]
    for folder, recurse in places:
        found = _entries(folder, recurse, budget)
        if found is not None:
            raise GitRefused(f"{found}, not a regular file: git would block reading it; "
                             "spyglass does not run git on this repository until it is "
                             "removed")
    for config in {dirs.common_dir / "config", dirs.git_dir / "config.worktree"}:
        for target in includes(config):
            if str(target).startswith(OWN_DESCRIPTORS):
                continue  # git's own: stdin is /dev/null, stdout and stderr our pipes
            why = blocking(str(target))
            if why is not None:
                raise GitRefused(f"{config} includes {target}, a {why}: git would block "
                                 "reading it; spyglass does not run git on this repository "
                                 "until the include is removed")


def check(root: Path) -> GitDirs | None:
    """`discover` then `check_git_dir`: what every git call is preceded by."""
    dirs = discover(root)
    if dirs is not None:
        check_git_dir(dirs)
    return dirs


class IgnoreScan:
    """The work tree's `.gitignore` files, each checked to be a regular file (or a link,
    which git opens with O_NOFOLLOW and skips) before git reads them (`ls-files
    --exclude-standard` opens every one in the folders it walks, blocking on a FIFO).
    The first scan walks every folder but `.git`; later ones rescan only the folders whose
    mtime moved (a `.gitignore` made or replaced moves its folder's) and new folders."""

    def __init__(self, top: Path, work_tree: Path | None = None) -> None:
        self.top = top
        self.work_tree = work_tree or top  # git also reads the folders' above `top`
        self._dirs: dict[str, int] = {}
        self.scans = 0  # folders read (for tests)

    def check(self) -> None:
        """GitRefused naming the first `.gitignore` that is not a regular file."""
        for above in self.top.parents if self.work_tree != self.top else ():
            if self.work_tree != above and self.work_tree not in above.parents:
                break
            try:
                mode = os.lstat(above / ".gitignore").st_mode
            except OSError:
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
                raise GitRefused(f"{above / '.gitignore'} is a {kind(mode)}, not a regular "
                                 "file: git would block reading it as an ignore file")
        if not self._dirs:
            todo = [str(self.top)]
        else:
            todo = []
            for folder, mtime in list(self._dirs.items()):
                try:
                    moved = os.stat(folder).st_mtime_ns != mtime
                except OSError:
                    del self._dirs[folder]
                    continue
                if moved:
                    todo.append(folder)
        try:
            while todo:
                folder = todo.pop()
                if len(self._dirs) >= MAX_DIRS and folder not in self._dirs:
                    continue  # a tree this large: git's timeout is the bound beyond it
                self._scan(folder, todo)
        except GitRefused:
            for folder in todo:  # found but not yet read: read on the next check
                self._dirs[folder] = UNREAD
            raise

    def _scan(self, folder: str, todo: list[str]) -> None:
        self.scans += 1
        try:
            self._dirs[folder] = os.stat(folder).st_mtime_ns
            it = os.scandir(folder)
        except OSError:
            self._dirs.pop(folder, None)
            return
        with it:
            for entry in it:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != ".git" and entry.path not in self._dirs:
                            todo.append(entry.path)
                        continue
                    if entry.name != ".gitignore" or entry.is_file(follow_symlinks=False) \
                            or entry.is_symlink():
                        continue
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                rel = os.path.relpath(entry.path, self.top)
                self._dirs[folder] = UNREAD  # refused again next time while it is there
                raise GitRefused(f"{rel} is a {kind(mode)}, not a regular file: git would "
                                 "block reading it as an ignore file; spyglass does not list "
                                 "this work tree through git until it is removed")
