"""The tiny wrapper between spyglass and a child: the child dies with spyglass (docs/bridge.md).

Run as a script (`python -I -S guard.py PPID FD -- COMMAND...`, stdlib only). It asks for
a parent-death signal for itself (and exits if PPID, spyglass, is already gone), starts
COMMAND with fds 0-2 only and a parent-death signal, then watches FD, the read end of a
pipe whose write end only spyglass holds: end of file means spyglass is gone (even after
`kill -9`), and the guard kills its process group, COMMAND included.

With CLEANUP (`guard.py PPID FD CLEANUP -- COMMAND...`, a JSON list: the command that
removes a container, whose processes are not the client's children), the guard does not
die with its parent but on end of file first runs CLEANUP, then kills its group."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent thread exits."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


CLEANUP_LIMIT = 10.0  # seconds the cleanup command may take
_CLEANING = threading.Event()


def _watch(fd: int, cleanup: list[str]) -> None:
    try:
        while os.read(fd, 64):
            pass
    except OSError:
        pass
    if cleanup:
        _CLEANING.set()
        try:
            subprocess.run(cleanup, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, close_fds=True, timeout=CLEANUP_LIMIT,
                           check=False)
        except (OSError, subprocess.SubprocessError):
            pass
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    cleanup: list[str] = []
    if len(argv) >= 5 and argv[3] == "--":
        cleanup = [str(c) for c in json.loads(argv[2])]
        argv = argv[:2] + argv[3:]
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: guard.py PPID FD [CLEANUP] -- COMMAND...\n")
        return 2
    if not cleanup:
        die_with_parent()
    if os.getppid() != int(argv[0]):  # spyglass died before the signal was armed
        return 1
    fd = int(argv[1])
    # One thread here, so preexec_fn is safe: the child gets its own parent-death signal.
    child = subprocess.Popen(argv[3:], close_fds=True,
                             preexec_fn=die_with_parent)  # noqa: PLW1509
    # Keep no copy of the child's stdin/stdout: spyglass sees EOF when the child closes them.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    watcher = threading.Thread(target=_watch, args=(fd, cleanup), daemon=True)
    watcher.start()
    code = child.wait()
    if _CLEANING.is_set():  # spyglass is gone: the watcher removes the container, then all
        watcher.join(CLEANUP_LIMIT + 1)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
