"""Union and intersection types read as one composite type (syntax/composite.py): the
receiver heads extraction gives TypeScript members used on such receivers."""

from __future__ import annotations

from spyglass.syntax import heads as H
from spyglass.syntax.composite import container_aliases, operands, split_mark
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


CONTAINERS = b"""export class Queue {
  byScope: Map<string, Array<Job<any, any>>>
  seen: ReadonlySet<Job>
  names: Map<string, string>
  list(): Job[] { return [] }
  plain: Job
  run(job: Job, n: number, cb: (j: Job) => void): void {}
}
"""


def test_declared_containers_mark_what_they_hold() -> None:
    facts = extract(all_packs()["typescript"], CONTAINERS)
    bases = {d.name: d.bases for d in facts.definitions}
    assert "[:][]Job" in bases["byScope"] and "[]Job" in bases["seen"]
    assert "[]Job" in bases["list"]
    assert bases["plain"] == ("Job",)  # no container: no mark


def test_a_map_of_arrays_reaches_the_elements_through_get_then_find() -> None:
    aliases = container_aliases("m#Q.byScope", "[:][]", "m#Job", ["find"], ["get"])
    assert ("m#Q.byScope.get.*", "m#Job.*") in aliases
    assert ("m#Q.byScope.get.find.*", "m#Q.byScope.get.*") in aliases
    assert not any(a.startswith("m#Q.byScope.find") for a, _ in aliases)
    assert split_mark("[:][]Job") == ("[:][]", "Job") and split_mark("Job") == ("", "Job")


def test_declared_parameter_types_are_marked_by_position() -> None:
    facts = extract(all_packs()["typescript"], CONTAINERS)
    run = next(d for d in facts.definitions if d.name == "run")
    assert "$0=Job" in run.bases and not any(b.startswith("$1") for b in run.bases)
