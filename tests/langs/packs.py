"""Helpers of the shipped-pack tests (tests/langs/test_<lang>_pack.py): index a fixture
project through CodeIntel and read answers as plain tuples."""

from __future__ import annotations

from pathlib import Path

from fixture import parse_fixture

from spyglass.query.facade import CodeIntel


def index(text: str, root: Path) -> CodeIntel:
    """Write the fixture's files under root and index them."""
    parse_fixture(text).write(root)
    ci = CodeIntel(root)
    ci.index()
    return ci


def defs(ci: CodeIntel, path: str) -> set[tuple[str, str, int]]:
    """(full name, kind, line) of every definition of one file."""
    return {(r.symbol, r.kind, r.start_line)  # type: ignore[attr-defined]
            for r in ci.structure(path).results}


def sites(result: object) -> set[tuple[str, int, str]]:
    """(path, line, role) of every site of a references answer."""
    return {(r.path, r.start_line, r.kind) for r in result.results}  # type: ignore[attr-defined]


def callers(ci: CodeIntel, path: str, line: int, column: int) -> set[tuple[str, str]]:
    """(path, enclosing symbol) of every caller of the definition at path:line:column."""
    return {(r.path, r.symbol)  # type: ignore[attr-defined]
            for r in ci.callers(path=path, line=line, column=column).results}


def uncertain(result: object) -> dict[tuple[str, int], str]:
    """The uncertain sites of an answer, with their evidence."""
    return {(r.path, r.start_line): r.evidence  # type: ignore[attr-defined]
            for r in result.results if r.uncertain}  # type: ignore[attr-defined]
