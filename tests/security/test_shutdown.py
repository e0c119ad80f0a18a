"""Ctrl-C (or SIGTERM) of `spyglass web` / `serve --http`: a clean exit, no ASGI traceback, also with an
event stream open (docs/security.md)."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from serve_harness import make_repo, serving


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("argv", [("web", "--port", "0"), ("serve", "--http", "127.0.0.1:0")])
def test_interrupt_exits_cleanly(tmp_path: Path, argv: tuple[str, ...], sig: int) -> None:
    repo = make_repo(tmp_path / "repo")
    with serving(repo, tmp_path, *argv) as served:
        opened = threading.Event()

        def listen() -> None:  # an open event stream the shutdown must end
            repo_id = httpx.get(served.url + "/api/v1/code/repos").json()["repos"][0]["repo_id"]
            with httpx.stream("GET", f"{served.url}/api/v1/code/repos/{repo_id}/events",
                              timeout=30) as stream:
                opened.set()
                for _ in stream.iter_bytes():
                    pass

        if argv[0] == "web":
            threading.Thread(target=listen, daemon=True).start()
            assert opened.wait(30)
            time.sleep(0.2)
        began = time.monotonic()
        served.proc.send_signal(sig)  # also right after start-up (MCP: lifespan running)
        code = served.proc.wait(30)
        print(f"{argv[0]}: exited {code} {time.monotonic() - began:.2f} s after signal {sig}")
        err = served.stderr.read_text(encoding="utf-8")
        assert code == 0
        assert "Traceback" not in err and "ERROR" not in err, err
