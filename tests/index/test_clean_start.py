"""A fresh process whose workspace is exactly the indexed commit opens its view from the
snapshot without listing, hashing or resolving the workspace (query/view.py clean start),
and answers as the full refresh does; any change on disk falls back to the full refresh."""

from __future__ import annotations

from pathlib import Path

from gitutil import age, commit, git, init, write

from spyglass.query.facade import CodeIntel

BASE = {"lib.h": "int shape(int x);\n",
        "lib.c": "#include \"lib.h\"\n\nint shape(int x)\n{\n\treturn x;\n}\n",
        "main.c": "#include \"lib.h\"\n\nint main(void)\n{\n\treturn shape(1);\n}\n"}


def _sites(ci: CodeIntel) -> set[tuple[str, int]]:
    got = ci.references(name="shape", lsp_budget_ms=0)
    return {(r.path, r.start_line) for r in got.results}  # type: ignore[attr-defined]


def _fresh(root: Path) -> tuple[CodeIntel, set[tuple[str, int]], bool]:
    """A new CodeIntel (a new process's), its answer, and whether its view started clean."""
    ci = CodeIntel(root)
    sites = _sites(ci)
    view = ci._view  # as the answer left it (ci.view() would refresh again)
    assert view is not None
    return ci, sites, view.probe.listed == 0


def _indexed(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    init(root, BASE)
    CodeIntel(root).index()
    age(root)
    return root


def test_second_process_starts_clean_and_answers_the_same(tmp_path: Path) -> None:
    root = _indexed(tmp_path)
    _, first, clean = _fresh(root)  # the full refresh: it saves the workspace's stats
    assert not clean and first == {("main.c", 5)}
    ci, again, clean = _fresh(root)
    assert clean and again == first
    # its next refresh stays clean while nothing changed; asking for the workspace's
    # listing probes it as usual, and the answer stays the same
    view = ci.view()
    assert view.probe.listed == 0 and _sites(ci) == first
    assert {f.path for f in ci.view().disk_files()} >= set(BASE)
    assert ci.view().probe.listed == 1 and _sites(ci) == first


def test_any_change_on_disk_means_a_full_refresh(tmp_path: Path) -> None:
    root = _indexed(tmp_path)
    _fresh(root)  # the full refresh: it saves the workspace's stats
    # a modified file: its new call is answered
    write(root, {"main.c": BASE["main.c"].replace("return shape(1);",
                                                  "shape(2);\n\treturn shape(1);")})
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("main.c", 6)}
    # an untracked file, after a clean state was saved again
    write(root, {"main.c": BASE["main.c"]})
    age(root)
    _fresh(root)
    assert _fresh(root)[2]
    write(root, {"extra.c": "int extra(void)\n{\n\treturn shape(3);\n}\n"})
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and ("extra.c", 3) in sites


def test_a_change_while_the_process_runs_is_seen(tmp_path: Path) -> None:
    root = _indexed(tmp_path)
    _fresh(root)  # the full refresh: it saves the workspace's stats
    ci, _, clean = _fresh(root)
    assert clean
    write(root, {"main.c": BASE["main.c"].replace("return shape(1);",
                                                  "shape(2);\n\treturn shape(1);")})
    age(root)
    assert _sites(ci) == {("main.c", 5), ("main.c", 6)}


def test_back_on_an_older_indexed_commit_starts_clean(tmp_path: Path) -> None:
    """A branch indexed after main (the newest snapshot), then main checked out again: the
    view is pinned to main's older snapshot, and a new process starts clean from it."""
    root = _indexed(tmp_path)
    git(root, "checkout", "-q", "-b", "side")
    write(root, {"main.c": BASE["main.c"].replace("return shape(1);",
                                                  "shape(2);\n\treturn shape(1);")})
    commit(root, "side change")
    CodeIntel(root).index()
    git(root, "checkout", "-q", "main")
    age(root)
    ci, first, clean = _fresh(root)  # the full refresh, pinned to main's snapshot
    assert not clean and first == {("main.c", 5)}
    view = ci._view
    assert view is not None and view.snapshot is not None
    pinned = view.snapshot.id
    ci, again, clean = _fresh(root)
    assert clean and again == first
    assert ci._view is not None and ci._view.snapshot is not None
    assert ci._view.snapshot.id == pinned
    # HEAD moved to the newest snapshot's commit: no clean start from the saved state
    git(root, "checkout", "-q", "side")
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("main.c", 6)}
    # and a new snapshot: the pinned state saved before is not taken either
    git(root, "checkout", "-q", "main")
    age(root)
    _fresh(root)
    assert _fresh(root)[2]
    git(root, "checkout", "-q", "side")
    write(root, {"lib.c": BASE["lib.c"] + "\nint other(void)\n{\n\treturn shape(4);\n}\n"})
    commit(root, "another")
    CodeIntel(root).index()
    git(root, "checkout", "-q", "main")
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5)}


def test_the_first_process_after_an_index_starts_clean(tmp_path: Path) -> None:
    """`spyglass index` of the checked-out commit opens the view on the new snapshot, so
    the next process (the first question after it) starts clean and answers from it."""
    root = tmp_path / "repo"
    init(root, BASE)
    age(root)
    ci = CodeIntel(root)
    snap = ci.index()
    assert ci._view is not None and ci._view.snapshot is not None
    assert ci._view.snapshot.id == snap.id and _sites(ci) == {("main.c", 5)}
    _, sites, clean = _fresh(root)
    assert clean and sites == {("main.c", 5)}
    # a commit, indexed: the next process starts clean from the new snapshot
    write(root, {"main.c": BASE["main.c"].replace("return shape(1);",
                                                  "shape(2);\n\treturn shape(1);")})
    commit(root, "two calls")
    age(root)
    CodeIntel(root).index()
    _, sites, clean = _fresh(root)
    assert clean and sites == {("main.c", 5), ("main.c", 6)}
    # indexed with a file changed on disk: nothing saved, the change is answered
    write(root, {"main.c": BASE["main.c"]})
    commit(root, "one call")
    write(root, {"extra.c": "int extra(void)\n{\n\treturn shape(3);\n}\n"})
    age(root)
    CodeIntel(root).index()
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("extra.c", 3)}
    # another ref indexed than the one checked out: the view is not opened for it
    git(root, "tag", "old", "HEAD~1")
    ci = CodeIntel(root)
    ci.index("old")
    assert ci._view is None


def _folder(tmp_path: Path) -> Path:
    """A plain folder (no git repository), indexed, its files backdated."""
    root = tmp_path / "folder"
    root.mkdir()
    write(root, BASE)
    (root / "sub").mkdir()
    age(root)
    CodeIntel(root).index()
    return root


def test_a_plain_folder_starts_clean_and_sees_every_change(tmp_path: Path) -> None:
    """A folder that is not a git repository starts clean too (its baseline a snapshot
    without commit); an edit, a new file in a subfolder and a deleted file are each seen."""
    root = _folder(tmp_path)
    _, first, _ = _fresh(root)  # saves the workspace's stats (if the index did not)
    ci, again, clean = _fresh(root)
    assert clean and again == first == {("main.c", 5)}
    assert ci.view().probe.listed == 0 and _sites(ci) == first
    # an edit in place, same folder: the file's own stat moved
    write(root, {"main.c": BASE["main.c"].replace("return shape(1);",
                                                  "shape(2);\n\treturn shape(1);")})
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("main.c", 6)}
    assert _fresh(root)[1:] == (sites, False)  # an overlay is never saved as clean
    CodeIntel(root).index()
    _fresh(root)
    assert _fresh(root)[1:] == (sites, True)
    # a new file in a subfolder: that folder's mtime moved
    write(root, {"sub/extra.c": "int extra(void)\n{\n\treturn shape(3);\n}\n"})
    age(root)
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("main.c", 6), ("sub/extra.c", 3)}
    CodeIntel(root).index()
    _fresh(root)
    assert _fresh(root)[2]
    # a deleted file
    (root / "sub" / "extra.c").unlink()
    _, sites, clean = _fresh(root)
    assert not clean and sites == {("main.c", 5), ("main.c", 6)}
