"""Composite types (unions, intersections) as one type text: ``(A|B)``, ``(A&B)`` or one operand; containers as marks (``[]E``, ``[:]V``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from tree_sitter import Node


def composite(node: Node, operators: Mapping[str, str], skipped: frozenset[str],
              type_text: Callable[[Node], str]) -> str:
    """A union, intersection or parenthesized type (the manifest's `type_operators`: node
    type → operator, "" for brackets) as its operands' types (`type_text` of each), those
    of `type_operands_skipped` left out (`A | null` is A). Several operands make the
    composite ``(A|B)`` or ``(A&B)`` (a dot in an operand written ``:``, so that the text
    stays one name of a dotted path), whose members are each operand's (the resolver's
    aliases, docs/accuracy.md); "" when an operand is not a dotted name (an object or a
    function type: the type is unknown)."""
    leaves: list[Node] = []
    ops: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        op = operators.get(n.type)
        if op is None:
            leaves.append(n)
            continue
        if op:
            ops.add(op)
        stack.extend(reversed(n.named_children))
    parts: list[str] = []
    for leaf in leaves:
        if leaf.type in skipped:
            continue
        text = type_text(leaf)
        if not text:
            return ""
        if text not in parts:
            parts.append(text)
    if len(parts) < 2:  # `A | null` is A; `string | undefined` stays unknown
        return parts[0] if parts else ""
    op = "|" if "|" in ops else "&"
    return "(" + op.join(p.replace(".", ":") for p in parts) + ")"


def operands(text: str) -> list[str]:
    """The operands of a composite type text ``(A|ns:B)`` as dotted names (``A``,
    ``ns.B``); [] for any other text."""
    if not text.startswith("(") or not text.endswith(")"):
        return []
    return [p.replace(":", ".") for p in text[1:-1].replace("&", "|").split("|") if p]


# A declared container type as a mark on a definition's bases (manifest `element_containers`,
# `value_containers`): ``[]E`` holds elements E (`Array<E>`, `E[]`, `Set<E>`), ``[:]V`` a
# map's values V (`Map<K, V>`); nested as written (`Map<K, E[]>` is ``[:][]E``).
ELEMENTS, VALUES = "[]", "[:]"
# An array literal of the values named (`[json, form]`): ``[=]json`` per element.
LITERAL = "[=]"
# A declared parameter type as a base, ``$i=Type`` (syntax/contextual.py).
PARAM_MARK = "$"


def container_mark(text: str, elements: Sequence[re.Pattern[str]],
                   values: Sequence[re.Pattern[str]], unwrap: Callable[[str], str]) -> str:
    """The container mark of a type written without spaces (``[:][]Job`` for
    `Map<string,Array<Job>>`), the innermost type reduced by `unwrap` to a dotted name;
    "" when the type is no container or what it holds is not a dotted name."""
    mark = ""
    while True:
        for prefix, patterns in ((VALUES, values), (ELEMENTS, elements)):
            m = next((m for p in patterns if (m := p.fullmatch(text))), None)
            if m is not None:
                mark, text = mark + prefix, m.group(1)
                break
        else:
            break
    held = unwrap(text) if mark else ""
    return mark + held if held else ""


def split_mark(base: str) -> tuple[str, str]:
    """(marks, held type) of a base: ("[:][]", "Job") for ``[:][]Job``; ("", base) for a
    base without a container mark."""
    if base.startswith(LITERAL):
        return LITERAL, base[len(LITERAL):]
    i = 0
    while base.startswith(VALUES, i) or base.startswith(ELEMENTS, i):
        i += len(VALUES) if base.startswith(VALUES, i) else len(ELEMENTS)
    return base[:i], base[i:]


def container_aliases(full: str, mark: str, held: str, element_members: Sequence[str],
                      value_members: Sequence[str]) -> list[tuple[str, str]]:
    """Wildcard aliases for a member `full` declared with a container type: a container of
    elements stands for its element (``full.*`` → ``held.*``, `held` a full name), and its
    members that return an element or a like container (`find`, `at`, `filter`, …) keep
    it (``full.find.*`` → ``full.*``); a map's value-returning members (`get`, `values`)
    hold what its values are (``full.get.*`` → …)."""
    if mark.startswith(VALUES):
        out: list[tuple[str, str]] = []
        for m in value_members:
            out += container_aliases(f"{full}.{m}", mark[len(VALUES):], held,
                                     element_members, value_members)
        return out
    if mark == LITERAL:  # the literal stands for its elements, like a declared container
        mark = ELEMENTS
    if mark.startswith(ELEMENTS):
        inner = mark[len(ELEMENTS):]
        if inner:  # an array of arrays, of maps: not followed
            return []
        return [(f"{full}.*", f"{held}.*")] + [(f"{full}.{m}.*", f"{full}.*")
                                                for m in element_members]
    return [(f"{full}.*", f"{held}.*")] if held else []
