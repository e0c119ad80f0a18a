"""The precise pass's children (docs/precise.md, docs/security.md): each indexer runs under
the restricted launcher and bubblewrap — an environment built from nothing, no inherited
descriptors, no network, the workspace read-only, output only into spyglass's own folder —
and dies with spyglass. Canaries: a repository's `.venv/bin/python` (pyright-family tools
run it otherwise) and a TypeScript plugin its tsconfig names never run."""

from __future__ import annotations

import json
import os
import shutil
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
from spyglass.query import precise, precise_java
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


JAVA_PROBE = """
    Path dir = Paths.get(args[2]).getParent();
    StringBuilder b = new StringBuilder();
    for (String k : new java.util.TreeSet<>(System.getenv().keySet())) b.append("env ").append(k).append('\\n');
    b.append("HOME ").append(System.getenv("HOME")).append('\\n');
    b.append("cwd ").append(Paths.get("").toAbsolutePath()).append('\\n');
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Paths.get("/proc/self/fd"))) {
      for (Path fd : fds) { try { b.append("fd ").append(Files.readSymbolicLink(fd)).append('\\n'); } catch (Exception e) { } }
    }
    for (String[] w : new String[][] {{"workspace", "PWNED"}, {"home", System.getenv("HOME") + "/x"},
                                      {"out", dir + "/ok"}}) {
      try { Files.writeString(Paths.get(w[1]).toAbsolutePath(), "x"); b.append(w[0]).append(" written\\n"); }
      catch (Exception e) { b.append(w[0]).append(" refused\\n"); }
    }
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress("1.1.1.1", 53), 3000); b.append("net connected\\n");
    } catch (Exception e) { b.append("net refused\\n"); }
    Files.writeString(dir.resolve("probe.txt"), b.toString());
"""


def _java_pass(root: Path, scratch: Path, timeout_s: int = 120) -> precise.Run:
    config = Config(precise=PreciseConfig(timeout_s=timeout_s, memory_mb=512))
    conn = connect(root)
    try:
        snap = latest_complete(conn)
        assert snap is not None
        indexer = next(i for i in precise.INDEXERS if i.runtime == "jdk")
        return precise.run_one(indexer, root, conn, snap.id, config, lambda *a: None,
                               scratch=scratch)
    finally:
        conn.close()


def _need_jdk() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)")
    if precise_java.jdk_home() is None:
        pytest.skip("no JDK (scripts/bootstrap.sh installs openjdk-17-jdk-headless)")


def test_the_java_child_is_confined(make_repo: Callable[..., Path], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The JDK program (here a probe in its place, compiled and run as the real one is):
    environment, descriptors, network, workspace, home."""
    _need_jdk()
    folder = tmp_path / "program"
    folder.mkdir()
    (folder / "SpyglassJavac.java").write_text(
        "import java.nio.file.*;\npublic class SpyglassJavac {\n  public static void "
        "main(String[] args) throws Exception {\n" + JAVA_PROBE + "  }\n}\n")
    monkeypatch.setattr(precise_java, "SOURCE", folder / "SpyglassJavac.java")
    monkeypatch.setattr(precise_java, "cache_root", lambda: tmp_path / "cache")
    root = make_repo({"A.java": "class A {}\n"})
    CodeIntel(root).index(precise="off")
    monkeypatch.setenv("SPYGLASS_CANARY_SECRET_TOKEN", "leaked")
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Dcanary=1")
    marker = tmp_path / "open-in-spyglass"
    marker.write_text("x")
    held = os.open(marker, os.O_RDONLY)
    os.set_inheritable(held, True)
    try:
        scratch = tmp_path / "out"
        scratch.mkdir()
        run = _java_pass(root, scratch)
    finally:
        os.close(held)
    assert run.state == "failed" and "wrote no index" in run.error  # the probe writes none
    lines = (scratch / "probe.txt").read_text().splitlines()
    env = {x[4:] for x in lines if x.startswith("env ")}
    assert env <= {"PATH", "HOME", "LC_CTYPE"}, env
    assert "HOME /tmp" in lines and f"cwd {root.resolve()}" in lines
    assert not any(str(marker) in x for x in lines if x.startswith("fd "))
    assert "net refused" in lines and "workspace refused" in lines
    assert not (root / "PWNED").exists() and not (Path.home() / "x").exists()
    assert "out written" in lines


PROCESSOR = """import java.nio.file.*;
import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

@SupportedAnnotationTypes("*")
public class Canary extends AbstractProcessor {
    @Override
    public synchronized void init(ProcessingEnvironment env) {
        try { Files.writeString(Paths.get(%s), "ran"); } catch (Exception e) { }
        throw new IllegalStateException("CANARY processor ran");
    }

    @Override
    public SourceVersion getSupportedSourceVersion() { return SourceVersion.latest(); }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        return false;
    }
}
"""
POM = """<project><modelVersion>4.0.0</modelVersion><groupId>e</groupId><artifactId>e</artifactId>
<version>1</version><build><plugins><plugin><groupId>org.codehaus.mojo</groupId>
<artifactId>exec-maven-plugin</artifactId><executions><execution><phase>validate</phase>
<goals><goal>exec</goal></goals><configuration><executable>sh</executable>
<arguments><argument>-c</argument><argument>echo ran > %s</argument></arguments>
</configuration></execution></executions></plugin></plugins></build></project>
"""


def test_a_java_annotation_processor_and_build_plugins_never_run(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """A source tree whose class path would offer an annotation processor (a compiled one,
    declared in META-INF/services) and a pom naming a plugin: javac runs with -proc:none
    and an empty class path, and no build runs; the facts are complete."""
    _need_jdk()
    scratch = tmp_path / "out"
    scratch.mkdir()
    canary = scratch / "CANARY"
    root = make_repo({
        "Canary.java": PROCESSOR % json.dumps(str(canary)),
        "META-INF/services/javax.annotation.processing.Processor": "Canary\n",
        "pom.xml": POM % canary,
        ".mvn/jvm.config": f"-javaagent:{root_jar(tmp_path)}\n",
        "src/p/A.java": "package p;\n\n@Deprecated\npublic class A {\n    int f() {\n"
                        "        return g();\n    }\n\n    int g() {\n        return 1;\n"
                        "    }\n}\n"}, git=False)
    home = precise_java.jdk_home()
    assert home is not None
    subprocess.run([str(home / "bin" / "javac"), "-d", str(root), str(root / "Canary.java")],
                   check=True, capture_output=True)
    live = subprocess.run([str(home / "bin" / "javac"), "-cp", str(root), "-d",
                           str(tmp_path / "classes"), str(root / "src/p/A.java")],
                          capture_output=True, text=True, check=False)
    assert canary.exists() and "CANARY" in live.stderr  # the processor runs when found
    canary.unlink()
    CodeIntel(root).index(precise="off")
    run = _java_pass(root, scratch)
    assert run.state == "completed" and run.files >= 2, run.error
    assert not canary.exists()
    ci = CodeIntel(root)
    refs = ci.references(path="src/p/A.java", line=9, column=9)
    assert [(c.path, c.start_line, c.uncertain) for c in refs.results] == [
        ("src/p/A.java", 6, False)]
    assert refs.results[0].evidence.startswith("precise: javac ")  # type: ignore[attr-defined]


def root_jar(tmp_path: Path) -> Path:
    """A java agent path a repository's .mvn/jvm.config may name (never read)."""
    return tmp_path / "agent.jar"


def test_the_java_child_dies_with_spyglass(make_repo: Callable[..., Path],
                                           tmp_path: Path) -> None:
    """A JDK program that never ends (here a stand-in compiled like the real one) is gone
    once the spyglass process running the pass is killed."""
    _need_jdk()
    root = make_repo({"A.java": "class A {}\n"})
    CodeIntel(root).index(precise="off")
    folder = tmp_path / "program"
    folder.mkdir()
    (folder / "SpyglassJavac.java").write_text(
        "public class SpyglassJavac {\n  public static void main(String[] a) throws Exception "
        "{\n    Thread.sleep(600000);\n  }\n}\n")
    cache = tmp_path / "cache"
    script = (f"import sys; sys.path[:0] = {sys.path!r}\n"
              "from pathlib import Path\n"
              "from spyglass.config import Config, PreciseConfig\n"
              "from spyglass.query import precise_java\n"
              "from spyglass.query.facade import CodeIntel\n"
              f"precise_java.SOURCE = Path({str(folder / 'SpyglassJavac.java')!r})\n"
              f"precise_java.cache_root = lambda: Path({str(cache)!r})\n"
              f"ci = CodeIntel(Path({str(root)!r}), config=Config(precise=PreciseConfig("
              "enabled='auto', timeout_s=600, memory_mb=256)))\n"
              "ci.precise_pass(None, 'wait')\n")
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not _javas(cache) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _javas(cache), "the stand-in program never started"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while _javas(cache) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _javas(cache) == []


def _javas(cache: Path) -> list[int]:
    """java processes running a program from `cache` (by its path on their command line)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"/java") and any(str(cache).encode() in c for c in cmd):
            found.append(int(entry))
    return found
