"""kill -9 of a real `spyglass index` while its worker pool runs: the workers die with it,
nothing holds `index.lock` afterwards, and the next index completes with the right answer.
Also: a lock kept by a dead holder's orphaned workers is recovered, and a busy lock names
its live holder (docs/security.md "Processes, secrets and limits")."""

from __future__ import annotations

import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitutil import commit, init, write

from spyglass.index.lock import (
    LOCK_NAME,
    IndexBusy,
    lock_holders,
    read_record,
    record_worker,
    writer_lock,
)
from spyglass.query.facade import CodeIntel

FILES = 64  # above the builder's POOL_THRESHOLD, so every run parses in a pool
KILLS = 20
SEED = 11
RELEASE_DEADLINE = 15.0  # generous; the measured figure is printed
# Small chunks and a pause after each persisted chunk spread the pool phase out, so that
# the random kill points land while workers are parsing and inserting.
ENV = {**os.environ, "SPYGLASS_CHUNK_FILES": "2", "SPYGLASS_TEST_CHUNK_DELAY": "0.02"}

linux_only = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="reads holders from /proc")


def _version(root: Path, v: int) -> None:
    """Every file changes, so every run has all of them to parse."""
    write(root, {f"pkg/m{j:03d}.py":
                 f"from pkg.m{(j + 1) % FILES:03d} import f{(j + 1) % FILES}\n\n\n"
                 f"def f{j}(x):\n    return x + {v}\n\n\n"
                 f"def v{v}_f{j}(y):\n    return f{j}(y) * {j}\n\n\n"
                 f"class C{j}:\n    def m(self):\n        return v{v}_f{j}(self)\n"
                 for j in range(FILES)})


def _free(lock: Path) -> bool:
    """Nothing holds the lock: no process has it open and a try-lock succeeds."""
    if lock_holders(lock):
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _indexer(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "spyglass", "-C", str(root), "index"],
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@linux_only
def test_kill_9_of_the_indexer_leaves_no_lock_holder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {"pkg/__init__.py": ""})
    _version(root, 0)
    commit(root)
    lock = root / ".spyglass" / LOCK_NAME
    start = time.monotonic()
    calib = _indexer(root)
    assert calib.wait(timeout=120) == 0
    span = time.monotonic() - start  # how long an unkilled run takes, start-up included
    rng = random.Random(SEED)
    releases: list[float] = []
    with_workers = 0
    for v in range(1, KILLS + 1):
        _version(root, v)
        head = commit(root)
        child = _indexer(root)
        time.sleep(rng.uniform(0.1, span))
        record = read_record(lock.parent)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        killed = time.monotonic()
        if record.pid == child.pid and record.workers:
            with_workers += 1
        while not _free(lock):
            assert time.monotonic() - killed < RELEASE_DEADLINE, \
                f"kill {v}: still held by {lock_holders(lock)}"
            time.sleep(0.01)
        releases.append(time.monotonic() - killed)
        if record.pid == child.pid:
            # a worker's descriptors (the lock) close early in its exit, before it becomes a
            # zombie: it must be gone within the deadline, not at the very instant
            while alive := [p for p, _ in record.workers if _running(p)]:
                assert time.monotonic() - killed < RELEASE_DEADLINE, \
                    f"kill {v}: workers {alive} outlived the indexer"
                time.sleep(0.01)

        done = CodeIntel(root).index(wait=False)  # a busy lock would raise at once
        assert (done.state, done.commit) == ("completed", head)
        answer = CodeIntel(root).find_symbol(f"v{v}_f7")
        assert [r.path for r in answer.results] == ["pkg/m007.py"]  # type: ignore[attr-defined]
        assert answer.provenance.commit == head
    print(f"\n{KILLS} kills ({with_workers} with pool workers running), calibrated run "
          f"{span:.2f}s; lock released after kill: max {max(releases) * 1000:.0f} ms, "
          f"median {sorted(releases)[len(releases) // 2] * 1000:.0f} ms")
    assert with_workers >= KILLS // 4  # the kill points really hit the pool


def _running(pid: int) -> bool:
    """Alive and not a zombie (a reaped orphan may linger as one for a moment)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


# A holder that takes the lock, forks a "worker" that inherits the descriptor and records
# itself, then waits to be killed; the worker has no lifeline and sleeps forever.
HOLDER = """
import os, sys, time
from pathlib import Path
from spyglass.index.lock import record_worker, writer_lock
folder = Path(sys.argv[1])
with writer_lock(folder):
    pid = os.fork()
    if pid == 0:
        if sys.argv[2] == "record":
            record_worker(folder)
        print("worker", os.getpid(), flush=True)
        time.sleep(600)
        os._exit(0)
    time.sleep(0.2)
    print("ready", flush=True)
    time.sleep(600)
"""


def _orphaned_lock(folder: Path, mode: str) -> tuple[int, int]:
    """A lock file held only by the orphan of a holder killed with -9: (holder, orphan)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), mode],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    orphan = int(proc.stdout.readline().split()[1])
    assert proc.stdout.readline().strip() == "ready"
    proc.kill()
    proc.wait(timeout=30)
    return proc.pid, orphan


@linux_only
def test_a_lock_kept_by_a_dead_holders_workers_is_recovered(tmp_path: Path) -> None:
    folder = tmp_path / ".spyglass"
    holder, orphan = _orphaned_lock(folder, "record")
    try:
        assert lock_holders(folder / LOCK_NAME) == [orphan]
        said: list[str] = []
        with writer_lock(folder, wait=False, on_wait=said.append):
            assert read_record(folder).pid == os.getpid()
        assert len(said) == 1 and f"holder (pid {holder}) died" in said[0] \
            and str(orphan) in said[0]
        assert not _running(orphan)
    finally:
        _kill(orphan)


@linux_only
def test_a_lock_held_by_an_unrecorded_process_names_it(tmp_path: Path) -> None:
    folder = tmp_path / ".spyglass"
    holder, orphan = _orphaned_lock(folder, "no-record")
    try:
        with pytest.raises(IndexBusy) as busy, writer_lock(folder, wait=False):
            pass
        message = str(busy.value)
        assert f"pid {orphan}" in message and f"recorded holder (pid {holder}) is dead" \
            in message
        assert _running(orphan)  # not one of the holder's workers: never killed
    finally:
        _kill(orphan)


def test_no_wait_names_the_live_holder(tmp_path: Path) -> None:
    folder = tmp_path / ".spyglass"
    with writer_lock(folder):
        record_worker(folder)
        busy = f"another index job is running \\(pid {os.getpid()}, process group"
        with pytest.raises(IndexBusy, match=busy), writer_lock(folder, wait=False):
            pass
        assert read_record(folder).workers[0][0] == os.getpid()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@linux_only
def test_cli_index_recovers_an_orphaned_lock_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {"a.py": "def alpha():\n    pass\n"})
    holder, orphan = _orphaned_lock(root / ".spyglass", "record")
    try:
        proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index",
                               "--no-wait"], capture_output=True, text=True, timeout=120,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        assert f"recovered the index lock: its holder (pid {holder}) died" in proc.stderr
        assert not _running(orphan)
    finally:
        _kill(orphan)


# A pool like the builder's, but without the Linux death signal: only the getppid() watch
# (the portable half of the lifeline) can end the workers once the parent is killed.
WATCH_ONLY = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from spyglass.index import lifeline
lifeline.set_parent_death_signal = lambda: False
pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"),
                           initializer=lifeline.bind_to_parent, initargs=(os.getpid(),))
pids = sorted({pool.submit(os.getpid).result() for _ in range(8)})
print(" ".join(map(str, pids)), flush=True)
pool.submit(time.sleep, 600)
time.sleep(600)
"""


@linux_only
def test_the_parent_watch_alone_ends_orphaned_workers() -> None:
    proc = subprocess.Popen([sys.executable, "-c", WATCH_ONLY], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert workers and all(_running(p) for p in workers)
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + RELEASE_DEADLINE
    try:
        while any(_running(p) for p in workers):
            assert time.monotonic() < deadline, "workers outlived their parent"
            time.sleep(0.02)
    finally:
        for pid in workers:
            _kill(pid)
