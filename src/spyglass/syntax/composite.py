"""Composite types (unions, intersections) as one type text: ``(A|B)``, ``(A&B)`` or one operand."""

from __future__ import annotations

from collections.abc import Callable, Mapping

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
