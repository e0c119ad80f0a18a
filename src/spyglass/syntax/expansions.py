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

EMPTY_MACROS = "empty_macros"  # the setting naming macros that expand to nothing (comma list)
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
        data = blank_arguments(data, empty.split(","))
    if specifiers:
        data = expand_specifiers(data, specifiers.split(","))
    return data


def _on_directive(data: bytes, at: int) -> bool:
    line_start = data.rfind(b"\n", 0, at) + 1
    return data[line_start:at].lstrip().startswith(b"#")


def blank_arguments(data: bytes, names: Iterable[str]) -> bytes:
    """`data` with the arguments of each invocation of `names` (macros that expand to
    nothing) blanked: spaces for every byte but newlines, so lines and columns stay."""
    wanted = [n for n in names if n]
    if not wanted:
        return data
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in wanted) +
                         rb")\s*\(")
    out = bytearray(data)
    pos = 0
    while (m := pattern.search(data, pos)) is not None:
        if _on_directive(data, m.start()):
            pos = m.end()  # the macro's own `#define`, or a directive: kept
            continue
        depth, i = 1, m.end()
        while i < len(data) and depth:
            c = data[i]
            depth += (c == 0x28) - (c == 0x29)
            i += 1
        if depth:
            break  # unbalanced: left as it is
        for j in range(m.end(), i - 1):
            if out[j] != 0x0A:
                out[j] = 0x20
        pos = i
    return bytes(out)


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
