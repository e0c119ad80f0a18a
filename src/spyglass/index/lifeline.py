"""A pool worker's lifeline to the indexer: it dies when the indexer dies, however it dies.

Workers inherit the writer lock's descriptor, so a worker outliving a `kill -9`'d indexer
would keep the store locked. Two mechanisms, see docs/security.md:

* Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)`, so the kernel kills the worker when the thread
  that forked it exits. The builder creates and shuts down its pool in one call on one
  thread, and the pool never forks replacements, so that thread outlives every worker.
  A parent that died before the prctl took effect is caught by comparing `getppid()` with
  the expected pid right after it.
* Everywhere: a daemon thread compares `getppid()` with the expected pid every
  WATCH_INTERVAL seconds and exits the process when the parent changes (an orphan is
  re-parented to init or a subreaper)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from pathlib import Path

from spyglass.index.lock import record_worker

WATCH_INTERVAL = 0.2  # seconds between parent checks in each worker
PR_SET_PDEATHSIG = 1
ORPHANED = 70  # exit status of a worker whose parent is gone


def set_parent_death_signal() -> bool:
    """Ask the kernel to SIGKILL this process when its parent thread exits (Linux only);
    False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    event = threading.Event()
    while not event.wait(WATCH_INTERVAL):
        if os.getppid() != parent:
            os._exit(ORPHANED)


def bind_to_parent(parent: int, lock_folder: str | None = None) -> None:
    """Pool initializer: die with `parent` (the indexer's pid) and, when a lock folder is
    given, record this worker in the writer lock's file so a stale lock can be recovered."""
    set_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(ORPHANED)
    threading.Thread(target=_watch, args=(parent,), name="spyglass-lifeline",
                     daemon=True).start()
    if lock_folder is not None:
        record_worker(Path(lock_folder))
