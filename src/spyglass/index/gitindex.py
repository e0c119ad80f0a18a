"""Read git's index file (versions 2-4) for its stat cache: blob ids without hashing files."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from spyglass.index import gitguard

_ENTRY = struct.Struct(">10I20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size
ASSUME_VALID, EXTENDED, STAGE = 0x8000, 0x4000, 0x3000
SKIP_WORKTREE, INTENT_TO_ADD = 0x4000, 0x2000


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """What git recorded about a file when it last hashed it."""

    mtime: tuple[int, int]
    ino: int
    size: int
    blob: str


MAX_INDEX_BYTES = 1 << 30  # larger: no stat cache (files are hashed instead)


def read_index(git_dir: Path, common_dir: Path) -> dict[str, IndexEntry]:
    """Path → entry for the stage-0 entries git keeps a trustworthy stat for. Entries that
    are racily clean (modified in the same second the index was written), assumed valid,
    skip-worktree or intent-to-add are left out: their stat says nothing about content.
    Returns {} for anything unexpected (a SHA-256 repository, a damaged or locked file)."""
    path = git_dir / "index"
    config = gitguard.read_small(common_dir / "config", gitguard.CONFIG_BYTES)
    if config is None or b"sha256" in config.lower():
        return {}
    try:
        written = os.stat(path).st_mtime_ns
    except OSError:
        return {}
    data = gitguard.read_small(path, MAX_INDEX_BYTES)  # a regular file, never a FIFO
    if data is None or len(data) >= MAX_INDEX_BYTES:
        return {}
    if len(data) < 12 or data[:4] != b"DIRC":
        return {}
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return {}
    try:
        return _entries(data, version, count, written)
    except (struct.error, IndexError, UnicodeDecodeError, ValueError):
        return {}


def _entries(data: bytes, version: int, count: int, written: int) -> dict[str, IndexEntry]:
    out: dict[str, IndexEntry] = {}
    pos, previous = 12, b""
    for _ in range(count):
        start = pos
        fields = _ENTRY.unpack_from(data, pos)
        pos += _ENTRY.size
        flags = fields[11]
        extended = 0
        if flags & EXTENDED:
            if version < 3:
                raise ValueError("extended flag in a version 2 index")
            (extended,) = struct.unpack_from(">H", data, pos)
            pos += 2
        if version == 4:
            strip, pos = _varint(data, pos)
            end = data.index(b"\0", pos)
            name = previous[:len(previous) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = data.index(b"\0", pos)
            name = data[pos:end]
            pos = start + ((end - start) // 8 + 1) * 8  # 1-8 NULs pad the entry
        previous = name
        mtime_ns = fields[2] * 1_000_000_000 + fields[3]
        if flags & (ASSUME_VALID | STAGE) or extended & (SKIP_WORKTREE | INTENT_TO_ADD) or \
                mtime_ns >= written:
            continue
        out[name.decode("utf-8", "surrogateescape")] = IndexEntry(
            (fields[2], fields[3]), fields[5], fields[9], fields[10].hex())
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """Git's offset varint (index v4 path prefix lengths)."""
    byte = data[pos]
    pos += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, pos


def matches(entry: IndexEntry, st: os.stat_result) -> bool:
    """Whether a file's stat is the one git recorded (git keeps 32 bits of each field)."""
    mask = 0xFFFFFFFF
    return (entry.size == st.st_size & mask and entry.ino == st.st_ino & mask
            and entry.mtime == ((st.st_mtime_ns // 1_000_000_000) & mask,
                                st.st_mtime_ns % 1_000_000_000))
