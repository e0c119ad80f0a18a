"""Macro uses rewritten before parsing, lines and columns kept (docs/c.md "Preprocessor conditions").

Two kinds of macros the include walk (syntax/conditionals.py) finds are expanded in the text
the grammar reads, because the grammar cannot read them where they stand: a function-like
macro that expands to nothing has its arguments blanked (`__contract__(requires(…))`), and
an object-like macro that expands only to declaration specifiers (`#define STATIC static
inline`, `#define MLD_INTERNAL_API`) is replaced by `static` when its expansion holds it,
else blanked, so that `STATIC int f(…)` is a static function and `API\\nvoid f(…);` a
prototype. The names are given per file by the resolver (file context settings).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The setting naming function-like macros that leave arguments out of their expansion, with
# those arguments' positions: `__contract__:0;MLD_FREE:1` (syntax/include_walk.py).
EMPTY_MACROS = "empty_macros"
# The setting naming object-like macros that expand to declaration specifiers only (comma
# list; `NAME=static` when the expansion holds `static`).
SPECIFIER_MACROS = "specifier_macros"
_STATIC = b"static"


def prepared(data: bytes, settings: Iterable[tuple[str, str]]) -> bytes:
    """The text the grammar reads for a file with these context settings: `data` with the
    empty macros' arguments blanked and the specifier macros expanded (same length)."""
    found = dict(settings)
    empty, specifiers = found.get(EMPTY_MACROS), found.get(SPECIFIER_MACROS)
    if empty:
        data = blank_arguments(data, empty.split(";"))
    if specifiers:
        data = expand_specifiers(data, specifiers.split(","))
    return data


WORD = re.compile(rb"[A-Za-z_$][\w$]*")
BLANKED = "blanked"  # FileFacts.tokens' reason of a word `prepared` changed


def blanked_tokens(data: bytes, read: bytes, why: str = BLANKED
                   ) -> tuple[tuple[str, str, str], ...]:
    """The words of `data` that `prepared` blanked or replaced in `read` (the grammar
    never saw them; every word when `read` is empty), as FileFacts.tokens rows (name,
    `why`, places)."""
    if read == data:
        return ()
    out: dict[bytes, list[str]] = {}
    line, line_start = 1, 0
    for m in WORD.finditer(data):
        start, end = m.span()
        if read[start:end] == data[start:end]:
            continue
        line += data.count(b"\n", line_start, start)
        line_start = data.rfind(b"\n", 0, start) + 1
        out.setdefault(m.group(), []).append(f"{line}:{start - line_start}")
    return tuple((name.decode("utf-8", "replace"), why, " ".join(places))
                 for name, places in out.items())


def _on_directive(data: bytes, at: int) -> bool:
    line_start = data.rfind(b"\n", 0, at) + 1
    return data[line_start:at].lstrip().startswith(b"#")


def blank_arguments(data: bytes, entries: Iterable[str]) -> bytes:
    """`data` with the arguments each invocation of a macro leaves out blanked (spaces for
    every byte but newlines, so lines and columns stay); `entries` are `NAME` (every
    argument: a macro that expands to nothing) or `NAME:1,3` (the positions left out)."""
    wanted: dict[bytes, frozenset[int] | None] = {}
    for entry in entries:
        name, colon, at = entry.partition(":")
        if name:
            wanted[name.encode()] = frozenset(int(i) for i in at.split(",") if i.isdigit()) \
                if colon else None
    if not wanted:
        return data
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(n) for n in wanted) + rb")\s*\(")
    out = bytearray(data)
    pos = 0
    while (m := pattern.search(data, pos)) is not None:
        if _on_directive(data, m.start()):
            pos = m.end()  # the macro's own `#define`, or a directive: kept
            continue
        end = _closing(data, m.end())
        if end < 0:
            break  # unbalanced: left as it is
        for lo, hi in _arguments(data, m.end(), end, wanted[m.group(1)]):
            for j in range(lo, hi):
                if out[j] != 0x0A:
                    out[j] = 0x20
        pos = end + 1
    return bytes(out)


def _closing(data: bytes, at: int) -> int:
    """The offset of the `)` closing the argument list that starts at `at`, or -1."""
    depth, i = 1, at
    while i < len(data):
        c = data[i]
        if c in (0x22, 0x27):  # a string or character literal: skipped
            i = _literal_end(data, i)
            continue
        depth += (c == 0x28) - (c == 0x29)
        if not depth:
            return i
        i += 1
    return -1


def _literal_end(data: bytes, at: int) -> int:
    quote, i = data[at], at + 1
    while i < len(data) and data[i] not in (quote, 0x0A):
        i += 2 if data[i] == 0x5C else 1
    return i + 1


def _arguments(data: bytes, start: int, end: int, positions: frozenset[int] | None
               ) -> list[tuple[int, int]]:
    """The byte ranges of the arguments at `positions` (None: all of them) in the argument
    list `start`..`end` (top-level commas split it)."""
    if positions is None:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    depth, i, lo, n = 0, start, start, 0
    while i < end:
        c = data[i]
        if c in (0x22, 0x27):
            i = _literal_end(data, i)
            continue
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == 0x2C and depth == 0:
            if n in positions:
                out.append((lo, i))
            lo, n = i + 1, n + 1
        i += 1
    if n in positions:
        out.append((lo, end))
    return out


def expand_specifiers(data: bytes, entries: Iterable[str]) -> bytes:
    """`data` with each use of the named object-like macros (`NAME` or `NAME=static`, the
    SPECIFIER_MACROS setting) outside directives replaced: by `static` padded with spaces
    when the expansion holds it and the name is as long, else by spaces."""
    static: dict[bytes, bool] = {}
    for entry in entries:
        name, _, what = entry.partition("=")
        if name:
            static[name.encode()] = what == "static"
    if not static:
        return data
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(static)) + rb")\b")
    out = bytearray(data)
    for m in pattern.finditer(data):
        if _on_directive(data, m.start()):
            continue  # the macro's own `#define`, an `#ifdef`: kept
        word = m.group(0)
        text = _STATIC if static[word] and len(word) >= len(_STATIC) else b""
        out[m.start():m.end()] = text.ljust(len(word))
    return bytes(out)
