"""`spyglass init` (docs/onboarding.md): MCP configs and agent instructions, printed or
merged into the repository without losing what is there."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass import surface
from spyglass.cli.main import main
from spyglass.cli.onboarding import BEGIN, END, cli_program

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    return make_repo({"a.py": "def f():\n    pass\n"})


def test_print_writes_nothing_and_names_every_file(repo: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "init"]) == 0
    out = capsys.readouterr().out
    for name in (".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", "AGENTS.md", "CLAUDE.md"):
        assert f"# {name} " in out
    assert not (repo / ".mcp.json").exists() and not (repo / "AGENTS.md").exists()


def test_write_merges_configs_and_is_idempotent(repo: Path) -> None:
    (repo / ".vscode").mkdir()
    (repo / ".vscode" / "mcp.json").write_text(json.dumps(
        {"servers": {"other": {"command": "x"}}, "inputs": []}))
    (repo / "AGENTS.md").write_text("# Team notes\n\nKeep this.\n")
    for _ in range(2):
        assert main(["-C", str(repo), "init", "--write"]) == 0
    vscode = json.loads((repo / ".vscode" / "mcp.json").read_text())
    assert vscode["servers"]["other"] == {"command": "x"} and vscode["inputs"] == []
    assert vscode["servers"]["spyglass"]["type"] == "stdio"
    assert vscode["servers"]["spyglass"]["args"][-3:] == ["serve", "-C", "${workspaceFolder}"]
    claude = json.loads((repo / ".mcp.json").read_text())
    assert claude["mcpServers"]["spyglass"]["args"][-3:] == ["serve", "-C", "."]
    agents = (repo / "AGENTS.md").read_text()
    assert agents.startswith("# Team notes\n\nKeep this.\n")
    assert agents.count(BEGIN) == 1 and agents.count(END) == 1  # replaced, not appended
    assert (repo / "CLAUDE.md").read_text().count(BEGIN) == 1


def test_instructions_name_real_commands(repo: Path) -> None:
    assert main(["-C", str(repo), "init", "--write", "--client", "cursor"]) == 0
    text = (repo / "AGENTS.md").read_text()
    commands = {t.command for t in surface.TOOLS.values() if t.command}
    prog = cli_program()
    used = {line.split(f"`{prog} ")[1].split()[0] for line in text.splitlines()
            if f"(CLI: `{prog} " in line}
    assert used and used <= commands
    assert not (repo / "CLAUDE.md").exists() and not (repo / ".mcp.json").exists()


def test_instructions_commands_work_from_a_shell_without_the_venv_on_path(repo: Path) -> None:
    """Issue 28: AGENTS.md told agents to run `spyglass`, which is not on PATH after the
    README's set-up: the commands it gives must run as written."""
    assert main(["-C", str(repo), "init", "--write", "--client", "cursor"]) == 0
    text = (repo / "AGENTS.md").read_text()
    line = next(x for x in text.splitlines() if x.startswith("- outline of a file"))
    command = line.split("(CLI: `")[1].rstrip(")").rstrip("`").replace("PATH", ".")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    proc = subprocess.run(["sh", "-c", command], cwd=repo, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, (command, proc.stderr)


@pytest.mark.parametrize("setup, message", [
    (lambda r: (r / ".mcp.json").write_text("{not json"), "not valid JSON"),
    (lambda r: (r / ".mcp.json").write_text('{"mcpServers": []}'), "'mcpServers' object"),
    (lambda r: os.symlink("/etc/hostname", r / "AGENTS.md"), "symbolic link"),
    (lambda r: (r / "CLAUDE.md").mkdir(), "not a regular file"),
])
def test_bad_existing_files_are_refused_and_nothing_is_written(
        repo: Path, capsys: pytest.CaptureFixture[str], setup: Callable[[Path], object],
        message: str) -> None:
    setup(repo)
    before = sorted(p.name for p in repo.iterdir())
    assert main(["-C", str(repo), "init", "--write"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in repo.iterdir()) == before
