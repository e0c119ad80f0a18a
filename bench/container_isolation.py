"""Container execution with podman (docs/bridge.md "Containers"): kill -9 of a stand-in
spyglass -> its container gone (no `podman ps -a` entry, its init process gone), and launch
-> first byte back through the container; medians of N runs. The image is imported from a
tar of a bare root (the host's /usr mounted read-only), as tests/bridge/test_container.py
does. One command: `python bench/container_isolation.py --runs 10`."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from spyglass.bridge.launcher import LaunchSpec, launch
from spyglass.config import Sandbox

IMAGE = "localhost/spyglass-bench:skeleton"
STAND_IN = """
import sys, time
from pathlib import Path
from spyglass.bridge.launcher import LaunchSpec, launch
from spyglass.config import Sandbox
child = launch(LaunchSpec(("/usr/bin/cat",), Path(sys.argv[1]), (), "sandbox", ("/usr",),
                          Sandbox("podman", sys.argv[2])))
print(child.pid, flush=True)
time.sleep(120)
"""


def build_image() -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in ("tmp", "work", "proc", "dev", "sys", "run", "usr", "etc"):
            info = tarfile.TarInfo(d)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for name, target in {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64"}.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
        data = b"root:x:0:0:root:/root:/bin/sh\n"
        info = tarfile.TarInfo("etc/passwd")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    subprocess.run(["podman", "import", "-q", "-", IMAGE], input=buf.getvalue(), check=True,
                   stdout=subprocess.DEVNULL)


def names(prefix: str) -> list[str]:
    out = subprocess.run(["podman", "ps", "-a", "--format", "{{.Names}}"], check=True,
                         capture_output=True, text=True).stdout.split()
    return [n for n in out if n.startswith(prefix)]


def kill_once(ws: Path) -> float:
    parent = subprocess.Popen([sys.executable, "-c", STAND_IN, str(ws), IMAGE],
                              stdout=subprocess.PIPE, text=True)
    prefix = f"spyglass-{parent.pid}-"
    assert parent.stdout is not None
    parent.stdout.readline()
    while not names(prefix):
        time.sleep(0.05)
    pid = int(subprocess.run(["podman", "inspect", "-f", "{{.State.Pid}}", names(prefix)[0]],
                             check=True, capture_output=True, text=True).stdout)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    t0 = time.perf_counter()
    while names(prefix) or Path(f"/proc/{pid}").exists():
        time.sleep(0.01)
    return time.perf_counter() - t0


def launch_once(ws: Path) -> float:
    t0 = time.perf_counter()
    child = launch(LaunchSpec(("/usr/bin/cat",), ws, (), "sandbox", ("/usr",),
                              Sandbox("podman", IMAGE)))
    child.stdin.write(b"x\n")
    child.stdin.flush()
    child.stdout.readline()
    took = time.perf_counter() - t0
    child.kill()
    return took


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=10)
    args = p.parse_args()
    build_image()
    with tempfile.TemporaryDirectory(prefix="spyglass-ctr-") as tmp:
        ws = Path(tmp)
        gone = [kill_once(ws) for _ in range(args.runs)]
        first = [launch_once(ws) for _ in range(args.runs)]
    version = subprocess.run(["podman", "--version"], capture_output=True, text=True,
                             check=False).stdout
    report = {"runtime": version.strip(), "runs": args.runs,
              "kill9_to_gone_s": {"median": round(statistics.median(gone), 2),
                                  "max": round(max(gone), 2)},
              "launch_to_first_byte_s": {"median": round(statistics.median(first), 2),
                                         "max": round(max(first), 2)},
              "load": round(os.getloadavg()[0], 1)}
    print(json.dumps(report))
    print(f"{'measure':<24} {'median s':>9} {'max s':>7}")
    for key in ("kill9_to_gone_s", "launch_to_first_byte_s"):
        row = report[key]
        assert isinstance(row, dict)
        print(f"{key:<24} {row['median']:>9} {row['max']:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
