"""Adding a Go import changes what the file uses, not what it provides: the package's other
files are not affected by it (issue 28: one import marked all 23 files at distance 1)."""

from __future__ import annotations

from pathlib import Path

from fixture import commit_all, write_files

from spyglass.query.facade import CodeIntel

FILES = 6


def test_an_added_import_affects_no_other_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    files = {"go.mod": "module example.com/m\n\ngo 1.21\n",
             "util/g.go": "package util\n\nfunc G() string {\n\treturn F1() + F2()\n}\n"}
    files.update({f"util/f{i}.go": f'package util\n\nimport (\n\t"fmt"\n)\n\nfunc F{i}() string '
                  f"{{\n\treturn fmt.Sprint({i})\n}}\n" for i in range(1, FILES)})
    write_files(root, files)
    commit_all(root)
    ci = CodeIntel(root)
    ci.index()
    edited = files["util/f3.go"].replace('\t"fmt"\n', '\t"fmt"\n\t"os"\n').replace(
        "\treturn fmt", "\t_ = os.Args\n\treturn fmt")
    (root / "util/f3.go").write_text(edited)
    result = ci.blast_radius([])
    affected = {f.path for f in dict(result.extra)["files"]}  # type: ignore[attr-defined]
    assert affected == {"util/f3.go"}  # F3 changed; nobody calls it
    notes = dict(result.extra)["notes"]
    assert any("the module-level lines changed are imports" in n for n in notes)  # type: ignore[attr-defined]

