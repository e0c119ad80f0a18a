"""Element types read from declared container types (syntax/elements.py), with the Python
pack's rules."""

from __future__ import annotations

import pytest

from spyglass.syntax.elements import ElementRules, component, element, split_generic
from spyglass.syntax.langpack import all_packs


@pytest.fixture(scope="module")
def rules() -> ElementRules:
    found = ElementRules.of(all_packs()["python"].manifest)
    assert found is not None
    return found


def test_split_generic_keeps_nested_arguments_whole() -> None:
    assert split_generic("dict[str,list[tuple[A,B]]]") == ("dict", ["str", "list[tuple[A,B]]"])
    assert split_generic("Item") == ("Item", [])


@pytest.mark.parametrize(("declared", "view", "want"), [
    ("list[Item]", "", "Item"),
    ("t.Sequence[pkg.Item]", "", "pkg.Item"),
    ("Optional[list[Item]]", "", "Item"),
    ("list[Item]|None", "", "Item"),
    ("'list[Item]'", "", "Item"),
    ("tuple[Item,...]", "", "Item"),
    ("tuple[Item,Other]", "", ""),  # positional: only unpacking says which
    ("dict[str,Item]", "", "str"),
    ("dict[str,Item]", "values", "Item"),
    ("dict[str,Item]", "subscript", "Item"),
    ("t.Mapping[str,Item]", "items", "tuple[str,Item]"),
    ("list[Item]", "values", ""),  # a list has no values view
    ("list", "", ""),  # no argument: unknown
    ("Item|Other", "", ""),  # a union of two: unknown
])
def test_element(rules: ElementRules, declared: str, view: str, want: str) -> None:
    assert element(rules, declared, view) == want


def test_component_by_position(rules: ElementRules) -> None:
    assert component(rules, "tuple[Blueprint,dict[str,t.Any]]", 0, 2) == "Blueprint"
    assert component(rules, "tuple[Blueprint,dict[str,t.Any]]", 1, 2) == "dict[str,t.Any]"
    assert component(rules, "tuple[A,B,C]", 0, 2) == ""  # the counts differ: unknown
    assert component(rules, "tuple[A,...]", 1, 2) == "A"
    assert component(rules, "list[A]", 0, 2) == ""
