"""Drives `spyglass desktop` from inside its process (run by tests/desktop/test_desktop.py
with the desktop Python, under Xvfb): python drive.py REPO_ROOT SCREENSHOT.png [mid]

The window opens on the unindexed repository; the driver presses "Index repository" through
pywebview's JS bridge, waits for the completed state, takes a screenshot of the screen,
reads the page's content, lists this process's children and listening sockets, closes the
window and prints one JSON line. With `mid`, the window is closed while the index job runs
(its worker processes and git among this process's children)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from spyglass.desktop.window import run_desktop

ROOT, SHOT = Path(sys.argv[1]), Path(sys.argv[2])
MID = sys.argv[3:] == ["mid"]
report: dict[str, Any] = {"ok": False, "steps": []}
HEADER = (0x14, 0x1A, 0x26)  # the page's header colour (app.css .top)


def js(window: Any, expr: str) -> Any:
    """The value of a JavaScript expression in the page, through pywebview's JS bridge
    (`run_js`: WebKit evaluates it as the user agent, so the page's CSP, which forbids
    `eval`, still holds for the page itself)."""
    raw = window.run_js(f"JSON.stringify({expr})")
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw


def until(window: Any, expr: str, timeout: float = 40.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = js(window, expr)
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {expr}")


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (WebKit's web and network processes)."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def listening(pids: list[int]) -> list[str]:
    """The addresses the processes listen on (TCP, from /proc/net)."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    out = []
    for table in ("tcp", "tcp6"):
        for row in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # LISTEN
                addr, port = cols[1].split(":")
                raw = bytes.fromhex(addr)
                ip = ".".join(str(b) for b in raw[::-1]) if table == "tcp" else addr
                out.append(f"{ip}:{int(port, 16)}")
    return out


def screenshot(path: Path) -> dict[str, Any]:
    """The X screen as a PNG (on the GTK thread), and whether the page's header is in it."""
    from gi.repository import Gdk, GLib
    done, out = threading.Event(), dict[str, Any]()

    def grab() -> bool:
        root = Gdk.get_default_root_window()
        pb = Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height())
        pb.savev(str(path), "png", [], [])
        data, stride, n = pb.get_pixels(), pb.get_rowstride(), pb.get_n_channels()
        top = min(pb.get_height(), 160)  # the header bar, wherever the window was placed
        px = [tuple(data[y * stride + x * n: y * stride + x * n + 3])
              for y in range(0, top, 4) for x in range(0, min(pb.get_width(), 600), 10)]
        colours = {tuple(data[y * stride + x * n: y * stride + x * n + 3])
                   for y in range(0, pb.get_height(), 25) for x in range(0, pb.get_width(), 25)}
        out.update(size=[pb.get_width(), pb.get_height()], header=px.count(HEADER),
                   colours=len(colours))
        done.set()
        return False
    GLib.idle_add(grab)
    done.wait(20)
    return out


def drive(window: Any) -> None:
    try:
        until(window, "document.body.dataset.ready === '1' && !document.getElementById('empty').hidden")
        report["steps"].append("opened on the empty state")
        report["pids"] = descendants(os.getpid())
        report["listening"] = listening([os.getpid(), *report["pids"]])
        js(window, "document.getElementById('index-btn').click()")
        if MID:  # close while the job parses: its workers must go with the window
            until(window, "document.getElementById('job-state').textContent === 'progress'"
                  " && /persisted [1-9]/.test(document.getElementById('job-counts').textContent)")
            report["pids"] = descendants(os.getpid())
            report["children"] = {p: Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")
                                  .decode(errors="replace")[:200] for p in report["pids"]
                                  if Path(f"/proc/{p}").exists()}
            report["ok"] = True
            return
        until(window, "document.getElementById('job-state').textContent === 'completed'"
              " && document.getElementById('empty').hidden"
              " && document.getElementById('pv-commit').textContent.length > 6")
        report["steps"].append("Index pressed: completed")
        time.sleep(0.5)  # the folded status panel's transition
        report["repo"] = js(window, "document.getElementById('pv-repo').textContent")
        report["title"] = js(window, "document.getElementById('status-sum').textContent")
        report["folded"] = js(window, "!document.getElementById('status-box').open")
        report["external"] = js(
            window, "performance.getEntriesByType('resource').map((e) => e.name)"
            ".filter((u) => !u.startsWith(location.origin))")
        report["shot"] = screenshot(SHOT)
        report["ok"] = True
    except Exception as exc:  # noqa: BLE001 - the report names it
        report["failure"] = f"{type(exc).__name__}: {exc}"
    finally:
        window.destroy()


status = run_desktop(ROOT, None, driver=drive)
report["status"] = status
print(json.dumps(report), flush=True)
