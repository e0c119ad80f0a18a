"""Bad repositories and refs get clear messages and leave the previous snapshot serving."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitutil import commit, defs, git, init, write

from spyglass.errors import IndexUnavailable, OutsideRoot
from spyglass.index.store import connect, latest_complete
from spyglass.query.facade import CodeIntel

BASE = {"pkg/__init__.py": "", "pkg/core.py": "def alpha():\n    return 1\n"}


def _serving(root: Path) -> int | None:
    conn = connect(root)
    try:
        snap = latest_complete(conn)
        return snap.id if snap else None
    finally:
        conn.close()


def test_shallow_clone_indexes_and_names_the_missing_history(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    first = init(origin, BASE)
    write(origin, {"pkg/more.py": "def more():\n    pass\n"})
    commit(origin)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    ci = CodeIntel(clone)
    assert ci.index().state == "completed"
    with pytest.raises(IndexUnavailable, match="shallow clone"):
        ci.index(first)
    assert set(defs(ci)) >= {"alpha", "more"}


def test_missing_objects_fail_the_job_and_keep_the_old_snapshot(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    serving = _serving(root)
    write(root, {"pkg/new.py": "def brand_new():\n    pass\n"})
    commit(root)
    blob = git(root, "rev-parse", "HEAD:pkg/new.py")
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(IndexUnavailable, match="missing or corrupt.*git fsck"):
        ci.index()
    assert ci.last_index_job().state == "unavailable"  # type: ignore[union-attr]
    assert _serving(root) == serving
    assert defs(ci)["alpha"] == ("pkg/core.py", "cached-index")


def test_unreadable_git_dir_is_reported_not_indexed_from_disk(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    serving = _serving(root)
    (root / ".git" / "HEAD").write_text("garbage\n")
    with pytest.raises(IndexUnavailable, match="damaged"):
        CodeIntel(root).index()
    assert _serving(root) == serving


def test_detached_head_is_indexed_and_said_so(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    first = init(root, BASE)
    git(root, "checkout", "-q", "--detach")
    ci = CodeIntel(root)
    snap = ci.index()
    assert snap.commit == first and f"detached at {first[:12]}" in snap.ref_source
    status = ci.status().results[0]
    assert status.head == f"detached at {first[:12]}"  # type: ignore[attr-defined]
    write(root, {"pkg/core.py": "def omega():\n    pass\n"})
    assert defs(ci)["omega"] == ("pkg/core.py", "text-fallback")


def test_repository_without_commits(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, BASE)
    ci = CodeIntel(root)
    with pytest.raises(IndexUnavailable, match="no commits yet"):
        ci.index()
    assert ci.last_index_job().state == "unavailable"  # type: ignore[union-attr]
    assert defs(ci)["alpha"] == ("pkg/core.py", "text-fallback")  # live parsing still answers
    assert ci.status().results[0].head == "unborn branch main"  # type: ignore[attr-defined]


def test_workspace_outside_the_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(OutsideRoot, match="outside the repository"):
        CodeIntel(elsewhere, root=root)


def test_index_of_another_repository_is_a_mismatch(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    init(one, BASE)
    CodeIntel(one).index()
    init(two, {"lib.py": "def other():\n    pass\n"})
    # Moved: the store keeps its identity (a copied one is never trusted, see
    # tests/security/test_store_writes.py)
    (one / ".spyglass").rename(two / ".spyglass")
    ci = CodeIntel(two)
    seen = defs(ci)
    assert seen == {"other": ("lib.py", "text-fallback")}  # answers still follow disk
    mismatch = ci.provenance().worktree_mismatch or ""
    assert "another repository" in mismatch
    assert ci.status().results[0].worktree_mismatch == mismatch  # type: ignore[attr-defined]


def test_index_of_another_folder_is_a_mismatch(tmp_path: Path) -> None:
    one = tmp_path / "one"
    write(one, BASE)
    CodeIntel(one).index()
    two = tmp_path / "two"
    one.rename(two)
    ci = CodeIntel(two)
    assert defs(ci)["alpha"] == ("pkg/core.py", "cached-index")
    assert f"built from the folder {one}" in (ci.provenance().worktree_mismatch or "")
