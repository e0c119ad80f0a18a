"""The restricted launcher: environment from nothing, fds 0-2, death with spyglass, and the
bubblewrap sandbox (no network, no home, read-only workspace) — docs/bridge.md."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import HERE, NEEDS_BWRAP, alive, environ_names, has_bwrap, leaf, python

from spyglass.bridge.launcher import Child, LaunchError, LaunchSpec, child_env, launch

CANARY = "canary-secret-7f3a"


@pytest.fixture
def started() -> Iterator[list[Child]]:
    kids: list[Child] = []
    yield kids
    for c in kids:
        c.kill()


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_TEST_TOKEN", CANARY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY)
    monkeypatch.setenv("LANG", "C.UTF-8")


def test_child_env_is_built_from_nothing() -> None:
    env = child_env(("LANG", "GOFLAGS=-mod=mod", "ABSENT"), {"PATH": "/x", "LANG": "C",
                                                              "HOME": "/root", "T": CANARY})
    assert env == {"PATH": "/x", "LANG": "C", "GOFLAGS": "-mod=mod"}


@pytest.mark.parametrize("execution", ["host", "sandbox"])
def test_environ_holds_only_path_and_allowlisted_names(
        execution: str, tmp_path: Path, secret_env: None, started: list[Child]) -> None:
    if execution == "sandbox" and not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    child = launch(LaunchSpec(("cat",), tmp_path, ("LANG",), execution))
    started.append(child)
    server = leaf(child.pid)
    names, raw = environ_names(server)
    assert names == {"PATH", "LANG"}
    assert CANARY.encode() not in raw
    # The guard itself carries no more than the server.
    assert environ_names(child.pid)[0] <= {"PATH", "LANG"}


@pytest.mark.parametrize("execution", ["host", "sandbox"])
def test_only_fds_0_to_2_are_inherited(execution: str, tmp_path: Path,
                                        started: list[Child]) -> None:
    if execution == "sandbox" and not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    leak = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leak, True)  # even an inheritable descriptor must not pass
    try:
        child = launch(LaunchSpec(("cat",), tmp_path, (), execution))
    finally:
        os.close(leak)
    started.append(child)
    server = leaf(child.pid)
    # The dynamic loader of a just-exec'd server opens its libraries for a moment (fd 3),
    # so look until the server has started; an inherited descriptor would stay forever.
    end = time.monotonic() + 10
    while (fds := sorted(int(fd) for fd in os.listdir(f"/proc/{server}/fd"))) != [0, 1, 2] \
            and time.monotonic() < end:
        time.sleep(0.05)
    assert fds == [0, 1, 2]
    assert os.getpgid(child.pid) == child.pid != os.getpgid(0)  # its own process group
    assert Path(os.readlink(f"/proc/{server}/cwd")) == tmp_path.resolve()


def test_missing_binary_is_named(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="binary not found: 'no-such-server-xyz'"):
        launch(LaunchSpec(("no-such-server-xyz", "--stdio"), tmp_path, (), "host"))


SPYGLASS_STAND_IN = """
import sys, time
from pathlib import Path
from spyglass.bridge.launcher import LaunchSpec, launch
child = launch(LaunchSpec(("cat",), Path(sys.argv[1]), (), sys.argv[2]))
print(child.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("execution", ["host", "sandbox"])
def test_kill_9_of_spyglass_takes_the_server_down(execution: str, tmp_path: Path) -> None:
    if execution == "sandbox" and not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    parent = subprocess.Popen([sys.executable, "-c", SPYGLASS_STAND_IN, str(tmp_path),
                               execution], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        guard_pid = int(parent.stdout.readline())
        server = leaf(guard_pid)
        assert alive(server)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10  # generous; bench/bridge_isolation.py measures
        while (alive(server) or alive(guard_pid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(server)
        assert not alive(guard_pid)
    finally:
        parent.kill()
        parent.wait()


@pytest.fixture
def listener() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


def _probe(tmp_path: Path, port: int, execution: str, monkeypatch: pytest.MonkeyPatch
           ) -> tuple[dict[str, bool], Path, Child]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "canary.txt").write_text(CANARY)
    monkeypatch.setenv("HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(HERE / "probe.py", ws / "probe.py")
    target = ws / "written.txt"
    child = launch(LaunchSpec((python(), str(ws / "probe.py"), str(port),
                               str(home / "canary.txt"), str(target)), ws, (), execution))
    return json.loads(child.stdout.readline()), target, child


def test_sandbox_has_no_network_no_home_and_a_read_only_workspace(
        tmp_path: Path, listener: int, monkeypatch: pytest.MonkeyPatch) -> None:
    if not has_bwrap():
        pytest.skip(NEEDS_BWRAP)
    seen, target, child = _probe(tmp_path, listener, "sandbox", monkeypatch)
    child.kill()
    assert seen == {"tcp": False, "canary": False, "own": True, "write": False}
    assert not target.exists()


def test_host_execution_is_not_sandboxed(tmp_path: Path, listener: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the same probe on the host reaches all three (so the test above can fail)."""
    seen, target, child = _probe(tmp_path, listener, "host", monkeypatch)
    child.kill()
    assert seen == {"tcp": True, "canary": True, "own": True, "write": True}
    assert target.exists()


def test_a_server_outlives_the_short_lived_thread_that_asked_for_it(
        tmp_path: Path, started: list[Child]) -> None:
    """The parent-death signal fires when the forking *thread* exits: children are forked
    by the launcher's own long-lived thread, so a worker thread's end kills nothing."""
    import threading
    box: list[Child] = []
    worker = threading.Thread(target=lambda: box.append(
        launch(LaunchSpec(("cat",), tmp_path, (), "host"))))
    worker.start()
    worker.join()
    started.extend(box)
    server = leaf(box[0].pid)
    time.sleep(0.3)  # a parent-death signal would have landed by now
    assert alive(box[0].pid) and alive(server)
