"""The one restricted launcher for every child process spyglass starts, git aside
(docs/bridge.md): an environment built from nothing, the workspace as working directory,
fds 0-2 only, its own process group, death with spyglass, and by default bubblewrap."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from spyglass.bridge import container, guard
from spyglass.bridge.binds import ServerFileError, inside, server_files
from spyglass.bridge.rpc import server_text
from spyglass.config import Sandbox
from spyglass.errors import SpyglassError

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
# /etc minimal: name lookup, the dynamic loader, certificates, time zone, alternatives.
ETC = ("passwd", "group", "nsswitch.conf", "hosts", "ld.so.cache", "ld.so.conf",
       "ld.so.conf.d", "localtime", "ssl", "ca-certificates", "alternatives", "os-release")
STDERR_KEPT = 4096


class LaunchError(SpyglassError):
    """A child process could not be started (binary missing, no bubblewrap, exec failure)."""


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """What to start and under which posture. `env`: names copied from spyglass's
    environment, or NAME=value pairs (checked when the config loads)."""

    command: tuple[str, ...]
    workspace: Path
    env: tuple[str, ...] = ()
    execution: str = "sandbox"  # or "host" (the config requires allow_host_mcp)
    binds: tuple[str, ...] = ()  # extra read-only paths visible in the sandbox
    sandbox: Sandbox | None = None  # the host's [sandbox]: a container runtime, or bubblewrap
    programs: tuple[str, ...] = ()  # host programs the server runs, shown like the server
    outputs: tuple[str, ...] = ()  # spyglass-owned folders the child may write (never the workspace)
    # Workspace files the child sees empty (bubblewrap binds `empty`, an empty regular file
    # of spyglass's, over each): a file a tool crashed on, left out of its re-run.
    hidden: tuple[str, ...] = ()
    empty: str = ""


def child_env(names: tuple[str, ...], host: Mapping[str, str] | None = None,
              workspace: Path | None = None) -> dict[str, str]:
    """PATH plus the allowlisted names, built from nothing (never a copy of the environment).
    PATH keeps absolute folders outside the workspace only: an empty or relative entry
    means the working directory, the repository."""
    host = os.environ if host is None else host
    env = {"PATH": host.get("PATH") or DEFAULT_PATH}
    for entry in names:
        name, eq, value = entry.partition("=")
        if eq:
            env[name] = value
        elif name in host:
            env[name] = host[name]
    env["PATH"] = safe_path(env["PATH"], workspace)  # also a PATH the config sets
    return env


def safe_path(path: str, workspace: Path | None) -> str:
    """PATH without empty, relative or workspace entries (DEFAULT_PATH when none is left)."""
    kept = [e for e in path.split(os.pathsep) if e.startswith("/") and not (
        workspace is not None and inside(Path(os.path.realpath(e)), workspace))]
    return os.pathsep.join(dict.fromkeys(kept)) or DEFAULT_PATH


def find_binary(command: str, path: str) -> Path:
    """The executable a command names, or LaunchError naming it."""
    found = shutil.which(command, path=path)
    if found is None:
        raise LaunchError(f"binary not found: {command!r} (not executable or not on PATH)")
    return Path(found) if Path(found).is_absolute() else Path(found).absolute()


def bwrap_args(spec: LaunchSpec, exe: Path, home: Path | None = None,
               path: str = DEFAULT_PATH) -> list[str]:
    """bubblewrap: read-only system, private /tmp and $HOME, the workspace read-only, no
    network, every namespace bubblewrap can unshare, dies with its parent."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise LaunchError("execution = 'sandbox' needs bubblewrap (`apt-get install "
                          "bubblewrap`); or set execution = 'host' with allow_host_mcp = true")
    args = [bwrap, "--die-with-parent", "--unshare-all", "--unshare-net", "--new-session",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        p = Path(top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            args += ["--ro-bind", top, top]
    for name in ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
             "--tmpfs", str(home or Path.home())]
    shown: dict[str, str | None] = {}
    for program in (exe, *map(Path, spec.programs)):
        shown.update(server_files(program, path, spec.workspace, home))
    for name, link in shown.items():
        args += ["--symlink", link, name] if link is not None else ["--ro-bind", name, name]
    for bind in spec.binds:
        args += ["--ro-bind-try", bind, bind]
    ws = str(spec.workspace)
    args += ["--ro-bind", ws, ws]
    for out in spec.outputs:  # after the workspace: an output is never inside it
        args += ["--bind", out, out]
    for rel in spec.hidden:  # checked by launch(): a regular file inside the workspace
        args += ["--ro-bind", spec.empty, str(spec.workspace / rel)]
    # bubblewrap always sets PWD; `env -u PWD` keeps the environment PATH + allowlist only.
    args += ["--chdir", ws, "--", "/usr/bin/env", "-u", "PWD", str(exe),
             *spec.command[1:]]
    return args


class Child:
    """A started child: its pipes, the guard's pid, the pipe end that keeps it alive."""

    def __init__(self, proc: subprocess.Popen[bytes], lifeline: int,
                 paths: container.PathMap | None = None) -> None:
        self.proc = proc
        self._lifeline = lifeline
        self.paths = paths  # a container's host ↔ /work path map, else None
        self.stderr_tail = b""
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    @property
    def stdin(self) -> IO[bytes]:
        assert self.proc.stdin is not None
        return self.proc.stdin

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        if err is None:
            return
        for chunk in iter(lambda: os.read(err.fileno(), 1024), b""):
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_KEPT:]

    def last_error(self) -> str:
        """The last line of stderr naming an error (node ends a crash with its version
        line), else the last line (one bounded line of printable text)."""
        lines = [x for x in self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
                 if x.strip()]
        named = [x for x in lines if "Error" in x or "error" in x]
        return server_text((named or lines)[-1]) if lines else ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the child to exit; True when it has."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def exit_code(self) -> int | None:
        return self.proc.returncode

    def kill(self) -> None:
        """Kill the child's process group and reap the guard. A container's guard first
        removes the container (up to guard.CLEANUP_LIMIT): that is waited for in a
        background thread, so a caller holding a lock is not held up."""
        if self._lifeline >= 0:
            os.close(self._lifeline)  # the guard sees EOF and kills its group
            self._lifeline = -1
            if self.paths is not None:
                threading.Thread(target=self._reap, name="spyglass-reaper",
                                 daemon=True).start()
                return
        self._reap()

    def _reap(self) -> None:
        if self.paths is not None:
            self.wait(guard.CLEANUP_LIMIT + 1)
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class _Spawner:
    """One long-lived thread forks every child: the guard's parent-death signal fires when
    the forking thread exits, so children must not be forked from short-lived threads."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Child], Future[Child]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], Child]) -> Child:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="spyglass-spawner",
                                                daemon=True)
                self._thread.start()
        done: Future[Child] = Future()
        self._jobs.put((job, done))
        return done.result()

    def _loop(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except Exception as exc:  # noqa: BLE001 - handed to the caller
                done.set_exception(exc)


SPAWNER = _Spawner()


def launch(spec: LaunchSpec, host_env: Mapping[str, str] | None = None) -> Child:
    """Start a child under the restricted posture; LaunchError when it cannot start."""
    if not spec.command:
        raise LaunchError("empty command")
    workspace = spec.workspace.resolve()
    env = child_env(spec.env, host_env, workspace)
    if spec.execution == "sandbox" and spec.sandbox is not None and spec.sandbox.container:
        if spec.hidden:
            raise LaunchError("hiding a file needs the bubblewrap sandbox")
        # Inside the container /work is the workspace: no PATH folder there either.
        env["PATH"] = safe_path(env["PATH"], Path(container.INSIDE))

        def check(argv: list[str]) -> tuple[int | None, str]:
            return _run_quietly(argv, workspace, {"PATH": env["PATH"]},
                                container.CHECK_TIMEOUT)

        try:
            run = container.plan(spec.command, workspace, env, spec.binds, spec.sandbox,
                                 check, lambda name, path: shutil.which(name, path=path))
        except container.ContainerError as exc:
            raise LaunchError(str(exc)) from exc
        return SPAWNER.run(lambda: _start(run.argv, workspace, run.env, run.cleanup, run.paths))
    for out in spec.outputs:
        if Path(out).resolve().is_relative_to(workspace):
            raise LaunchError(f"output folder {out} is inside the workspace")
    for rel in spec.hidden:
        _check_hidden(workspace, rel, spec.execution, spec.empty)
    exe = find_binary(spec.command[0], env["PATH"])
    spec = LaunchSpec(spec.command, workspace, spec.env, spec.execution, spec.binds,
                      spec.sandbox, spec.programs, spec.outputs, spec.hidden, spec.empty)
    try:  # refuses a server (or a program it runs) inside the workspace
        for program in (exe, *map(Path, spec.programs)):
            server_files(program, env["PATH"], workspace)
    except ServerFileError as exc:
        raise LaunchError(str(exc)) from exc
    inner = bwrap_args(spec, exe, path=env["PATH"]) if spec.execution == "sandbox" else [
        str(exe), *spec.command[1:]]
    return SPAWNER.run(lambda: _start(inner, workspace, env))


def _check_hidden(workspace: Path, rel: str, execution: str, empty: str) -> None:
    """A file to hide must be a regular file of the workspace reached without a link (a
    repository's link could otherwise aim the bind at a path outside it); what hides it,
    an empty regular file outside the workspace."""
    if execution != "sandbox":
        raise LaunchError("hiding a file needs the bubblewrap sandbox")
    cover = Path(empty)
    if (not cover.is_absolute() or cover.is_symlink() or not cover.is_file()
            or cover.stat().st_size or cover.resolve().is_relative_to(workspace)):
        raise LaunchError(f"cannot hide {rel!r}: {empty!r} is not an empty file of spyglass's")
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise LaunchError(f"cannot hide {rel!r}: not a plain workspace-relative path")
    here = workspace
    for part in parts:
        here = here / part
        if here.is_symlink():
            raise LaunchError(f"cannot hide {rel!r}: {part!r} is a link")
    if not here.is_file():
        raise LaunchError(f"cannot hide {rel!r}: not a regular file")


def _run_quietly(argv: list[str], workspace: Path, env: dict[str, str],
                 timeout: float) -> tuple[int | None, str]:
    """A short host command under the launcher's posture (no stdin, output discarded):
    (its exit code, or None when it took longer than `timeout`; its last stderr line)."""
    child = SPAWNER.run(lambda: _start(argv, workspace, env))
    child.stdin.close()
    threading.Thread(target=lambda: child.stdout.read(), daemon=True).start()
    done = child.wait(timeout)
    if done:
        child._drain.join(1.0)
    child.kill()  # closes the lifeline too
    return (child.exit_code() if done else None), child.last_error()


def _start(inner: list[str], workspace: Path, env: dict[str, str],
           cleanup: list[str] | None = None, paths: container.PathMap | None = None) -> Child:
    watch, lifeline = os.pipe()  # both ends close-on-exec; only `watch` is passed on
    extra = [json.dumps(cleanup)] if cleanup else []
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", guard.__file__, str(os.getpid()), str(watch), *extra,
             "--", *inner],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=workspace, env=env, close_fds=True, pass_fds=(watch,),
            start_new_session=True)
    except OSError as exc:
        os.close(lifeline)
        raise LaunchError(f"cannot start {inner[0]}: {exc.strerror}") from exc
    finally:
        os.close(watch)
    return Child(proc, lifeline, paths)


def system_path(tool: str) -> str:
    """A PATH of `tool`'s folder (as the user's PATH finds it) and the system's, never the
    user's other folders (a pyenv or venv shim would be found before the system's)."""
    found = shutil.which(tool)
    dirs = ([str(Path(found).parent)] if found else []) + ["/usr/bin", "/bin"]
    return ":".join(dict.fromkeys(dirs))


def detach_spyglass(args: list[str], cwd: Path) -> int:
    """Start spyglass itself (`python -m spyglass ARGS`), detached: its own session, no
    terminal, outliving this process (the CLI's background precise pass). Its children go
    through `launch` like any other. Returns its pid."""
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, close_fds=True,
                            start_new_session=True, cwd=str(cwd))
    return proc.pid
