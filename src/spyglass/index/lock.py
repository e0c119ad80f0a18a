"""The writer lock: an `flock` on `.spyglass/index.lock`, so one process writes at a time."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from spyglass.errors import IndexUnavailable

LOCK_NAME = "index.lock"


class IndexBusy(IndexUnavailable):
    """Another process holds the writer lock and the caller chose not to wait."""


def holder(folder: Path) -> str:
    """Who holds (or last held) the lock, as the holder wrote it: 'pid N since T'."""
    try:
        text = (folder / LOCK_NAME).read_text().strip()
    except OSError:
        return "unknown process"
    return text or "unknown process"


@contextmanager
def writer_lock(folder: Path, *, wait: bool = True, timeout: float | None = None,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock for the duration of the block.

    The lock is released by the kernel when the holder exits, however it exits (kill -9
    included), so a crashed indexer never leaves the store locked. With `wait` false a
    busy lock raises `IndexBusy` at once; otherwise this blocks (up to `timeout`)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            who = holder(folder)
            if not wait:
                raise IndexBusy(f"another index job is running ({who}); wait for it to "
                                "finish or run without --no-wait to queue behind it") from None
            if on_wait is not None:
                on_wait(f"waiting for another index job ({who})")
            _block(fd, who, timeout)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} since {time.strftime('%H:%M:%S')}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor drops the lock


def _block(fd: int, who: str, timeout: float | None) -> None:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise IndexBusy(f"gave up after {timeout:g}s waiting for another index job "
                                f"({who})") from None
            time.sleep(0.05)
