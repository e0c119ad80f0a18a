"""`spyglass desktop`: the web page in a native window (pywebview over GTK WebKit2), served by
this process alone on a loopback port; closing the window stops the server and the process."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from spyglass.config import load_config
from spyglass.errors import BadInput
from spyglass.net import MAX_CONNECTIONS, Shutdown, listen
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

CLOSE_TRIES = 30  # a signal's close is asked this many times …
CLOSE_RETRY_S = 2.0  # … this far apart, until the window has closed
HOST = "127.0.0.1"  # the window's server never binds beyond loopback
MISSING = ("spyglass desktop needs pywebview with GTK WebKit2: on Debian, apt-get install "
           "python3-gi gir1.2-webkit2-4.1, then in a Python that sees them (a venv made with "
           "--system-site-packages from /usr/bin/python3) pip install 'spyglass[desktop]'; "
           "scripts/bootstrap.sh makes .venv-desktop that way")
Driver = Callable[[Any], None]


class LoopbackServer:
    """The app served by uvicorn on a loopback socket, in a thread of this process."""

    def __init__(self, app: Any, sock: Any) -> None:
        import uvicorn
        self.gate = Shutdown(app)
        self.sock = sock
        self.server = uvicorn.Server(uvicorn.Config(
            self.gate, log_level="warning", lifespan="off", timeout_graceful_shutdown=2,
            limit_concurrency=MAX_CONNECTIONS))
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, name="spyglass-desktop-server",
                                       daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self.gate.stopping = asyncio.Event()
            await self.server.serve(sockets=[self.sock])
        asyncio.run(main())

    def start(self) -> None:
        self.thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """End open event streams and the server; True when its thread is gone in time."""
        self.server.should_exit = True
        if self.loop is not None and self.gate.stopping is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed
                self.loop.call_soon_threadsafe(self.gate.stopping.set)
        self.thread.join(timeout)
        self.sock.close()
        return not self.thread.is_alive()


def webview_module() -> Any:
    """pywebview, or a BadInput naming how to install it (the `desktop` extra)."""
    try:
        import webview
    except ImportError as exc:
        raise BadInput(f"{MISSING} ({exc})") from None
    return webview


def run_desktop(start: Path, config_path: str | None, err: TextIO = sys.stderr,
                driver: Driver | None = None, width: int = 1280, height: int = 860) -> int:
    """Open the repository's page in a window until it is closed (or SIGINT / SIGTERM);
    `driver(window)` runs in a thread once the window is shown (tests drive it so)."""
    webview = webview_module()
    ci = CodeIntel(start)
    if config_path:
        ci.config = load_config(Path(config_path), repo_root=ci.root)
    sock = listen(HOST, 0)
    port = sock.getsockname()[1]
    app = create_app(ci, HOST, port)
    server = LoopbackServer(app, sock)
    server.start()
    url = f"http://{HOST}:{port}/repos/{app.state.web.repo_id}"
    window = webview.create_window(f"{ci.repo} · spyglass", url, width=width, height=height,
                                   min_size=(390, 480))

    def close(signum: int, frame: Any) -> None:
        _close_soon(window)

    previous = {sig: signal.signal(sig, close) for sig in (signal.SIGINT, signal.SIGTERM)}
    sources = _glib_signals(window)
    try:
        err.write(f"spyglass: {ci.repo} ({ci.root}) in a window, served at {url}\n")
        err.flush()
        webview.start(driver, window, gui="gtk", private_mode=True)
    finally:
        _glib_release(sources)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        stopped = server.stop()
        err.write("spyglass: window closed, server stopped\n" if stopped else
                  "spyglass: window closed; the server did not stop in time\n")
        err.flush()
    return 0


def _glib() -> Any:
    """GLib (PyGObject, which the GTK window needs), or None."""
    try:
        return importlib.import_module("gi.repository.GLib")
    except (ImportError, ValueError):
        return None


def _glib_signals(window: Any) -> list[int]:
    """SIGINT and SIGTERM handled inside GTK's main loop: a Python handler only runs when
    the main thread next runs Python, which a window idling in C may never do."""
    glib = _glib()
    if glib is None:
        return []

    def close() -> bool:
        _close_soon(window)
        return True  # kept until released
    return [glib.unix_signal_add(glib.PRIORITY_HIGH, sig, close)
            for sig in (signal.SIGINT, signal.SIGTERM)]


def _close_soon(window: Any) -> None:
    """Close the window from a thread: pywebview's destroy waits until the window is shown,
    which GTK's main loop (the caller's thread) does; called there, it would wait on itself.
    Asked again until the window says it closed: a destroy that finds no window yet (one
    still being made) does nothing, and one that waits past its own limit raises."""
    def close() -> None:
        for _ in range(CLOSE_TRIES):
            with contextlib.suppress(Exception):  # not shown yet: asked again
                window.destroy()
            if window.events.closed.wait(CLOSE_RETRY_S):
                return
    threading.Thread(target=close, name="spyglass-close", daemon=True).start()


def _glib_release(sources: list[int]) -> None:
    glib = _glib()
    for source in sources:
        glib.source_remove(source)
