"""Union and intersection types read as one composite type (syntax/composite.py): the
receiver heads extraction gives TypeScript members used on such receivers."""

from __future__ import annotations

from spyglass.syntax import heads as H
from spyglass.syntax.composite import operands
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

SOURCE = b"""import type { A } from './a'
import * as ns from './ns'
export function f<T extends A & ns.B>(x: A | null, y: A & ns.B, z: string | undefined,
                                      t: T, o: A | { k: 1 }) {
  x.m(); y.m(); z.m(); t.m(); o.m()
  x?.inner!.m()
}
"""


def _heads() -> dict[str, str]:
    facts = extract(all_packs()["typescript"], SOURCE)
    return {r.qualifier: r.head for r in facts.references if r.name == "m"}


def test_a_union_with_null_is_its_one_operand() -> None:
    heads = _heads()
    assert H.parse_instance(H.split(heads["x"])[1]).type_text == "A"


def test_an_intersection_is_a_composite_of_its_operands() -> None:
    heads = _heads()
    for receiver in ("y", "t"):  # declared, and through a type parameter's constraint
        inst = H.parse_instance(H.split(heads[receiver])[1])
        assert inst.type_text == "(A&ns:B)"
        assert operands(inst.type_text) == ["A", "ns.B"]


def test_builtin_or_unknown_operands_leave_the_type_unknown() -> None:
    heads = _heads()
    assert not heads["z"].startswith(H.prefix(H.INST))  # `string | undefined`
    assert not heads["o"].startswith(H.prefix(H.INST))  # an object type operand


def test_optional_and_non_null_members_are_one_path() -> None:
    heads = _heads()
    assert "x.inner" in heads  # `x?.inner!.m()`
    assert H.parse_instance(H.split(heads["x.inner"])[1]).type_text == "A"


def test_operands_of_other_texts() -> None:
    assert operands("A") == []
    assert operands("(A|B|C)") == ["A", "B", "C"]
