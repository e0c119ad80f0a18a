"""The code view's text: a file's lines from disk (confined, bounded) and the line of code
of each answer row, read once per file."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation

MAX_LINES = 20_000  # a file view longer than this is cut (the answer says so)
MAX_POSITIONS = 2_000  # positions of one /lines request
MAX_LINE_CHARS = 400  # one row's line of code is cut here
MAX_VIEW_LINE_CHARS = 4_000  # a file view's line is cut here (a minified one-line file)
MAX_VIEW_CHARS = 1_000_000  # a file view holds this many characters at most


def _lines(ci: CodeIntel, path: str) -> tuple[str, list[str]]:
    rel, data = ci.file_bytes(path)
    if b"\0" in data[:8192]:
        raise BadInput(f"{rel} is a binary file")
    return rel, data.decode("utf-8", "replace").splitlines()


def file_view(ci: CodeIntel, path: str) -> dict[str, Any]:
    """Every line of a workspace file (as on disk), with its definitions for the outline and
    its indexed sites (each with the definition it resolves to) for the links."""
    rel, lines = _lines(ci, path)
    with ci.lock:
        outline = ci.structure(rel)
        sites, sites_cut = ci.file_sites(rel)
    defs = [{"symbol": d.symbol, "kind": d.kind, "start_line": d.start_line,
             "end_line": d.end_line} for d in outline.results
            if isinstance(d, CodeLocation)]
    shown: list[str] = []
    size = cut = 0
    for line in lines[:MAX_LINES]:
        if len(line) > MAX_VIEW_LINE_CHARS:
            line, cut = line[:MAX_VIEW_LINE_CHARS], cut + 1
        if size + len(line) > MAX_VIEW_CHARS:
            break
        size += len(line)
        shown.append(line)
    notes = []
    if len(shown) < len(lines):
        notes.append(f"showing {len(shown)} of {len(lines)} lines (at most {MAX_LINES} lines "
                     f"and {MAX_VIEW_CHARS} characters)")
    if cut:
        notes.append(f"{cut} line(s) longer than {MAX_VIEW_LINE_CHARS} characters cut there")
    return {"path": rel, "lines": shown, "total_lines": len(lines),
            "truncated": bool(notes), "long_lines_cut": cut, "notes": notes,
            "definitions": defs,
            "sites": [asdict(s) for s in sites if s.line <= len(shown)],
            "sites_truncated": sites_cut}


def parse_positions(values: list[str]) -> list[tuple[str, int]]:
    """`path:line` values (the last colon splits), checked before any read."""
    if not values:
        raise BadInput("give at=PATH:LINE (repeatable)")
    if len(values) > MAX_POSITIONS:
        raise BadInput(f"at most {MAX_POSITIONS} positions per request, got {len(values)}")
    out: list[tuple[str, int]] = []
    for v in values:
        path, sep, line = v.rpartition(":")
        if not sep or not path or not line.isdigit() or int(line) < 1:
            raise BadInput(f"not a position PATH:LINE: {v[:200]!r}")
        out.append((path, int(line)))
    return out


def line_texts(ci: CodeIntel, positions: list[tuple[str, int]]) -> dict[str, Any]:
    """The line of code at each position (files read once); unreadable files are named."""
    files: dict[str, list[str] | str] = {}
    texts: dict[str, str] = {}
    problems: dict[str, str] = {}
    for path, line in positions:
        if path not in files:
            try:
                files[path] = _lines(ci, path)[1]
            except BadInput as exc:
                files[path] = str(exc)
            except Exception as exc:  # noqa: BLE001 - one unreadable file names its reason
                files[path] = str(exc) or type(exc).__name__
        got = files[path]
        if isinstance(got, str):
            problems[path] = got
        elif line <= len(got):
            texts[f"{path}:{line}"] = got[line - 1][:MAX_LINE_CHARS]
    return {"lines": texts, "problems": problems}
