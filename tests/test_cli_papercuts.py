"""The command line as a new user meets it: help everywhere, --version, options in any
place, clear errors with suggestions, truthful status, no traceback (docs/tools.md)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.cli.args import build_parser
from spyglass.cli.main import main

MakeRepo = Callable[..., Path]
SOURCE = ("class Table:\n    def render(self):\n        return 1\n\n\n"
          "def make_table():\n    return Table().render()\n")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", *args], capture_output=True,
                          text=True, check=False, cwd=cwd)


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/tables.py": SOURCE})
    assert run("-C", str(root), "index").returncode == 0
    return root


def _actions(parser: argparse.ArgumentParser, where: str = "spyglass"
             ) -> list[tuple[str, argparse.Action]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _actions(sub, f"{where} {name}")
        else:
            out.append((where, action))
    return out


def test_every_option_and_argument_has_help() -> None:
    missing = [f"{where} {a.option_strings or a.dest}" for where, a in _actions(build_parser())
               if not a.help or a.help == argparse.SUPPRESS]
    assert missing == []


def test_version_and_bare_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("spyglass ")
    assert main([]) == 2
    out = capsys.readouterr().out
    for command in ("index", "find", "refs", "callers", "serve", "init"):
        assert f"    {command} " in out


@pytest.mark.parametrize("order", ["before", "after"])
def test_global_options_before_or_after_the_subcommand(repo: Path, order: str) -> None:
    args = ["-C", str(repo), "--json"]
    argv = [*args, "find", "Table"] if order == "before" else ["find", "Table", *args]
    proc = run(*argv, cwd=repo.parent)
    assert proc.returncode == 0, proc.stderr
    assert [r["symbol"] for r in json.loads(proc.stdout)["results"]] == ["pkg.tables.Table"]


def test_unknown_kind_lists_the_valid_ones(repo: Path) -> None:
    proc = run("-C", str(repo), "find", "Table", "--kind", "klass")
    assert proc.returncode == 2
    assert "unknown kind 'klass'" in proc.stderr and "class" in proc.stderr.split(":")[-1]


def test_missing_path_is_an_error(repo: Path) -> None:
    proc = run("-C", str(repo), "find", "Table", "--path", "pkg/nonexist")
    assert proc.returncode == 2
    assert "no file or folder 'pkg/nonexist'" in proc.stderr


def test_did_you_mean(repo: Path) -> None:
    proc = run("-C", str(repo), "find", "Tabel")
    assert proc.returncode == 2
    assert "did you mean 'Table'?" in proc.stderr
    proc = run("-C", str(repo), "refs", "make_tabel")
    assert proc.returncode == 2 and "did you mean 'make_table'?" in proc.stderr


def test_globs_ignore_case(repo: Path) -> None:
    proc = run("-C", str(repo), "find", "*TABLE*", "--json")
    got = sorted(r["symbol"] for r in json.loads(proc.stdout)["results"])
    assert got == ["pkg.tables.Table", "pkg.tables.Table.render", "pkg.tables.make_table"]


def test_hints_name_cli_commands(repo: Path) -> None:
    proc = run("-C", str(repo), "refs", "zzzz_nothing_like_it")
    assert proc.returncode == 2
    assert "spyglass find" in proc.stderr and "code_find_symbol" not in proc.stderr
    status = run("-C", str(repo), "status").stdout
    tools = next(line for line in status.splitlines() if line.startswith("tools "))
    assert "refs" in tools and "code_" not in tools


def test_bad_ref_and_bad_diff_exit_2_alike(repo: Path) -> None:
    ref = run("-C", str(repo), "index", "--ref", "nosuchbranch")
    diff = run("-C", str(repo), "blast-radius", "--diff", "nosuchbranch")
    assert ref.returncode == diff.returncode == 2
    assert ref.stderr.count("\n") == diff.stderr.count("\n") == 1


def test_status_without_an_index_does_not_claim_fresh(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\n"})
    out = run("-C", str(root), "status").stdout
    assert "freshness  fresh" not in out
    assert "freshness  no index" in out


def test_store_deleted_mid_run_is_one_line(repo: Path) -> None:
    """The store vanishing while `index` runs (here: right after the files are listed) is
    a one-line reason, never a traceback, and never reported as a success."""
    (repo / "pkg" / "more.py").write_text("def more():\n    return 2\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qm", "more"], check=True)
    code = ("import shutil, sys\n"
            "from spyglass.index.builder import SnapshotBuilder as Builder\n"
            "from spyglass.cli.main import main\n"
            "real = Builder._enumerate\n"
            "def enumerate_then_delete(self, *args):\n"
            "    out = real(self, *args)\n"
            "    shutil.rmtree(self.store)\n"
            "    return out\n"
            "Builder._enumerate = enumerate_then_delete\n"
            f"sys.exit(main(['-C', {str(repo)!r}, 'index']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "run `spyglass index`" in proc.stderr or "deleted while indexing" in proc.stderr


def test_explore_takes_unquoted_words(repo: Path) -> None:
    """`spyglass explore how are tables rendered` asks the question its words make."""
    quoted = run("-C", str(repo), "--json", "explore", "how are tables rendered")
    words = run("-C", str(repo), "--json", "explore", "how", "are", "tables", "rendered")
    assert quoted.returncode == words.returncode == 0, words.stderr
    assert json.loads(words.stdout)["results"] == json.loads(quoted.stdout)["results"]
    assert any("Table" in str(r) for r in json.loads(words.stdout)["results"])
