"""Lexical scopes of one extraction and the node-text helpers its parts share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

SPACE = re.compile(r"\s+")
SEPARATORS = b" \t\r\n.?:->"  # what may follow a receiver before its member


@dataclass
class Scope:
    start: int
    end: int
    kind: str  # "func" | "class"
    parent: int = -1
    owner: int = -1  # definition index whose node is this scope
    bindings: dict[str, str] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)  # bound in an enclosing function
    types: dict[str, tuple[str, int]] = field(default_factory=dict)  # name → (type, scope)


def node_text(node: Node) -> str:
    """A node's source text (undecodable bytes replaced)."""
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""
