"""Build constraints (Go `//go:build`): read from the file header, never evaluated; sites in
such files are kept, flagged uncertain, with evidence naming the constraint."""

from __future__ import annotations

from pathlib import Path

from spyglass.query.facade import CodeIntel
from spyglass.syntax.constraints import build_constraint
from spyglass.syntax.langpack import all_packs
from spyglass.types import CodeLocation
from tests.fixture import write_files


def test_header_constraint_read_as_written() -> None:
    go = all_packs()["go"]
    assert build_constraint(go, b"// c\n\n//go:build linux && !cgo\n\npackage x\n") == \
        "//go:build linux && !cgo"
    assert build_constraint(go, b"// +build appengine\n\npackage x\n") == "// +build appengine"
    assert build_constraint(go, b"package x\n\n//go:build ignore\n") == ""
    assert build_constraint(go, b"/* block\n * comment */\npackage x\n") == ""
    assert build_constraint(all_packs()["python"], b"#go:build x\n") == ""


def test_sites_in_constrained_files_are_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "a.go": "package m\n\nfunc Target() {}\n\nfunc A() { Target() }\n",
        "b.go": "//go:build nomsgpack\n\npackage m\n\nfunc B() { Target() }\n",
    })
    ci = CodeIntel(tmp_path)
    ci.index()
    for answer in (ci.references(path="a.go", line=3, column=6),
                   ci.callers(path="a.go", line=3, column=6)):
        by_path = {loc.path: loc for loc in answer.results if isinstance(loc, CodeLocation)}
        assert set(by_path) == {"a.go", "b.go"} and len(answer.results) == 2
        assert not by_path["a.go"].uncertain
        flagged = by_path["b.go"]
        assert flagged.uncertain
        assert "`//go:build nomsgpack`" in flagged.evidence
        assert "not evaluated" in flagged.evidence


def test_a_file_name_constraint_is_named_in_the_evidence(tmp_path: Path) -> None:
    """`x_windows.go` is built only for Windows: its sites are flagged, the suffix named."""
    write_files(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "a.go": "package m\n\nfunc Target() {}\n",
        "proc_windows.go": "package m\n\nfunc W() { Target() }\n",
        "proc_linux_amd64_test.go": "package m\n\nfunc L() { Target() }\n",
        "linux.go": "package m\n\nfunc N() { Target() }\n",
    })
    ci = CodeIntel(tmp_path)
    ci.index()
    answer = ci.references(path="a.go", line=3, column=6)
    by_path = {loc.path: loc for loc in answer.results if isinstance(loc, CodeLocation)}
    assert set(by_path) == {"proc_windows.go", "proc_linux_amd64_test.go", "linux.go"}
    assert "`_windows`" in by_path["proc_windows.go"].evidence
    assert "`_linux_amd64`" in by_path["proc_linux_amd64_test.go"].evidence
    assert by_path["proc_windows.go"].uncertain and not by_path["linux.go"].uncertain
