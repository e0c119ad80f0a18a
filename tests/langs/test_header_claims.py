"""A `.h` header is C unless its text is C++: the C++ pack claims it (manifest `claims`),
in the index, in the overlay, and in live answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.errors import LanguagePackError
from spyglass.query.facade import CodeIntel
from spyglass.syntax import langpack
from spyglass.syntax.langpack import pack_for_path

CPP_HEADER = """\
#pragma once
/* Shapes: see gfx::Circle::area for the formula. */
namespace gfx {
class Circle {
 public:
  double area() const;
};
}  // namespace gfx
"""
MACRO_NAMESPACED = """\
LIB_NAMESPACE_BEGIN(lib)
inline int twice(int x) { return static_cast<int>(x * 2); }
LIB_NAMESPACE_END(lib)
"""
C_HEADER = """\
#ifndef SHAPES_H
#define SHAPES_H
#ifdef __cplusplus
extern "C" {
#endif
/* struct shape::kind is one of SHAPE_*; see also Foo::bar in the C++ binding. */
struct shape { int kind; };  // shape::kind
static inline int shape_area(const struct shape *s) { return s->kind; }
struct device_class *class;
#ifdef __cplusplus
}
#endif
#endif
"""


@pytest.mark.parametrize(("text", "language"), [
    (CPP_HEADER, "cpp"), (MACRO_NAMESPACED, "cpp"), (C_HEADER, "c"),
    ("template <typename T> T id(T x);\n", "cpp"), ("int plain(void);\n", "c"),
    ("#include <vector>\nint n(std::vector<int>& v);\n", "cpp"),
])
def test_a_header_is_cpp_only_when_its_text_is(text: str, language: str) -> None:
    pack = pack_for_path("include/x.h", text.encode())
    assert pack is not None and pack.name == language
    default = pack_for_path("include/x.h")
    assert default is not None and default.name == "c"  # without the text: the extension's


def test_the_index_and_the_overlay_use_the_claimed_pack(
        make_repo: Callable[..., Path]) -> None:
    root = make_repo({"include/gfx.h": CPP_HEADER, "include/shapes.h": C_HEADER,
                      "src/circle.cpp": '#include "gfx.h"\n'
                                        "double gfx::Circle::area() const { return 1.0; }\n"})
    ci = CodeIntel(root)
    ci.index()
    found = ci.find_symbol("Circle")  # C has no classes: the C grammar finds none
    assert [(r.path, r.kind) for r in found.results  # type: ignore[attr-defined]
            ] == [("include/gfx.h", "class")]
    area = ci.find_symbol("area")
    assert ("include/gfx.h", "method") in {  # the declaration in the class
        (r.path, r.kind) for r in area.results}  # type: ignore[attr-defined]
    shape = ci.find_symbol("shape_area")
    assert [(r.path, r.kind) for r in shape.results  # type: ignore[attr-defined]
            ] == [("include/shapes.h", "func")]
    with ci.lock:
        langs = {p: m.language for p, m in ci.view().members.items()}
    assert langs["include/gfx.h"] == "cpp" and langs["include/shapes.h"] == "c"
    # an unsaved edit turns the C header into C++: the overlay parses it as C++
    (root / "include/shapes.h").write_text("namespace shapes {\nclass Square {};\n}\n")
    square = ci.find_symbol("Square")
    assert [(r.path, r.kind) for r in square.results  # type: ignore[attr-defined]
            ] == [("include/shapes.h", "class")]
    diags = ci.diagnostics(["include/gfx.h"])
    assert list(diags.results) == []  # C would report errors


def test_a_bad_claim_pattern_is_refused_when_the_pack_is_validated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "hdr"
    src = Path(langpack.LANGS_DIR) / "c"
    folder.mkdir()
    for f in src.iterdir():
        if f.suffix == ".scm":
            (folder / f.name).write_text(f.read_text())
    manifest = (src / "manifest.toml").read_text().replace('name = "c"', 'name = "hdr"')
    manifest = manifest.replace('extensions = [".c", ".h"]', 'extensions = [".hdr"]')
    (folder / "manifest.toml").write_text(manifest + '\n[claims]\n".h" = ["(unclosed"]\n')
    monkeypatch.setenv(langpack.PACKS_ENV, str(tmp_path))
    langpack.reload_packs()
    try:
        with pytest.raises(LanguagePackError, match="claims"):
            langpack.all_packs()["hdr"].validate()
    finally:
        monkeypatch.delenv(langpack.PACKS_ENV)
        langpack.reload_packs()


def test_decisions_are_kept_by_blob_and_a_new_commit_is_decided_again(
        make_repo: Callable[..., Path]) -> None:
    import sqlite3
    import subprocess
    root = make_repo({"include/gfx.h": CPP_HEADER, "include/shapes.h": C_HEADER})
    CodeIntel(root).index()
    db = root / ".spyglass" / "graph.db"
    with sqlite3.connect(db) as conn:
        first = dict(conn.execute("SELECT blob, language FROM claims").fetchall())
    assert sorted(first.values()) == ["c", "cpp"]
    (root / "include/shapes.h").write_text("namespace shapes {\nclass Square {};\n}\n")
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "C++ now"], check=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                        "PATH": "/usr/bin:/bin"})
    ci = CodeIntel(root)
    ci.index()
    with sqlite3.connect(db) as conn:
        second = dict(conn.execute("SELECT blob, language FROM claims").fetchall())
    assert first.items() <= second.items() and len(second) == 3  # the new blob decided once
    square = ci.find_symbol("Square")
    assert [(r.path, r.kind) for r in square.results  # type: ignore[attr-defined]
            ] == [("include/shapes.h", "class")]
