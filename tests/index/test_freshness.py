"""Answers follow the files on disk without a watcher, and cheaply when nothing changed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gitutil import age, defs, init, write
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.index import gitcall
from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

BASE = {"pkg/__init__.py": "", "pkg/core.py": "def alpha():\n    return 1\n",
        "app.py": "from pkg.core import alpha\n\nalpha()\n"}


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a refresh with nothing changed ran a process")


@pytest.mark.parametrize("git", [True, False])
def test_nothing_changed_means_no_listing_hashing_or_git(tmp_path: Path, git: bool,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    if git:
        init(root, BASE)
    else:
        write(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    age(root)
    ci.find_symbol("alpha")
    view = ci.view()
    counts = (view.probe.listed, view.probe.hashed, view.refreshes)
    monkeypatch.setattr(gitcall, "_spawn", _refuse)
    monkeypatch.setattr(gitcall, "batch", _refuse)
    monkeypatch.setattr(subprocess, "run", _refuse)
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    for _ in range(3):
        assert defs(ci)["alpha"] == ("pkg/core.py", "cached-index")
    view = ci.view()
    assert (view.probe.listed, view.probe.hashed, view.refreshes) == counts


def test_rapid_same_size_edits_are_all_seen(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    for i in range(6):
        name = f"fn_{i:02d}"
        (root / "pkg/core.py").write_text(f"def {name}():\n    return 1\n")
        seen = defs(ci)
        assert name in seen and not any(k.startswith("fn_") and k != name for k in seen)


def test_new_file_in_a_new_empty_folder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    (root / "deep" / "er").mkdir(parents=True)
    assert "late" not in defs(ci)
    (root / "deep" / "er" / "late.py").write_text("def late():\n    pass\n")
    assert defs(ci)["late"] == ("deep/er/late.py", "text-fallback")


def test_gitignore_edits_hide_and_show_untracked_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {**BASE, ".gitignore": "*.tmp\n"})
    ci = CodeIntel(root)
    ci.index()
    write(root, {"scratch.py": "def scratch():\n    pass\n"})
    assert "scratch" in defs(ci)
    (root / ".gitignore").write_text("*.tmp\nscratch.py\n")
    assert "scratch" not in defs(ci)
    assert ci.view().overlay().paths("untracked") == (".gitignore",) or \
        "scratch.py" not in ci.view().overlay().paths("untracked")


def test_a_new_package_marker_re_resolves_unchanged_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {"lib/util.py": "def helper():\n    pass\n", "main.py": "import util\n"})
    ci = CodeIntel(root)
    ci.index()
    (r,) = ci.find_symbol("helper").results
    assert (r.symbol, r.source) == ("util.helper", "cached-index")  # type: ignore[attr-defined]
    (root / "lib/__init__.py").write_text("")
    (r,) = ci.find_symbol("helper").results
    assert (r.symbol, r.source) == ("lib.util.helper", "text-fallback")  # type: ignore[attr-defined]
    assert ci.view().changes.recontext == ["lib/util.py"]


def test_folder_without_git_follows_disk(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    os.unlink(root / "app.py")
    write(root, {"pkg/core.py": "def omega():\n    pass\n", "new.py": "def n():\n    pass\n"})
    seen = defs(ci)
    assert seen["omega"] == ("pkg/core.py", "text-fallback") and "alpha" not in seen
    report = ci.view().overlay()
    assert dict(report.kinds) == {"untracked": ("new.py",), "unstaged": ("pkg/core.py",),
                                  "deleted": ("app.py",)}


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_git_index_stat_cache_spares_hashing(tmp_path: Path, version: str) -> None:
    from gitutil import commit, git

    from spyglass.index.gitindex import read_index
    from spyglass.index.overlay import index_blobs

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, {**BASE, **{f"deep/dir{i}/long_name_{i:03d}.py": f"x{i} = {i}\n"
                            for i in range(40)}})
    age(root)
    git(root, "update-index", "--index-version", version)
    commit(root)
    git(root, "update-index", "--refresh")
    assert {p: e.blob for p, e in read_index(root / ".git", root / ".git").items()} == \
        index_blobs(root)
    ci = CodeIntel(root)
    ci.index()
    assert defs(ci)["alpha"] == ("pkg/core.py", "cached-index")
    assert ci.view().probe.hashed == 0  # every blob id came from git's own stat cache
    (root / "app.py").write_text("def edited():\n    pass\n")
    assert defs(ci)["edited"] == ("app.py", "text-fallback")
    assert ci.view().probe.hashed <= 2  # only app.py (again while its change is racy)
