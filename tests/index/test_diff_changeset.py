"""`--diff` without git touching the work tree gives what `git diff` gives (benign repos)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitutil import commit, git, init, write
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.errors import BadInput
from spyglass.query import changeset
from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

V1 = {"a.py": "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
      "gone.py": "def gone():\n    return 0\n",
      "notes.txt": "one\ntwo\n",
      "sub/d.py": "def d():\n    return 4\n",
      "sub/keep.py": "def keep():\n    return 5\n"}
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def _git_view(root: Path, rev: str) -> tuple[set[str], dict[str, set[int]]]:
    """What plain `git diff` says: changed paths, and each file's changed new-side lines."""
    names = set(git(root, "diff", "--no-renames", "--name-only", rev).splitlines())
    lines: dict[str, set[int]] = {}
    for path in names:
        text = git(root, "diff", "--no-renames", "-U0", rev, "--", path)
        for m in HUNK.finditer(text):
            start, count = int(m.group(1)), int(m.group(2) or "1")
            lines.setdefault(path, set()).update(range(start, start + count) if count
                                                 else {-start})
    return names, lines


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    init(root, V1)
    write(root, {"a.py": V1["a.py"].replace("return 2", "return 3"), "new.py": "x = 1\n"})
    commit(root, "v2")
    # The working tree: an edit, a deletion, a staged-only change, an added-and-staged
    # file, an untracked file (not in `git diff REV`) and an edited unsupported file.
    write(root, {"a.py": "import os\n\n\ndef a():\n    return 10\n\n\ndef b():\n    return 3\n",
                 "sub/d.py": "def d():\n    return 44\n", "added.py": "def added():\n    pass\n",
                 "untracked.py": "u = 1\n", "notes.txt": "one\n2\n"})
    (root / "gone.py").unlink()
    git(root, "add", "sub/d.py", "added.py")
    return root


@pytest.mark.parametrize("rev", ["HEAD", "HEAD~1", "HEAD~1..HEAD", "HEAD~1...HEAD", "HEAD..",
                                 "main"])
def test_changed_files_and_lines_match_git_diff(repo: Path, rev: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ci = CodeIntel(repo)
    ci.index()
    seen: dict[str, set[int]] = {}
    real = changeset.changed_defs

    def record(ci_: CodeIntel, cs: changeset.ChangeSet, path: str,
               hunks: list[changeset.Hunk] | None, why: str) -> None:
        seen[path] = {-a if point else n for a, b, point in hunks or []
                      for n in (range(a, b + 1) if not point else [a])}
        real(ci_, cs, path, hunks, why)
    monkeypatch.setattr(changeset, "changed_defs", record)
    cs = changeset.from_diff(ci, rev)
    names, lines = _git_view(repo, rev)
    assert set(cs.files) == names
    assert {p: seen[p] for p in seen if p in lines} == {p: lines[p] for p in seen if p in lines}
    assert "untracked.py" not in cs.files


def test_the_answer_names_the_changed_definitions(repo: Path) -> None:
    ci = CodeIntel(repo)
    ci.index()
    cs = changeset.from_diff(ci, "HEAD")
    seeds = {s.d.name for s in cs.seeds}
    assert {"a", "d", "added", "gone"} <= seeds and "b" not in seeds and "keep" not in seeds
    assert "notes.txt" in cs.unsupported


@pytest.mark.parametrize("rev", ["no-such", "HEAD~99", "--output=x", "a\nb", "HEAD...nope"])
def test_bad_revisions_are_bad_input(repo: Path, rev: str) -> None:
    ci = CodeIntel(repo)
    with pytest.raises(BadInput):
        changeset.from_diff(ci, rev)


def test_a_sha256_repository_compares_in_its_own_object_format(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256", "-b", "main")
    write(root, V1)
    commit(root, "v1")
    ci = CodeIntel(root)
    ci.index()
    assert changeset.from_diff(ci, "HEAD").files == []
    assert not ci.view().changes.modified  # the overlay sees no change either
    write(root, {"sub/d.py": "def d():\n    return 44\n"})
    cs = changeset.from_diff(ci, "HEAD")
    assert cs.files == ["sub/d.py"] and {s.d.name for s in cs.seeds} == {"d"}
