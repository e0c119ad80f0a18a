"""The desktop window's server (spyglass/desktop/window.py) without the window: it listens on
loopback only, keeps the web server's Host check (a DNS-rebinding page cannot reach it), and
stopping it ends open event streams and its thread (closing the window leaves nothing)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx2 as httpx
from serve_harness import make_repo

from spyglass.desktop.window import HOST, LoopbackServer
from spyglass.net import listen
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app


def test_desktop_server_is_loopback_guarded_and_stops(tmp_path: Path) -> None:
    ci = CodeIntel(make_repo(tmp_path / "repo"))
    sock = listen(HOST, 0)
    host, port = sock.getsockname()[:2]
    assert host == "127.0.0.1"
    server = LoopbackServer(create_app(ci, HOST, port), sock)
    server.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while not server.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        repos = httpx.get(url + "/api/v1/code/repos").json()["repos"]
        assert repos[0]["root"] == str(ci.root)
        rebound = httpx.get(url + "/api/v1/code/repos", headers={"Host": f"evil.example:{port}"})
        assert rebound.status_code == 421
        foreign = httpx.post(f"{url}/api/v1/code/repos/{repos[0]['repo_id']}/index",
                             headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403
        opened, ended = threading.Event(), threading.Event()

        def follow() -> None:  # an event stream the stop must end
            with httpx.stream("GET", f"{url}/api/v1/code/repos/{repos[0]['repo_id']}/events",
                              timeout=30) as stream:
                opened.set()
                for _ in stream.iter_bytes():
                    pass
            ended.set()
        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        assert opened.wait(20)
    finally:
        assert server.stop(timeout=10)
    assert ended.wait(10)  # the stream was ended by the stop, not by a timeout
    assert not server.thread.is_alive()
