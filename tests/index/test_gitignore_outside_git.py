"""`.gitignore` applies only inside a git repository, as in ripgrep: a tarball's `/*` does
not hide its whole tree; status says it was not applied; config can opt in (issue 28)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixture import write_files

from spyglass import surface
from spyglass.query.facade import CodeIntel
from spyglass.render import render

TREE = {".gitignore": "/*\n!/.gitignore\n", "kernel/sched.py": "def schedule():\n    pass\n",
        "mm/alloc.py": "def kmalloc():\n    pass\n"}


def test_a_tarballs_gitignore_hides_nothing_and_is_said(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write_files(root, TREE)  # no git repository
    ci = CodeIntel(root)
    for indexed in (False, True):
        if indexed:
            ci.index()
        assert [r.path for r in ci.find_symbol("kmalloc").results] == ["mm/alloc.py"]  # type: ignore[attr-defined]
        status = ci.status()
        text = render(status, surface.TOOLS["code_status"].name, people=True)
        assert "not a git repository: 1 .gitignore file(s) not applied" in text
        assert "ignored by .gitignore" not in text


def test_gitignore_outside_git_opts_in(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write_files(root, TREE)
    ci = CodeIntel(root)
    ci.config = replace(ci.config, index=replace(ci.config.index, gitignore_outside_git=True))
    assert ci.find_symbol("*kmalloc*").results == ()
    assert "not applied" not in render(ci.status(), "code_status", people=True)
