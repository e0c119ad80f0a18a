"""Definitions by the words of their comments and docstrings: a per-view index read from the
files on disk, for free-text questions (explore; docs/explore.md)."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

from spyglass.index import confined
from spyglass.query.names import words
from spyglass.query.rows import Key
from spyglass.query.terms import FileTerms, stem
from spyglass.query.view import View

MAX_FILES = 5000  # files read for one index (a bigger view: the first ones, noted)
MAX_BYTES = 64 * 1024 * 1024  # bytes read for one index
MAX_FILE_BYTES = 1024 * 1024
ABOVE = 12  # comment lines read above a definition
BELOW = 12  # docstring lines read below a definition's first line
# A line whose first character is one of these opens or continues a comment or a docstring
# in the supported languages (`#`, `//`, `/*`, ` * `, `"""`, `'''`, `--`, `;`): no grammar
# is needed to find the words a definition is described with.
COMMENT_START = frozenset("#/*\"'-;")
HEADER_LINES = 60  # lines of a file's header read
MAX_BODY_LINES = 400  # body lines searched for comments per definition


def _commented(text: bytes) -> bool:
    return bool(text) and text[:1].decode("latin-1") in COMMENT_START


def _described(lines: list[bytes], start: int, name_line: int, end: int) -> list[str]:
    """The words of the comment block right above line `start` (1-based; decorators
    inside it skipped), of a docstring right after `name_line`, and of the comment lines
    of the body (up to `end`)."""
    out: list[str] = []
    for k in range(name_line, min(end, len(lines), name_line + MAX_BODY_LINES)):
        text = lines[k].strip()
        if _commented(text) and text[:1] not in (b'"', b"'", b"*") or text[:2] == b"/*":
            out += words(text.decode("utf-8", "replace"))
    i = start - 2
    seen = 0
    while i >= 0 and seen < ABOVE:
        text = lines[i].strip()
        if text[:1] == b"@":  # a decorator between the comment and the definition
            i -= 1
            continue
        if not _commented(text):
            break
        out += words(text.decode("utf-8", "replace"))
        i -= 1
        seen += 1
    j = name_line - 1  # the name's line (0-based), then to the end of a long signature
    while j < len(lines) and j < name_line + 6 and not lines[j].rstrip().endswith((b":", b"{")):
        j += 1
    j += 1
    if j < len(lines) and lines[j].strip()[:1] in (b'"', b"'"):
        for k in range(j, min(j + BELOW, len(lines))):
            out += words(lines[k].decode("utf-8", "replace"))
            if k > j and lines[k].rstrip().endswith((b'"""', b"'''")):
                break
            if k == j and lines[k].strip().count(b'"""') + lines[k].strip().count(b"'''") >= 2:
                break
    return out


def _header(lines: list[bytes], start: int) -> list[str]:
    """The words of the comment and docstring lines above a file's first definition (a
    module docstring, a licence, build constraints, a package comment)."""
    out: list[str] = []
    for text in lines[:min(start - 1, HEADER_LINES)]:
        if _commented(text.strip()):
            out += words(text.decode("utf-8", "replace"))
    return out


@dataclass
class CommentIndex:
    """Stems of the words describing each definition, and how many definitions use each."""

    by_stem: dict[str, dict[Key, int]]
    described: int  # definitions with any words
    cut: str  # what a bound left out ("" when nothing)
    terms: FileTerms  # every word of each file read, and its path words

    def file_scores(self, query: list[str]) -> dict[str, float]:
        """Files by the words of the query anywhere in them or in their path (0..1, the
        best file 1; BM25, query/terms.py)."""
        return self.terms.normalised(query)

    def idf(self, s: str) -> float:
        n = len(self.by_stem.get(s, ()))
        return math.log((1 + self.described) / (1 + n)) + 1.0 if n else 0.0

    def search(self, query: list[str], limit: int) -> list[tuple[float, Key, tuple[str, ...]]]:
        """The `limit` best definitions for the query words: (score 0..1 weighted by how
        rare each matched word is, key, the matched words)."""
        stems = {stem(w): w for w in query}
        total = sum(max(self.idf(s), 1.0) for s in stems) or 1.0
        hits: dict[Key, list[str]] = {}
        for s, w in stems.items():
            for k in self.by_stem.get(s, {}):
                hits.setdefault(k, []).append(w)
        scored = [(round(sum(self.idf(stem(w)) for w in ws) / total, 4), k, tuple(ws))
                  for k, ws in hits.items()]
        scored.sort(key=lambda s: (-s[0], s[1]))
        return scored[:limit]


_INDEX: weakref.WeakKeyDictionary[View, tuple[object, CommentIndex]] = \
    weakref.WeakKeyDictionary()


def comment_index(view: View) -> CommentIndex:
    """The view's comment index, built on first use (files read from disk through the
    confined reader) and kept while the view is unchanged."""
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _INDEX.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    per_file: dict[str, list[tuple[int, int, int, int, int]]] = {}
    for unit, idx, path, start, name_line, end in view.each(
            "SELECT d.unit, d.idx, f.path, d.start_line, d.name_line, d.end_line FROM {defs} d "
            "JOIN temp.vfiles f ON f.unit = d.unit ORDER BY f.path"):
        per_file.setdefault(str(path), []).append(
            (int(str(unit)), int(str(idx)), int(str(start)), int(str(name_line)),
             int(str(end))))
    by_stem: dict[str, dict[Key, int]] = {}
    terms = FileTerms()
    described = 0
    read = 0
    cut = ""
    for n, (path, found) in enumerate(per_file.items()):
        if n >= MAX_FILES or read >= MAX_BYTES:
            cut = (f"comment words read from {n} of {len(per_file)} files (bound "
                   f"{MAX_FILES} files, {MAX_BYTES // (1024 * 1024)} MB)")
            break
        data = confined.read_or_none(view.root, path, MAX_FILE_BYTES)
        if data is None:
            continue
        read += len(data)
        lines = data.split(b"\n")
        terms.add(path, words(data.decode("utf-8", "replace")), words(path))
        first = min(found, key=lambda f: f[2])
        for unit, idx, start, name_line, end in found:
            ws = _described(lines, start, name_line, end)
            if (unit, idx) == first[:2]:  # the file's header stands with its first definition
                ws += _header(lines, start)
            if not ws:
                continue
            described += 1
            for w in ws:
                if len(w) > 1 and not w.isdigit():
                    per = by_stem.setdefault(stem(w), {})
                    per[(unit, idx)] = per.get((unit, idx), 0) + 1
    index = CommentIndex(by_stem, described, cut, terms)
    _INDEX[view] = (state, index)
    return index
