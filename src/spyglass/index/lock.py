"""The writer lock: an `flock` on `.spyglass/index.lock`, so one process writes at a time.

The lock file records who holds it: the holder's pid, start time and process group on the
first line, then one `worker PID START` line per pool worker (the workers write their own
line, see `index/lifeline.py`). Workers inherit the lock's descriptor (ARCHITECTURE.md "One
writer"), so a lock can outlive a holder that died with `kill -9` if its workers did not
die with it. Such a lock is recovered: when the recorded holder is dead and every live
process holding the file is one of its recorded workers, those workers are killed and the
lock taken, with a message. See docs/security.md."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from spyglass.errors import IndexUnavailable
from spyglass.index import writer

logger = logging.getLogger(__name__)
LOCK_NAME = "index.lock"
RECHECK = 1.0  # seconds between dead-holder checks while waiting for a busy lock
POLL = 0.05  # seconds between attempts to take a busy lock
RECORD_MAX = 1 << 16  # bytes of the lock file read: a holder line and its workers' lines
REAP_WAIT = 5.0  # seconds to wait for killed orphans to let go of the lock


class IndexBusy(IndexUnavailable):
    """Another process holds the writer lock and the caller chose not to wait."""


@dataclass(frozen=True, slots=True)
class Record:
    """What the lock file says about its holder (None where the file does not say)."""

    pid: int | None
    start: str | None  # the kernel's start time of `pid` (Linux), against pid reuse
    pgid: int | None
    since: str
    workers: tuple[tuple[int, str | None], ...]  # (pid, start) of each pool worker

    def describe(self) -> str:
        if self.pid is None:
            return "unknown process"
        group = f", process group {self.pgid}" if self.pgid is not None else ""
        return f"pid {self.pid}{group} since {self.since}"


def process_start(pid: int) -> str | None:
    """The start time of a live process in clock ticks after boot (Linux /proc), else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None


def alive(pid: int, start: str | None = None) -> bool:
    """Whether `pid` is a live process (and, when `start` is known, the same process)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if start is None:
        return True
    now = process_start(pid)
    return now is None or now == start


def read_record(folder: Path) -> Record:
    """Parse the lock file; an empty, missing or foreign file (a link, a FIFO, a huge
    file: never followed nor read) gives an unknown holder."""
    try:
        fd = writer.store_folder(folder, create=False)
    except OSError:
        data = None
    else:
        try:
            data = writer.read_at(fd, LOCK_NAME, RECORD_MAX)
        finally:
            os.close(fd)
    lines = (data or b"").decode(errors="replace").splitlines()
    head = lines[0].split() if lines else []
    fields = dict(zip(head[0::2], head[1::2]))
    workers: list[tuple[int, str | None]] = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "worker" and parts[1].isdigit():
            workers.append((int(parts[1]), _known(parts[2]) if len(parts) > 2 else None))

    def number(key: str) -> int | None:
        value = fields.get(key, "")
        return int(value) if value.isdigit() else None
    return Record(number("pid"), _known(fields.get("start", "-")), number("pgid"),
                  fields.get("since", "?"), tuple(workers))


def _known(start: str) -> str | None:
    return None if start == "-" else start


def holder(folder: Path) -> str:
    """Who holds (or last held) the lock, as the holder wrote it: 'pid N … since T'."""
    return read_record(folder).describe()


def record_worker(folder: Path) -> None:
    """Called in a pool worker: add this process to the lock file's list of workers (a
    build without a lock file, such as a test's bare builder, records nothing)."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW
                     | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # absent, or not the plain file the indexer made: nothing recorded
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        os.write(fd, f"worker {os.getpid()} {process_start(os.getpid()) or '-'}\n".encode())
    finally:
        os.close(fd)


def lock_holders(path: Path) -> list[int] | None:
    """Pids of the processes with a descriptor open on `path` (read from /proc); None where
    /proc cannot tell (not Linux). Processes of other users cannot be seen and are missed."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return None
    target = os.path.realpath(path)
    found: list[int] = []
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            fds = os.scandir(f"/proc/{entry.name}/fd")
        except OSError:
            continue
        with fds:
            for fd in fds:
                try:
                    link = os.readlink(fd.path)
                except OSError:
                    continue
                if link == target:
                    found.append(int(entry.name))
                    break
    return found


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _recover(folder: Path, fd: int, notify: Callable[[str], None] | None) -> str | None:
    """The lock is busy: if its recorded holder is dead and only that holder's orphaned
    workers still hold it, kill them and take the lock (returns None). Otherwise return who
    really holds it, for the caller's message."""
    record = read_record(folder)
    if record.pid is None or alive(record.pid, record.start):
        return record.describe()
    holders = lock_holders(folder / LOCK_NAME)
    dead = f"the recorded holder (pid {record.pid}) is dead"
    if holders is None:
        return f"{dead}; its workers should exit shortly"
    mine = os.getpid()
    holders = [p for p in holders if p != mine]
    if not holders:  # it let go between the attempt and now
        return None if _try_lock(fd) else f"{dead}; the lock holder is not visible"
    workers = dict(record.workers)
    orphans = [p for p in holders if p in workers and alive(p, workers[p])]
    others = [p for p in holders if p not in orphans]
    if others:
        return f"pid {', '.join(map(str, others))}, holding it while {dead}"
    for pid in orphans:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + REAP_WAIT
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            return f"{dead}; its workers {orphans} did not let go of the lock"
        time.sleep(POLL)
    message = (f"recovered the index lock: its holder (pid {record.pid}) died and left "
               f"{len(orphans)} worker process(es) holding it (pid "
               f"{', '.join(map(str, orphans))}); they were stopped")
    (notify or logger.warning)(message)
    return None


@contextmanager
def writer_lock(folder: Path, *, wait: bool = True, timeout: float | None = None,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock for the duration of the block.

    The kernel releases the lock when the holder and every worker that inherited its
    descriptor have exited, however they exit; a lock kept only by the orphaned workers of a
    dead holder is recovered (see the module docstring). With `wait` false a busy lock
    raises `IndexBusy` at once, naming the live holder; otherwise this blocks (up to
    `timeout`), re-checking for a dead holder every RECHECK seconds."""
    folder_fd = writer.store_folder(folder, create=True)
    try:
        # git never lists the folder (a team store's build keeps only this lock file here)
        writer.create_at(folder_fd, ".gitignore", b"*\n")
        fd = writer.open_kept(folder_fd, LOCK_NAME, where=str(folder), notify=on_wait)
    finally:
        os.close(folder_fd)
    try:
        if not _try_lock(fd):
            who = _recover(folder, fd, on_wait)
            if who is not None:
                if not wait:
                    raise IndexBusy(f"another index job is running ({who}); wait for it to "
                                    "finish or run without --no-wait to queue behind it")
                if on_wait is not None:
                    on_wait(f"waiting for another index job ({who})")
                _block(folder, fd, who, timeout, on_wait)
        os.ftruncate(fd, 0)
        me = os.getpid()
        os.pwrite(fd, f"pid {me} start {process_start(me) or '-'} pgid {os.getpgid(0)} "
                      f"since {time.strftime('%H:%M:%S')}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor drops the lock


def _block(folder: Path, fd: int, who: str, timeout: float | None,
           on_wait: Callable[[str], None] | None) -> None:
    deadline = None if timeout is None else time.monotonic() + timeout
    recheck = time.monotonic() + RECHECK
    while not _try_lock(fd):
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            raise IndexBusy(f"gave up after {timeout:g}s waiting for another index job "
                            f"({who})") from None
        if now >= recheck:
            recheck = now + RECHECK
            if _recover(folder, fd, on_wait) is None:
                return
        time.sleep(POLL)
