"""Language servers never run a repository's programs (docs/security.md, "Language
servers"): each real server installed here, on a repository carrying `.venv/bin/python`,
`node_modules/.bin/*` and a workspace typescript, a tsconfig plugin, go.mod/go.work
`toolchain` lines, a compile_commands.json and a `.clangd` naming a hostile compiler, and
programs named like every tool on PATH (PATH holding `.` and the repository): no canary
fires in host or sandbox mode, and the server still answers. The controls run each plain
server the way an editor would and see its canary fire."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from spyglass.bridge import launcher, manager
from spyglass.bridge.launcher import LaunchSpec, launch
from spyglass.bridge.lsp import LspClient
from spyglass.bridge.rpc import RpcError
from spyglass.config import Config
from spyglass.query.facade import CodeIntel

sys.path.insert(0, str(Path(__file__).parent))  # the helpers beside this file
from fixture import commit_all, write_files
from hostile_servers import (
    ASK,
    SOURCES,
    arm,
    fired,
    installed,
    marks,
    path_with_go,
    run_plain,
)
from report import COUNT_KEY

SERVERS = installed()
LABEL = "language servers on a hostile repository"
CASES = [("pyright", True), ("pyright", False), ("gopls", True), ("tsls", True),
         ("tsc", True), ("clangd", True)]
EVIL_SO = '__attribute__((constructor)) static void f(void) {{ fopen("{canary}", "w"); }}\n'


def needs(kind: str, execution: str = "host") -> None:
    if kind not in SERVERS:
        pytest.skip(f"{kind} is not installed (scripts/bootstrap.sh installs it)")
    if execution == "sandbox" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)")


def hostile(tmp_path: Path, pyright_config: bool = True) -> tuple[Path, Path]:
    """The armed repository (committed, as a clone arrives) and its canary folder."""
    root, canaries = tmp_path / "repo", tmp_path / "canaries"
    canaries.mkdir()
    write_files(root, SOURCES)
    arm(root, canaries, pyright_config)
    if shutil.which("cc"):  # a compiler plugin the flags name (clangd never loads one)
        (root / "evil.c").write_text('#include <stdio.h>\n' + EVIL_SO.format(
            canary=canaries / "evil.so"))
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(root / "evil.so"),
                        str(root / "evil.c")], check=True, capture_output=True)
    commit_all(root)
    return root, canaries


def hostile_path(root: Path) -> str:
    """A PATH an unwary user might have: `.` first, the repository before and after Go."""
    return f".::{root}:" + path_with_go(os.environ.get("PATH", "/usr/bin:/bin")) + f":{root}"


@pytest.mark.parametrize("execution", ["host", "sandbox"])
@pytest.mark.parametrize("kind, pyright_config", CASES)
def test_servers_never_run_repository_programs(
        kind: str, pyright_config: bool, execution: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, record_property: pytest.RecordProperty) -> None:
    needs(kind, execution)
    root, canaries = hostile(tmp_path, pyright_config)
    monkeypatch.setenv("PATH", hostile_path(root))
    monkeypatch.setattr(launcher, "STDERR_KEPT", 1 << 24)  # every mark the server's stderr got
    server = replace(SERVERS[kind], execution=execution, allow_host_mcp=execution == "host")
    if kind == "gopls":  # its caches in the test's folder (a private /tmp in the sandbox)
        server = replace(server, env=(f"GOPATH={tmp_path / 'gopath'}",
                                      f"GOCACHE={tmp_path / 'gocache'}", f"HOME={tmp_path}"))
    ci = CodeIntel(root, config=Config(lsp=(server,)))
    path, line = ASK[kind]
    try:
        got = ci.references(path=path, line=line, lsp_budget_ms=60000)
        time.sleep(1.0)  # discovery a server does after its first answer
        bridge = manager.bridge_for(server, root)
        child = bridge._child
        stderr = child.stderr_tail if child is not None else b""
        state, error = bridge.state, bridge.last_error
    finally:
        manager.stop_all()
    seen = fired(canaries) + marks(stderr)
    record_property(COUNT_KEY, [LABEL, 1, 1, len(seen)])
    assert seen == []
    notes = " ".join(got.coverage.limitations)
    assert "SPYGLASS-CANARY" not in notes
    # Silent because it worked, not because it broke: the server answered.
    assert state == "ready", error
    assert any(r.source == "live-lsp" for r in got.results), notes


# The controls: the plain server (host, default settings, an editor's PATH) on a copy of
# the repository runs the canary the hardening keeps silent.
CONTROLS = {  # kind: (extra args, PATH mode, init options, the canary that fires)
    "pyright": ((), "clean", None, ".venv_bin_python"),
    "gopls": ((), "after-go", None, "go1.99.1"),
    "tsls": ((), "clean", None, "node_modules_typescript_lib_tsserver.js"),
    "clangd": (("--query-driver=**",), "clean", None, "evil-cc"),
}


@pytest.mark.parametrize("kind", sorted(CONTROLS))
def test_control_the_plain_server_runs_the_canary(kind: str, tmp_path: Path) -> None:
    needs(kind)
    root, canaries = hostile(tmp_path, pyright_config=False)
    args, mode, init, canary = CONTROLS[kind]
    base = os.environ.get("PATH", "/usr/bin:/bin")
    path = path_with_go(base) if mode == "clean" else path_with_go(f"{root}:{base}")
    env = {"PATH": path, "HOME": str(tmp_path), "GOPATH": str(tmp_path / "gopath"),
           "GOCACHE": str(tmp_path / "gocache"), "GOTOOLCHAIN": "auto",
           "GOPROXY": "off"}
    server = SERVERS[kind]
    err = run_plain([server.command[0], *server.command[1:], *args], root, env,
                    init_options=init)
    assert canary in fired(canaries), err[-2000:]
    assert canary in marks(err)


@pytest.mark.parametrize("kind", ["pyright", "tsls"])
def test_control_the_mark_crosses_the_sandbox(kind: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox hides the canary folder: what the silent sandbox runs above rely on is
    the mark on the server's stderr. The plain server launched in the sandbox (no
    hardening) runs the canary there, and its mark reaches spyglass."""
    needs(kind, "sandbox")
    root, canaries = hostile(tmp_path, pyright_config=False)
    monkeypatch.setattr(launcher, "STDERR_KEPT", 1 << 24)
    server = SERVERS[kind]
    child = launch(LaunchSpec(server.command, root, (), "sandbox"))
    client = LspClient(child.stdin, child.stdout, root)
    try:
        client.initialize(None, timeout=60.0, process_id=None)
        for rel in ("pkg/use.py", "src/use.ts"):
            client.open(root / rel)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not marks(child.stderr_tail):
            time.sleep(0.2)
    except RpcError:  # the server may die of its canary: the mark is what counts
        pass
    finally:
        child.kill()
    assert fired(canaries) == []  # the folder is not visible in the sandbox
    assert CONTROLS[kind][3] in marks(child.stderr_tail)
