"""Explore's words in the store: each file version's word counts and its definitions' comment
words, read from the file once and kept by unit, so later questions, processes and snapshots
reuse them (docs/explore.md, "The word index")."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from spyglass.index import source as src
from spyglass.index.store import Conn, chunks, location, marks, side_write

MAX_COUNT = 1 << 24  # a stored count or length above this is refused (files are at most 1 MB)
MAX_STEM = 1 << 20  # a stored stem longer than this is refused


@dataclass
class UnitWords:
    """One unit's words: its length in words, stem → occurrences in the file, and the
    stems of each described definition's comments (definition idx → stem → occurrences)."""

    length: int = 0
    terms: dict[str, int] = field(default_factory=dict)
    notes: dict[int, dict[str, int]] = field(default_factory=dict)


def _count(value: object) -> bool:
    return type(value) is int and 0 <= value <= MAX_COUNT


def _stem(value: object) -> bool:
    return type(value) is str and 0 < len(value) <= MAX_STEM


class WordStore:
    """The store's word rows of a set of units (the view's, by unit id → path), read through
    the view's connection; a row of the wrong type or out of range is refused (left out,
    and its unit read again from its file by the next question that needs it)."""

    def __init__(self, conn: Conn, paths: dict[int, str]) -> None:
        self.conn = conn
        self.paths = paths
        self.known: set[int] = set()  # units whose words the store holds (`units`)
        self.refused: set[int] = set()

    @staticmethod
    def usable(conn: Conn) -> bool:
        """Whether the store holds the word tables (a store made before them gets them at
        its next `spyglass index`; until then questions read every file)."""
        if not isinstance(conn, sqlite3.Connection) or not location(conn):
            return False
        found = conn.execute("SELECT COUNT(*) FROM main.sqlite_master WHERE type='table' AND "
                             "name IN ('word_units', 'file_words', 'comment_words', "
                             "'word_stems')").fetchone()[0]
        return bool(found == 4)

    def units(self) -> dict[int, tuple[int, int]]:
        """unit → (length in words, described definitions) of the units already read."""
        out: dict[int, tuple[int, int]] = {}
        for chunk in chunks(u for u in self.paths if u > 0):
            for unit, length, described in self.conn.execute(
                    "SELECT unit, length, described FROM main.word_units WHERE unit IN "
                    f"({marks(chunk)})", chunk):
                if type(unit) is int and _count(length) and _count(described):
                    out[unit] = (length, described)
                elif type(unit) is int:
                    self.refused.add(unit)
        self.known = set(out)
        return out

    def _refuse(self, units: set[int]) -> None:
        """Leave out every row of these units from now on, and drop them from the store so
        the next question reads their files again."""
        new = units - self.refused
        if new:
            self.refused |= new
            self.known -= new
            save(self.conn, [], new)

    def terms(self, stems: list[str]) -> dict[str, dict[str, int]]:
        """stem → path → occurrences, for the given stems, over this store's units."""
        out: dict[str, dict[int, int]] = {s: {} for s in stems}
        bad: set[int] = set()
        for chunk in chunks(stems):
            for s, unit, n in self.conn.execute(
                    "SELECT stem, unit, n FROM main.file_words WHERE stem IN "
                    f"({marks(chunk)})", chunk):
                if type(unit) is not int or unit not in self.known:
                    continue
                if s in out and _count(n) and n > 0:
                    out[s][unit] = n
                else:
                    bad.add(unit)
        self._refuse(bad)
        return {s: {self.paths[u]: n for u, n in per.items() if u in self.known}
                for s, per in out.items()}

    def notes(self, stems: list[str]) -> dict[str, dict[tuple[int, int], int]]:
        """stem → (unit, definition idx) → occurrences in the definition's comments."""
        out: dict[str, dict[tuple[int, int], int]] = {s: {} for s in stems}
        bad: set[int] = set()
        for chunk in chunks(stems):
            for s, unit, idx, n in self.conn.execute(
                    "SELECT stem, unit, idx, n FROM main.comment_words WHERE stem IN "
                    f"({marks(chunk)})", chunk):
                if type(unit) is not int or unit not in self.known:
                    continue
                if s in out and _count(idx) and _count(n) and n > 0:
                    out[s][(unit, idx)] = n
                else:
                    bad.add(unit)
        self._refuse(bad)
        return {s: {k: n for k, n in per.items() if k[0] in self.known}
                for s, per in out.items()}

    def vocabulary(self) -> list[str]:
        """Every stem the store's word rows hold (of any unit), sorted."""
        return [s for (s,) in self.conn.execute("SELECT stem FROM main.word_stems ORDER BY stem")
                if _stem(s)]


def save(conn: Conn, fresh: Iterable[tuple[int, str, str, UnitWords]],
         refused: Iterable[int] = ()) -> int:
    """Keep the words just read of store units — (unit, path, blob of the bytes read,
    words) — in the store, through a connection of its own (index/store.py's `open_file`:
    the validated store file, never a link): only where the unit is still that path and
    content when written (a file changed since the view read it is not kept); the rows of
    `refused` units are dropped (read again next time). Waits SIDE_WAIT_MS (index/store.py) at most for
    another writer, then skips (the next question reads those files again). Returns the
    units saved."""
    rows = [r for r in fresh if r[0] > 0]
    dropped = sorted(u for u in set(refused) if u > 0)
    if not (rows or dropped):
        return 0

    def write(out: sqlite3.Connection) -> int:
        current: dict[int, tuple[str, str]] = {}
        for chunk in chunks([r[0] for r in rows]):
            current.update((int(u), (str(p), str(b))) for u, p, b in out.execute(
                f"SELECT id, path, blob FROM units WHERE id IN ({marks(chunk)})", chunk))
        kept = [r for r in rows if current.get(r[0]) == (r[1], r[2])]
        for chunk in chunks([*dropped, *(r[0] for r in kept)]):
            for table in ("word_units", "file_words", "comment_words"):
                out.execute(f"DELETE FROM {table} WHERE unit IN ({marks(chunk)})", chunk)
        out.executemany("INSERT INTO word_units(unit, length, described) VALUES(?,?,?)",
                        [(u, w.length, len(w.notes)) for u, _, _, w in kept])
        terms = sorted((s, u, n) for u, _, _, w in kept for s, n in w.terms.items())
        out.executemany("INSERT INTO file_words(stem, unit, n) VALUES(?,?,?)", terms)
        out.executemany("INSERT INTO comment_words(stem, unit, idx, n) VALUES(?,?,?,?)",
                        sorted((s, u, i, n) for u, _, _, w in kept
                               for i, per in w.notes.items() for s, n in per.items()))
        out.executemany("INSERT OR IGNORE INTO word_stems(stem) VALUES(?)",
                        [(s,) for s in sorted({t[0] for t in terms})])
        return len(kept)
    return side_write(conn, write, "words")


def matches(blob: str, data: bytes) -> bool:
    """Whether `data` is the content of the blob id `blob` (sha1 or sha256 by its length)."""
    fmt = "sha256" if len(blob) == 64 else "sha1"
    return src.blob_hash(data, fmt) == blob
