"""The first hour on a big tree: `status` with no index, Ctrl-C during `index` (exit time,
exit code, workers left, reuse on the next run) and `status` after the interruption.

    python bench/first_hour.py [--tree DIR]

DIR defaults to Debian's Go sources (/usr/share/gocode/src, about 7,800 files, installed
by `scripts/bootstrap.sh --corpora`); it is copied to a temporary folder (not a git
repository), never changed in place. Prints JSON, then a table."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GO_TREE = Path("/usr/share/gocode/src")


def spyglass(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "spyglass", "-C", str(root), *args]


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, proc


def persisted(store: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT COALESCE(MAX(persisted), 0) FROM jobs").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def interrupt(root: Path, after: int) -> dict[str, object]:
    """Start `index`, send SIGINT to its process group once `after` files are persisted,
    and time how long the group takes to be gone."""
    child = subprocess.Popen(spyglass(root, "index"), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    store = root / ".spyglass" / "graph.db"
    while persisted(store) < after and child.poll() is None:
        time.sleep(0.05)
    if child.poll() is not None:
        return {"error": "the index finished before it was interrupted"}
    at = persisted(store)
    sent = time.perf_counter()
    os.killpg(child.pid, signal.SIGINT)
    child.wait()
    exited = time.perf_counter() - sent
    while group_alive(child.pid) and time.perf_counter() - sent < 30:
        time.sleep(0.01)
    return {"persisted_at_sigint": at, "exit_seconds": round(exited, 3),
            "group_gone_seconds": round(time.perf_counter() - sent, 3),
            "exit_code": child.returncode}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tree", type=Path, default=GO_TREE)
    p.add_argument("--runs", type=int, default=3, help="status runs (the median is reported)")
    p.add_argument("--after", type=int, default=1000, help="files persisted before SIGINT")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="spyglass-first-hour-"))
    try:
        root = work / "tree"
        shutil.copytree(args.tree, root, symlinks=True)
        files = sum(len(names) for _, _, names in os.walk(root))
        cold = [timed(spyglass(root, "status"))[0] for _ in range(args.runs)]
        _, proc = timed(spyglass(root, "status"))
        said = next((line for line in proc.stdout.splitlines() if "snapshot" in line), "")
        sigint = interrupt(root, args.after)
        after = [timed(spyglass(root, "status"))[0] for _ in range(args.runs)]
        seconds, rerun = timed(spyglass(root, "index", "--json"))
        info = json.loads(rerun.stdout) if rerun.returncode == 0 else {}
        report = {
            "tree": str(args.tree), "files": files, "load": os.getloadavg(),
            "status_no_index_seconds_median": round(statistics.median(cold), 3),
            "status_says": said.strip(),
            "sigint": sigint,
            "status_after_interrupt_seconds_median": round(statistics.median(after), 3),
            "rerun_seconds": round(seconds, 1), "rerun_reused": info.get("reused"),
            "rerun_parsed": info.get("parsed"),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=2))
    s = report["sigint"]
    assert isinstance(s, dict)
    print("| files | status, no index (s) | SIGINT → exit (s) | workers gone (s) | exit code | "
          "status after (s) | rerun reused / parsed |\n|---|---|---|---|---|---|---|\n"
          f"| {files} | {report['status_no_index_seconds_median']} | {s.get('exit_seconds')} | "
          f"{s.get('group_gone_seconds')} | {s.get('exit_code')} | "
          f"{report['status_after_interrupt_seconds_median']} | {report['rerun_reused']} / "
          f"{report['rerun_parsed']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
