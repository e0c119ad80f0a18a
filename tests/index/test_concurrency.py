"""Four reader processes query in a loop while a writer indexes a new commit: no errors,
and every answer comes from one complete snapshot (the old one, then the new one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from gitutil import commit, init, write

from spyglass.query.facade import CodeIntel

READER = Path(__file__).with_name("reader_proc.py")
N = 40


def test_readers_see_one_complete_snapshot_while_a_writer_indexes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    old = init(root, {f"m{i:02d}.py": f"def a_{i}():\n    pass\n" for i in range(N)})
    CodeIntel(root).index()
    write(root, {f"m{i:02d}.py": f"def b_{i}():\n    return {i}\n" for i in range(N)})
    write(root, {f"n{i:02d}.py": f"def b_new_{i}():\n    pass\n" for i in range(10)})
    new = commit(root)
    expect = tmp_path / "expect.json"
    expect.write_text(json.dumps({
        "sets": {"A": [f"a_{i}" for i in range(N)],
                 "B": [f"b_{i}" for i in range(N)] + [f"b_new_{i}" for i in range(10)]},
        "commits": {"A": old, "B": new}}))
    readers = [subprocess.Popen([sys.executable, str(READER), str(root), str(k), str(expect)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for k in range(4)]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{k}").exists() for k in range(4)):
        assert time.monotonic() < deadline, "readers did not start"
        time.sleep(0.05)
    env = {**os.environ, "SPYGLASS_CHUNK_FILES": "2", "SPYGLASS_TEST_CHUNK_DELAY": "0.05"}
    writer = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index",
                             "--json"], env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    assert writer.returncode == 0, writer.stderr
    assert json.loads(writer.stdout)["persisted"] == N + 10
    for proc in readers:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        answers = [json.loads(line) for line in out.splitlines()]
        labels = [a["answer"] for a in answers]
        assert "ERROR" not in labels and "MIXED" not in labels, [
            a for a in answers if a["answer"] in ("ERROR", "MIXED")][:3]
        first_b = labels.index("B")
        assert labels[0] == "A" and set(labels[:first_b]) == {"A"}
        assert set(labels[first_b:]) == {"B"}  # never back to the old snapshot
