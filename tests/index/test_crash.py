"""kill -9 the indexer at random points: the store opens, the previous snapshot answers
unchanged, and the next index completes with the same facts as a clean build."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gitutil import commit, init, write

from spyglass.config import Config
from spyglass.index.builder import SnapshotBuilder
from spyglass.index.store import connect, latest_complete
from spyglass.query.facade import CodeIntel

FILES = 30
KILLS = 22
# The child warms up (imports, language packs) before it says ready, so that the random kill
# points fall on the job itself: enumeration, chunk writes, completion, garbage collection.
CHILD = ("import sys; from spyglass.query.facade import CodeIntel; "
         "from spyglass.syntax.langpack import all_packs; all_packs(); "
         "ci = CodeIntel(sys.argv[1]); print('ready', flush=True); ci.index()")
ENV = {**os.environ, "SPYGLASS_CHUNK_FILES": "2", "SPYGLASS_TEST_CHUNK_DELAY": "0.03"}


def dump(conn: sqlite3.Connection, snap: int) -> list[tuple[object, ...]]:
    """A snapshot's facts, independent of unit ids."""
    rows: list[tuple[object, ...]] = []
    for sql in (
        "SELECT 'file', path, blob, language, skipped FROM snapshot_files WHERE snapshot=?",
        ("SELECT 'def', f.path, d.idx, d.name, d.kind, d.start_line, d.end_line, d.full "
        "FROM snapshot_files f JOIN defs d ON d.unit = f.unit WHERE f.snapshot=?"),
        ("SELECT 'ref', f.path, r.line, r.col, r.name, r.role, r.target, r.conf "
        "FROM snapshot_files f JOIN refs r ON r.unit = f.unit WHERE f.snapshot=?"),
        ("SELECT 'import', f.path, i.idx, i.module, i.name, i.alias "
        "FROM snapshot_files f JOIN imports i ON i.unit = f.unit WHERE f.snapshot=?"),
    ):
        rows += [tuple(r) for r in conn.execute(sql, (snap,))]
    return sorted(rows, key=repr)


def reference(root: Path, where: Path) -> list[tuple[object, ...]]:
    """The facts of HEAD built into a fresh, separate store."""
    where.mkdir()
    conn = connect(where, create=True)
    snap = SnapshotBuilder(root, conn, Config(), "ref", store=where / ".spyglass").build()
    out = dump(conn, snap.id)
    conn.close()
    return out


def _version(root: Path, i: int) -> None:
    write(root, {f"pkg/m{j:02d}.py": f"from pkg.m{(j + 1) % FILES:02d} import f{(j + 1) % FILES}"
                 f"\n\n\ndef f{j}():\n    return {i}\n\n\ndef g{i}_{j}():\n    return f{j}()\n"
                 for j in range(0, FILES, 3 if i % 2 else 2)})


def _run_child(root: Path, kill_after: float | None) -> float:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    start = time.monotonic()
    if kill_after is None:
        child.wait(timeout=300)
    else:
        time.sleep(kill_after)
        child.kill()  # SIGKILL: no cleanup of any kind
        child.wait(timeout=60)
    return time.monotonic() - start


def test_kill_9_at_random_points(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {"pkg/__init__.py": "", **{f"pkg/m{j:02d}.py": f"def f{j}():\n    pass\n"
                                          for j in range(FILES)}})
    ci = CodeIntel(root)
    ci.index()
    _version(root, 0)
    commit(root)
    span = _run_child(root, None)  # calibration: how long an unkilled job takes
    rng = random.Random(4)
    phases: list[str] = []
    for i in range(1, KILLS + 1):
        conn = connect(root)
        before = latest_complete(conn)
        assert before is not None
        expected = dump(conn, before.id)
        last_job = conn.execute("SELECT MAX(id) FROM jobs").fetchone()[0]
        conn.close()
        _version(root, i)
        head = commit(root)
        _run_child(root, rng.uniform(0.0, span))

        conn = connect(root)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        after = latest_complete(conn)
        assert after is not None and after.commit in (before.commit, head)
        job = conn.execute("SELECT id, state, persisted FROM jobs ORDER BY id DESC").fetchone()
        phases.append(f"{job[1]}:{job[2]}" if job[0] > last_job else "not-started")
        if after.id == before.id:
            assert dump(conn, after.id) == expected  # the previous snapshot, untouched
        else:
            assert dump(conn, after.id) == reference(root, tmp_path / f"ref-{i}")
        conn.close()
        answer = CodeIntel(root).find_symbol(f"g{i}_0")
        assert [r.path for r in answer.results] == ["pkg/m00.py"]  # type: ignore[attr-defined]
        assert answer.provenance.commit == after.commit

        done = CodeIntel(root).index()
        assert (done.state, done.commit) == ("completed", head)
        conn = connect(root)
        assert dump(conn, done.id) == reference(root, tmp_path / f"ref-done-{i}")
        assert conn.execute("SELECT COUNT(*) FROM jobs WHERE state IN ('accepted', "
                            "'progress')").fetchone()[0] == 0
        conn.close()
        assert not list((root / ".spyglass").glob("build-*"))
    print("kill points (job state:persisted):", " ".join(phases))
