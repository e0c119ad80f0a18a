"""The posture a language server starts in (docs/bridge.md, docs/security.md "Language
servers"): the sandbox shows the server's own files and nothing beside them, PATH holds no
repository folder, a server inside the workspace is refused, each known server is
configured against discovery, and a reply stream that is not clean JSON-RPC ends the
bridge without its text reaching an answer."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.bridge import manager
from spyglass.bridge.harden import harden, kind_of
from spyglass.bridge.launcher import LaunchError, LaunchSpec, child_env, launch
from spyglass.bridge.lsp import LspClient
from spyglass.bridge.mcpclient import McpClient
from spyglass.bridge.rpc import RpcError
from spyglass.config import Config, LspServer, Sandbox
from spyglass.query.facade import CodeIntel

sys.path.insert(0, str(Path(__file__).parent))
from report import COUNT_KEY

BRIDGE_TESTS = Path(__file__).resolve().parent.parent / "bridge"
sys.path.insert(0, str(BRIDGE_TESTS))
from helpers import ANSWERS, CORE, USE, server

PROBE = """#!{python}
import json, sys
seen = {{}}
for p in sys.argv[1:]:
    try:
        with open(p, "rb") as fh:
            seen[p] = fh.read() == b"x"
    except OSError:
        seen[p] = False
print(json.dumps(seen), flush=True)
"""


def _cargo(home: Path) -> tuple[Path, list[Path], list[Path]]:
    """~/.cargo/bin/server: credentials.toml beside bin/ must stay hidden."""
    prefix = home / ".cargo"
    exe = prefix / "bin" / "probe-server"
    return exe, [], [prefix / "credentials.toml", prefix / "bin" / "other-tool"]


def _local_node(home: Path) -> tuple[Path, list[Path], list[Path]]:
    """~/.local/bin/server -> ../lib/node_modules/probe/cli: its package tree is visible,
    the rest of ~/.local is not."""
    prefix = home / ".local"
    tree = prefix / "lib" / "node_modules"
    real = tree / "probe" / "cli"
    exe = prefix / "bin" / "probe-server"
    exe.parent.mkdir(parents=True)
    real.parent.mkdir(parents=True)
    exe.symlink_to(os.path.relpath(real, exe.parent))
    return real, [tree / "probe" / "data.txt", tree / "dep" / "index.txt"], [
        prefix / "credentials.toml", prefix / "share" / "keyrings" / "login.txt",
        prefix / "bin" / "other-tool"]


def _venv(home: Path) -> tuple[Path, list[Path], list[Path]]:
    """A venv's console script: the venv is visible, the folder holding it is not."""
    venv = home / "tools" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.base_prefix) / 'bin'}\n")
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    return venv / "bin" / "probe-server", [venv / "lib" / "data.txt"], [
        home / "tools" / "credentials.toml", home / "tools" / "other" / "secret.txt"]


LAYOUTS: dict[str, Callable[[Path], tuple[Path, list[Path], list[Path]]]] = {
    "cargo": _cargo, "local-node": _local_node, "venv": _venv}


@pytest.mark.parametrize("execution", ["sandbox", "host"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_sandbox_shows_the_server_files_only(
        layout: str, execution: str, tmp_path: Path,
        record_property: pytest.RecordProperty) -> None:
    """A canary credentials file beside the server's prefix is not readable inside the
    sandbox; the server's own package files are. Host: all are (the control)."""
    if execution == "sandbox" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)")
    home = tmp_path / "home"
    script, own, hidden = LAYOUTS[layout](home)
    python = script.parent / "python" if layout == "venv" else Path("/usr/bin/python3")
    if not python.exists():
        pytest.skip("no /usr/bin/python3")
    for path in [script, *own, *hidden]:
        path.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(PROBE.format(python=python))
    script.chmod(0o755)
    for path in [*own, *hidden]:
        path.write_text("x")
    exe = home / ".local" / "bin" / "probe-server" if layout == "local-node" else script
    workspace = tmp_path / "ws"
    workspace.mkdir()
    child = launch(LaunchSpec((str(exe), *map(str, own + hidden)), workspace, (), execution))
    try:
        seen = json.loads(child.stdout.readline())
    finally:
        child.kill()
    if execution == "sandbox":
        record_property(COUNT_KEY, ["files beside a sandboxed server's prefix", 1, 1,
                                    sum(seen[str(p)] for p in hidden)])
    assert seen == {str(p): execution == "host" or p in own for p in own + hidden}


def test_path_holds_no_relative_or_workspace_folder(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "bin").mkdir(parents=True)
    host = {"PATH": f".::bin:{ws}:{ws / 'bin'}:/usr/bin:{tmp_path}:./x:/usr/bin"}
    assert child_env((), host, ws)["PATH"] == f"/usr/bin:{tmp_path}"
    assert child_env((), {"PATH": f".:{ws}"}, ws)["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    # A PATH the host config sets is cleaned the same way.
    assert child_env((f"PATH=:{ws}/bin:/opt/go/bin",), {"PATH": "/usr/bin"}, ws)["PATH"] \
        == "/opt/go/bin"


def test_a_server_inside_the_workspace_is_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".venv" / "bin").mkdir(parents=True)
    exe = ws / ".venv" / "bin" / "basedpyright-langserver"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    for execution in ("host", "sandbox"):
        with pytest.raises(LaunchError, match="inside the workspace"):
            launch(LaunchSpec((str(exe),), ws, (), execution))
    # ...also when only its interpreter is the repository's.
    script = tmp_path / "tool"
    script.write_text(f"#!{ws / '.venv' / 'bin' / 'python'}\n")
    script.chmod(0o755)
    with pytest.raises(LaunchError, match="inside the workspace"):
        launch(LaunchSpec((str(script),), ws, (), "host"))


def _fake(tmp_path: Path, name: str, body: str = "#!/bin/sh\nexit 0\n") -> Path:
    path = tmp_path / "bin" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("command, kind", [
    (("/x/basedpyright-langserver", "--stdio"), "pyright"),
    (("node", "/x/dist/pyright-langserver.js", "--stdio"), "pyright"),
    (("gopls", "serve"), "gopls"), (("/x/typescript-language-server", "--stdio"), "tsls"),
    (("clangd-14", "--background-index"), "clangd"), (("pylsp",), ""),
    (("/x/tsc", "--lsp", "--stdio"), "")])
def test_known_servers_are_recognised(command: tuple[str, ...], kind: str) -> None:
    assert kind_of(command) == kind


def test_basedpyright_runs_a_host_interpreter_only(tmp_path: Path) -> None:
    """Its own discovery would pick <root>/.venv/bin/python; a host config pythonPath that
    is relative (the workspace's) or inside the workspace is replaced; an absolute host
    interpreter is kept; PYTHONSAFEPATH keeps the working directory off its sys.path."""
    ws = tmp_path / "ws"
    ws.mkdir()
    exe = _fake(tmp_path, "basedpyright-langserver")
    for given, kept in ((".venv/bin/python", False), (str(ws / ".venv/bin/python"), False),
                        (sys.executable, True), (None, False)):
        settings = {"python": {"pythonPath": given, "analysis": {"x": 1}}} if given else {}
        lsp = LspServer("python", (str(exe), "--stdio"), settings=json.dumps(settings))
        posture = harden(lsp, ws)
        pinned = json.loads(posture.settings)["python"]["pythonPath"]
        assert (pinned == given) is kept
        assert pinned.startswith("/") and not pinned.startswith(str(ws))
        assert posture.programs == (pinned,) and "PYTHONSAFEPATH=1" in posture.env
        if given:
            assert json.loads(posture.settings)["python"]["analysis"] == {"x": 1}


def test_the_workspace_venv_is_read_not_run(tmp_path: Path) -> None:
    """What basedpyright found by running `.venv/bin/python` (its site-packages) it is
    given to read; a venv folder linked from outside the workspace is not."""
    ws = tmp_path / "ws"
    packages = ws / ".venv" / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    outside = tmp_path / "elsewhere" / "lib" / "python3.12" / "site-packages"
    outside.mkdir(parents=True)
    (ws / ".venv" / "lib64").symlink_to(tmp_path / "elsewhere" / "lib")
    exe = _fake(tmp_path, "basedpyright-langserver")
    settings = json.loads(harden(LspServer("python", (str(exe),)), ws).settings)
    assert settings["python"]["analysis"] == {"extraPaths": [str(packages)]}
    given = {"basedpyright": {"analysis": {"extraPaths": ["/x"], "typeCheckingMode": "off"}}}
    settings = json.loads(harden(LspServer("python", (str(exe),),
                                           settings=json.dumps(given)), ws).settings)
    assert settings["basedpyright"]["analysis"] == {"extraPaths": ["/x", str(packages)],
                                                    "typeCheckingMode": "off"}


def test_clangd_never_queries_a_driver_nor_reads_project_config(tmp_path: Path) -> None:
    exe = _fake(tmp_path, "clangd")
    posture = harden(LspServer("c", (str(exe), "--background-index", "--enable-config=true")),
                     tmp_path)
    assert posture.command == (str(exe), "--background-index", "--enable-config=false")
    for arg in ("--query-driver=/usr/bin/**", "--query-driver"):
        with pytest.raises(LaunchError, match="--query-driver is never allowed"):
            harden(LspServer("c", (str(exe), arg)), tmp_path)


def test_gopls_stays_on_the_local_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    exe = _fake(tmp_path, "gopls")
    monkeypatch.setenv("GOFLAGS", "-tags=x -toolexec=/tmp/evil -mod=mod")
    lsp = LspServer("go", (str(exe),), ("GOFLAGS", "GOTOOLCHAIN=auto", "GOPROXY=https://p"))
    env = child_env(lsp.env + harden(lsp, tmp_path).env, dict(os.environ), tmp_path)
    assert (env["GOTOOLCHAIN"], env["GOPROXY"], env["CGO_ENABLED"], env["GOFLAGS"]) == (
        "local", "off", "0", "-tags=x")


def test_typescript_language_server_runs_its_own_tsserver(tmp_path: Path) -> None:
    tree = tmp_path / "tools" / "node_modules"
    cli = tree / "typescript-language-server" / "lib" / "cli.mjs"
    cli.parent.mkdir(parents=True)
    cli.write_text("#!/usr/bin/env node\n")
    cli.chmod(0o755)
    (tree / ".bin").mkdir()
    (tree / ".bin" / "typescript-language-server").symlink_to(
        "../typescript-language-server/lib/cli.mjs")
    lsp = LspServer("typescript", (str(tree / ".bin" / "typescript-language-server"),
                                   "--stdio"))
    with pytest.raises(LaunchError, match="repository's own typescript is never run"):
        harden(lsp, tmp_path / "ws")
    tsserver = tree / "typescript" / "lib" / "tsserver.js"
    tsserver.parent.mkdir(parents=True)
    tsserver.write_text("")
    init = json.loads(harden(lsp, tmp_path / "ws").init_options)
    assert init == {"tsserver": {"path": str(tsserver)}, "plugins": [],
                    "disableAutomaticTypingAcquisition": True}


def test_an_unknown_server_is_left_as_configured(tmp_path: Path) -> None:
    exe = _fake(tmp_path, "pylsp")
    lsp = LspServer("python", (str(exe),), settings='{"pylsp": {"a": 1}}')
    posture = harden(lsp, tmp_path)
    assert (posture.command, posture.env, json.loads(posture.settings)) == (
        lsp.command, (), {"pylsp": {"a": 1}})


FORGED = b"FORGED-ANSWER"


def _body(msg: object) -> bytes:
    data = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


OK = {"jsonrpc": "2.0", "id": 1, "result": None}
STREAMS = {  # what the server wrote, instead of a clean answer to request 1
    "no-length": b"Content-Type: x\r\n\r\n{}",
    "signed-length": b"Content-Length: +2\r\n\r\n{}",
    "underscored-length": b"Content-Length: 1_0\r\n\r\n" + b"{}" * 5,
    "two-lengths": b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
    "unknown-header": b"X-Note: " + FORGED + b"\r\n" + _body(OK),
    "forged-text": FORGED + b": no callers\r\n\r\n",
    "lf-only": b"Content-Length: 2\n\n{}",
    "cut-body": b"Content-Length: 99\r\n\r\n{\"jsonrpc\"",
    "cut-header": b"Content-Len",
    "not-json": b"Content-Length: 13\r\n\r\n" + FORGED,
    "array": _body([OK]),
    "no-jsonrpc": _body({"id": 1, "result": FORGED.decode()}),
    "jsonrpc-1": _body({"jsonrpc": "1.0", "id": 1, "result": None}),
    "unsent-id": _body({"jsonrpc": "2.0", "id": 7, "result": FORGED.decode()}),
    "string-id": _body({"jsonrpc": "2.0", "id": "1", "result": FORGED.decode()}),
    "bool-id": _body({"jsonrpc": "2.0", "id": True, "result": None}),
    "result-and-error": _body({**OK, "error": {"code": 1, "message": "x"}}),
    "neither": _body({"jsonrpc": "2.0", "id": 1}),
    "bad-error": _body({"jsonrpc": "2.0", "id": 1, "error": FORGED.decode()}),
    "null-id-error": _body({"jsonrpc": "2.0", "id": None,
                            "error": {"code": -32700, "message": FORGED.decode()}}),
    "method-not-string": _body({"jsonrpc": "2.0", "method": 5, "params": {}}),
    "params-scalar": _body({"jsonrpc": "2.0", "method": "x", "params": FORGED.decode()}),
    "twice": _body(OK) + _body({**OK, "result": FORGED.decode()}),
    "deep": b"Content-Length: 200000\r\n\r\n" + b"[" * 100000 + b"]" * 100000,
}


def _client(stream: bytes, tmp_path: Path) -> LspClient:
    """A client reading `stream` (then end of file) as the server's output."""
    read, write = os.pipe()

    def feed() -> None:
        os.write(write, stream)
        os.close(write)
    threading.Thread(target=feed, daemon=True).start()
    return LspClient(io.BytesIO(), os.fdopen(read, "rb"), tmp_path)


@pytest.mark.parametrize("case", sorted(STREAMS))
def test_a_malformed_stream_ends_the_bridge_unrepeated(
        case: str, tmp_path: Path, record_property: pytest.RecordProperty) -> None:
    client = _client(STREAMS[case], tmp_path)
    error = ""
    taken = False
    try:
        client.request("textDocument/references", {}, timeout=5.0)
        # Only "twice" answers first (fine); the second answer then breaks the stream.
        taken = case != "twice"
        deadline = time.monotonic() + 5
        while not client.broken and time.monotonic() < deadline:
            time.sleep(0.01)
    except RpcError as exc:
        error = str(exc)
    said = error + (client.broken or "")
    record_property(COUNT_KEY, ["malformed reply streams (canary: taken or repeated)", 1, 1,
                                int(taken or FORGED.decode() in said)])
    assert not taken
    assert error == "" or "malformed reply" in error
    assert client.broken is not None and "malformed reply" in client.broken
    assert FORGED.decode() not in said


def test_a_late_answer_to_an_abandoned_request_is_dropped(tmp_path: Path) -> None:
    """The one answer to an unknown id that is fine: the request timed out (and was
    cancelled) before the server answered it."""
    read, write = os.pipe()
    client = LspClient(io.BytesIO(), os.fdopen(read, "rb"), tmp_path)
    with pytest.raises(RpcError, match="no answer within"):
        client.request("textDocument/references", {}, timeout=0.05)
    os.write(write, _body({"jsonrpc": "2.0", "id": 1, "result": []}))

    def answer_second() -> None:  # once request 2 is sent (an answer never comes first)
        deadline = time.monotonic() + 5
        while 2 not in client._answers and time.monotonic() < deadline:
            time.sleep(0.01)
        os.write(write, _body({"jsonrpc": "2.0", "id": 2, "result": ["second"]}))
    threading.Thread(target=answer_second, daemon=True).start()
    assert client.request("x", {}, timeout=5.0) == ["second"]
    assert client.broken is None
    os.close(write)


@pytest.mark.parametrize("mode", ["forged", "injected"])
def test_a_forged_reply_never_reaches_an_answer(mode: str, make_repo: Callable[..., Path]
                                                ) -> None:
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE})
    (root / ".fake_answers.json").write_text(json.dumps(ANSWERS))
    ci = CodeIntel(root, config=Config(lsp=(server(mode),)))
    try:
        index = ci.references("target", lsp_budget_ms=0)
        got = ci.references("target", lsp_budget_ms=10000)
    finally:
        manager.stop_all()
    assert got.results == index.results
    text = json.dumps([got.coverage.limitations, [r.path for r in got.results]])
    assert "malformed reply" in text and "FORGED" not in text


def test_clean_messages_pass(tmp_path: Path) -> None:
    """The rules refuse nothing JSON-RPC allows: a notification with `params: null` or none,
    a server request with a string id (answered), a Content-Type header, an error answer
    (an error, not a broken stream)."""
    read, write = os.pipe()
    sent = io.BytesIO()
    client = LspClient(sent, os.fdopen(read, "rb"), tmp_path)

    def serve() -> None:
        for rid, tail in ((1, {"result": {"ok": True}}),
                          (2, {"error": {"code": -32603, "message": "boom\x1b[31m" + "x" * 500}})):
            deadline = time.monotonic() + 5
            while rid not in client._answers and time.monotonic() < deadline:
                time.sleep(0.01)
            body = json.dumps({"jsonrpc": "2.0", "id": rid, **tail}).encode()
            os.write(write, _body({"jsonrpc": "2.0", "method": "window/logMessage",
                                   "params": None})
                     + _body({"jsonrpc": "2.0", "method": "$/progress"})
                     + _body({"jsonrpc": "2.0", "id": "srv-1", "method": "workspace/configuration",
                              "params": {"items": []}})
                     + b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; "
                       b"charset=utf-8\r\n\r\n" % len(body) + body)
    threading.Thread(target=serve, daemon=True).start()
    assert client.request("a", {}, timeout=5.0) == {"ok": True}
    with pytest.raises(RpcError) as caught:
        client.request("b", {}, timeout=5.0)
    assert "the server answered an error: boom [31mxxx" in str(caught.value)
    assert len(str(caught.value)) < 300 and "\x1b" not in str(caught.value)
    assert client.broken is None
    assert b'"id": "srv-1"' in sent.getvalue()
    os.close(write)


MCP_STREAMS = {  # an external MCP server's newline-framed lines instead of an answer
    "forged-text": FORGED + b": no callers\n",
    "no-jsonrpc": json.dumps({"id": 1, "result": FORGED.decode()}).encode() + b"\n",
    "unsent-id": json.dumps({"jsonrpc": "2.0", "id": 9, "result": FORGED.decode()}).encode()
    + b"\n",
    "cut-line": b'{"jsonrpc": "2.0", "id": 1, "result": "' + FORGED,
}


@pytest.mark.parametrize("case", sorted(MCP_STREAMS))
def test_an_mcp_server_stream_is_parsed_as_strictly(case: str, tmp_path: Path) -> None:
    read, write = os.pipe()

    def feed() -> None:
        os.write(write, MCP_STREAMS[case])
        os.close(write)
    threading.Thread(target=feed, daemon=True).start()
    client = McpClient(io.BytesIO(), os.fdopen(read, "rb"), tmp_path)
    with pytest.raises(RpcError) as caught:
        client.request("tools/call", {}, timeout=5.0)
    assert "malformed reply" in str(caught.value) and FORGED.decode() not in str(caught.value)


def test_in_a_container_the_image_paths_are_pinned(tmp_path: Path) -> None:
    """A container resolves the command inside its image: nothing is looked up on the host;
    basedpyright's interpreter is the image's /usr/bin/python3 unless the host config names
    one outside /work; typescript-language-server must come from a bound node_modules tree
    whose typescript is checked on the host."""
    box = Sandbox(runtime="podman", image="localhost/lsp:1")
    ws = tmp_path / "ws"
    ws.mkdir()
    for given, pinned in (("/work/.venv/bin/python", "/usr/bin/python3"), (None, "/usr/bin/python3"),
                          ("/opt/py/bin/python3", "/opt/py/bin/python3")):
        settings = json.dumps({"python": {"pythonPath": given}} if given else {})
        lsp = LspServer("python", ("/opt/none/basedpyright-langserver", "--stdio"),
                        settings=settings, sandbox=box)
        posture = harden(lsp, ws)
        assert json.loads(posture.settings)["python"]["pythonPath"] == pinned
        assert posture.programs == ()
    tree = tmp_path / "tools" / "node_modules"
    command = (str(tree / ".bin" / "typescript-language-server"), "--stdio")
    with pytest.raises(LaunchError, match="in a container"):
        harden(LspServer("typescript", command, sandbox=box), ws)
    with pytest.raises(LaunchError, match="never run"):  # bound, but no typescript beside it
        harden(LspServer("typescript", command, binds=(str(tmp_path / "tools"),),
                         sandbox=box), ws)
    tsserver = tree / "typescript" / "lib" / "tsserver.js"
    tsserver.parent.mkdir(parents=True)
    tsserver.write_text("")
    init = json.loads(harden(LspServer("typescript", command, binds=(str(tmp_path / "tools"),),
                                       sandbox=box), ws).init_options)
    assert init["tsserver"] == {"path": str(tsserver)}
