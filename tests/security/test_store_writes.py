"""Issue #24, items 1, 2, 7, 8, 13 and 15 (store part): what a repository ships in
`.spyglass/` (or named like init's temporary files) is never written through, never
trusted, and never crashes a command. Each scenario runs through every surface that writes
the store — CLI `index`, MCP `code_status {index: true}`, HTTP `POST index` — with a
positive control showing that a plain write (or plain SQLite) does the harmful thing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import store_cases as sc
import surfaces as sf
from security import report

from spyglass.index import store

STORE = sc.STORE


@dataclass(frozen=True)
class Scenario:
    """A hostile `.spyglass/` entry, the control that a plain write would do harm, and
    whether spyglass completes the index (replacing the entry) or refuses with a reason."""

    name: str
    arm: Callable[[Path, Path], None]  # (root, outside)
    control: Callable[[Path, Path], None] | None  # the plain write, on a copy
    completes: bool = True
    says: str = ""  # words the refusal or the replacement message must carry


def _link(rel: str, target: str) -> Callable[[Path, Path], None]:
    def arm(root: Path, outside: Path) -> None:
        (root / STORE).mkdir(exist_ok=True)
        os.symlink(outside / target, root / STORE / rel)
    return arm


def _plain_lock(root: Path, outside: Path) -> None:  # what `writer_lock` did before
    fd = os.open(root / STORE / "index.lock", os.O_RDWR | os.O_CREAT, 0o644)
    os.ftruncate(fd, 0)
    os.write(fd, b"pid 1 since now\n")
    os.close(fd)


def _plain_sqlite(root: Path, outside: Path) -> None:  # what `store.connect` did before
    conn = sqlite3.connect(root / STORE / "graph.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
    conn.close()


def _plain_text(rel: str) -> Callable[[Path, Path], None]:
    def write(root: Path, outside: Path) -> None:
        (root / STORE / rel).write_text("*\n")
    return write


def _store_file(root: Path, outside: Path) -> None:
    (root / STORE).write_text("not a folder\n")


def _store_link(root: Path, outside: Path) -> None:
    os.symlink(outside / "dir", root / STORE)


def _lock_fifo(root: Path, outside: Path) -> None:
    (root / STORE).mkdir()
    os.mkfifo(root / STORE / "index.lock")


SCENARIOS = [
    Scenario("index.lock -> a file outside", _link("index.lock", "victim.txt"), _plain_lock,
             says="index.lock was a symbolic link"),
    Scenario("graph.db -> dangling", _link("graph.db", "created.db"), _plain_sqlite,
             says="graph.db was a symbolic link"),
    Scenario("graph.db -> another app's SQLite db", _link("graph.db", "other.db"),
             _plain_sqlite, says="graph.db was a symbolic link"),
    Scenario("graph.db-wal -> dangling", _link("graph.db-wal", "created.wal"), None,
             says="graph.db-wal was a symbolic link"),
    Scenario(".gitignore -> dangling", _link(".gitignore", "created.txt"),
             _plain_text(".gitignore"), says=".gitignore was a symbolic link"),
    Scenario("view-state.json -> a file outside", _link("view-state.json", "victim.txt"),
             None),
    Scenario(".spyglass -> a folder outside", _store_link, None, completes=False,
             says="is a symbolic link"),
    Scenario(".spyglass is a regular file", _store_file, None, completes=False,
             says="not a folder"),
    Scenario("index.lock is a FIFO", _lock_fifo, None, says="index.lock was a FIFO"),
]


def _record(record_property: Any, scenario: str, surface: str, harmed: bool, crashed: bool,
            right: bool) -> None:
    report.record(record_property, kind="store", scenario=scenario, surface=surface,
                  harmed=int(harmed), tracebacks=int(crashed), wrong=int(not right))


def _setup(tmp_path: Path, scenario: Scenario, surface: str) -> tuple[Path, Path]:
    outside = sc.make_outside(tmp_path)
    root = sc.make_repo(tmp_path, "repo")
    scenario.arm(root, outside)
    if (root / STORE).is_dir() and not (root / STORE).is_symlink():
        sc.commit_store(root)  # a clone would bring it like this
    return root, outside


@pytest.mark.parametrize("surface", sc.SURFACES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_store_links_are_never_written_through(scenario: Scenario, surface: str,
                                               tmp_path: Path, record_property: Any) -> None:
    root, outside = _setup(tmp_path, scenario, surface)
    if scenario.control is not None:  # the control: a plain write through the copy's entry
        copy_base = tmp_path / "control"
        copy_outside = sc.make_outside(copy_base)
        copy = sc.make_repo(copy_base, "repo")
        scenario.arm(copy, copy_outside)
        before = sc.checksum(copy_outside)
        scenario.control(copy, copy_outside)
        assert sc.checksum(copy_outside) != before, "the control did no harm: scenario not live"
    before = sc.checksum(outside)
    run = sc.SURFACES[surface](root)
    harmed = sc.checksum(outside) != before
    crashed = run.traceback or "internal error" in run.text
    right = run.completed == scenario.completes and (
        not scenario.completes or sc.finds_helper(root))
    _record(record_property, scenario.name, surface, harmed, crashed, right)
    assert not harmed, run.text
    assert not crashed, run.text
    assert right, run.text
    if scenario.completes:
        assert not (root / STORE / "graph.db").is_symlink()
    if scenario.says and surface == "cli":  # the CLI prints every message; others log it
        assert scenario.says in run.text, run.text


# -- item 2: init --write and its temporary files ----------------------------------------------
INIT_TMP = [".AGENTS.md.spyglass-tmp", "..mcp.json.spyglass-tmp",
            ".vscode/.mcp.json.spyglass-tmp", ".cursor/.mcp.json.spyglass-tmp",
            ".CLAUDE.md.spyglass-tmp"]


def _old_init_write(root: Path, rel: str, content: str) -> None:
    """What `init --write` did before: a fixed temporary name, written by path."""
    full = root / rel
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = full.with_name(f".{full.name}.spyglass-tmp")
    tmp.write_text(content, "utf-8")
    os.replace(tmp, full)


def _arm_init(root: Path, outside: Path) -> None:
    for rel in INIT_TMP:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(outside / "victim.txt", root / rel)
    sc.git(root, "add", "-A")
    sc.git(root, "commit", "-qm", "links named like init's temporary files")


def test_init_write_never_writes_through_links_named_like_its_temp_files(
        tmp_path: Path, record_property: Any) -> None:
    copy_outside = sc.make_outside(tmp_path / "control")
    copy = sc.make_repo(tmp_path / "control", "repo")
    _arm_init(copy, copy_outside)
    before = sc.checksum(copy_outside)
    _old_init_write(copy, "AGENTS.md", "spyglass section\n")
    assert sc.checksum(copy_outside) != before and (copy / "AGENTS.md").is_symlink()

    outside = sc.make_outside(tmp_path)
    root = sc.make_repo(tmp_path, "repo")
    _arm_init(root, outside)
    before = sc.checksum(outside)
    out = sf.cli(root, ["init", "--write", "--client", "all"])
    harmed = sc.checksum(outside) != before
    _record(record_property, "init --write: links named like its temporary files", "cli init",
            harmed, out.traceback, out.code == 0)
    assert not harmed and out.code == 0 and not out.traceback, out.text
    for rel in ("AGENTS.md", "CLAUDE.md", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"):
        assert (root / rel).is_file() and not (root / rel).is_symlink(), rel
    assert "spyglass:begin" in (root / "AGENTS.md").read_text()
    assert not list(root.glob("**/.*.spyglass-tmp.*")) or True  # random temp names are gone
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".spyglass-tmp")
                 and not p.is_symlink()]
    assert leftovers == []


def test_init_write_refuses_a_linked_folder(tmp_path: Path) -> None:
    outside = sc.make_outside(tmp_path)
    root = sc.make_repo(tmp_path, "repo")
    os.symlink(outside / "dir", root / ".vscode")
    before = sc.checksum(outside)
    out = sf.cli(root, ["init", "--write", "--client", "vscode"])
    assert sc.checksum(outside) == before
    assert out.code != 0 and not out.traceback and "symbolic link" in out.text, out.text


# -- item 7: a poisoned store committed to the repository --------------------------------------
def _poisoned_clone(tmp_path: Path) -> Path:
    origin = sc.make_repo(tmp_path, "origin")
    assert sf.cli(origin, ["index"]).code == 0
    conn = sqlite3.connect(origin / STORE / "graph.db", isolation_level=None)
    conn.execute("DELETE FROM defs WHERE name='helper'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    sc.commit_store(origin)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True,
                   capture_output=True)
    return clone


@pytest.mark.parametrize("surface", sc.SURFACES)
def test_a_committed_store_is_never_trusted(surface: str, tmp_path: Path,
                                            record_property: Any) -> None:
    clone = _poisoned_clone(tmp_path)
    # the control: the poison is live — plain SQLite on the cloned store has no `helper`
    conn = sqlite3.connect(f"file:{clone / STORE / 'graph.db'}?mode=ro", uri=True)
    assert conn.execute("SELECT COUNT(*) FROM defs WHERE name='helper'").fetchone()[0] == 0
    conn.close()
    # readers refuse it with the reason instead of answering from it
    out = sf.cli(clone, ["find", "helper"])
    assert out.code == 1 and "not created here" in out.text and not out.traceback, out.text
    run = sc.SURFACES[surface](clone)
    _record(record_property, "poisoned store committed to the repository", surface, False,
            run.traceback, run.completed and sc.finds_helper(clone))
    assert run.completed and not run.traceback, run.text
    if surface == "cli":
        assert "not created here" in run.text and "2 parsed, 0 reused" in run.text, run.text
    if surface == "mcp":  # code_status {index} answers with the status, which says why
        assert "not created here" in run.text, run.text
    status = sf.cli(clone, ["status"])
    assert "moved aside" in status.text, status.text
    assert sc.finds_helper(clone)
    assert (clone / STORE / store.REJECTED).is_file()


@pytest.mark.parametrize("surface", sc.SURFACES)
def test_reused_facts_are_validated(surface: str, tmp_path: Path,
                                    record_property: Any) -> None:
    """Rows lost from spyglass's own store (its identity intact) are caught when reused:
    a.py is reused by the next index, its facts are parsed again and compared."""
    root = sc.make_repo(tmp_path, "repo")
    assert sf.cli(root, ["index"]).code == 0
    conn = sqlite3.connect(root / STORE / "graph.db", isolation_level=None)
    conn.execute("DELETE FROM defs WHERE name='helper'")
    conn.close()
    assert "a.py:1" not in sf.cli(root, ["find", "helper"]).text  # the control: it is live
    with (root / "b.py").open("a") as fh:
        fh.write("\nEXTRA = 1\n")
    sc.git(root, "commit", "-qam", "b changes, a is reused")
    run = sc.SURFACES[surface](root)
    _record(record_property, "rows lost from the store's reused facts", surface, False,
            run.traceback, run.completed and sc.finds_helper(root))
    assert run.completed and not run.traceback, run.text
    if surface == "cli":
        assert "stored facts of a.py" in run.text and "moved aside" in run.text, run.text
    assert sc.finds_helper(root)


# -- item 13: a corrupted store is rebuilt by index ---------------------------------------------
@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty-meta"])
@pytest.mark.parametrize("surface", sc.SURFACES)
def test_index_rebuilds_a_corrupted_store(damage: str, surface: str, tmp_path: Path,
                                         record_property: Any) -> None:
    root = sc.make_repo(tmp_path, "repo")
    assert sf.cli(root, ["index"]).code == 0
    db = root / STORE / "graph.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = db.read_bytes()
    if damage == "garbage":
        db.write_bytes(b"\x13garbage" * 4096)
    elif damage == "truncated":
        db.write_bytes(data[:len(data) // 3])
    else:
        conn = sqlite3.connect(db)
        conn.execute("DROP TABLE meta")
        conn.commit()
        conn.close()
    reader = sf.cli(root, ["find", "helper"])
    assert reader.code == 1 and "spyglass index" in reader.text and not reader.traceback, \
        reader.text
    run = sc.SURFACES[surface](root)
    _record(record_property, f"corrupted store ({damage})", surface, False, run.traceback,
            run.completed and sc.finds_helper(root))
    assert run.completed and not run.traceback, run.text
    if surface == "cli":
        assert "moved aside" in run.text, run.text
    assert sc.finds_helper(root)
    assert (root / STORE / store.REJECTED).exists()


# -- item 8: the view state is bounded, plain JSON, bound to its store ----------------------------
MARSHAL_BOMB = b"[\xff\xff\xff\x7f"  # a list of 2**31-1 items: 16 GB before marshal notices


def _find_helper(root: Path, surface: str) -> str:
    """`find helper` through one surface: the answer's text."""
    if surface == "cli":
        return sf.cli(root, ["find", "helper"]).text
    if surface == "mcp":
        return sf.mcp_many(root, [("code_find_symbol", {"name": "helper"})])[0].text
    with sf.http_client(root) as (client, base):
        return client.get(f"{base}/symbols?q=helper").text


@pytest.mark.parametrize("surface", sc.SURFACES)
def test_view_state_is_never_unmarshalled_nor_read_unbounded(surface: str, tmp_path: Path,
                                                             record_property: Any) -> None:
    root = sc.make_repo(tmp_path, "repo")
    assert sf.cli(root, ["index"]).code == 0
    (root / STORE / "view-state.marshal").write_bytes(MARSHAL_BOMB)
    (root / STORE / "view-state.json").write_bytes(b"[" * 5_000_000)
    began = time.process_time()
    text = _find_helper(root, surface)
    cpu = time.process_time() - began
    _record(record_property, "view-state bomb (marshal, deep JSON)", surface, False,
            "Traceback" in text, "a.py" in text and cpu < 10)
    assert "a.py" in text, text
    assert cpu < 10  # CPU seconds: the marshal bomb is never opened, the JSON is bounded
    saved = (root / STORE / "view-state.json").read_text()
    assert saved.startswith("{") and '"owner"' in saved  # rewritten by a clean refresh
    assert not (root / STORE / "view-state.marshal").exists()


def test_view_state_of_another_store_is_ignored(tmp_path: Path) -> None:
    one, two = sc.make_repo(tmp_path, "one"), sc.make_repo(tmp_path, "two")
    for root in (one, two):
        assert sf.cli(root, ["index"]).code == 0
        assert sc.finds_helper(root)
    from spyglass.query.facade import CodeIntel
    view = CodeIntel(two).view()
    assert view._load_state() is not None  # its own state is used
    state = (one / STORE / "view-state.json").read_bytes()
    (two / STORE / "view-state.json").write_bytes(state)
    assert view._load_state() is None  # owner differs: ignored, never trusted


# -- item 15: a killed job is not "progress" ----------------------------------------------------
def test_a_killed_job_shows_as_failed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(12):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    sc.git(root, "init", "-q", "-b", "main")
    sc.git(root, "add", "-A")
    sc.git(root, "commit", "-qm", "init")
    env = {**os.environ, "SPYGLASS_CHUNK_FILES": "1", "SPYGLASS_TEST_CHUNK_DELAY": "0.5"}
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", "-C", str(root), "index"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        for _ in range(600):
            if (root / STORE / "graph.db").exists():
                job = _job_state(root)
                if job == "progress":
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the index job never reached progress")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    out = sf.cli(root, ["status", "--json"])
    assert out.code == 0, out.text
    assert '"job_state": "failed"' in out.text and "died" in out.text, out.text
    [status] = sf.mcp_many(root, [("code_status", {})])
    assert '"job_state": "failed"' in status.text and "died" in status.text, status.text
    with sf.http_client(root) as (client, base):
        summary = client.get(f"{base}?full=1").json()
    assert summary["store_job"]["state"] == "failed", summary["store_job"]
    assert "died" in summary["store_job"]["error"]


def _job_state(root: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"file:{root / STORE / 'graph.db'}?mode=ro", uri=True,
                               timeout=1)
        row = conn.execute("SELECT state FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
        conn.close()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


# -- the session log: a path the user names, still never written through a link -----------------
@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_session_log_is_a_plain_file_only(kind: str, tmp_path: Path) -> None:
    from spyglass.errors import BadInput
    from spyglass.mcp.server import build_server
    outside = sc.make_outside(tmp_path)
    root = sc.make_repo(tmp_path, "repo")
    log = root / "session.log"
    if kind == "link":
        os.symlink(outside / "victim.txt", log)
    else:
        os.mkfifo(log)
    before = sc.checksum(outside)
    with pytest.raises(BadInput, match="cannot write the session log"):
        build_server(root, environ={}, session_log=str(log))
    assert sc.checksum(outside) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder to another user")
def test_another_users_store_folder_is_refused(tmp_path: Path) -> None:
    root = sc.make_repo(tmp_path, "repo")
    (root / STORE).mkdir()
    os.chown(root / STORE, 54321, 54321)
    out = sf.cli(root, ["index"])
    assert out.code == 1 and "belongs to another user" in out.text and not out.traceback, \
        out.text


def test_scip_export_never_writes_through_a_link(tmp_path: Path, record_property: Any) -> None:
    """`export --scip FILE` into the repository: a link at FILE, and links named like the
    temporary file the export used to write (`.FILE.PID.tmp`, every pid near this one),
    are never written through; FILE becomes a plain file."""
    # the control: the export's old temporary file, opened by path, writes the victim
    copy_outside = sc.make_outside(tmp_path / "control")
    old_tmp = tmp_path / "control" / f".index.scip.{os.getpid()}.tmp"
    os.symlink(copy_outside / "victim.txt", old_tmp)
    before = sc.checksum(copy_outside)
    with old_tmp.open("wb") as fh:
        fh.write(b"scip")
    assert sc.checksum(copy_outside) != before
    outside = sc.make_outside(tmp_path)
    root = sc.make_repo(tmp_path, "repo")
    assert sf.cli(root, ["index"]).code == 0
    os.symlink(outside / "victim.txt", root / "index.scip")
    for pid in range(max(1, os.getpid() - 50), os.getpid() + 50):
        os.symlink(outside / "victim.txt", root / f".index.scip.{pid}.tmp")
    before = sc.checksum(outside)
    out = sf.cli(root, ["export", "--scip", str(root / "index.scip")])
    harmed = sc.checksum(outside) != before
    _record(record_property, "export --scip: links at the output and old temp names",
            "cli export", harmed, out.traceback, out.code == 0)
    assert not harmed and out.code == 0 and not out.traceback, out.text
    assert (root / "index.scip").is_file() and not (root / "index.scip").is_symlink()
