"""Keys destructured from a value (`const { a, b: c } = recv`): reads of the value's members."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

# The end of a receiver constructed in place (`new C(…)`): the use's type is C.
CONSTRUCTED = b".\0"

# Wrappers between a key and the pattern it sits in (`{ a: b }`, `{ a = 1 }`).
_WRAPPERS = frozenset({"pair_pattern", "object_assignment_pattern"})


def destructured_keys(nodes: Iterable[Node], data: bytes) -> dict[int, bytes]:
    """For each @destructured key, the text of the value it is taken from followed by a
    separator, as a receiver written before a member would be (`recv.`; `new C(…)` as
    ``C`` and CONSTRUCTED): the key's pattern must be the declaration's own name (one level, not a
    nested pattern)."""
    out: dict[int, bytes] = {}
    for n in nodes:
        pattern = n.parent
        if pattern is not None and pattern.type in _WRAPPERS:
            pattern = pattern.parent
        holder = pattern.parent if pattern is not None else None
        if holder is None or pattern is None:
            continue
        name = holder.child_by_field_name("name")
        value = holder.child_by_field_name("value")
        if name is None or value is None or name.start_byte != pattern.start_byte:
            continue
        built = value.child_by_field_name("constructor") if value.type == "new_expression" \
            else None
        if built is not None:  # `new C(…)`: a member of an instance of C (CONSTRUCTED)
            out[n.start_byte] = data[built.start_byte:built.end_byte] + CONSTRUCTED
        else:
            out[n.start_byte] = data[value.start_byte:value.end_byte] + b"."
    return out
