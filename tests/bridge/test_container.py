"""Container execution under a real engine (docs/bridge.md "Containers"): Debian's podman
(scripts/bootstrap.sh installs it with runc, cgroupfs and `default_ulimits = []`) runs the
fake server and basedpyright from an image built here with `podman import` from a tar of a
bare root (nothing pulled); the host's /usr (Python, node) and the server's own files are
the only mounts beside the workspace. No network, a read-only workspace, only allowlisted
variables, gone within 2 s of `kill -9` of spyglass; a missing runtime or image is named."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import ANSWERS, CORE, HERE, USE, children, environ_names
from test_basedpyright import FILES

from spyglass.bridge import container
from spyglass.bridge.launcher import LaunchError, LaunchSpec, launch
from spyglass.config import Config, ConfigError, LspServer, Sandbox, load_config
from spyglass.errors import BridgeUnavailable
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport
from spyglass.render import render

CANARY = "canary-secret-5be1"
PYTHON = "/usr/bin/python3"  # Debian's, under the /usr mounted read-only
SKELETON = {"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n", "etc/group": "root:x:0:\n"}
DIRS = ("tmp", "work", "proc", "dev", "sys", "run", "usr", "root", "etc")
LINKS = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
LANGSERVER_JS = Path(sys.executable).parent.parent / "lib" / (
    f"python{sys.version_info.major}.{sys.version_info.minor}") / "site-packages" / \
    "basedpyright" / "langserver.index.js"


def _podman_usable() -> str | None:
    if shutil.which("podman") is None:
        return "podman is not installed (scripts/bootstrap.sh --corpora installs it)"
    if not Path(PYTHON).exists():
        return f"{PYTHON} is missing (the image runs the host's Debian Python)"
    return None


def _skeleton_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in DIRS:
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(info)
        for name, target in LINKS.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname, info.mtime = tarfile.SYMTYPE, target, 0
            tar.addfile(info)
        for name, text in SKELETON.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture(scope="session")
def image(tmp_path_factory: pytest.TempPathFactory) -> str:
    """`localhost/spyglass-test:<digest>`, imported from the skeleton tar once."""
    why = _podman_usable()
    if why:
        pytest.skip(why)
    data = _skeleton_tar()
    name = f"localhost/spyglass-test:{hashlib.sha256(data).hexdigest()[:12]}"
    if subprocess.run(["podman", "image", "exists", name], check=False).returncode != 0:
        tar = tmp_path_factory.mktemp("image") / "root.tar"
        tar.write_bytes(data)
        subprocess.run(["podman", "import", "-q", str(tar), name], check=True,
                       stdout=subprocess.DEVNULL)
    return name


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """The fake servers' own files, mounted read-only (their `binds`)."""
    folder = tmp_path / "tools"
    folder.mkdir()
    for script in ("fake_lsp.py", "probe.py", "tiny_mcp.py"):
        shutil.copy(HERE / script, folder / script)
    return folder


def _containers(prefix: str) -> list[str]:
    out = subprocess.run(["podman", "ps", "-a", "--format", "{{.Names}}"], check=True,
                         capture_output=True, text=True).stdout.split()
    return [n for n in out if n.startswith(prefix)]


def test_the_command_line_is_the_seeds(tmp_path: Path) -> None:
    """`RUNTIME run -i --rm --network NETWORK -v WORKDIR:/work:ro -w /work -e …` exactly the
    allowlisted pairs, no privileges, read-only root, --init, the image, then COMMAND."""
    fake = tmp_path / "bin" / "docker"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    env = {"PATH": str(fake.parent), "LANG": "C"}
    box = Sandbox("docker", "lsp:1", "isolated")
    asked: list[list[str]] = []

    def check(argv: list[str]) -> tuple[int | None, str]:
        asked.append(argv)
        return 0, ""

    run = container.plan(("pylsp", "--x"), tmp_path, env, ("/opt/lsp",), box, check,
                         lambda name, path: shutil.which(name, path=path))
    assert asked == [[str(fake), "image", "inspect", "--format", "{{.Id}}", "lsp:1"]]
    argv = run.argv
    assert argv[:4] == [str(fake), "run", "-i", "--rm"]
    assert argv[argv.index("--network") + 1] == "isolated"
    mounts = [argv[i + 1] for i, a in enumerate(argv) if a == "-v"]
    assert mounts == [f"{tmp_path}:/work:ro", "/opt/lsp:/opt/lsp:ro"]
    assert argv[argv.index("-w") + 1] == "/work"
    pairs = [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
    assert pairs == [f"PATH={fake.parent}", "LANG=C"]
    for flag in ("--cap-drop=ALL", "--read-only", "--init"):
        assert flag in argv
    assert argv[argv.index("--security-opt") + 1] == "no-new-privileges"
    assert argv[argv.index("--pull") + 1] == "never"
    assert argv[-3:] == ["lsp:1", "pylsp", "--x"]
    assert run.cleanup == [str(fake), "rm", "-f", argv[argv.index("--name") + 1]]
    assert run.env == {"PATH": str(fake.parent)}  # the client gets no allowlisted values


def test_a_bind_under_work_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "podman"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    with pytest.raises(container.ContainerError, match="under /work"):
        container.plan(("x",), tmp_path, {"PATH": str(tmp_path)}, ("/work/tools",),
                       Sandbox("podman", "lsp:1"), lambda argv: (0, ""),
                       lambda name, path: shutil.which(name, path=path))


def test_paths_are_mapped_in_uris_and_paths_only(tmp_path: Path) -> None:
    paths = container.PathMap(tmp_path)
    host_uri = "file://" + str(tmp_path) + "/pkg/a.py"
    msg = {"textDocument": {"uri": host_uri, "text": f"see {tmp_path}/pkg"},
           "rootPath": str(tmp_path), "rootUri": "file://" + str(tmp_path) + "x/y"}
    out = paths.outward(msg)
    assert out["textDocument"] == {"uri": "file:///work/pkg/a.py", "text": f"see {tmp_path}/pkg"}
    assert out["rootPath"] == "/work"
    assert out["rootUri"] == msg["rootUri"]  # a sibling folder sharing the prefix: untouched
    assert paths.inward(out) == msg
    assert paths.inward({"result": [{"uri": "file:///workx/a.py"}]}) == \
        {"result": [{"uri": "file:///workx/a.py"}]}


def test_sandbox_config_is_host_only(tmp_path: Path) -> None:
    host = tmp_path / "config.toml"
    host.write_text('[sandbox]\nruntime = "podman"\nimage = "localhost/lsp:1"\n'
                    'groups = ["trusted"]\n'
                    '[[codeintel.lsp]]\nlanguage = "python"\ncommand = ["pylsp"]\n'
                    '[[codeintel.lsp]]\nlanguage = "go"\ncommand = ["gopls"]\nname = "trusted"\n'
                    'execution = "host"\nallow_host_mcp = true\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    config = load_config(host, repo)
    assert config.sandbox == Sandbox("podman", "localhost/lsp:1", "none", ("trusted",))
    assert all(s.sandbox == config.sandbox for s in config.lsp)
    (repo / "spyglass.toml").write_text('[sandbox]\nruntime = "bubblewrap"\nnetwork = "host"\n')
    with pytest.raises(ConfigError, match="may only narrow"):
        load_config(host, repo)
    host.write_text(host.read_text().replace('groups = ["trusted"]', "groups = []"))
    with pytest.raises(ConfigError, match="needs 'trusted' in \\[sandbox\\] groups"):
        load_config(host)
    for bad in ('runtime = "lxc"', 'runtime = "podman"', 'runtime = "docker"\nimage = "a b"',
                'runtime = "podman"\nimage = "x"\nnetwork = "--privileged"'):
        host.write_text(f"[sandbox]\n{bad}\n")
        with pytest.raises(ConfigError, match=r"\[sandbox\]"):
            load_config(host)


def _boxed(image: str, tools: Path, mode: str = "ok") -> LspServer:
    return LspServer("python", (PYTHON, str(tools / "fake_lsp.py"), mode), (), "sandbox",
                     False, "fake", ("/usr", str(tools)), sandbox=Sandbox("podman", image))


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE})
    (root / ".fake_answers.json").write_text(json.dumps(ANSWERS))
    return root


def test_fake_server_answers_through_the_container(image: str, tools: Path, repo: Path
                                                   ) -> None:
    """Its sites come back as host paths (mapped from /work), and code_status names the
    runtime and the image."""
    ci = CodeIntel(repo, config=Config(lsp=(_boxed(image, tools),), required=True))
    out = ci.references("target", lsp_budget_ms=30000)
    # the import and caller_a's call confirmed, caller_b's refuted, caller_c's added
    assert [(c.path, c.start_line, c.source, c.uncertain) for c in out.results] == [
        ("pkg/use.py", 1, "live-lsp", False), ("pkg/use.py", 5, "live-lsp", False),
        ("pkg/use.py", 13, "live-lsp", False)]
    status = ci.status().results[0]
    assert isinstance(status, StatusReport)
    bridge = status.bridges[0]
    assert (bridge.state, bridge.runtime, bridge.image) == ("ready", "podman", image)
    assert f"fake (python, sandbox podman {image}) ready" in render(ci.status(), "code_status")


def test_an_mcp_server_through_the_container(image: str, tools: Path, repo: Path) -> None:
    """An MCP bridge in the container: its absolute /work paths (in a text result) come
    back as the repository's files."""
    server = LspServer("python", (PYTHON, str(tools / "tiny_mcp.py")), (), "sandbox", False,
                       "tiny", ("/usr", str(tools)), "{}", "mcp", ("code_references",),
                       Sandbox("podman", image))
    ci = CodeIntel(repo, config=Config(lsp=(server,), required=True))
    out = ci.references("target", lsp_budget_ms=30000)
    assert [(c.path, c.start_line, c.source, c.uncertain) for c in out.results] == [
        ("pkg/use.py", 1, "live-lsp", False), ("pkg/use.py", 5, "live-lsp", False),
        ("pkg/use.py", 13, "live-lsp", False)]


@pytest.fixture
def listener() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


def test_no_network_read_only_workspace_only_allowlisted_variables(
        image: str, tools: Path, tmp_path: Path, listener: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_TEST_TOKEN", CANARY)
    monkeypatch.setenv("LANG", "C.UTF-8")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "inside.txt").write_text("the workspace")
    canary = tmp_path / "canary.txt"  # a host file outside every mount
    canary.write_text(CANARY)
    child = launch(LaunchSpec((PYTHON, str(tools / "probe.py"), str(listener), str(canary),
                               "/work/written.txt"), ws, ("LANG",), "sandbox",
                              ("/usr", str(tools)), Sandbox("podman", image)))
    try:
        seen = json.loads(child.stdout.readline())
        init = int(subprocess.run(["podman", "inspect", "-f", "{{.State.Pid}}",
                                   _containers(f"spyglass-{os.getpid()}-")[0]], check=True,
                                  capture_output=True, text=True).stdout)
        names, raw = environ_names(children(init)[0])  # the probe, under --init
    finally:
        child.kill()
    assert seen == {"tcp": False, "canary": False, "own": True, "write": False}
    assert not (ws / "written.txt").exists()
    assert CANARY.encode() not in raw
    # PATH and LANG (the allowlist); HOME (the image user's) and HOSTNAME (the container
    # id) are set by podman itself and carry nothing of the host.
    assert {"PATH", "LANG"} <= names <= {"PATH", "LANG", "HOME", "HOSTNAME"}, raw
    assert f"HOSTNAME={socket.gethostname()}".encode() not in raw


def test_host_control_reaches_what_the_container_does_not(
        tmp_path: Path, listener: int, tools: Path) -> None:
    """The control: the same probe on the host reaches the listener (so the test above can
    fail)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    canary = tmp_path / "canary.txt"
    canary.write_text(CANARY)
    child = launch(LaunchSpec((sys.executable, str(tools / "probe.py"), str(listener),
                               str(canary), str(ws / "written.txt")), ws, (), "host"))
    seen = json.loads(child.stdout.readline())
    child.kill()
    assert seen == {"tcp": True, "canary": True, "own": True, "write": True}


STAND_IN = """
import sys, time
from pathlib import Path
from spyglass.bridge.launcher import LaunchSpec, launch
from spyglass.config import Sandbox
tools = Path(sys.argv[2])
child = launch(LaunchSpec(("/usr/bin/python3", str(tools / "fake_lsp.py")), Path(sys.argv[1]),
                          (), "sandbox", ("/usr", str(tools)), Sandbox("podman", sys.argv[3])))
print(child.pid, flush=True)
time.sleep(120)
"""


def test_kill_9_of_spyglass_removes_the_container_within_2s(
        image: str, tools: Path, tmp_path: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", STAND_IN, str(tmp_path), str(tools),
                               image], stdout=subprocess.PIPE, text=True)
    prefix = f"spyglass-{parent.pid}-"
    try:
        assert parent.stdout is not None
        int(parent.stdout.readline())
        deadline = time.monotonic() + 30
        while not _containers(prefix) and time.monotonic() < deadline:
            time.sleep(0.1)
        name = _containers(prefix)[0]
        pid = int(subprocess.run(["podman", "inspect", "-f", "{{.State.Pid}}", name],
                                 check=True, capture_output=True, text=True).stdout)
        assert pid > 0 and Path(f"/proc/{pid}").exists()
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        killed = time.monotonic()
        while (_containers(prefix) or Path(f"/proc/{pid}").exists()) and \
                time.monotonic() - killed < 10:
            time.sleep(0.05)
        took = time.monotonic() - killed
        assert not _containers(prefix) and not Path(f"/proc/{pid}").exists()
        # Measured as elapsed time: the promise is about the wall clock (a container left
        # running), and podman's removal is not our process's CPU time.
        assert took < 2.0, f"container gone after {took:.2f}s"
    finally:
        parent.kill()
        parent.wait()
        for name in _containers(prefix):
            subprocess.run(["podman", "rm", "-f", "-t", "0", name], check=False,
                           capture_output=True)


@pytest.mark.parametrize("missing", ["runtime", "image"])
def test_a_missing_runtime_or_image_is_named(missing: str, repo: Path, tools: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if missing == "image" and _podman_usable():
        pytest.skip(str(_podman_usable()))
    box = Sandbox("docker", "lsp:1") if missing == "runtime" else \
        Sandbox("podman", "localhost/spyglass-absent:0")
    if missing == "runtime":
        monkeypatch.setenv("PATH", "/nonexistent")
    server = LspServer("python", (PYTHON, "fake_lsp.py"), (), "sandbox", False, "fake",
                       (), sandbox=box)
    word = "container runtime 'docker' not found" if missing == "runtime" else \
        "container image 'localhost/spyglass-absent:0' not found in podman"
    out = CodeIntel(repo, config=Config(lsp=(server,))).references("target",
                                                                    lsp_budget_ms=20000)
    assert out.results  # the index answer
    assert any(word in n for n in out.coverage.limitations), out.coverage.limitations
    with pytest.raises(BridgeUnavailable, match=word):
        CodeIntel(repo, config=Config(lsp=(server,), required=True)).start_bridges(wait=20)
    with pytest.raises(LaunchError, match=word):
        launch(LaunchSpec(server.command, repo, (), "sandbox", (), box))


@pytest.fixture(scope="session")
def basedpyright(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """basedpyright's package, hard-linked outside the checkout: a checkout under /work
    (this machine's) could not be mounted at its own path beside the workspace's /work."""
    if not LANGSERVER_JS.exists() or not Path("/usr/bin/node").exists():
        pytest.skip("basedpyright or /usr/bin/node is missing (scripts/bootstrap.sh)")
    dest = tmp_path_factory.mktemp("bp") / "basedpyright"

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(LANGSERVER_JS.parent, dest, copy_function=link)
    return dest


def test_basedpyright_in_the_container(image: str, basedpyright: Path,
                                       make_repo: Callable[..., Path]) -> None:
    """A real server: basedpyright (node from the host's /usr, its own package mounted
    read-only) decides the sites through the container, paths mapped both ways."""
    root = make_repo(FILES)
    server = LspServer("python", ("/usr/bin/node", str(basedpyright / LANGSERVER_JS.name),
                                  "--stdio"), (), "sandbox", False, "basedpyright",
                       ("/usr", str(basedpyright)), sandbox=Sandbox("podman", image))
    ci = CodeIntel(root, config=Config(lsp=(server,), required=True))
    live = ci.callers(path="pkg/shapes.py", line=2, lsp_budget_ms=60000)
    got = [(c.path, c.start_line, c.source, c.uncertain) for c in live.results]
    # The union type Circle | Square makes `shape.area()` a real call of Circle.area too.
    assert got == [("pkg/use.py", 10, "live-lsp", False), ("pkg/use.py", 14, "live-lsp", False)]
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    assert (report.bridges[0].version or "").startswith("basedpyright")
