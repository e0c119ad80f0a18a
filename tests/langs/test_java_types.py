"""Java argument typing for overloads (langs/java/types.py): what may be passed where."""

from __future__ import annotations

import pytest
import tree_sitter_java
from tree_sitter import Language, Node, Parser

from spyglass.langs.java.types import argument_types, assignable, parameter_types

PARSER = Parser(Language(tree_sitter_java.language()))


@pytest.mark.parametrize(("arg", "param", "want"), [
    ("int", "int", True), ("int", "long", True), ("char", "int", True),
    ("long", "int", False), ("double", "float", False), ("int", "boolean", False),
    ("int", "Integer", True), ("int", "Object", True), ("int", "Number", True),
    ("int", "Long", False), ("int", "byte[]", False), ("int", "ByteBuffer", False),
    ("Integer", "long", True), ("Integer", "short", False), ("String", "int", False),
    ("byte[]", "byte[]", True), ("byte[]", "int[]", False), ("byte[]", "Object", True),
    ("byte[]", "ByteBuffer", False), ("String", "CharSequence", True),
    ("String", "ByteBuffer", False), ("null", "int", False), ("null", "String", True),
    ("Foo", "Bar", None), ("Foo", "int", None), (None, "int", None),
])
def test_assignable(arg: str | None, param: str, want: bool | None) -> None:
    assert assignable(arg, param) is want


SOURCE = b"""
class A<T> {
    private long total;
    void f(int n, byte[] buf, T t, java.util.List<String> xs) {
        char c = 'x';
        var v = 1;
        g(n, buf, t, xs, 7L, 1.5f, "s", c, v, (short) n, new byte[4], this.total + 1, n > 0);
    }
    void g(int a, byte[] b, T t, java.util.List<String> xs, long... rest) { }
    void h(int a, java.nio.ByteBuffer b) { }
}
"""


def _named(name: bytes, nth: int = 0) -> Node:
    found = []
    stack = [PARSER.parse(SOURCE).root_node]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text == name:
            found.append(node)
        stack.extend(reversed(node.children))
    return found[nth]


def test_argument_types_from_literals_casts_and_declarations() -> None:
    call = _named(b"g")
    assert argument_types(call) == (
        "int", "byte[]", None, "List", "long", "float", "String", "char", None, "short",
        "byte[]", "long", "boolean")


def test_parameter_types() -> None:
    assert parameter_types(_named(b"h")) == ("int", "ByteBuffer")
    assert parameter_types(_named(b"g", 1)) is None  # variadic: not typed
