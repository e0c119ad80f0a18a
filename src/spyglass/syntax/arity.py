"""Argument counts of calls and parameter counts of definitions, for packs whose queries
capture them (`@arguments`, `@argument`, `@parameters`; docs/languages.md, "Overloads")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

UNKNOWN = -1  # no count: the site or definition is never told apart by it
UNBOUNDED = -1  # the largest count of a variadic definition
_SPACE = b" \t\r\n"
_BRACKETS = frozenset({"(", ")", "[", "]", "{", "}", "<", ">"})


def _items(node: Node) -> list[tuple[int, int]]:
    """The byte spans of a bracketed list's items, split at its top-level `,` tokens:
    each span from the first token after the comma (a keyword such as C#'s `params`
    included) to the last; brackets and comments (a grammar's comment node types say so)
    left out, and a span holding no named node is no item."""
    spans: list[tuple[int, int]] = []
    start = end = -1
    named = False
    for child in [*node.children, None]:
        if child is None or (not child.is_named and child.type == ","):
            if named:
                spans.append((start, end))
            start, end, named = -1, -1, False
            continue
        if "comment" in child.type or (not child.is_named and child.type in _BRACKETS):
            continue
        if start < 0:
            start = child.start_byte
        end = child.end_byte
        named = named or child.is_named
    return spans


def arguments(lists: Iterable[Node], singles: Iterable[Node]) -> dict[int, tuple[int, int]]:
    """Each argument source by its start byte: (end byte, count). `lists` are bracketed
    argument lists (their items counted), `singles` count one each (a trailing lambda)."""
    out = {n.start_byte: (n.end_byte, len(_items(n))) for n in lists}
    out.update({n.start_byte: (n.end_byte, 1) for n in singles})
    return out


def call_count(data: bytes, name_end: int, sources: dict[int, tuple[int, int]]) -> int:
    """The arguments a call passes: the argument sources that follow the called name, one
    right after the other (`f(a)(b)`, `f(a) { … }`), past whitespace and a type-argument
    list (`f<T>(a)`); UNKNOWN when none follows."""
    pos = _skip(data, name_end)
    if pos < len(data) and data[pos] == ord("<"):
        pos = _skip(data, _after_angles(data, pos))
    total = UNKNOWN
    while pos in sources:
        end, n = sources[pos]
        total = n if total == UNKNOWN else total + n
        pos = _skip(data, end)
    return total


def parameter_range(data: bytes, lists: list[Node], variadic: re.Pattern[bytes] | None,
                    optional: re.Pattern[bytes] | None,
                    optional_list: re.Pattern[bytes] | None,
                    empty: re.Pattern[bytes] | None = None) -> tuple[int, int]:
    """(fewest, most) arguments a definition with these parameter lists takes: a parameter
    matching `variadic` (or a bare token of the list matching it: C's `, ...`) makes the
    most UNBOUNDED, one matching `optional` (a default value) or in a list matching
    `optional_list` (Scala's `(implicit …)`) may be left out, and a list whose whole text
    matches `empty` (C's `(void)`) has no parameters."""
    fewest = most = 0
    unbounded = False
    for node in sorted(lists, key=lambda n: n.start_byte):
        whole_text = data[node.start_byte:node.end_byte]
        if empty is not None and empty.fullmatch(whole_text):
            continue
        whole = bool(optional_list and optional_list.search(whole_text))
        if variadic is not None and any(
                not c.is_named and c.type not in _BRACKETS and c.type != ","
                and variadic.search(data[c.start_byte:c.end_byte]) for c in node.children):
            unbounded = True
        for start, end in _items(node):
            text = data[start:end]
            most += 1
            if variadic is not None and variadic.search(text):
                unbounded = True
            elif not whole and not (optional is not None and optional.search(text)):
                fewest += 1
    return fewest, UNBOUNDED if unbounded else most


def admits(fewest: int, most: int, count: int) -> bool:
    """Whether a definition taking fewest..most arguments (most UNBOUNDED: any number)
    can be called with `count` of them."""
    return count >= fewest and (most == UNBOUNDED or count <= most)


def _skip(data: bytes, pos: int) -> int:
    while pos < len(data) and data[pos] in _SPACE:
        pos += 1
    return pos


def _after_angles(data: bytes, pos: int) -> int:
    """The byte after the `>` closing the `<` at `pos` (nesting counted, bounded)."""
    depth = 0
    for i in range(pos, min(len(data), pos + 512)):
        c = data[i]
        if c == ord("<"):
            depth += 1
        elif c == ord(">"):
            depth -= 1
            if depth == 0:
                return i + 1
        elif c in b";{}()":
            break
    return pos
