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
    return _NOT_NEWLINE.sub(b" ", match.group())


_NOT_NEWLINE = re.compile(rb"[^\n]")


def prepared(pack: LanguagePack, data: bytes) -> bytes:
    """The bytes the grammar reads: the pack's `parse_blanks` matches replaced by spaces
    (same length, newlines kept: every line and column stays where it was)."""
    blanks = pack.blanks
    return data if blanks is None else blanks.sub(_spaces, data)


def syntax_errors(pack: LanguagePack, data: bytes) -> tuple[Diagnostic, ...]:
    """Only the diagnostics of `extract` (same parse budget, same walk), without facts."""
    data = prepared(pack, data)
    try:
        return tuple(diagnostics(pack, parse(pack, data).root_node, data))
    except OverBudget as exc:
        return (not_analysed(exc),)


def not_analysed(exc: OverBudget) -> Diagnostic:
    return Diagnostic(1, 1, 0, f"not analysed: {exc}", "warning")
