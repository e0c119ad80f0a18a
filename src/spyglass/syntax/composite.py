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
    """The operands of a composite type text ``(A|ns:B)`` (or ``(A,B)``, `each_of`) as
    dotted names (``A``, ``ns.B``); [] for any other text."""
    if not text.startswith("(") or not text.endswith(")"):
        return []
    inner = text[1:-1].replace("&", "|").replace(EACH, "|")
    return [p.replace(":", ".") for p in inner.split("|") if p]


# An array literal of named values whose every element a callback is given in turn
# (`[A, B].forEach(k => k.m())`): ``(A,B)``, a member of it is each operand's member,
# reached on every run (the resolver proves it where each operand is a named type).
EACH = ","


_NAMED = re.compile(rb"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")


def each_of(node: Node, type_text: Callable[[Node], str]) -> str:
    """An array literal's elements (`[A, ns.B]`) as ``(A,ns:B)``, one element as its own
    name; "" when an element is not a dotted name (a call, a spread, a literal)."""
    parts: list[str] = []
    for child in node.named_children:
        text = type_text(child) if _NAMED.fullmatch(child.text or b"") else ""
        if not text or "#" in text:
            return ""
        if text not in parts:
            parts.append(text)
    if len(parts) < 2:
        return parts[0] if parts else ""
    return "(" + EACH.join(p.replace(".", ":") for p in parts) + ")"


def is_each(text: str) -> bool:
    """Whether a composite type text is an array literal's elements (`each_of`)."""
    return text.startswith("(") and EACH in text.split(")", 1)[0]


# A declared container type as a mark on a definition's bases (manifest `element_containers`,
# `value_containers`): ``[]E`` holds elements E (`Array<E>`, `E[]`, `Set<E>`), ``[:]V`` a
# map's values V (`Map<K, V>`); nested as written (`Map<K, E[]>` is ``[:][]E``).
ELEMENTS, VALUES = "[]", "[:]"
# An array literal of the values named (`[json, form]`): ``[=]json`` per element.
LITERAL = "[=]"
# A declared parameter type as a base, ``$i=Type`` (syntax/contextual.py).
PARAM_MARK = "$"
# A parameter's mark as a base (``$0=Type``) and as a path's segment (``f.$0``): `$` and
# a number, never a member whose name starts with `$` (`editor.$pos`).
_PARAM_BASE = re.compile(r"\$\d+=")
_PARAM_SEGMENT = re.compile(r"\.\$\d+(?:\.|$)")


def is_param_base(base: str) -> bool:
    """Whether a base is a declared parameter type's mark (``$0=Type``)."""
    return _PARAM_BASE.match(base) is not None


def has_param_segment(path: str) -> bool:
    """Whether a type path goes through a parameter typed by context (``f.$0.x``)."""
    return _PARAM_SEGMENT.search(path) is not None


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
