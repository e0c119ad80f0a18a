"""Element types of containers (manifest `element_types`): what iterating, unpacking or
subscripting a container yields, read from the container's declared type.

`list[Item]`, `Sequence[Item]` and `tuple[Item, ...]` yield an Item; `dict[str, Item]`
yields its keys, `.values()` an Item, `.items()` a `tuple[str, Item]`, which a loop target
unpacks by position (`for name, item in d.items()`); `tuple[A, B]` yields A and B by
position. Optional wrappers (`Optional[X]`, `X | None`, `Final[X]`) are read through. A
local list given only one kind of value (`xs = []` then `xs.append(Item(…))`) declares
`list[Item]` (the extractor writes that text). Anything else yields "" (unknown): the use
is then what it was without this module, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spyglass.syntax.langpack import names_in


@dataclass(frozen=True, slots=True)
class ElementRules:
    """The pack's container names and the methods and calls that yield their elements."""

    sequences: frozenset[str]  # generic names whose first argument is the element
    mappings: frozenset[str]  # generic names of (key, value): iterating yields keys
    tuples: frozenset[str]  # positional: `tuple[A, B]`; `tuple[A, ...]` a sequence of A
    wrappers: frozenset[str]  # read through: the first argument (`Optional[X]`)
    views: Mapping[str, str]  # method → "keys" | "values" | "items" (`d.values()`)
    passthrough: frozenset[str]  # calls yielding their argument's elements: `sorted(xs)`
    enumerate: frozenset[str]  # calls yielding (index, element) pairs
    declared: frozenset[str]  # grammar nodes of a declared type (an annotation)
    comprehensions: frozenset[str] = frozenset()  # literal nodes never appended to
    member: str = ""  # the segment naming an element in a type path (`f.__element__`)
    none: str = "None"

    @staticmethod
    def of(manifest: Mapping[str, object]) -> ElementRules | None:
        raw = manifest.get("element_types")
        if not isinstance(raw, Mapping):
            return None

        def names(key: str) -> frozenset[str]:
            return names_in(raw, key)
        views = raw.get("views", {})
        return ElementRules(
            names("sequences"), names("mappings"), names("tuples"), names("wrappers"),
            {str(k): str(v) for k, v in views.items()} if isinstance(views, Mapping) else {},
            names("passthrough"), names("enumerate"), names("declared"),
            names("comprehensions"), str(raw.get("member", "")))


def split_generic(text: str) -> tuple[str, list[str]]:
    """`Name[a, b[c, d]]` → ("Name", ["a", "b[c, d]"]); a text that is not a generic →
    (text, []). Spaces must already be removed."""
    at = text.find("[")
    if at <= 0 or not text.endswith("]"):
        return text, []
    return text[:at], top_level(text[at + 1:-1], ",")


def top_level(text: str, sep: str) -> list[str]:
    """`text` split at the `sep` characters outside brackets (empty parts left out)."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif c == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [p for p in out if p]


def _bare(rules: ElementRules, text: str) -> str:
    """The type without quotes, optional wrappers and a `| None` operand."""
    for _ in range(8):
        text = text.strip("\"'")
        parts = [p for p in top_level(text, "|") if p != rules.none]
        if len(parts) != 1:
            return ""
        text = parts[0]
        name, args = split_generic(text)
        if name.rsplit(".", 1)[-1] in rules.wrappers and args:
            text = args[0]
            continue
        return text
    return ""


def element(rules: ElementRules, declared: str, view: str = "") -> str:
    """What iterating a container of type `declared` yields (`view`: through one of the
    rules' view methods, "keys" / "values" / "items"; "subscript": `x[k]`); "" unknown.
    A pair of key and value is written `tuple[K,V]`."""
    name, args = split_generic(_bare(rules, declared))
    last = name.rsplit(".", 1)[-1]
    if not args:
        return ""
    if last in rules.mappings and len(args) == 2:
        if view == "values" or view == "subscript":
            return args[1]
        if view == "items":
            return f"tuple[{args[0]},{args[1]}]"
        return args[0]
    if view not in ("", "subscript"):
        return ""
    if last in rules.sequences:
        return args[0]
    if last in rules.tuples and len(args) == 2 and args[1] == "...":
        return args[0]
    return ""


def component(rules: ElementRules, text: str, position: int, count: int) -> str:
    """The type of the `position`-th of `count` names unpacking a value of type `text`
    (`for k, v in d.items()`): a tuple of that many types, or `tuple[X, ...]`."""
    name, args = split_generic(_bare(rules, text))
    if name.rsplit(".", 1)[-1] not in rules.tuples:
        return ""
    if len(args) == 2 and args[1] == "...":
        return args[0]
    return args[position] if len(args) == count else ""
