"""Bridge configuration: only the host config names servers; secret-like variables, host
execution without consent and malformed entries are refused with the reason (docs/bridge.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spyglass.config import ConfigError, load_config

SERVER = '[[codeintel.lsp]]\nlanguage = "python"\ncommand = ["basedpyright-langserver", "--stdio"]\n'


def host(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_a_server_entry_loads_with_its_posture(tmp_path: Path) -> None:
    cfg = load_config(host(tmp_path, "[codeintel]\nlsp_budget_ms = 500\n" + SERVER
                           + 'env = ["LANG", "GOFLAGS=-mod=mod"]\nname = "pyright"\n'))
    (server,) = cfg.lsp
    assert (server.execution, server.env, server.label, cfg.lsp_budget_ms) == (
        "sandbox", ("LANG", "GOFLAGS=-mod=mod"), "pyright", 500)


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
                                  "API_KEY=abc", "SOPS_AGE_IDENTITY"])
def test_secret_like_variables_are_refused_by_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match=f"env may not pass .{name.split('=')[0]}.: its name"):
        load_config(host(tmp_path, SERVER + f'env = ["LANG", "{name}"]\n'))


def test_host_execution_needs_consent(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="allow_host_mcp = true"):
        load_config(host(tmp_path, SERVER + 'execution = "host"\n'))
    cfg = load_config(host(tmp_path, SERVER + 'execution = "host"\nallow_host_mcp = true\n'))
    assert cfg.lsp[0].execution == "host"


@pytest.mark.parametrize("extra, why", [
    ('execution = "container"\n', "execution must be"),
    ('binds = ["relative/path"]\n', "binds must be a list of absolute paths"),
])
def test_malformed_entries_are_refused(tmp_path: Path, extra: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        load_config(host(tmp_path, SERVER + extra))


@pytest.mark.parametrize("budget", ["-1", "60001", "true", '"2s"'])
def test_budget_must_be_in_range(tmp_path: Path, budget: str) -> None:
    with pytest.raises(ConfigError, match="lsp_budget_ms"):
        load_config(host(tmp_path, f"[codeintel]\nlsp_budget_ms = {budget}\n"))


@pytest.mark.parametrize("policy", [
    SERVER,
    '[codeintel]\nrequired = false\n',
    ('[policy]\ncapabilities = ["code_references"]\n[[codeintel.lsp]]\nlanguage = "go"\n'
     'command = "gopls"\n'),
])
def test_repository_policy_can_never_name_a_server(tmp_path: Path, policy: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "spyglass.toml").write_text(policy)
    with pytest.raises(ConfigError, match="language servers, their commands, environment "
                                          "and execution are set in the host config only"):
        load_config(host(tmp_path, ""), repo_root=repo)


def test_repository_policy_may_still_narrow_capabilities(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "spyglass.toml").write_text('[policy]\ncapabilities = ["code_references"]\n')
    cfg = load_config(host(tmp_path, SERVER), repo_root=repo)
    assert cfg.capabilities == ("code_references",) and len(cfg.lsp) == 1


def test_serve_refuses_to_start_when_a_required_server_cannot(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    cfg = host(tmp_path, "[codeintel]\nrequired = true\n[[codeintel.lsp]]\n"
                         'language = "python"\ncommand = ["no-such-lsp-xyz"]\n'
                         'name = "ghost"\nexecution = "host"\nallow_host_mcp = true\n')
    run = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(cfg), "serve"],
                         cwd=repo, capture_output=True, text=True, timeout=60, input="", check=False)
    assert run.returncode == 2
    assert "ghost (python) is required but unavailable: binary not found" in run.stderr
    assert "Traceback" not in run.stderr
