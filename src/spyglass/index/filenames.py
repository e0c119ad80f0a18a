"""File names as text: names that are not UTF-8 become a printable, skipped stand-in.

Git prints names as bytes (``-z`` output) and ``os.listdir`` returns str with lone
surrogates for undecodable bytes. Neither can be stored in SQLite, hashed or sent as JSON,
so every name is converted here, where it enters spyglass: a UTF-8 name passes unchanged;
any other becomes its bytes with each undecodable byte written ``\\xNN`` and is skipped
with the reason ``UNDECODABLE`` (never read, never fatal). See docs/security.md.
"""

from __future__ import annotations

import os
from typing import Protocol, TypeVar

UNDECODABLE = "undecodable file name"


class _Listed(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def skipped(self) -> str | None: ...


_F = TypeVar("_F", bound=_Listed)


def from_bytes(raw: bytes) -> tuple[str, bool]:
    """(the name as text, whether it is the exact name): undecodable bytes as ``\\xNN``."""
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace"), False


def from_os(name: str) -> tuple[str, bool]:
    """The same for a name from the OS (``os.listdir``, ``os.walk``), which carries
    undecodable bytes as lone surrogates."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return from_bytes(os.fsencode(name))
    return name, True


def unique(files: list[_F]) -> list[_F]:
    """A listing with one entry per path: an undecodable name's stand-in never hides a real
    file that happens to be spelled like it (the real file is kept)."""
    real = {f.path for f in files if f.skipped != UNDECODABLE}
    seen: set[str] = set()
    out: list[_F] = []
    for f in files:
        if f.skipped == UNDECODABLE and (f.path in real or f.path in seen):
            continue
        seen.add(f.path)
        out.append(f)
    return out
