"""The walk's bounds: a time budget stops it before a layer, says so, and keeps what it had."""

from __future__ import annotations

from pathlib import Path

from fixture import write_files

from spyglass.query import impact
from spyglass.query.changeset import ChangeSet, changed_defs
from spyglass.query.facade import CodeIntel

FILES = {
    "go.mod": "module example.com/j\n\ngo 1.21\n",
    "codec/api.go": "package codec\n\nfunc Marshal(v any) string { return stage(v) }\n\n"
                    "func stage(v any) string { return encodeMap(v) }\n",
    "codec/reflect_map.go": "package codec\n\nfunc encodeMap(v any) string { return \"{}\" }\n",
}


def _walk(root: Path, seconds: float | None) -> impact.Radius:
    ci = CodeIntel(root)
    ans = ci.answer()
    cs = ChangeSet(origin="test")
    changed_defs(ans, cs, "codec/reflect_map.go", None, "changed")
    return impact.walk(ans, cs, 5, resolved_only=True, seconds=seconds)


def test_a_spent_time_budget_stops_the_walk_with_a_note(tmp_path: Path) -> None:
    write_files(tmp_path, FILES)
    CodeIntel(tmp_path).index()
    full = _walk(tmp_path, None)
    assert {h.symbol.rsplit(".", 1)[-1]: h.distance for h in full.hits} == {
        "encodeMap": 0, "stage": 1, "Marshal": 2}
    assert not full.truncated
    spent = _walk(tmp_path, -1.0)  # already spent before the first layer
    assert spent.truncated
    assert [h.distance for h in spent.hits] == [0]
    assert any("time budget" in n for n in spent.notes)
