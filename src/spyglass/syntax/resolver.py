"""The interface of a language's resolver module (langs/<lang>/resolver.py): docs/languages.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from spyglass.syntax import heads as H
from spyglass.types import FileContext, FileFacts, Reference, Resolution

Reader = Callable[[str], bytes | None]  # repository-relative path → bytes, None if absent


class Resolver(Protocol):
    """Turns one file's facts into targets in the language's full-name space.

    A resolver module imports only `spyglass.types` and `spyglass.syntax`; it never reads
    the file system itself (`read` gives it the repository's files, from git or disk)."""

    def module_keys(self, paths: Iterable[str], read: Reader) -> dict[str, FileContext]:
        """Each path's resolution context (its module key, settings such as path maps)."""
        ...

    def resolve(self, facts: FileFacts, ctx: FileContext) -> Resolution:
        """One target (or None) per reference, full names, bases and aliases."""
        ...


def bound_target(ref: Reference, bound: list[str], full: Callable[[str], str]
                 ) -> tuple[str, str] | None:
    """The target and confidence of a reference whose head is an import, a definition of
    the file or `self` (`full` makes a file-level qualname a full name); None for other
    heads, which each resolver decides itself."""
    head, arg = H.split(ref.head)
    parts = ref.qualifier.split(".") if ref.qualifier else []
    tail = ".".join([*parts[1:], ref.name])
    if head == H.IMPORT:
        return (f"{bound[int(arg)]}.{tail}" if parts else bound[int(arg)]), "exact"
    if head == H.DEF:
        return full(f"{arg}.{tail}" if parts else arg), "exact"
    if head == H.SELF and parts:
        return full(f"{arg}.{tail}"), "exact" if len(parts) == 1 else "inferred"
    return None
