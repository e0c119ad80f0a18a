"""A flood of MCP `initialize` calls against `spyglass serve --http`: does a new client still
get a session, and how much memory does the server keep (docs/security.md, "Servers and
requests")? Prints JSON, then a table.

    .venv/bin/python bench/session_flood.py [--calls 10000]

The server runs on a small temporary repository, loopback, no token; the flood is one
client opening sessions as fast as it can and never closing them."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "flood", "version": "0"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        (repo / "a.py").write_text("def helper():\n    return 1\n")
        env = {**os.environ, "HOME": tmp, "XDG_CONFIG_HOME": str(Path(tmp) / "xdg")}
        for cmd in (["init", "-q"], ["add", "-A"],
                    ["-c", "user.name=b", "-c", "user.email=b@e", "commit", "-qm", "i"]):
            subprocess.run(["git", *cmd], cwd=repo, check=True, env=env)
        err = Path(tmp) / "err.txt"
        with open(err, "w") as fh:
            proc = subprocess.Popen([sys.executable, "-m", "spyglass", "serve", "--http",
                                     "127.0.0.1:0"], cwd=repo, env=env, stderr=fh,
                                    stdout=subprocess.DEVNULL)
        try:
            url = None
            while url is None and proc.poll() is None:
                found = re.search(r" at (http://\S+)", err.read_text())
                url = found.group(1) if found else None
                time.sleep(0.05)
            assert url, err.read_text()
            with httpx.Client(timeout=30) as http:
                http.post(url, json=INIT, headers=HEADERS)
                before = rss_mb(proc.pid)
                began = time.monotonic()
                codes: dict[int, int] = {}
                for _ in range(args.calls):
                    status = http.post(url, json=INIT, headers=HEADERS).status_code
                    codes[status] = codes.get(status, 0) + 1
                seconds = time.monotonic() - began
                after = rss_mb(proc.pid)
                fresh = httpx.post(url, json=INIT, headers=HEADERS, timeout=30).status_code
        finally:
            proc.terminate()
            proc.wait(30)
    out = {"calls": args.calls, "seconds": round(seconds, 1), "statuses": codes,
           "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1),
           "new_client_after_flood": fresh, "load": os.getloadavg()[0]}
    print(json.dumps(out))
    print(f"{'calls':>8} {'seconds':>8} {'200s':>6} {'503s':>6} {'RSS MB':>14} {'new client':>10}")
    print(f"{args.calls:>8} {seconds:>8.1f} {codes.get(200, 0):>6} {codes.get(503, 0):>6} "
          f"{before:>6.0f} → {after:<6.0f} {fresh:>10}")
    return 0 if fresh == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
