"""Receiver text as one dotted name: call chains (``New(u).Collector(c)`` → ``New.Collector``)
and wrapped types (the pack's `type_unwrap` patterns), for extraction and resolvers."""

from __future__ import annotations

import re
from collections.abc import Sequence

DOTTED = re.compile(rb"^[A-Za-z_$][\w$]*(?:\s*\.\s*#?[A-Za-z_$][\w$]*)*$")  # `#x`: ECMAScript private


def call_path(raw: bytes, brackets: bytes, mark: bool = False,
              assertions: bool = False) -> bytes:
    """A chain of calls as the dotted path of its callees (the manifest's `call_chains`
    names the bracket pairs to drop): ``New(url, "job").Collector(c)`` → ``New.Collector``,
    whose result types carry a member on to its class; with ``[]`` also ``ms[i].Desc`` →
    ``ms.Desc`` (a container stands for its element type). With `assertions` (the
    manifest's `call_chains_type_assertions`), a type assertion starts the path afresh at
    its type (Go ``x.(*T).M`` → ``T.M``). b"" when anything else separates the
    names (a parenthesised expression, an operator, a literal). With `mark`, each dropped
    argument list leaves ``()`` (``app.test_client().open`` → ``app.test_client()``), and a
    call of a call's result stays a chain (``f(x)().m`` → ``f()()``, as unmarked ``f.m``)."""
    out = bytearray()
    assertion = bytearray()
    depth = 0
    quote = 0
    opens, closes = brackets[0::2], brackets[1::2]
    for c in raw:
        if quote:
            if c == quote:
                quote = 0
        elif c in b"\"'`":
            if not depth:
                return b""
            quote = c  # escapes inside literals are not followed: the path is dropped
        elif c in opens:
            if not depth:
                if assertions and out.endswith(b".") and c == 0x28:  # `.(T)`
                    assertion.clear()
                    depth = -1
                    continue
                if not out or not (out[-1:].isalnum() or out[-1:] in b"_$]"
                                   or (mark and out.endswith(b"()"))):
                    return b""  # a parenthesised expression, not a call or an index
            depth += 1
        elif c in closes:
            if depth == -1:
                out[:] = assertion.lstrip(b"*").strip()
                depth = 0
                continue
            depth -= 1
            if depth < 0:
                return b""
            if mark and not depth and c == 0x29:
                out += b"()"
        elif depth == -1:
            assertion.append(c)
        elif not depth:
            out.append(c)
    return bytes(out) if not depth and not quote else b""


def unwrap_type(text: str, patterns: Sequence[re.Pattern[str]]) -> str:
    """A type written without spaces as one dotted name: the pack's `type_unwrap` patterns
    (optional wrappers, pointers, quotes, generics) applied until none matches; "" if what
    is left is not a dotted name."""
    changed = True
    while changed and text:
        changed = False
        for pattern in patterns:
            m = pattern.fullmatch(text)
            if m:
                text, changed = m.group(1), True
    return text if DOTTED.match(text.encode()) else ""
