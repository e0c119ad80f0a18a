"""The precise pass's children (docs/precise.md, docs/security.md): each indexer runs under
the restricted launcher and bubblewrap — an environment built from nothing, no inherited
descriptors, no network, the workspace read-only, output only into spyglass's own folder —
and dies with spyglass. Canaries: a repository's `.venv/bin/python` (pyright-family tools
run it otherwise) and a TypeScript plugin its tsconfig names never run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "precise"))
from fake_tools import fake_python_indexer, need_sandbox

from spyglass.config import Config, PreciseConfig
from spyglass.index.store import connect, latest_complete
from spyglass.query import precise
from spyglass.query.facade import CodeIntel

PROBE = """
const net = require('net'), os = require('os'), path = require('path');
const dir = path.dirname(out);
const probe = {env: process.env, cwd: process.cwd(), ifaces: Object.keys(os.networkInterfaces()),
               fds: fs.readdirSync('/proc/self/fd').map(fd => {
                 try { return fs.readlinkSync('/proc/self/fd/' + fd); } catch (e) { return ''; } })};
for (const [name, where] of [['workspace', process.cwd() + '/PWNED'],
                             ['home', process.env.HOME + '/x'], ['out', dir + '/ok']]) {
  try { fs.writeFileSync(where, 'x'); probe[name] = 'written'; } catch (e) { probe[name] = e.code; }
}
const sock = net.connect({host: '1.1.1.1', port: 53});
const done = (how) => { probe.net = how; fs.writeFileSync(dir + '/probe.json', JSON.stringify(probe));
                        process.exit(0); };
sock.on('connect', () => done('connected'));
sock.on('error', (e) => done(e.code));
setTimeout(() => done('timeout'), 3000);
"""


def _pass(root: Path, tools: Path, scratch: Path) -> precise.Run:
    config = Config(precise=PreciseConfig(tools=str(tools), timeout_s=60))
    conn = connect(root)
    try:
        snap = latest_complete(conn)
        assert snap is not None
        indexer = next(i for i in precise.INDEXERS if i.name == "scip-python")
        return precise.run_one(indexer, root, conn, snap.id, config, lambda *a: None,
                               scratch=scratch)
    finally:
        conn.close()


def test_the_indexer_child_is_confined(make_repo: Callable[..., Path], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    need_sandbox()
    root = make_repo({"a.py": "x = 1\n"})
    CodeIntel(root).index(precise="off")
    monkeypatch.setenv("SPYGLASS_CANARY_SECRET_TOKEN", "leaked")
    marker = tmp_path / "open-in-spyglass"
    marker.write_text("x")
    held = os.open(marker, os.O_RDONLY)
    os.set_inheritable(held, True)  # even an inheritable descriptor is not passed on
    try:
        scratch = tmp_path / "out"
        scratch.mkdir()
        run = _pass(root, fake_python_indexer(tmp_path / "tools", PROBE), scratch)
    finally:
        os.close(held)
    assert run.state == "failed" and "wrote no index" in run.error  # the probe writes none
    probe = json.loads((scratch / "probe.json").read_text())
    # LC_CTYPE: the launcher's guard (python) coerces the C locale to C.UTF-8.
    assert set(probe["env"]) <= {"PATH", "HOME", "PYTHONPATH", "LC_CTYPE"}, probe["env"]
    assert probe["env"]["HOME"] == "/tmp"
    assert not any(d.startswith(str(Path.home())) for d in probe["env"]["PATH"].split(":"))
    assert not any(str(marker) in target for target in probe["fds"])
    assert probe["ifaces"] in ([], ["lo"]) and probe["net"] != "connected"
    assert probe["cwd"] == str(root.resolve())
    assert probe["workspace"] == "EROFS" and not (root / "PWNED").exists()
    assert probe["out"] == "written" and (scratch / "ok").exists()
    assert not (Path.home() / "x").exists()  # its home is private


def test_the_indexer_dies_with_spyglass(make_repo: Callable[..., Path],
                                        tmp_path: Path) -> None:
    need_sandbox()
    root = make_repo({"a.py": "x = 1\n"})
    CodeIntel(root).index(precise="off")
    tools = fake_python_indexer(tmp_path / "tools", "setInterval(() => {}, 1000);")
    script = (f"import sys; sys.path[:0] = {sys.path!r}\n"
              "from pathlib import Path\n"
              "from spyglass.config import Config, PreciseConfig\n"
              "from spyglass.query.facade import CodeIntel\n"
              f"ci = CodeIntel(Path({str(root)!r}), config=Config(precise=PreciseConfig("
              f"enabled='auto', tools={str(tools)!r}, timeout_s=600)))\n"
              "ci.precise_pass(None, 'wait')\n")
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _indexers(tools) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _indexers(tools), "the stand-in indexer never started"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while _indexers(tools) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _indexers(tools) == []


def _indexers(tools: Path) -> list[int]:
    """Processes running the stand-in indexer (by its path on their command line)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"node") and any(str(tools).encode() in c for c in cmd):
            found.append(int(entry))
    return found


CANARY = "#!/bin/sh\necho ran > {out}/CANARY\nexec /usr/bin/python3 \"$@\"\n"


def test_a_repository_interpreter_never_runs(make_repo: Callable[..., Path],
                                             tmp_path: Path) -> None:
    """scip-python (pyright) is offered the repository's `.venv` by its config and by
    convention; the pass pins the host's python3 and an empty package list."""
    need_sandbox()
    if not [i for i in precise.installed(PreciseConfig()) if i.name == "scip-python"]:
        pytest.skip("scip-python is not installed (scripts/bootstrap.sh)")
    scratch = tmp_path / "out"
    scratch.mkdir()
    canary = CANARY.format(out=scratch)
    root = make_repo({"a.py": "import os\nx = os.sep\n",
                      "pyrightconfig.json": '{"venvPath": ".", "venv": ".venv"}\n',
                      "pyproject.toml": "[tool.pyright]\nvenvPath = '.'\nvenv = '.venv'\n",
                      ".venv/bin/python": canary, ".venv/bin/python3": canary,
                      ".venv/pyvenv.cfg": "home = /usr/bin\n"}, git=False)
    for name in ("python", "python3"):
        (root / ".venv" / "bin" / name).chmod(0o755)
    subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", "pass"], check=True)
    assert (scratch / "CANARY").exists()  # the canary works when it is run
    (scratch / "CANARY").unlink()
    CodeIntel(root).index(precise="off")
    run = _pass(root, precise.tools_dir(PreciseConfig()), scratch)
    assert run.state == "completed", run.error
    assert not (scratch / "CANARY").exists()


def test_a_typescript_plugin_never_loads(make_repo: Callable[..., Path],
                                         tmp_path: Path) -> None:
    need_sandbox()
    if not [i for i in precise.installed(PreciseConfig()) if i.name == "scip-typescript"]:
        pytest.skip("scip-typescript is not installed (scripts/bootstrap.sh)")
    scratch = tmp_path / "out"
    scratch.mkdir()
    plugin = ("require('fs').writeFileSync(" + json.dumps(str(scratch / "CANARY")) +
              ", 'ran');\nmodule.exports = () => ({create: (info) => info.languageService});\n")
    root = make_repo({
        "src/a.ts": "export function f(): number { return 1 }\nexport const y = f()\n",
        "tsconfig.json": json.dumps({"compilerOptions": {"plugins": [{"name": "evil"}],
                                                         "strict": True},
                                     "include": ["src"]}),
        "package.json": json.dumps({"name": "t", "scripts": {"prepare": "node evil.js"}}),
        "node_modules/evil/package.json": '{"name": "evil", "main": "index.js"}',
        "node_modules/evil/index.js": plugin}, git=False)
    subprocess.run(["node", "-e", "require('./node_modules/evil')"], cwd=root, check=True)
    assert (scratch / "CANARY").exists()  # the plugin runs when it is loaded
    (scratch / "CANARY").unlink()
    CodeIntel(root).index(precise="off")
    config = Config(precise=PreciseConfig(timeout_s=120))
    conn = connect(root)
    try:
        snap = latest_complete(conn)
        assert snap is not None
        indexer = next(i for i in precise.INDEXERS if i.name == "scip-typescript")
        run = precise.run_one(indexer, root, conn, snap.id, config, lambda *a: None,
                              scratch=scratch)
    finally:
        conn.close()
    assert run.state == "completed" and run.files >= 1, run.error
    assert not (scratch / "CANARY").exists()
