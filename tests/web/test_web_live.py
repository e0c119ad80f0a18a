"""`spyglass web` end to end: a real server, a live event stream while an index job runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest


@pytest.fixture
def server(demo_repo: Path) -> Iterator[tuple[str, Path]]:
    root = demo_repo
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", "-C", str(root), "web",
                             "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        assert m, line
        yield m.group(1), root
    finally:
        proc.terminate()
        proc.wait(10)


def test_live_events_while_indexing(server: tuple[str, Path]) -> None:
    base, _root = server
    repo_id = httpx.get(f"{base}/api/v1/code/repos").json()["repos"][0]["repo_id"]
    api = f"{base}/api/v1/code/repos/{repo_id}"
    assert httpx.get(api).json()["indexed"] is False
    assert "Index repository" in httpx.get(f"{base}/").text
    seen: list[tuple[str, dict[str, object]]] = []
    opened = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"{api}/events", timeout=30) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            kind = ""
            for line in r.iter_lines():
                opened.set()
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    seen.append((kind, json.loads(line[6:])))
                    if kind == "code_graph_updated":
                        return
    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(10)
    r = httpx.post(f"{api}/index", headers={"Origin": base})
    assert r.status_code == 202
    listener.join(60)
    assert not listener.is_alive()
    kinds = [k for k, _ in seen]
    assert kinds[0] == "accepted" and kinds[-2:] == ["completed", "code_graph_updated"]
    assert "progress" in kinds
    deadline = time.monotonic() + 10
    while httpx.get(api).json()["snapshot"] is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert httpx.get(api).json()["snapshot"]["ref"] == "HEAD"
    assert httpx.post(f"{api}/index", headers={"Origin": "http://evil.example"}
                      ).status_code == 403
