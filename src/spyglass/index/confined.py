"""Confined reads of workspace files: every read walks from a descriptor of the root.

One algorithm for every workspace file spyglass reads (probe hashing, indexing from disk,
live parsing, source spans, diagnostics, AST queries, configuration files): the path is
walked one component at a time with ``openat`` (``os.open(..., dir_fd=...)``) and
``O_NOFOLLOW``, so no symbolic link is ever followed and a component swapped for a link
between a path check and the read makes the read fail instead of leaving the root. Only
regular files are opened (FIFOs, sockets and devices are refused before and after the
open, and the open is non-blocking), and at most ``max_bytes`` are read. See
docs/security.md ("Paths and file names").
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Literal

_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_DIR_FLAGS = _ROOT_FLAGS | os.O_NOFOLLOW
_FILE_FLAGS = (os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
               | getattr(os, "O_NOCTTY", 0))
CHUNK = 1 << 20

Kind = Literal["file", "dir", "symlink", "special"]


class Refused(OSError):
    """A workspace path that is not read: a link, a special file, not a plain relative
    path, or larger than allowed. ``strerror`` is the reason in words."""

    def __init__(self, code: int, reason: str, size: int | None = None) -> None:
        super().__init__(code, reason)
        self.size = size


def parts(rel: str) -> list[str]:
    """The components of a root-relative POSIX path ('' is the root itself); anything that
    is not plain (absolute, empty or '.'/'..' components, NUL) is refused."""
    if rel == "":
        return []
    out = rel.split("/")
    if any(p in ("", ".", "..") or "\0" in p for p in out):
        raise Refused(errno.EINVAL, "not a plain root-relative path")
    return out


def _open_dir(root: Path, names: list[str]) -> int:
    """A descriptor of the folder ``root/names...``, reached without following links."""
    fd = os.open(root, _ROOT_FLAGS)  # the root itself is trusted (the user named it)
    try:
        for name in names:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:  # a link gives ENOTDIR (O_DIRECTORY) or ELOOP
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, fd):
                    raise Refused(errno.ELOOP, "a folder on the path is a symbolic link "
                                               "(never followed)") from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def kind(root: Path, rel: str) -> Kind | None:
    """What ``rel`` is under the root, links not followed; None when it does not exist (or
    a folder on the way is missing, not a folder, or a link)."""
    names = parts(rel)
    if not names:
        return "dir"
    try:
        fd = _open_dir(root, names[:-1])
    except OSError:
        return None
    try:
        st = os.stat(names[-1], dir_fd=fd, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(fd)
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return "symlink" if stat.S_ISLNK(st.st_mode) else "special"


def _check_regular(mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise Refused(errno.ELOOP, "symbolic link (never followed)")
    if stat.S_ISDIR(mode):
        raise Refused(errno.EISDIR, "is a folder")
    if not stat.S_ISREG(mode):
        raise Refused(errno.EINVAL, "not a regular file (FIFO, socket or device)")


def read(root: Path, rel: str, max_bytes: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file ``root/rel`` and its stat, read through descriptors
    only (see the module docstring). Raises OSError (``Refused`` for what is refused on
    purpose; ``Refused.size`` is set when the file is larger than ``max_bytes``)."""
    names = parts(rel)
    if not names:
        raise Refused(errno.EISDIR, "is a folder")
    parent = _open_dir(root, names[:-1])
    try:
        _check_regular(os.stat(names[-1], dir_fd=parent, follow_symlinks=False).st_mode)
        try:
            fd = os.open(names[-1], _FILE_FLAGS, dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Refused(errno.ELOOP, "symbolic link (never followed)") from None
            raise
    finally:
        os.close(parent)
    try:
        st = os.fstat(fd)
        _check_regular(st.st_mode)  # swapped between the stat and the open
        if max_bytes is not None and st.st_size > max_bytes:
            raise Refused(errno.EFBIG, f"{st.st_size} bytes > {max_bytes}", st.st_size)
        chunks: list[bytes] = []
        total = 0
        cap = max_bytes if max_bytes is not None else -1
        while True:
            want = CHUNK if cap < 0 else min(CHUNK, cap + 1 - total)
            if want <= 0:
                raise Refused(errno.EFBIG, f"more than {max_bytes} bytes", total)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_bytes(root: Path, rel: str, max_bytes: int | None = None) -> bytes:
    """``read`` without the stat."""
    return read(root, rel, max_bytes)[0]


def read_or_none(root: Path, rel: str, max_bytes: int | None = None) -> bytes | None:
    """``read_bytes``, or None for anything that cannot or may not be read."""
    try:
        return read(root, rel, max_bytes)[0]
    except OSError:
        return None
