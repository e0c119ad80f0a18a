"""Test suggestions from history and data files: tests that moved with the changed file in
earlier commits (never later ones), tests naming a changed data file, broad changes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fixture import commit_all, write_files
from impact_fixture import check

from spyglass.query import history
from spyglass.query.cochange import cochanges
from spyglass.query.facade import CodeIntel

# A library pinning an upstream dependency: each bump changes the pin (pyproject.toml), the
# version string and the pinned hashes of tests/test_pins.py, which imports nothing of the
# package: no reference, name or folder leads there, only the history does.
PINNED = '''
#@ start
#h pyproject.toml
[project]
name = "pkg"
dependencies = ["upstream==1.0"]
#h pkg/__init__.py
VERSION = "1.0"
#h pkg/other.py
def other():
    return 1
#h tests/test_pins.py
HASHES = {"upstream.f": "aaa"}


def test_pins():
    assert HASHES
#h tests/test_other.py
from pkg.other import other


def test_other():
    assert other() == 1
#@ bump upstream to 1.1
#h pyproject.toml
[project]
name = "pkg"
dependencies = ["upstream==1.1"]
#h pkg/__init__.py
VERSION = "1.1"
#h tests/test_pins.py
HASHES = {"upstream.f": "bbb"}


def test_pins():
    assert HASHES
#@ bump upstream to 1.2
#h pyproject.toml
[project]
name = "pkg"
dependencies = ["upstream==1.2"]
#h pkg/__init__.py
VERSION = "1.2"
#h tests/test_pins.py
HASHES = {"upstream.f": "ccc"}


def test_pins():
    assert HASHES
#@ fix other
#h pkg/other.py
def other():
    return 2
#h tests/test_other.py
from pkg.other import other


def test_other():
    assert other() == 2
#- README.md
pkg
'''

CASES = {
    # The version string alone changes (the commit's source change): the pinned tests
    # moved with it in every earlier commit touching it, with the count; the root commit
    # (the first import, where every file changes together) is not read, so
    # tests/test_other.py is not suggested. The commit asked about (the second one, after
    # the snapshot) is never read as history.
    "source change: the tests that moved with the file before": PINNED + '''
#+ pkg/__init__.py
VERSION = "1.3"
#? tests --diff HEAD~1
tests/test_pins.py history ? | changed with pkg/__init__.py in 2 of the last 2 commits touching it
$ pytest tests/test_pins.py
''',
    # A manifest change (not source: no definition changes) suggests the same tests, asked
    # with --diff or as the workspace's change (the files no language reads included).
    "manifest change: the tests that moved with the pin before": PINNED + '''
#~ pyproject.toml
[project]
name = "pkg"
dependencies = ["upstream==1.3"]
#? tests --diff HEAD
tests/test_pins.py history ? | changed with pyproject.toml in 2 of the last 2 commits touching it
$ pytest tests/test_pins.py
#? tests
tests/test_pins.py history ? | changed with pyproject.toml in 2 of the last 2 commits touching it
$ pytest tests/test_pins.py
''',
    # A test reading a shared data file by a string literal is suggested when the file
    # changes; a literal naming another folder's file of the same name is not.
    "data file named by a test": '''
#- go.mod
module example.com/proc
#- blockdevice/stats.go
package blockdevice

func Stats() int { return 2 }
#- blockdevice/stats_test.go
package blockdevice

import (
	"os"
	"testing"
)

func TestStats(t *testing.T) {
	_, _ = os.ReadFile("../testdata/fixtures.ttar")
	if Stats() != 2 {
		t.Fatal()
	}
}
#- other/x_test.go
package other

import "testing"

func TestX(t *testing.T) { _ = "elsewhere/fixtures.ttar" }
#- testdata/fixtures.ttar
old
#~ testdata/fixtures.ttar
new
#? tests --diff HEAD
blockdevice/stats_test.go data ? | blockdevice/stats_test.go:9 names '../testdata/fixtures.ttar': the changed data file testdata/fixtures.ttar
$ go test ./blockdevice -run '^TestStats$'
#? tests
blockdevice/stats_test.go data ?
$ go test ./blockdevice -run '^TestStats$'
''',
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_history_and_data_files(name: str, tmp_path: Path) -> None:
    check(CASES[name], tmp_path / "repo")


def _head(root: Path) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_history_never_reads_past_the_base(tmp_path: Path) -> None:
    """Co-change counts only commits reachable from the change's base: a later commit that
    changed the file with another test is not evidence for a change made before it."""
    history._CACHE.clear()
    root = tmp_path / "repo"
    write_files(root, {"README": "root commit: not read\n"})
    commit_all(root, "import")
    write_files(root, {"a.py": "x = 1\n", "tests/test_x.py": "def test_x():\n    pass\n"})
    commit_all(root, "a with x")
    first = _head(root)
    write_files(root, {"a.py": "x = 2\n", "tests/test_y.py": "def test_y():\n    pass\n"})
    commit_all(root, "a with y")
    tests = {"tests/test_x.py", "tests/test_y.py"}
    early = cochanges(root, first, ["a.py"], tests)
    assert [(c.test, c.together, c.touching) for c in early] == [("tests/test_x.py", 1, 1)]
    late = cochanges(root, _head(root), ["a.py"], tests)
    assert sorted((c.test, c.together, c.touching) for c in late) == [
        ("tests/test_x.py", 1, 2), ("tests/test_y.py", 1, 2)]


def test_sweeps_are_not_read_as_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    """A commit changing more than MAX_TOGETHER files (a lint sweep) says nothing about
    which tests go with which file."""
    history._CACHE.clear()
    monkeypatch.setattr(history, "MAX_TOGETHER", 3)
    root = tmp_path / "repo"
    write_files(root, {"README": "root commit: not read\n"})
    commit_all(root, "import")
    write_files(root, {"a.py": "x = 1\n", "tests/test_a.py": "def test_a():\n    pass\n"})
    commit_all(root, "a with its test")
    write_files(root, {"a.py": "x = 2\n", **{f"tests/test_{i}.py": "def test():\n    pass\n"
                                              for i in range(3)}})
    commit_all(root, "sweep")
    tests = {"tests/test_a.py", *(f"tests/test_{i}.py" for i in range(3))}
    found = cochanges(root, _head(root), ["a.py"], tests)
    assert [(c.test, c.together, c.touching, c.strong) for c in found] == [
        ("tests/test_a.py", 1, 1, False)]


def test_broad_change_says_so(tmp_path: Path) -> None:
    """A change of many files across many folders is named broad in the notes."""
    root = tmp_path / "repo"
    files = {f"p{i % 4}/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(12)}
    write_files(root, {**files, "tests/test_m.py": "def test_m():\n    pass\n"})
    commit_all(root, "first")
    CodeIntel(root).index()
    write_files(root, {p: body.replace("return", "return 1 +") for p, body in files.items()})
    notes = dict(CodeIntel(root).suggest_tests([], None, 3).extra)["notes"]
    assert any(str(n).startswith("broad change: 12 files in 4 folders") for n in notes), notes  # type: ignore[attr-defined]
