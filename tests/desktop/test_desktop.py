"""`spyglass desktop` under Xvfb: the window opens on an unindexed repository, "Index
repository" reaches the completed state, the screen shows the page, the server listens on
loopback only, and closing the window (or SIGTERM) leaves no process behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.web.conftest import FILES

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PYTHON = Path(os.environ.get("SPYGLASS_DESKTOP_PYTHON",
                            REPO / ".venv-desktop" / "bin" / "python"))
ARTIFACTS = Path(os.environ.get("SPYGLASS_E2E_ARTIFACTS",
                                REPO / "tests" / "web" / "e2e" / "artifacts"))
XVFB = shutil.which("Xvfb")


def _ready() -> bool:
    if XVFB is None or not PYTHON.exists():
        return False
    code = ("import webview, gi; gi.require_version('WebKit2', '4.1'); "
            "from gi.repository import WebKit2; import spyglass.desktop.window")
    probe = subprocess.run([str(PYTHON), "-c", code], capture_output=True, timeout=60,
                           check=False)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _ready(), reason="needs Xvfb and .venv-desktop with "
                                "pywebview and GTK WebKit2 4.1 (scripts/bootstrap.sh installs them)")


@pytest.fixture
def display() -> Iterator[str]:
    """A private X server (Xvfb, no TCP), its DISPLAY."""
    assert XVFB is not None
    read, write = os.pipe()
    proc = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1300x900x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as r:
        number = r.readline().strip()
    try:
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(10)


def env_for(display: str) -> dict[str, str]:
    # software rendering (no GPU under Xvfb); no accessibility bus to wait for
    return {**os.environ, "DISPLAY": display, "WEBKIT_DISABLE_COMPOSITING_MODE": "1",
            "NO_AT_BRIDGE": "1", "PYTHONPATH": str(REPO)}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_desktop_indexes_and_closes_cleanly(make_repo: Callable[..., Path], display: str) -> None:
    root = make_repo(FILES)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "desktop.png"
    run = subprocess.run([str(PYTHON), str(HERE / "drive.py"), str(root), str(shot)],
                         capture_output=True, text=True, timeout=120, env=env_for(display),
                         check=False)
    lines = [x for x in run.stdout.splitlines() if x.startswith("{")]
    assert lines, run.stdout + run.stderr
    report = json.loads(lines[-1])
    assert report["ok"], report
    assert run.returncode == 0 and report["status"] == 0
    assert report["repo"] == root.name  # the page's content, read through the JS bridge
    assert "completed" in report["title"] and "indexed" in report["title"]
    assert report["external"] == []  # offline: nothing but the window's own server
    assert report["listening"] and all(a.startswith("127.0.0.1:") for a in report["listening"])
    assert report["shot"]["header"] > 30 and report["shot"]["colours"] > 8  # the page drawn
    assert shot.stat().st_size > 10_000
    assert report["pids"]  # WebKit's processes while open …
    assert [p for p in report["pids"] if alive(p)] == []  # … all gone after closing
    assert "server stopped" in run.stderr


@pytest.mark.parametrize("when", ["shown", "starting"])
def test_desktop_sigterm_stops_window_and_server(make_repo: Callable[..., Path],
                                                 display: str, when: str) -> None:
    """SIGTERM once WebKit runs, or before the window is shown (pywebview's destroy then
    waits for the window: never on GTK's own thread)."""
    root = make_repo(FILES)
    proc = subprocess.Popen([str(PYTHON), "-m", "spyglass", "-C", str(root), "desktop"],
                            stderr=subprocess.PIPE, text=True, env=env_for(display))
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert re.search(r"served at http://127\.0\.0\.1:\d+/repos/", line), line
        kids: list[int] = []
        deadline = time.monotonic() + (30 if when == "shown" else 0)
        while time.monotonic() < deadline and len(kids) < 2:  # the web and network processes
            kids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                    and _ppid(p) == proc.pid]
            time.sleep(0.2)
        assert kids or when == "starting", "WebKit did not start"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(40) == 0
        assert "server stopped" in proc.stderr.read()
        assert [p for p in kids if alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _ppid(p: Path) -> int:
    try:
        return int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def test_desktop_closed_mid_index_leaves_no_process(make_repo: Callable[..., Path],
                                                    display: str) -> None:
    """60 files (a worker pool) indexed slowly; the window closed while it parses: the
    index workers and git go with it."""
    files = {f"pkg/m{i:02d}.py": f"def f{i}():\n    return {i}\n" for i in range(60)}
    root = make_repo({"pkg/__init__.py": "", **files})
    env = {**env_for(display), "SPYGLASS_TEST_CHUNK_DELAY": "0.3"}
    run = subprocess.run([str(PYTHON), str(HERE / "drive.py"), str(root),
                          str(ARTIFACTS / "desktop-mid.png"), "mid"],
                         capture_output=True, text=True, timeout=120, env=env, check=False)
    lines = [x for x in run.stdout.splitlines() if x.startswith("{")]
    assert lines, run.stdout + run.stderr
    report = json.loads(lines[-1])
    assert report["ok"], report
    assert run.returncode == 0 and "server stopped" in run.stderr
    workers = [c for c in report["children"].values() if "drive.py" in c]
    assert workers, report["children"]  # the index's worker processes were running
    assert [p for p in report["pids"] if alive(p)] == []
