"""The one writer: every file spyglass writes is reached from a descriptor of the root.

The confined reader's discipline (index/confined.py) applied to writes. Folders are walked
one component at a time with ``openat`` and ``O_NOFOLLOW | O_DIRECTORY`` (a missing one is
made with ``mkdirat``); a file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under a
random temporary name in its folder's descriptor, then renamed over its target within that
descriptor (``renameat`` replaces a link, never follows it); a file kept open (the index
lock) is opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``. A symbolic
link, FIFO, socket, device or hard-linked file in a place spyglass writes is never written
through: it is refused, or removed and replaced with a message (``unlinkat`` removes the
link itself). See docs/security.md ("The one writer").
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from spyglass.errors import IndexUnavailable

_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_DIR_FLAGS = _ROOT_FLAGS | os.O_NOFOLLOW
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_KEEP_FLAGS = (os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
               | getattr(os, "O_NOCTTY", 0))
TMP_SUFFIX = ".spyglass-tmp"

Notify = Callable[[str], None]


class WriteRefused(IndexUnavailable):
    """A place spyglass would write is not a plain folder or file of the repository (a
    link, a FIFO, a file where a folder belongs, another user's folder)."""


def what(mode: int, nlink: int = 1) -> str | None:
    """What a directory entry is, in words, when it is not a plain file (else None)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return f"a file with {nlink} hard links" if nlink > 1 else None


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    """The entry ``name`` in the folder ``dir_fd``, links not followed; None when absent."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_root(root: Path) -> int:
    """A descriptor of the root itself (trusted: the user named it)."""
    return os.open(root, _ROOT_FLAGS)


def open_folder(root: Path, names: list[str], *, create: bool, label: str = "") -> int:
    """A descriptor of the folder ``root/names...`` reached without following a link,
    making missing folders when ``create``; a component that is a link or not a folder is
    refused (``WriteRefused``, naming it)."""
    fd = open_root(root)
    try:
        walked: list[str] = []
        for name in names:
            walked.append(name)
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                nxt = _open_dir_or_refuse(fd, name, "/".join(walked), label)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                nxt = _open_dir_or_refuse(fd, name, "/".join(walked), label)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_dir_or_refuse(fd: int, name: str, rel: str, label: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        st = lstat_at(fd, name)
        kind = what(st.st_mode) if st is not None else "missing"
        raise WriteRefused(f"{rel} is {kind}, not a folder: spyglass writes {label or 'there'} "
                           "only into a real folder of the repository and never follows a "
                           f"link (remove or rename {rel})") from None


def remove_at(dir_fd: int, name: str) -> None:
    """Remove the entry ``name`` of ``dir_fd`` whatever it is (a link itself, not its
    target; a folder with everything in it, links never followed)."""
    st = lstat_at(dir_fd, name)
    if st is None:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass


def plain_or_absent(dir_fd: int, name: str, *, replace: bool, where: str,
                    notify: Notify | None = None) -> None:
    """Make sure ``name`` in ``dir_fd`` is a plain file (one link) or absent: anything else
    is removed, with a message, when ``replace``; else refused."""
    st = lstat_at(dir_fd, name)
    if st is None:
        return
    kind = what(st.st_mode, st.st_nlink)
    if kind is None:
        return
    if not replace:
        raise WriteRefused(f"{where}/{name} is {kind}: spyglass never writes through it; run "
                           "`spyglass index` to replace it")
    remove_at(dir_fd, name)
    if notify is not None:
        notify(f"{where}/{name} was {kind} (not made by spyglass): removed and replaced")


def write_at(dir_fd: int, name: str, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` as the file ``name`` of ``dir_fd`` atomically: a new temporary file
    (``O_EXCL | O_NOFOLLOW``, a random name) renamed over it. A link at ``name`` is
    replaced, never followed; a folder there is refused."""
    tmp = f".{name[:64]}.{secrets.token_hex(8)}{TMP_SUFFIX}"
    fd = os.open(tmp, _NEW_FLAGS, mode, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        st = lstat_at(dir_fd, name)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise WriteRefused(f"{name} is a folder: spyglass does not replace it")
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


@contextmanager
def replacing(target: Path) -> Iterator[BinaryIO]:
    """Stream a new version of the file ``target`` (a path the user named, e.g. an export's
    output): written to a new temporary file of a random name in its folder's descriptor
    (``O_EXCL | O_NOFOLLOW``), renamed over ``target`` within that descriptor when the
    block ends without an error, removed otherwise. A link at ``target`` is replaced, never
    followed; nothing the folder holds is written through."""
    folder = os.open(target.parent, _ROOT_FLAGS)
    tmp = f".{target.name[:64]}.{secrets.token_hex(8)}{TMP_SUFFIX}"
    try:
        fd = os.open(tmp, _NEW_FLAGS, 0o644, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                yield fh
            st = lstat_at(folder, target.name)
            if st is not None and stat.S_ISDIR(st.st_mode):
                raise WriteRefused(f"{target} is a folder: spyglass does not replace it")
            os.replace(tmp, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)


def write_file(root: Path, rel: str, data: bytes) -> None:
    """Write the root-relative file ``rel`` atomically through descriptors only (folders
    made as needed, none of them a link)."""
    names = rel.split("/")
    if any(p in ("", ".", "..") or "\0" in p for p in names):
        raise WriteRefused(f"{rel!r} is not a plain root-relative path")
    fd = open_folder(root, names[:-1], create=True, label=rel)
    try:
        write_at(fd, names[-1], data)
    finally:
        os.close(fd)


def create_at(dir_fd: int, name: str, data: bytes = b"", mode: int = 0o644) -> bool:
    """Create ``name`` in ``dir_fd`` with ``data`` unless something is there already
    (``O_EXCL | O_NOFOLLOW``); True when it was created."""
    try:
        fd = os.open(name, _NEW_FLAGS, mode, dir_fd=dir_fd)
    except FileExistsError:
        return False
    try:
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)
    return True


def open_kept(dir_fd: int, name: str, *, where: str, notify: Notify | None = None) -> int:
    """A read-write descriptor of the plain file ``name`` in ``dir_fd`` (made when absent),
    for a file kept open (the index lock): a link, FIFO, device or hard-linked file there is
    removed and replaced with a message, never opened."""
    for _ in range(8):
        plain_or_absent(dir_fd, name, replace=True, where=where, notify=notify)
        create_at(dir_fd, name)
        try:
            fd = os.open(name, _KEEP_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            continue  # removed meanwhile (another process replacing it too): again
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            continue  # swapped for a link between the check and the open: replace it
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            return fd
        os.close(fd)
    raise WriteRefused(f"{where}/{name} keeps being replaced by something other than a plain "
                       "file; spyglass does not use it")


def read_at(dir_fd: int, name: str, max_bytes: int) -> bytes | None:
    """The bytes of the plain file ``name`` in ``dir_fd`` if it is one and holds at most
    ``max_bytes``; else None (a link, FIFO, device, folder or larger file is not read)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        data = os.read(fd, max_bytes + 1)
        return data if len(data) <= max_bytes else None
    except OSError:
        return None
    finally:
        os.close(fd)


def store_folder(folder: Path, *, create: bool) -> int:
    """A descriptor of spyglass's own folder ``folder`` (``.spyglass`` of a root): made when
    absent and ``create``; a link or anything but a folder there is refused, and so is a
    folder of another user. FileNotFoundError when absent and not ``create``."""
    parent = open_root(folder.parent)
    try:
        st = lstat_at(parent, folder.name)
        if st is None and create:
            try:
                os.mkdir(folder.name, 0o755, dir_fd=parent)
            except FileExistsError:
                pass
            st = lstat_at(parent, folder.name)
        if st is None:
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(folder))
        if stat.S_ISLNK(st.st_mode):
            raise WriteRefused(f"{folder} is a symbolic link: spyglass keeps its store only "
                               "in a real folder of the repository (remove the link)")
        if not stat.S_ISDIR(st.st_mode):
            raise WriteRefused(f"{folder} is {what(st.st_mode, st.st_nlink) or 'a file'}, not "
                               "a folder: spyglass keeps its index in a folder of that name "
                               "(remove or rename it)")
        fd = _open_dir_or_refuse(parent, folder.name, str(folder), "its index")
    finally:
        os.close(parent)
    mine = os.fstat(fd)
    if mine.st_uid != os.geteuid():
        os.close(fd)
        raise WriteRefused(f"{folder} belongs to another user (uid {mine.st_uid}): spyglass "
                           "uses only a store folder made by its own user")
    return fd
