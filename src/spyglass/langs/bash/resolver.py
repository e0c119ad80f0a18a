"""Bash name resolution: one global namespace of functions and variables, as the shell has.

A function or top-level variable is named by itself (``greet``): once a script is
sourced, its functions are callable from anywhere. A file's module key is its path. A
command name resolves to the function of that name, exact when this file defines it and
inferred otherwise (a function of a sourced script; several scripts defining one name
make the answer list each as a candidate). Local variables never leave their function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.types import FileContext, FileFacts, Resolution


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's path without its extension."""
    return {p: FileContext(path=p, module=p.rsplit(".", 1)[0]) for p in paths}


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every command and variable to its global name."""
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        if head == H.DEF:
            targets.append(arg)
            confidence.append("exact")
        elif head == H.FREE and not ref.qualifier:
            targets.append(ref.name)
            confidence.append("inferred")
        else:
            targets.append(None)
            confidence.append("ambiguous")
    return Resolution(tuple(targets), tuple(confidence),
                      tuple(d.qualname for d in facts.definitions),
                      tuple(() for _ in facts.definitions), ())
