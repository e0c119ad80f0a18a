"""How fast a launched server dies with spyglass, and what the launcher costs: kill -9 of a
stand-in spyglass process -> its server gone (host and sandbox), and launch -> first byte
back. Medians of N runs. Not part of the test suite (tests/bridge/test_launcher.py checks the
behaviour with a generous deadline).

    python bench/bridge_isolation.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spyglass.bridge.launcher import LaunchSpec, launch

STAND_IN = """
import sys, time
from pathlib import Path
from spyglass.bridge.launcher import LaunchSpec, launch
child = launch(LaunchSpec(("cat",), Path(sys.argv[1]), (), sys.argv[2]))
print(child.pid, flush=True)
time.sleep(120)
"""


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
            out += [int(p) for p in fh.read().split()]
    return out


def _server(guard: int) -> int:
    """The `cat` under the guard (and bubblewrap)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        current = guard
        try:
            while kids := _children(current):
                current = kids[0]
            with open(f"/proc/{current}/comm", encoding="ascii") as fh:
                if fh.read().strip() == "cat":
                    return current
        except OSError:
            pass
        time.sleep(0.005)
    raise RuntimeError("no server process")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


def kill_once(ws: Path, execution: str) -> float:
    parent = subprocess.Popen([sys.executable, "-c", STAND_IN, str(ws), execution],
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server = _server(int(parent.stdout.readline()))
    start = time.perf_counter()
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    while _alive(server):
        time.sleep(0.001)
    return (time.perf_counter() - start) * 1000


def launch_once(ws: Path, execution: str) -> float:
    start = time.perf_counter()
    child = launch(LaunchSpec(("echo", "ready"), ws, (), execution))
    child.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    child.kill()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    ws = Path(tempfile.mkdtemp(prefix="spyglass-iso-"))
    modes = ["host"] + (["sandbox"] if shutil.which("bwrap") else [])
    out = {}
    try:
        for mode in modes:
            kills = [kill_once(ws, mode) for _ in range(args.runs)]
            starts = [launch_once(ws, mode) for _ in range(args.runs)]
            out[mode] = {"kill9_to_gone_ms": {"median": round(statistics.median(kills), 1),
                                              "max": round(max(kills), 1)},
                         "launch_to_first_byte_ms": round(statistics.median(starts), 1)}
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
