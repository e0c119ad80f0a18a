"""SCIP import (docs/bridge.md): a SCIP index the user produced (scip-python, scip-typescript,
scip-go) read with a minimal protobuf wire reader — only the fields spyglass uses, by their
field numbers; no schema copied — and kept as precise occurrences per document beside the
store, in the snapshot it was imported into, each document with the digest of the file it
described, so a file changed since is ignored (per file) and reported."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from spyglass.errors import BadInput
from spyglass.index import confined
from spyglass.index.store import Conn

MAX_SCIP_BYTES = 512 * 1024 * 1024
# The symbol of every use of a document-local symbol (a local variable, a parameter, a
# member of an anonymous type): which local is not kept, only that the tool bound the
# name there to something no other file can name. Local definitions are not kept.
LOCAL = "local"
ROLE_DEFINITION = 0x1
# Field numbers (scip.proto): Index.metadata 1, Index.documents 2; Metadata.tool_info 2;
# ToolInfo.name 1, ToolInfo.version 2; Document.relative_path 1, Document.occurrences 2;
# Occurrence.range 1 (packed int32), Occurrence.symbol 2, Occurrence.symbol_roles 3;
# Index.external_symbols 3, Document.symbols 3; SymbolInformation.symbol 1,
# SymbolInformation.relationships 4; Relationship.symbol 1, is_reference 2,
# is_implementation 3, is_type_definition 4, is_definition 5.
REL_REFERENCE, REL_IMPLEMENTATION, REL_TYPE_DEFINITION, REL_DEFINITION = 1, 2, 4, 8
Relation = tuple[str, str, int]  # symbol, related symbol, REL_* bits


@dataclass(frozen=True, slots=True)
class Occurrence:
    line: int  # 0-based, as SCIP counts
    col: int
    symbol: str
    definition: bool
    end_col: int = -1  # the occurrence's last column + 1 on its last line (-1: unknown)


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise BadInput("not a SCIP index: truncated varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def _fields(buf: bytes) -> Iterator[tuple[int, int, bytes | int]]:
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
            yield number, wire, value
        elif wire == 2:
            size, i = _varint(buf, i)
            if i + size > len(buf):
                raise BadInput("not a SCIP index: truncated field")
            yield number, wire, buf[i:i + size]
            i += size
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise BadInput(f"not a SCIP index: wire type {wire}")


def _occurrence(buf: bytes) -> Occurrence | None:
    rng: list[int] = []
    symbol, roles = "", 0
    for number, wire, value in _fields(buf):
        if number == 1 and isinstance(value, bytes):
            j = 0
            while j < len(value):
                v, j = _varint(value, j)
                rng.append(v)
        elif number == 1 and isinstance(value, int):
            rng.append(value)
        elif number == 2 and isinstance(value, bytes):
            symbol = value.decode("utf-8", "replace")
        elif number == 3 and isinstance(value, int):
            roles = value
    if len(rng) < 3 or not symbol:
        return None
    if symbol.startswith("local "):  # a use of a local: kept nameless (module docstring)
        if roles & ROLE_DEFINITION:
            return None
        symbol = LOCAL
    end = rng[2] if len(rng) == 3 else (rng[3] if rng[2] == rng[0] else -1)
    return Occurrence(rng[0], rng[1], symbol, bool(roles & ROLE_DEFINITION), end)


def _relations(buf: bytes) -> list[Relation]:
    """The relationships one SymbolInformation declares: (its symbol, related, bits)."""
    symbol, rels = "", []
    for number, _, value in _fields(buf):
        if number == 1 and isinstance(value, bytes):
            symbol = value.decode("utf-8", "replace")
        elif number == 4 and isinstance(value, bytes):
            other, bits = "", 0
            for n, _, v in _fields(value):
                if n == 1 and isinstance(v, bytes):
                    other = v.decode("utf-8", "replace")
                elif 2 <= n <= 5 and isinstance(v, int) and v:
                    bits |= 1 << (n - 2)
            if other and bits:
                rels.append((other, bits))
    if not symbol or symbol.startswith("local "):
        return []
    return [(symbol, other, bits) for other, bits in rels if not other.startswith("local ")]


def parse(data: bytes) -> tuple[str, dict[str, list[Occurrence]]]:
    """The tool ("scip-python 0.6.6") and each document's occurrences."""
    tool, docs, _ = parse_full(data)
    return tool, docs


def parse_full(data: bytes) -> tuple[str, dict[str, list[Occurrence]], list[Relation]]:
    """The tool, each document's occurrences, and the symbols' relationships."""
    tool = "scip"
    docs: dict[str, list[Occurrence]] = {}
    rels: list[Relation] = []
    for number, _, value in _fields(data):
        if number == 3 and isinstance(value, bytes):
            rels += _relations(value)
        if number == 1 and isinstance(value, bytes):
            for n, _, v in _fields(value):
                if n == 2 and isinstance(v, bytes):
                    info = {k: x for k, _, x in _fields(v) if isinstance(x, bytes)}
                    tool = " ".join(info[k].decode("utf-8", "replace")
                                    for k in (1, 2) if k in info) or tool
        elif number == 2 and isinstance(value, bytes):
            path, occs = "", []
            for n, _, v in _fields(value):
                if n == 1 and isinstance(v, bytes):
                    path = v.decode("utf-8", "replace")
                elif n == 2 and isinstance(v, bytes):
                    occ = _occurrence(v)
                    if occ is not None:
                        occs.append(occ)
                elif n == 3 and isinstance(v, bytes):
                    rels += _relations(v)
            if path:
                docs.setdefault(path, []).extend(occs)
    return tool, docs, rels


def complete(data: bytes) -> bytes:
    """The leading top-level fields of `data` that are whole: a tool that writes its index
    a document at a time and then dies (or is killed) leaves a readable prefix."""
    i = end = 0
    try:
        while i < len(data):
            key, i = _varint(data, i)
            if key & 7 == 0:
                _, i = _varint(data, i)
            elif key & 7 == 2:
                size, i = _varint(data, i)
                i += size
            else:
                i += {1: 8, 5: 4}.get(key & 7, len(data) + 1)
            if i > len(data):
                break
            end = i
    except BadInput:
        pass
    return data[:end]


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def import_scip(root: Path, conn: Conn, snapshot: int, scip_file: Path,
                max_file_bytes: int, replaces: str | None = None) -> tuple[str, int, list[str]]:
    """Read FILE and keep it with `snapshot` (replacing an earlier import there, or only the
    rows of tools whose name starts with `replaces`): (tool, documents kept, documents
    ignored because their file is missing or unreadable)."""
    try:
        if scip_file.stat().st_size > MAX_SCIP_BYTES:
            raise BadInput(f"{scip_file} is larger than {MAX_SCIP_BYTES} bytes")
        data = scip_file.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read SCIP index {scip_file}: {exc.strerror}") from exc
    tool, docs, rels = parse_full(data)
    if not docs:
        raise BadInput(f"{scip_file}: no documents (not a SCIP index?)")
    kept, missing = import_docs(root, conn, snapshot, (tool, docs, rels), digest(data),
                                max_file_bytes, replaces)
    return tool, kept, missing


Parsed = tuple[str, dict[str, list[Occurrence]], list[Relation]]  # what parse_full returns


def import_docs(root: Path, conn: Conn, snapshot: int, parsed: Parsed, stamp: str,
                max_file_bytes: int, replaces: str | None = None, whole: bool = True
                ) -> tuple[int, list[str]]:
    """Keep parsed documents with `snapshot` (as import_scip; `stamp` identifies the
    import): (documents kept, documents whose file is missing or unreadable). Not
    `whole` (a run that covered part of the files): the tool's earlier rows carried into
    the snapshot stay for the files it did not cover (they answer only where the file's
    digest still matches) and its relationships are added to."""
    tool, docs, rels = parsed
    rows: list[tuple[int, str, str, str, str, str]] = []
    missing: list[str] = []
    for path, occs in sorted(docs.items()):
        content = confined.read_or_none(root, path, max_file_bytes)
        if content is None:
            missing.append(path)
            continue
        occ = json.dumps([[o.line, o.col, o.symbol, int(o.definition), o.end_col]
                          for o in occs])
        rows.append((snapshot, path, tool, digest(content), occ, stamp))
    scope = ("", "") if replaces is None else (" AND tool LIKE ?", replaces + "%")
    args: tuple[object, ...] = (snapshot, scope[1]) if scope[1] else (snapshot,)
    conn.execute("BEGIN IMMEDIATE")
    if whole:
        conn.execute("DELETE FROM scip_docs WHERE snapshot = ?" + scope[0], args)
        conn.execute("DELETE FROM scip_rels WHERE snapshot = ?" + scope[0], args)
    if replaces is not None or not whole:  # another tool's earlier rows for these paths give way
        conn.executemany("DELETE FROM scip_docs WHERE snapshot = ? AND path = ?",
                         [(snapshot, r[1]) for r in rows])
    conn.executemany("INSERT INTO scip_docs VALUES(?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT OR IGNORE INTO scip_rels VALUES(?, ?, ?, ?, ?)",
                     [(snapshot, tool, a, b, bits) for a, b, bits in set(rels)])
    conn.execute("COMMIT")
    return len(rows), missing


@dataclass(frozen=True, slots=True)
class ScipIndex:
    """An imported SCIP index: its snapshot, tool, and occurrences with their file's digest."""

    snapshot: int
    tool: str
    documents: dict[str, tuple[str, tuple[Occurrence, ...]]]
    tools: dict[str, str] = field(default_factory=dict)  # path -> the tool of its document
    relations: tuple[Relation, ...] = ()

    @staticmethod
    def newest(conn: Conn, snapshot: int | None) -> tuple[int, str] | None:
        """(snapshot, import) of the newest import at or before `snapshot`: a later
        snapshot uses an earlier import for files whose content is unchanged, until that
        import's snapshot is collected."""
        try:
            row = conn.execute(
                "SELECT snapshot, count(*) || ':' || group_concat(DISTINCT import) FROM "
                "scip_docs WHERE snapshot = (SELECT max(snapshot) FROM scip_docs WHERE "
                "snapshot <= ?) GROUP BY snapshot",
                (snapshot if snapshot is not None else -1,)).fetchone()
        except sqlite3.OperationalError:  # a store made before SCIP imports were kept
            return None
        # The imports' identities: a second tool's import into the same snapshot (the
        # precise pass runs one per language) changes it, so a server reloads.
        return (int(row[0]), str(row[1])) if row else None

    @classmethod
    def load(cls, conn: Conn, snapshot: int) -> ScipIndex:
        docs: dict[str, tuple[str, tuple[Occurrence, ...]]] = {}
        tools: dict[str, str] = {}
        tool = "scip"
        for path, name, dig, occ in conn.execute(
                "SELECT path, tool, digest, occ FROM scip_docs WHERE snapshot = ?", (snapshot,)):
            tool = tools[str(path)] = str(name)
            docs[str(path)] = (str(dig), tuple(
                Occurrence(o[0], o[1], o[2], bool(o[3]), o[4] if len(o) > 4 else -1)
                for o in json.loads(occ)))
        try:
            rels = tuple((str(a), str(b), int(c)) for a, b, c in conn.execute(
                "SELECT symbol, related, bits FROM scip_rels WHERE snapshot = ?", (snapshot,)))
        except sqlite3.OperationalError:  # a store made before relationships were kept
            rels = ()
        return cls(snapshot, tool, docs, tools, rels)
