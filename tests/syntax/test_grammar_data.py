"""The grammar nodes of container marks and contextual parameters are the manifest's."""

from __future__ import annotations

from dataclasses import replace

from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs
from spyglass.types import FileFacts

SOURCE = b"""interface Job { id: string }
interface Handler { parse(opts: Job): void }
class Q {
  seen: Set<Job>
  list(): Job[] { return [] }
  run(job: Job, n: number): void {}
}
const h: Handler = { parse(opts) { opts.id } }
"""


def _facts(manifest_without: tuple[str, ...]) -> FileFacts:
    pack = all_packs()["typescript"]
    manifest = {k: v for k, v in pack.manifest.items() if k not in manifest_without}
    return extract(replace(pack, manifest=manifest), SOURCE)


def _bases(manifest_without: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {d.qualname: d.bases for d in _facts(manifest_without).definitions}


def _opts_head(manifest_without: tuple[str, ...]) -> str:
    """The head of `opts.id` in the object literal's untyped method."""
    return next(r.head for r in _facts(manifest_without).references if r.qualifier == "opts")


def test_the_typescript_manifest_names_the_nodes_marks_read() -> None:
    bases = _bases(())
    assert "[]Job" in bases["Q.seen"] and "[]Job" in bases["Q.list"]
    assert "$0=Job" in bases["Q.run"] and "$0=Job" in bases["Handler.parse"]
    assert _opts_head(()).endswith("|h.parse.$0")  # typed by its place: h's declared type


def test_without_the_container_nodes_no_container_is_marked() -> None:
    bases = _bases(("container_nodes",))
    assert not any(b.startswith("[]") for b in bases["Q.seen"] + bases["Q.list"])
    assert "$0=Job" in bases["Q.run"]  # parameter marks do not depend on them


def test_without_the_contextual_table_no_parameter_is_marked() -> None:
    bases = _bases(("contextual_parameters",))
    assert not any(b.startswith("$") for bs in bases.values() for b in bs)
    assert "$0" not in _opts_head(("contextual_parameters",))
    assert "[]Job" in bases["Q.seen"]
