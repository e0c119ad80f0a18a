"""Client paths: checked for shape and size before any work, then confined to the root.

A path from a client (CLI argument, MCP argument, HTTP parameter) is refused with one line
when it is empty, holds NUL or text that is not UTF-8 (lone surrogates), is longer than
``MAX_PATH_CHARS`` or has a component over ``MAX_NAME_BYTES`` — all before the file
system is touched. It is then resolved (symlinks included) and must land inside the root.
The resolved path is only a name: every later read goes through ``index/confined.py``,
which never follows a link, so a swap after this check cannot lead a read outside.
See docs/security.md ("Paths and file names").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spyglass.errors import BadInput, LimitExceeded, OutsideRoot
from spyglass.index import confined

MAX_PATH_CHARS = 4096  # PATH_MAX on Linux
MAX_NAME_BYTES = 255  # NAME_MAX
SHOWN = 120


def shown(path: str) -> str:
    """A path as quoted in a message: repr (escapes control characters and surrogates),
    cut to a readable length."""
    text = repr(path[:SHOWN])
    return text + (f"… ({len(path)} characters)" if len(path) > SHOWN else "")


def named(path: str) -> str:
    """A resolved path as named in a message: as it is when printable, else `shown`."""
    return path if path.isprintable() and len(path) <= SHOWN else shown(path)


def check(path: str) -> None:
    """Refuse a client path by its shape alone (no file system access)."""
    if not isinstance(path, str) or not path:
        raise BadInput("path must be a non-empty string")
    if "\0" in path:
        raise BadInput(f"path {shown(path)} contains a NUL byte")
    if len(path) > MAX_PATH_CHARS:
        raise LimitExceeded(f"path {shown(path)} is longer than {MAX_PATH_CHARS} characters")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"path {shown(path)} is not valid UTF-8 text (files whose names are "
                       "not UTF-8 are skipped: 'undecodable file name')") from None
    if any(len(part) > MAX_NAME_BYTES for part in encoded.split(b"/")):
        raise LimitExceeded(f"path {shown(path)} has a component longer than "
                            f"{MAX_NAME_BYTES} bytes")


def check_text(value: str, what: str, max_chars: int = MAX_PATH_CHARS) -> None:
    """Refuse other client text bound into SQL (symbol names, patterns, kinds) that SQLite
    cannot take: lone surrogates, or longer than `max_chars` (LIKE/GLOB patterns have a
    complexity limit)."""
    if len(value) > max_chars:
        raise LimitExceeded(f"{what} {shown(value)} is longer than {max_chars} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{what} {shown(value)} is not valid UTF-8 text") from None


def check_count(paths: Sequence[object], limit: int) -> None:
    """Refuse more paths than `limit` before any of them is looked at."""
    if len(paths) > limit:
        raise LimitExceeded(f"{len(paths)} paths asked for; max_files_per_request is {limit}")


def resolve(root: Path, path: str) -> str:
    """A client path (relative to the root, or absolute) as a root-relative POSIX path;
    anything resolving outside the root, symlinks included, is refused."""
    check(path)
    candidate = Path(path)
    full = candidate if candidate.is_absolute() else root / candidate
    try:
        resolved = full.resolve()
    except (OSError, RuntimeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise BadInput(f"cannot resolve path {shown(path)}: {reason}") from None
    if resolved != root and root not in resolved.parents:
        raise OutsideRoot(f"path {shown(path)} resolves outside the repository root {root}")
    rel = resolved.relative_to(root).as_posix()
    rel = "" if rel == "." else rel
    try:
        rel.encode("utf-8")
        confined.parts(rel)
    except (UnicodeEncodeError, OSError):
        raise BadInput(f"path {shown(path)} resolves to a name that is not UTF-8 text "
                       "(skipped: 'undecodable file name')") from None
    return rel


def read(root: Path, rel: str, max_bytes: int) -> bytes:
    """The bytes of a resolved client path, through the confined reader; refusals and OS
    errors as one-line BadInput / LimitExceeded."""
    try:
        return confined.read_bytes(root, rel, max_bytes)
    except confined.Refused as exc:
        if exc.size is not None:
            raise LimitExceeded(f"{named(rel)} is {exc.size} bytes; max_file_bytes is "
                                f"{max_bytes}") from None
        raise BadInput(f"{named(rel)} is not read: {exc.strerror}") from None
    except FileNotFoundError:
        raise BadInput(f"{named(rel)} is not a file in the repository") from None
    except OSError as exc:
        raise BadInput(f"{named(rel)} cannot be read: {exc.strerror or exc}") from None
