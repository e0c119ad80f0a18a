"""The interface of a language's resolver module (langs/<lang>/resolver.py): docs/languages.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from spyglass.types import FileContext, FileFacts, Resolution

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
