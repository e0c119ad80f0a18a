"""SCIP writing (docs/indexing.md "SCIP export"): the symbol grammar (scheme, package,
descriptors, escaped names) and a minimal protobuf wire writer for the messages spyglass
exports, by field number — the same style as the reader in index/scip.py; no schema copied
(ARCHITECTURE.md "Dependencies" says why no generated binding is used)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

SCHEME = "spyglass"
ROLE_DEFINITION, ROLE_IMPORT, ROLE_WRITE, ROLE_READ = 0x1, 0x2, 0x4, 0x8
UTF8_POSITIONS = 1  # PositionEncoding.UTF8CodeUnitOffsetFromLineStart (columns are bytes)
UTF8_TEXT = 1  # TextEncoding.UTF8
# SymbolInformation.Kind by definition kind (types.DEF_KINDS; "test" is a function).
KINDS = {"func": 17, "test": 17, "method": 26, "class": 7, "struct": 49, "interface": 21,
         "type": 54, "enum": 11, "const": 8, "var": 61, "field": 15, "module": 29,
         "package": 35, "macro": 25}
# The descriptor suffix of each definition kind: type `#`, method `().`, term `.`,
# namespace `/`, macro `!`.
SUFFIXES = {"class": "#", "struct": "#", "interface": "#", "type": "#", "enum": "#",
            "func": "().", "method": "().", "test": "().", "const": ".", "var": ".",
            "field": ".", "module": "/", "package": "/", "macro": "!"}
ROLES = {"import": ROLE_IMPORT, "write": ROLE_WRITE, "read": ROLE_READ, "call": ROLE_READ,
         "type": ROLE_READ, "ref": ROLE_READ}
_SIMPLE = re.compile(r"[A-Za-z0-9_+$-]+")


def name(text: str) -> str:
    """A descriptor name: as is when simple, else in backticks (backticks doubled)."""
    if _SIMPLE.fullmatch(text):
        return text
    return "`" + text.replace("`", "``") + "`"


def package_part(text: str) -> str:
    """A package field (manager, name, version): spaces doubled, `.` when empty."""
    return text.replace(" ", "  ") if text else "."


def package(manager: str, package_name: str, version: str) -> str:
    return " ".join(package_part(p) for p in (manager, package_name, version))


def namespace(module: str) -> str:
    """A module name as namespace descriptors: a path's folders (`web/src/shapes` →
    `web/src/shapes/`, `example.com/tool` → `` `example.com`/tool/ ``), else its dotted
    parts (`flask.json` → `flask/json/`)."""
    parts = module.split("/") if "/" in module else module.split(".")
    return "".join(name(part) + "/" for part in parts if part)


def descriptor(kind: str, text: str) -> str:
    """One definition's descriptor: its name and the suffix of its kind."""
    return name(text) + SUFFIXES.get(kind, ".")


# -- protobuf wire format ------------------------------------------------------------------
def varint(value: int) -> bytes:
    if value < 0:
        value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def blob(number: int, data: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return varint(number << 3 | 2) + varint(len(data)) + data


def text(number: int, value: str) -> bytes:
    return blob(number, value.encode("utf-8")) if value else b""


def integer(number: int, value: int) -> bytes:
    """A varint field (wire type 0); proto3 leaves zero out."""
    return varint(number << 3) + varint(value) if value else b""


def packed(number: int, values: Iterable[int]) -> bytes:
    return blob(number, b"".join(varint(v) for v in values))


@dataclass(frozen=True, slots=True)
class Occ:
    """One occurrence: 0-based line, byte columns, symbol, roles."""

    line: int
    col: int
    end_col: int
    symbol: str
    roles: int


@dataclass(frozen=True, slots=True)
class Info:
    """One SymbolInformation: a symbol defined in the document."""

    symbol: str
    display_name: str
    kind: int
    enclosing: str


# Field numbers (scip.proto): Index.metadata 1, documents 2; Metadata.version 1, tool_info 2,
# project_root 3, text_document_encoding 4; ToolInfo.name 1, version 2, arguments 3;
# Document.relative_path 1, occurrences 2, symbols 3, language 4, position_encoding 6;
# Occurrence.range 1, symbol 2, symbol_roles 3; SymbolInformation.symbol 1, kind 5,
# display_name 6, enclosing_symbol 8.
def metadata(tool: str, version: str, arguments: list[str], project_root: str) -> bytes:
    tool_info = text(1, tool) + text(2, version) + b"".join(text(3, a) for a in arguments)
    body = blob(2, tool_info) + text(3, project_root) + integer(4, UTF8_TEXT)
    return blob(1, body)


def occurrence(o: Occ) -> bytes:
    return packed(1, (o.line, o.col, o.end_col)) + text(2, o.symbol) + integer(3, o.roles)


def info(i: Info) -> bytes:
    return text(1, i.symbol) + integer(5, i.kind) + text(6, i.display_name) + \
        text(8, i.enclosing)


def document(path: str, language: str, occs: list[Occ], infos: list[Info]) -> bytes:
    """One Document, as the Index field that holds it."""
    body = [text(1, path)]
    body += [blob(2, occurrence(o)) for o in occs]
    body += [blob(3, info(i)) for i in infos]
    body += [text(4, language), integer(6, UTF8_POSITIONS)]
    return blob(2, b"".join(body))
