"""Worktrees of one repository share one store; each is answered through its own overlay."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitutil import commit, defs, git, init, store_digest, write

from spyglass.errors import OutsideRoot
from spyglass.query.facade import CodeIntel

BASE = {"pkg/__init__.py": "", "pkg/core.py": "def alpha():\n    return 1\n",
        "app.py": "from pkg.core import alpha\n\nalpha()\n"}


def test_second_worktree_shares_the_store_and_edits_the_same_path(tmp_path: Path) -> None:
    main = tmp_path / "main"
    first = init(main, BASE)
    CodeIntel(main).index()
    before = store_digest(main)
    wt = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "feature", str(wt))
    ci_main, ci_wt = CodeIntel(main), CodeIntel(wt)
    assert (ci_wt.root, ci_wt.store_root) == (wt.resolve(), main.resolve())
    assert ci_wt.has_index and not (wt / ".spyglass").exists()
    assert defs(ci_wt)["alpha"] == ("pkg/core.py", "cached-index")
    assert "shared store" in (ci_wt.provenance().worktree_mismatch or "")
    assert defs(ci_main)["alpha"] == ("pkg/core.py", "cached-index")
    assert ci_main.provenance().worktree_mismatch is None

    write(main, {"pkg/core.py": "def alpha_main():\n    return 1\n"})
    write(wt, {"pkg/core.py": "def alpha_wt():\n    return 2\n"})
    seen_main, seen_wt = defs(ci_main), defs(ci_wt)
    assert "alpha_main" in seen_main and "alpha_wt" not in seen_main
    assert "alpha_wt" in seen_wt and "alpha_main" not in seen_wt
    assert ci_main.provenance().workspace_digest != ci_wt.provenance().workspace_digest
    assert ci_wt.view().scope.workspace == str(wt.resolve())

    feature = commit(wt, "feature work")
    report = ci_wt.view().overlay()
    assert report.base == first and report.head == feature
    assert report.paths("committed") == ("pkg/core.py",)
    assert store_digest(main) == before
    with pytest.raises(OutsideRoot):
        ci_wt.structure(str(main / "app.py"))


def test_indexing_from_a_worktree_fills_the_shared_store(tmp_path: Path) -> None:
    main = tmp_path / "main"
    first = init(main, BASE)
    CodeIntel(main).index()
    wt = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "feature", str(wt))
    write(wt, {"pkg/extra.py": "def extra():\n    pass\n"})
    feature = commit(wt, "feature")
    ci_wt = CodeIntel(wt)
    snap = ci_wt.index()
    assert snap.commit == feature and snap.worktree == str(wt.resolve())
    assert not (wt / ".spyglass").exists()
    assert defs(ci_wt)["extra"] == ("pkg/extra.py", "cached-index")
    assert ci_wt.provenance().worktree_mismatch is None
    # The main worktree keeps its pinned merge-base snapshot: the feature commit is not its.
    ci_main = CodeIntel(main)
    assert "extra" not in defs(ci_main)
    assert ci_main.provenance().commit == first
    assert ci_main.view().base == first
