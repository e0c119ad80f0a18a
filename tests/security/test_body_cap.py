"""Request bodies are capped while they stream in: a 100 MB POST is refused with 413 and the
server's memory does not grow with it; JSON nesting is bounded (docs/security.md)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from serve_harness import Served, make_repo, memory_kb, serving

CHUNK = b"[" * (1 << 20)
BODY_MB = 100


def stream_post(served: Served, path: str, chunks: Iterator[bytes], headers: str = "") -> bytes:
    """POST a chunked body from `chunks` over a raw socket, stop writing once the server
    answers or closes, and return what it answered."""
    parts = urlsplit(served.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                     "Content-Type: application/json\r\nAccept: application/json, "
                     "text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                     f"{headers}\r\n".encode())
        sock.settimeout(0.0)
        answer = b""
        for chunk in chunks:
            try:
                answer += sock.recv(65536)
            except BlockingIOError:
                pass
            except OSError:
                break
            if answer:
                break
            try:
                sock.setblocking(True)
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                sock.setblocking(False)
            except OSError:
                break
        sock.settimeout(30)
        try:
            while b"\r\n\r\n" not in answer:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
        return answer


def hundred_mb() -> Iterator[bytes]:
    for _ in range(BODY_MB):
        yield CHUNK


@pytest.mark.parametrize("kind", ["web", "mcp"])
def test_a_100_mb_body_is_refused_without_growing_the_server(tmp_path: Path, kind: str) -> None:
    repo = make_repo(tmp_path / "repo")
    args = ("web", "--port", "0") if kind == "web" else ("serve", "--http", "127.0.0.1:0")
    with serving(repo, tmp_path, *args) as served:
        if kind == "web":
            import httpx2 as httpx
            repo_id = httpx.get(served.url + "/api/v1/code/repos").json()["repos"][0]["repo_id"]
            path = f"/api/v1/code/repos/{repo_id}/ast-query"
        else:
            path = "/mcp"
        before = memory_kb(served.pid)
        answer = stream_post(served, path, hundred_mb())
        peak = memory_kb(served.pid, "VmHWM")
        after = memory_kb(served.pid)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        # The body is 100 MB; the server holds at most the cap (1 MiB) of it at a time.
        assert peak - before < 50 * 1024, (before, peak)
        assert peak < 100 * 1024 + before, (before, peak)
        print(f"{kind}: 100 MB body -> 413; server RSS {before // 1024} MB before, "
              f"peak {peak // 1024} MB, {after // 1024} MB after")


def test_a_declared_oversized_body_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with serving(repo, tmp_path, "web", "--port", "0") as served:
        parts = urlsplit(served.url)
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
            sock.sendall(f"POST /api/v1/code/repos/x/index HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                         f"Content-Length: {400 << 20}\r\n\r\n".encode())
            answer = b""
            while data := sock.recv(65536):  # the server closes after its answer
                answer += data
        assert answer.startswith(b"HTTP/1.1 413") and b"max_request_bytes" in answer
