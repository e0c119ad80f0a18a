"""The command line of docs/tools.md: output shapes and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.query.facade import CodeIntel
from spyglass.wire import result_json

MakeRepo = Callable[..., Path]
SOURCE = "def helper():\n    return 1\n\n\ndef main():\n    return helper()\n"


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), *args],
                          capture_output=True, text=True, check=False)


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": SOURCE})
    assert run(root, "index").returncode == 0
    return root


def test_json_output_is_the_tool_result(repo: Path) -> None:
    proc = run(repo, "callers", "--at", "pkg/core.py:1:5", "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    want = result_json(CodeIntel(repo).callers(path="pkg/core.py", line=1, column=5))
    assert got["results"] == want["results"]
    assert [(r["path"], r["start_line"], r["symbol"], r["kind"]) for r in got["results"]] == [
        ("pkg/core.py", 6, "pkg.core.main", "func")]


def test_human_output_is_aligned_rows(repo: Path) -> None:
    proc = run(repo, "structure", "pkg/core.py")
    assert proc.returncode == 0
    lines = proc.stdout.strip().splitlines()
    assert lines == ["pkg/core.py:1  func  pkg.core.helper", "pkg/core.py:5  func  pkg.core.main"]
    assert "\x1b[" not in proc.stdout  # no colour when not on a terminal


def test_no_results_is_success(repo: Path) -> None:
    proc = run(repo, "find", "*does_not_exist*")
    assert proc.returncode == 0
    assert "no results" in proc.stdout


@pytest.mark.parametrize("command", ["find", "refs", "callers", "callees", "hierarchy"])
def test_a_name_naming_nothing_is_bad_input_for_every_command(repo: Path, command: str
                                                              ) -> None:
    proc = run(repo, command, "does_not_exist")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "no definition named 'does_not_exist'" in proc.stderr and not proc.stdout


def test_an_empty_name_is_bad_input(repo: Path) -> None:
    for command in ("find", "refs"):
        proc = run(repo, command, "")
        assert proc.returncode == 2 and proc.stderr.startswith("spyglass: ")


@pytest.mark.parametrize("args", [("refs",), ("refs", "--at", "pkg/core.py:x"),
                                  ("refs", "unknown_symbol"), ("structure", "../outside.py"),
                                  ("bogus-command",), ("refs", "--at", "pkg/core.py:99"),
                                  ("blast-radius", "--depth", "11"), ("explore", "x", "--budget",
                                                                      "5"),
                                  ("context", "pkg/core.py:5-2"), ("context", "pkg/core.py")])
def test_bad_arguments_exit_2_with_one_line(repo: Path, args: tuple[str, ...]) -> None:
    proc = run(repo, *args)
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("spyglass: ") and proc.stderr.count("\n") == 1


def test_other_failures_exit_1(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    proc = run(tmp_path, "index")
    assert proc.returncode == 1
    assert "no commits yet" in proc.stderr


def test_a_bad_ref_is_a_bad_argument(repo: Path) -> None:
    proc = run(repo, "index", "--ref", "no-such-ref")
    assert proc.returncode == 2
    assert "does not name a commit" in proc.stderr


def test_index_json_reports_the_ref_used(repo: Path) -> None:
    proc = run(repo, "index", "--json")
    info = json.loads(proc.stdout)
    assert info["ref"] == "HEAD" and info["state"] == "completed" and len(info["commit"]) == 40


def test_status_json(repo: Path) -> None:
    proc = run(repo, "status", "--json")
    (report,) = json.loads(proc.stdout)["results"]
    assert report["indexed"] and report["languages"][0]["language"] == "python"


def test_every_tool_of_the_surface_is_a_command(repo: Path) -> None:
    proc = run(repo, "ast-query", "(function_definition name: (identifier) @name)", "pkg")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["pkg/core.py:1:5  @name  identifier  helper",
                                        "pkg/core.py:5:5  @name  identifier  main"]
    proc = run(repo, "context", "pkg/core.py:5-6")
    assert proc.stdout.splitlines()[1:] == ["def main():", "    return helper()"]


def test_status_for_people(repo: Path) -> None:
    proc = run(repo, "status")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("root ") and any(line.startswith("language   python")
                                                 for line in lines)
    assert "freshness  fresh" in lines


def test_context_takes_a_symbol_name(repo: Path) -> None:
    proc = run(repo, "context", "pkg.core.helper")
    assert proc.returncode == 0, proc.stderr
    assert "def helper():" in proc.stdout and "def main" not in proc.stdout
    proc = run(repo, "context", "helpr")
    assert proc.returncode == 2 and "did you mean 'helper'?" in proc.stderr
    proc = run(repo, "context", "pkg/core.py:5-6")  # spans as before
    assert proc.returncode == 0 and "def main():" in proc.stdout


def test_refs_of_a_module_are_its_imports(make_repo: MakeRepo) -> None:
    root = make_repo({"pkg/__init__.py": "", "pkg/util.py": "def helper():\n    return 1\n",
                      "pkg/a.py": "from pkg.util import helper\n\n\nhelper()\n",
                      "pkg/b.py": "import pkg.util\n\n\npkg.util.helper()\n",
                      "pkg/c.py": "x = 1\n"})
    assert run(root, "index").returncode == 0
    for command in ("refs", "callers"):
        proc = run(root, command, "pkg.util", "--json")
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        sites = sorted((r["path"], r["start_line"], r["kind"]) for r in got["results"])
        assert sites == [("pkg/a.py", 1, "import"), ("pkg/b.py", 1, "import")]
        assert any("is a module" in n for n in got["coverage"]["limitations"])
