"""Ctrl-C during `spyglass index`: the process group stops (workers included), the exit code
is 130, and what was persisted stays, so the next run reuses it (issue 28)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gitutil import init

FILES = 240  # above the pool threshold: the parse runs in worker processes
ENV = {**os.environ, "SPYGLASS_CHUNK_FILES": "4", "SPYGLASS_TEST_CHUNK_DELAY": "0.1"}


def _persisted(store: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute("SELECT COALESCE(MAX(persisted), 0) FROM jobs").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    return int(row[0])


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_ctrl_c_stops_the_group_exits_130_and_the_rerun_reuses(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {f"pkg/m{j:03d}.py": f"def f{j}(x):\n    return x + {j}\n" for j in range(FILES)})
    index = [sys.executable, "-m", "spyglass", "-C", str(root), "index", "--json"]
    # its own session, like a shell's job: Ctrl-C reaches the whole group
    child = subprocess.Popen(index, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    store = root / ".spyglass" / "graph.db"
    for _ in range(600):  # until some chunks are in the store (a hang guard, not a timing)
        if _persisted(store) >= 8 or child.poll() is not None:
            break
        time.sleep(0.05)
    assert child.poll() is None, "the index finished before it could be interrupted"
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    for _ in range(100):  # the workers die with their parent
        if _group_gone(child.pid):
            break
        time.sleep(0.05)
    assert _group_gone(child.pid)
    again = subprocess.run(index, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    info = json.loads(again.stdout)
    assert info["reused"] >= 8 and info["reused"] + info["parsed"] == FILES
