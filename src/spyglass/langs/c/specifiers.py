"""C macros that expand to declaration specifiers only (`#define STATIC static inline`; docs/c.md).

The include walk (syntax/include_walk.py) collects every object-like macro's bodies; the
ones made of storage classes, `inline`, attributes and other such macros, or of nothing,
are expanded in the text the grammar reads (syntax/expansions.py), so that `STATIC int
f(…)` is a static function and `API` before a prototype no longer hides it.
"""

from __future__ import annotations

import re

from spyglass.syntax.conditionals import MAX_EXPANSION

# What an object-like macro may expand to and still be read as declaration specifiers
# (`#define STATIC static inline`, `#define API __attribute__((visibility("default")))`).
SPECIFIERS = frozenset({"static", "inline", "extern", "__inline", "__inline__",
                         "__forceinline", "_Noreturn", "__thread", "_Thread_local"})
ATTRIBUTE = re.compile(r"\b(?:__attribute__\s*\(\(.*\)\)|__declspec\s*\([^()]*\))")
_SPECIFIER_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")  # a macro's name, upper case
_UPPER_NAME = re.compile(rb"(?<![\w])[A-Z_][A-Z0-9_]*(?![\w])")
_DIRECTIVE_LINE = re.compile(rb"(?m)^[ \t]*#.*$")


def specifier_macros(bodies: dict[str, frozenset[str]]) -> dict[str, bool]:
    """The object-like macros every body of which (`bodies`: as the include walk met them)
    is declaration specifiers only: storage classes, `inline`, `__attribute__((…))`,
    `__declspec(…)`, other such macros, or nothing (`#define EXPORT_SYM`). True when every
    expansion holds `static` (`#define STATIC static inline`): the function it declares is
    its file's; a macro static under one unit's macros and not another's is not."""
    out: dict[str, bool] = {}

    def kind(name: str, depth: int) -> bool | None:  # static, not static, None: no specifier
        if name in out:
            return out[name]
        found = bodies.get(name)
        if found is None or depth > MAX_EXPANSION:
            return None
        statics: set[bool] = set()
        for body in found:
            words = ATTRIBUTE.sub(" ", body).split()
            parts = [w == "static" if w in SPECIFIERS else kind(w, depth + 1) for w in words]
            if None in parts:
                return None
            statics.add(any(parts))
        return statics == {True}
    for name in bodies:
        if _SPECIFIER_NAME.fullmatch(name) and (got := kind(name, 0)) is not None:
            out[name] = got
    return out


def static_under(name: str, values: dict[str, str | None], depth: int = 0) -> bool:
    """Whether the macro `name`, with the values it and its body's macros have in one
    unit (`values`), expands to `static` (`KECCAK_API` → `static inline` after `#define
    KECCAK_EMBEDDED`)."""
    value = values.get(name)
    if not value or depth > MAX_EXPANSION:
        return False
    return any(w == "static" or (w not in SPECIFIERS and static_under(w, values, depth + 1))
               for w in ATTRIBUTE.sub(" ", value).split())


def used(data: bytes, specifiers: dict[str, bool],
         values: dict[str, str | None] | None = None) -> list[str]:
    """The SPECIFIER_MACROS setting for a file's text (syntax/expansions.py): the
    specifier macros its code (not its directives) names, `NAME=static` for those that
    expand to `static` (under one unit's macro `values` when given)."""
    if not specifiers:
        return []
    code = set(_UPPER_NAME.findall(_DIRECTIVE_LINE.sub(b"", data)))
    out = []
    for n, static in specifiers.items():
        if n.encode() in code:
            if values is not None:
                static = static_under(n, values)
            out.append(f"{n}=static" if static else n)
    return out
