"""Language servers' lifecycle: started lazily, kept warm (one per workspace and server),
restarted after a crash with backoff, stopped on exit; their status (docs/bridge.md)."""

from __future__ import annotations

import atexit
import json
import threading
import time
from pathlib import Path

from spyglass.bridge.harden import harden
from spyglass.bridge.launcher import Child, LaunchError, LaunchSpec, launch
from spyglass.bridge.lsp import LspClient, LspError
from spyglass.bridge.mcpclient import McpClient
from spyglass.config import LspServer
from spyglass.errors import SpyglassError
from spyglass.types import BridgeStatus

BACKOFF_FIRST = 1.0
BACKOFF_MAX = 60.0
START_LIMIT = 180.0  # initialize + the first indexing pass
QUIET = 0.5  # no work-done progress for this long = indexed
UNRESPONSIVE = 3  # questions in a row past their budget: the server is restarted
WARM_UP = True  # a language server reads the workspace before it counts as ready
WARM_UP_LIMIT = 60.0  # seconds the warm-up may take at most


class BridgeDown(SpyglassError):
    """A bridge cannot answer now; the message names it and says why."""


Client = LspClient | McpClient


class Bridge:
    """One language server (or external MCP server) for one workspace."""

    def __init__(self, server: LspServer, root: Path) -> None:
        self.server = server
        self.root = root
        self.state = "idle"
        self.last_error: str | None = None
        self.restarts = 0
        self.launches = 0  # start attempts (an external MCP server reads the checkout anew)
        self.version: str | None = None
        self._child: Child | None = None
        self._client: Client | None = None
        self._started_at: float | None = None
        self._retry_at = 0.0
        self._backoff = BACKOFF_FIRST
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._timeouts = 0  # questions in a row the server did not answer in time

    @property
    def name(self) -> str:
        return self.server.label

    def _fail(self, reason: str) -> None:
        """Record a failure and schedule the next start attempt (exponential backoff)."""
        self.last_error = reason
        self.state = "failed"
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, BACKOFF_MAX)
        if self._child is not None:
            self._child.kill()
        self._child = self._client = None
        self._ready.set()

    def _run_start(self) -> None:
        try:
            posture = harden(self.server, self.root)
            child = launch(LaunchSpec(posture.command, self.root,
                                      self.server.env + posture.env, self.server.execution,
                                      self.server.binds, self.server.sandbox,
                                      posture.programs))
        except LaunchError as exc:
            with self._lock:
                self._fail(str(exc))
            return
        client: Client
        if self.server.protocol == "mcp":
            client = McpClient(child.stdin, child.stdout, self.root, child.paths)
        else:
            client = LspClient(child.stdin, child.stdout, self.root,
                               json.loads(posture.settings), child.paths)
        with self._lock:
            self._child, self._client = child, client
        try:
            if isinstance(client, McpClient):
                client.initialize(timeout=60.0)
            else:
                client.initialize(json.loads(posture.init_options), timeout=60.0,
                                  process_id=None if self.server.execution == "sandbox"
                                  else -1)
                client.wait_idle(quiet=QUIET, limit=START_LIMIT)
                if WARM_UP:
                    client.warm_up(WARM_UP_LIMIT)
            if client.broken:
                raise LspError(client.broken)
        except LspError as exc:
            with self._lock:
                if self._child is child:
                    why = child.last_error() or client.last_logged
                    self._fail(f"start-up failed: {exc}" + (f" ({why})" if why else ""))
            return
        with self._lock:
            if self._child is child:
                self.state, self.version = "ready", client.server_info or None
                self._started_at = time.monotonic()
                self._backoff = BACKOFF_FIRST
                self._ready.set()

    def _check(self) -> None:
        """Notice a crash or a broken connection of a running server (lock held)."""
        if self._child is None or self.state not in ("ready", "starting"):
            return
        if not self._child.alive():
            code = self._child.exit_code()
            why = self._child.last_error() or (self._client.last_logged if self._client else "")
            self._fail(f"crashed (exit {code})" + (f": {why}" if why else ""))
        elif self._client is not None and self._client.broken and self.state == "ready":
            self._fail(self._client.broken)

    def client(self, wait: float) -> Client:
        """The ready client, starting the server if needed and waiting up to `wait`
        seconds; BridgeDown with the reason otherwise."""
        with self._lock:
            self._check()
            if self.state == "failed" and time.monotonic() < self._retry_at:
                left = self._retry_at - time.monotonic()
                raise BridgeDown(f"{self.last_error} (next start in {left:.0f}s)")
            if self.state in ("idle", "failed", "stopped"):
                if self.state == "failed":
                    self.restarts += 1
                self.state = "starting"
                self.launches += 1
                self._ready.clear()
                threading.Thread(target=self._run_start, name=f"bridge-{self.name}",
                                 daemon=True).start()
        self._ready.wait(max(wait, 0.0))
        with self._lock:
            self._check()
            if self.state == "ready" and self._client is not None:
                return self._client
            if self.state == "starting":
                raise BridgeDown("still starting (indexing the workspace)")
            raise BridgeDown(self.last_error or self.state)

    def note_failure(self, reason: str) -> str:
        """A question broke the connection (malformed reply, crash): restart later.
        Returns the diagnosis (the crash and its exit code when the server died)."""
        child = self._child
        if child is not None and self._client is not None and self._client.broken:
            child.wait(0.5)  # EOF first, exit status a moment later
        with self._lock:
            self._check()
            if self._client is not None and self._client.broken and self.state == "ready":
                self._fail(reason)
            return self.last_error if self.state == "failed" and self.last_error else reason

    def note_answer(self, in_time: bool) -> None:
        """Count questions past their budget; a server that misses UNRESPONSIVE in a row
        is killed and restarted after the backoff (a hang is a failure too)."""
        with self._lock:
            self._timeouts = 0 if in_time else self._timeouts + 1
            if self._timeouts >= UNRESPONSIVE and self.state == "ready":
                self._timeouts = 0
                self._fail(f"unresponsive: {UNRESPONSIVE} questions in a row past the budget")

    def stop(self) -> None:
        with self._lock:
            client, child = self._client, self._child
            self._client = self._child = None
            self.state = "stopped"
        if client is not None and child is not None and child.alive():
            client.shutdown(timeout=2.0)
            child.wait(0.5 if isinstance(client, McpClient) else 0.0)
        if child is not None:
            child.kill()

    def status(self) -> BridgeStatus:
        with self._lock:
            self._check()
            up = (time.monotonic() - self._started_at
                  if self.state == "ready" and self._started_at else None)
            box = self.server.sandbox
            boxed = self.server.execution == "sandbox" and box.container
            return BridgeStatus(self.name, self.server.language, self.state,
                                self.server.execution, self.version,
                                self._child.pid if self._child else None,
                                round(up, 1) if up is not None else None, self.restarts,
                                self.last_error,
                                box.runtime if self.server.execution == "sandbox" else None,
                                box.image if boxed else None)

    def pid(self) -> int | None:
        return self._child.pid if self._child else None


_BRIDGES: dict[tuple[Path, LspServer], Bridge] = {}
_REGISTRY = threading.Lock()


def bridge_for(server: LspServer, root: Path) -> Bridge:
    """The process's one bridge for (workspace, server)."""
    key = (root.resolve(), server)
    with _REGISTRY:
        found = _BRIDGES.get(key)
        if found is None:
            found = _BRIDGES[key] = Bridge(server, key[0])
        return found


def bridges_for(servers: tuple[LspServer, ...], root: Path) -> list[Bridge]:
    return [bridge_for(s, root) for s in servers]


def stop_all() -> None:
    """Stop every bridge of this process (also run at exit)."""
    with _REGISTRY:
        bridges = list(_BRIDGES.values())
    for b in bridges:
        b.stop()


atexit.register(stop_all)
