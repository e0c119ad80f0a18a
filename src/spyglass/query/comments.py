"""Definitions by the words of their comments and docstrings: a per-view index of the files'
words, read from the files on disk once per file version and kept in the store
(query/wordstore.py), for free-text questions (explore; docs/explore.md)."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

from spyglass.index.confined import read_or_none
from spyglass.query.names import words
from spyglass.query.rows import Key, chunks, marks
from spyglass.query.terms import FileTerms, count_stems, stem
from spyglass.query.view import View
from spyglass.query.wordstore import UnitWords, WordStore, matches, save

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
    """Stems of the words describing each definition, and how many definitions use each
    (this process's counts in `by_stem`, the others read from `stored` per stem)."""

    by_stem: dict[str, dict[Key, int]]
    described: int  # definitions with any words
    cut: str  # what a bound left out ("" when nothing)
    terms: FileTerms  # every word of each file read, and its path words
    stored: WordStore | None = None
    _merged: dict[str, dict[Key, int]] = field(default_factory=dict)

    def file_scores(self, query: list[str]) -> dict[str, float]:
        """Files by the words of the query anywhere in them or in their path (0..1, the
        best file 1; BM25, query/terms.py)."""
        return self.terms.normalised(query)

    def users(self, s: str) -> dict[Key, int]:
        """Definitions whose comments hold the stem `s`, with its occurrences."""
        if self.stored is None:
            return self.by_stem.get(s, {})
        if s not in self._merged:
            per = dict(self.stored.notes([s])[s])
            per.update(self.by_stem.get(s, {}))
            self._merged[s] = per
        return self._merged[s]

    def idf(self, s: str) -> float:
        n = len(self.users(s))
        return math.log((1 + self.described) / (1 + n)) + 1.0 if n else 0.0

    def search(self, query: list[str], limit: int) -> list[tuple[float, Key, tuple[str, ...]]]:
        """The `limit` best definitions for the query words: (score 0..1 weighted by how
        rare each matched word is, key, the matched words)."""
        stems = {stem(w): w for w in query}
        total = sum(max(self.idf(s), 1.0) for s in stems) or 1.0
        hits: dict[Key, list[str]] = {}
        for s, w in stems.items():
            for k in self.users(s):
                hits.setdefault(k, []).append(w)
        scored = [(round(sum(self.idf(stem(w)) for w in ws) / total, 4), k, tuple(ws))
                  for k, ws in hits.items()]
        scored.sort(key=lambda s: (-s[0], s[1]))
        return scored[:limit]


_INDEX: weakref.WeakKeyDictionary[View, tuple[object, CommentIndex]] = \
    weakref.WeakKeyDictionary()

File = tuple[str, int, int, str]  # path, unit, size, blob


def _files(view: View) -> tuple[list[File], str]:
    """The view's files with definitions, in the order they are read, within the bounds
    (sizes as indexed; a file over MAX_FILE_BYTES is not read), and what the bounds left
    out."""
    found = [(str(p), int(str(u)), int(str(n)), str(b)) for p, u, n, b in view.each(
        "SELECT f.path, u.id, u.size, u.blob FROM {units} u JOIN temp.vfiles f ON f.unit = "
        "u.id WHERE EXISTS (SELECT 1 FROM {defs} d WHERE d.unit = u.id) ORDER BY f.path")]
    out: list[File] = []
    read = 0
    for n, f in enumerate(found):
        if n >= MAX_FILES or read >= MAX_BYTES:
            return out, (f"comment words read from {n} of {len(found)} files (bound "
                         f"{MAX_FILES} files, {MAX_BYTES // (1024 * 1024)} MB)")
        if f[2] <= MAX_FILE_BYTES:
            out.append(f)
            read += f[2]
    return out, ""


def unit_words(data: bytes, defs: list[tuple[int, int, int, int]]) -> UnitWords:
    """A file's words and its definitions' comment words — defs as (idx, start line, name
    line, end line) — counted by stem."""
    lines = data.split(b"\n")
    ws = words(data.decode("utf-8", "replace"))
    out = UnitWords(len(ws), count_stems(ws))
    first = min(defs, key=lambda d: d[1])[0] if defs else -1
    for idx, start, name_line, end in defs:
        described = _described(lines, start, name_line, end)
        if idx == first:  # the file's header stands with its first definition
            described += _header(lines, start)
        if not described:
            continue
        per = out.notes.setdefault(idx, {})
        for w in described:
            if len(w) > 1 and not w.isdigit():
                per[stem(w)] = per.get(stem(w), 0) + 1
    return out


def _defs(view: View, units: list[int]) -> dict[int, list[tuple[int, int, int, int]]]:
    out: dict[int, list[tuple[int, int, int, int]]] = {}
    for chunk in chunks(units):
        for unit, idx, start, name_line, end in view.each(
                "SELECT d.unit, d.idx, d.start_line, d.name_line, d.end_line FROM {defs} d "
                f"WHERE d.unit IN ({marks(chunk)}) ORDER BY d.unit, d.idx", tuple(chunk)):
            out.setdefault(int(str(unit)), []).append(
                (int(str(idx)), int(str(start)), int(str(name_line)), int(str(end))))
    return out


def comment_index(view: View) -> CommentIndex:
    """The view's comment index, built on first use and kept while the view is unchanged:
    the words of each file version are read from disk (through the confined reader) once
    and kept in the store; a question reads only the stored rows of its words."""
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _INDEX.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    files, cut = _files(view)
    store = WordStore(view.conn, {u: p for p, u, _, _ in files}) \
        if WordStore.usable(view.conn) else None
    known = store.units() if store is not None else {}
    by_stem: dict[str, dict[Key, int]] = {}
    terms = FileTerms(stored=store)
    described = 0
    fresh: list[tuple[int, str, str, UnitWords]] = []
    missing = [f for f in files if f[1] not in known]
    found = _defs(view, [f[1] for f in missing]) if missing else {}
    for path, unit, _, blob in files:
        if unit in known:
            length, n = known[unit]
            terms.add_stored(path, length, words(path))
            described += n
            continue
        data = read_or_none(view.root, path, MAX_FILE_BYTES)
        if data is None:
            continue
        counted = unit_words(data, found.get(unit, []))
        if matches(blob, data):
            fresh.append((unit, path, blob, counted))
        terms.add_counted(path, counted.terms, counted.length, words(path))
        described += len(counted.notes)
        for idx, per in counted.notes.items():
            for s, c in per.items():
                by_stem.setdefault(s, {})[(unit, idx)] = c
    if store is not None:
        save(view.conn, fresh, store.refused)
    index = CommentIndex(by_stem, described, cut, terms, store)
    _INDEX[view] = (state, index)
    return index
