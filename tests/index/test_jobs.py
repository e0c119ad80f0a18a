"""Index jobs: ref selection, the journal, events other processes observe, the writer lock,
failure and retry, recovery after a crash, reuse and garbage collection."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from gitutil import commit, defs, git, init, write

from spyglass.config import Config
from spyglass.errors import IndexUnavailable
from spyglass.index import builder as builder_mod
from spyglass.index.jobs import events_since, last_event_id, wait_for_event
from spyglass.index.lock import IndexBusy, writer_lock
from spyglass.index.store import connect, latest_complete, latest_job
from spyglass.query.facade import CodeIntel

BASE = {"pkg/__init__.py": "", "pkg/core.py": "def alpha():\n    return 1\n",
        "app.py": "from pkg.core import alpha\n\nalpha()\n"}


def _kinds(root: Path) -> list[str]:
    conn = connect(root)
    try:
        return [e.kind for e in events_since(conn, 0)]
    finally:
        conn.close()


def test_ref_selection_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    first = init(root, BASE)
    git(root, "branch", "release")
    write(root, {"pkg/more.py": "def more():\n    pass\n"})
    commit(root)
    ci = CodeIntel(root)
    snap = ci.index()
    assert (snap.ref, snap.ref_source) == ("HEAD", "default: HEAD (branch main)")
    snap = ci.index("release")
    assert (snap.ref, snap.ref_source, snap.commit) == ("release", "--ref", first)
    ci.config = replace(ci.config, target_branch="release")
    assert ci.index().ref_source == "config target_branch"
    ci.config = replace(ci.config, target_branch="develop")
    with pytest.raises(IndexUnavailable, match="'develop' \\(config target_branch\\)"):
        ci.index()


def test_a_job_is_journaled_and_observable_from_another_process(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    assert _kinds(root) == ["accepted", "progress", "progress", "completed",
                            "code_graph_updated"]
    write(root, {"pkg/core.py": "def alpha():\n    return 2\n"})
    new = commit(root)
    conn = connect(root)
    after = last_event_id(conn)
    child = subprocess.Popen([sys.executable, "-c", ("from spyglass.query.facade import "
                              f"CodeIntel; CodeIntel({str(root)!r}).index()")])
    event = wait_for_event(conn, after, timeout=120)
    child.wait(timeout=120)
    assert event is not None and event.kind == "code_graph_updated"
    assert event.detail["commit"] == new
    job = latest_job(conn)
    assert job is not None and (job.state, job.commit) == ("completed", new)
    assert job.parsed == job.persisted >= 1  # (more when a language pack changed meanwhile)
    progress = [e for e in events_since(conn, after) if e.kind == "progress"]
    assert progress[-1].detail == {"parsed": job.parsed, "persisted": job.persisted,
                                   "total": job.parsed}
    assert wait_for_event(conn, last_event_id(conn), timeout=0.2) is None
    conn.close()


def test_failed_job_keeps_the_previous_snapshot_and_can_be_retried(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    good = ci.index()
    write(root, {f"mod{i}.py": f"def f{i}():\n    pass\n" for i in range(6)})
    commit(root)
    calls = []

    def flaky(items: list[builder_mod.ChunkItem], store: str) -> int:
        calls.append(store)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(items, store)
    real = builder_mod.process_chunk
    monkeypatch.setattr(builder_mod, "process_chunk", flaky)
    monkeypatch.setattr(builder_mod, "CHUNK_FILES", 2)
    with pytest.raises(RuntimeError, match="disk on fire"):
        ci.index()
    job = ci.last_index_job()
    assert job is not None and job.state == "failed" and "disk on fire" in (job.error or "")
    conn = connect(root)
    assert latest_complete(conn) == good
    conn.close()
    assert ci.status().results[0].snapshot_commit == good.commit  # type: ignore[attr-defined]
    monkeypatch.setattr(builder_mod, "process_chunk", real)
    retry = ci.index()
    assert retry.state == "completed" and retry.commit != good.commit
    assert retry.parsed == 6 - 2  # the chunk persisted before the failure is reused
    assert set(defs(ci)) >= {f"f{i}" for i in range(6)}


def test_unavailable_job_is_journaled(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    good = ci.index()
    with pytest.raises(IndexUnavailable, match="does not name a commit"):
        ci.index("nope")
    job = ci.last_index_job()
    assert job is not None and job.state == "unavailable" and job.ref == "nope"
    assert _kinds(root)[-2:] == ["accepted", "unavailable"]
    assert ci.find_symbol("alpha").provenance.commit == good.commit
    status = ci.status().results[0]
    assert status.job_state == "unavailable"  # type: ignore[attr-defined]


def test_the_writer_lock_serialises_index_jobs(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    waited: list[str] = []
    with writer_lock(root / ".spyglass"):
        with pytest.raises(IndexBusy, match="another index job is running \\(pid"):
            ci.index(wait=False)
        worker = threading.Thread(target=lambda: ci.index(on_wait=waited.append))
        worker.start()
        worker.join(timeout=1.0)
        assert worker.is_alive()  # queued behind the lock
    worker.join(timeout=60)
    assert not worker.is_alive() and waited and "waiting for another index job" in waited[0]


def test_cli_no_wait_reports_a_busy_lock(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    CodeIntel(root).index()
    with writer_lock(root / ".spyglass"):
        proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index",
                               "--no-wait"], capture_output=True, text=True, timeout=120,
                              check=False)
    assert proc.returncode == 1 and "another index job is running" in proc.stderr


def test_a_dead_job_is_marked_failed_by_the_next_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    conn = connect(root)
    conn.execute("INSERT INTO jobs(repo, worktree, ref, ref_source, state, started_at, pid) "
                 "VALUES('r', 'w', 'HEAD', 'x', 'progress', 't', 999999999)")
    (root / ".spyglass" / "build-leftover").mkdir()
    conn.close()
    ci.index()
    conn = connect(root)
    state, error = conn.execute("SELECT state, error FROM jobs WHERE pid=999999999").fetchone()
    conn.close()
    assert state == "failed" and "died" in error
    assert not (root / ".spyglass" / "build-leftover").exists()


def test_an_indexed_commit_is_not_parsed_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    first = init(root, BASE)
    write(root, {"pkg/core.py": "def beta():\n    return 1\n"})
    second = commit(root)
    ci = CodeIntel(root)
    assert ci.index(first).parsed == 3
    assert ci.index(second).parsed == 1
    again = ci.index(first)  # older commit, not the newest snapshot: a copy of its membership
    assert (again.commit, again.parsed, again.state) == (first, 0, "completed")
    assert ci.find_symbol("alpha").provenance.commit == first
    same = ci.index(first)
    assert same.id == again.id


def test_gc_keeps_the_newest_snapshots_and_drops_unreferenced_units(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root, config=Config(keep_snapshots=2))
    for i in range(4):
        write(root, {"pkg/core.py": f"def alpha():\n    return {i}\n\n\ndef v{i}():\n    pass\n"})
        commit(root)
        ci.index()
    conn = sqlite3.connect(root / ".spyglass" / "graph.db")
    snaps = conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
    core_units = conn.execute("SELECT COUNT(*) FROM units WHERE path='pkg/core.py'").fetchone()[0]
    orphans = {t: conn.execute(f"SELECT COUNT(*) FROM {t} WHERE unit NOT IN "
                               "(SELECT id FROM units)").fetchone()[0]
               for t in ("defs", "refs", "imports", "bases", "aliases", "diags", "tokens")}
    dangling = conn.execute("SELECT COUNT(*) FROM snapshot_files WHERE unit IS NOT NULL AND "
                            "unit NOT IN (SELECT id FROM units)").fetchone()[0]
    gc_events = [json.loads(d) for (d,) in conn.execute(
        "SELECT detail FROM events WHERE kind='gc'")]
    conn.close()
    assert snaps == 2 and core_units == 2
    assert set(orphans.values()) == {0} and dangling == 0
    assert sum(int(e["snapshots"]) for e in gc_events) == 2  # 4 built, 2 kept
    assert "v3" in defs(ci) and "v1" not in defs(ci)


def test_status_reports_snapshot_overlay_and_freshness(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    head = init(root, BASE)
    CodeIntel(root).index()
    write(root, {"app.py": "from pkg.core import alpha\n\nalpha()\nalpha()\n",
                 "new.py": "def new():\n    pass\n"})
    git(root, "mv", "pkg/core.py", "pkg/base.py")
    proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "status"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for expected in (f"snapshot   HEAD {head}", "ref        default: HEAD (branch main)",
                     "last job   completed (3 parsed, 3 persisted)",
                     f"workspace  branch main, merge-base {head[:12]}",
                     "  staged     pkg/base.py", "  unstaged   app.py", "  untracked  new.py",
                     "  deleted    pkg/core.py", "  renamed    pkg/core.py -> pkg/base.py",
                     "freshness  overlay applied (answers follow disk)"):
        assert any(line.startswith(expected) for line in lines), (expected, lines)
    assert any(line.startswith("language   python") for line in lines)


def test_facade_waits_for_updates(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    after = ci.events()[-1].id
    assert ci.wait_for_update(after, timeout=0.1) is None
    write(root, {"pkg/core.py": "def alpha():\n    return 3\n"})
    commit(root)
    worker = threading.Thread(target=CodeIntel(root).index)
    worker.start()
    event = ci.wait_for_update(after, timeout=120)
    worker.join()
    assert event is not None and event.kind == "code_graph_updated" and event.id > after
