"""Parsing under the parse budget (one cached parser per language), and a file's syntax
errors alone, without facts."""

from __future__ import annotations

import re

from tree_sitter import Parser, Tree

from spyglass.syntax.budget import Budget, OverBudget
from spyglass.syntax.diagnostics import diagnostics
from spyglass.syntax.langpack import LanguagePack
from spyglass.types import Diagnostic

_parsers: dict[str, Parser] = {}


def parse(pack: LanguagePack, data: bytes, budget: Budget | None = None) -> Tree:
    """Parse bytes with the pack's grammar (one cached parser per language per process),
    within `budget` (a fresh PARSE_SECONDS one by default): `OverBudget` past it."""
    parser = _parsers.get(pack.name)
    if parser is None:
        parser = _parsers[pack.name] = Parser(pack.language)
    return (budget or Budget()).parse(parser, data)


def _spaces(match: re.Match[bytes]) -> bytes:
    """The match blanked; only its groups when it has any that took part (the context
    around them is matched, kept)."""
    text = match.group()
    spans = [(match.start(i) - match.start(), match.end(i) - match.start())
             for i in range(1, len(match.groups()) + 1) if match.group(i) is not None]
    if not spans:
        return _NOT_NEWLINE.sub(b" ", text)
    out, at = [], 0
    for start, end in spans:
        out += [text[at:start], _NOT_NEWLINE.sub(b" ", text[start:end])]
        at = end
    return b"".join(out) + text[at:]


_NOT_NEWLINE = re.compile(rb"[^\n]")


def _separator(match: re.Match[bytes]) -> bytes:
    text = match.group()
    group = next(i for i in range(1, len(match.groups()) + 1) if match.group(i) is not None)
    start, end = match.start(group) - match.start(), match.end(group) - match.start()
    if end == start:  # nowhere to write it without moving the text
        return text
    return text[:start] + b";" + b" " * (end - start - 1) + text[end:]


def prepared(pack: LanguagePack, data: bytes) -> bytes:
    """The bytes the grammar reads: the pack's `parse_blanks` matches (or their groups)
    replaced by spaces and its `parse_separators` places by `;` (same length, newlines kept: every line and
    column stays where it was)."""
    blanks = pack.blanks
    if blanks is not None:
        data = blanks.sub(_spaces, data)
    separators = pack.separators
    return data if separators is None else separators.sub(_separator, data)


def syntax_errors(pack: LanguagePack, data: bytes) -> tuple[Diagnostic, ...]:
    """Only the diagnostics of `extract` (same parse budget, same walk), without facts."""
    data = prepared(pack, data)
    try:
        return tuple(diagnostics(pack, parse(pack, data).root_node, data))
    except OverBudget as exc:
        return (not_analysed(exc),)


def not_analysed(exc: OverBudget) -> Diagnostic:
    return Diagnostic(1, 1, 0, f"not analysed: {exc}", "warning")
