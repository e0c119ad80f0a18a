"""Papercuts found by trying the CLI on unseen projects (docs/languages.md, wave 6): a
dotted glob matches inside a nested qualified name, and `--diff REV` compares the
workspace even when the process starts clean from a saved view state."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MakeRepo = Callable[..., Path]
SOURCE = ("class Rack:\n    class Utils:\n        def escape(self):\n            return 1\n\n"
          "        def unescape(self):\n            return 2\n\n\n"
          "def escape_all():\n    return Rack.Utils().escape()\n")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", *args], capture_output=True,
                          text=True, check=False)


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/rack.py": SOURCE})
    assert run("-C", str(root), "index").returncode == 0
    return root


def _symbols(proc: subprocess.CompletedProcess[str]) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return sorted(r["symbol"] for r in json.loads(proc.stdout)["results"])


def test_a_dotted_glob_matches_from_any_part_of_the_qualified_name(repo: Path) -> None:
    got = _symbols(run("-C", str(repo), "find", "Utils.*", "--json"))
    assert got == ["pkg.rack.Rack.Utils.escape", "pkg.rack.Rack.Utils.unescape"]
    got = _symbols(run("-C", str(repo), "find", "utils.un*", "--json"))
    assert got == ["pkg.rack.Rack.Utils.unescape"]
    # a part is matched whole: `tils.*` is no part of `Rack.Utils`
    assert _symbols(run("-C", str(repo), "find", "tils.*", "--json")) == []


def test_diff_of_head_on_a_clean_workspace_changes_nothing(repo: Path) -> None:
    # the first command saves the view state; the next process starts clean from it
    for _ in range(2):
        proc = run("-C", str(repo), "tests", "--diff", "HEAD", "--json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["results"] == []
        assert "pkg/rack.py" not in proc.stdout
    (repo / "pkg/rack.py").write_text(SOURCE.replace("return 2", "return 3"))
    proc = run("-C", str(repo), "blast-radius", "--diff", "HEAD", "--json")
    got = {r["symbol"] for r in json.loads(proc.stdout)["results"]}
    assert "pkg.rack.Rack.Utils.unescape" in got and "pkg.rack.Rack.Utils.escape" not in got


def test_hierarchy_of_a_name_shared_by_a_type_and_its_factory_function(
        make_repo: MakeRepo) -> None:
    root = make_repo({"src/main/kotlin/a/Job.kt": (
        "package a\n\ninterface Job {\n    fun cancel()\n}\n\n"
        "fun Job(): Job = JobImpl()\n\nclass JobImpl : Job {\n"
        "    override fun cancel() {}\n}\n")})
    assert run("-C", str(root), "index").returncode == 0
    # `a.Job` names the interface and the function; the hierarchy is the interface's
    assert _symbols(run("-C", str(root), "hierarchy", "a.Job", "--json")) == ["a.JobImpl"]
