"""Container execution (docs/bridge.md "Containers"): with `[sandbox] runtime = "docker" |
"podman"`, a sandboxed server runs as `RUNTIME run -i --rm --network NETWORK -v
WORKDIR:/work:ro -w /work -e NAME=VALUE… IMAGE COMMAND…`, unprivileged, read-only, named so
the guard can remove it when spyglass dies; paths in messages are mapped host ↔ /work."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from spyglass.config import Sandbox
from spyglass.errors import SpyglassError

INSIDE = "/work"  # where the workspace is mounted in the container
CHECK_TIMEOUT = 20.0  # seconds `RUNTIME image inspect` may take (a loaded machine)
# Keys whose string values are URIs or paths in LSP and MCP messages (mapped both ways).
URI_KEYS = frozenset({"uri", "rootUri", "targetUri", "scopeUri", "oldUri", "newUri",
                      "baseUri"})
PATH_KEYS = frozenset({"rootPath", "path", "file", "filePath", "filename"})


class ContainerError(SpyglassError):
    """The container runtime or its image is missing (the message names which)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """How to start one server in a container: the client's argv and environment, the
    command that removes the container, and the path map of its messages."""

    argv: list[str]
    env: dict[str, str]
    cleanup: list[str]
    paths: PathMap


class PathMap:
    """Host paths and file URIs under the workspace ↔ the same under /work, in the string
    values of URI and path keys (file text and other values are never rewritten)."""

    def __init__(self, host: Path, inside: str = INSIDE) -> None:
        self._pairs = [(str(host), inside), ("file://" + quote(str(host)), "file://" + inside)]

    @staticmethod
    def _swap(value: str, pairs: list[tuple[str, str]]) -> str:
        for old, new in pairs:
            if value == old or value.startswith(old + "/"):
                return new + value[len(old):]
        return value

    def _walk(self, obj: Any, pairs: list[tuple[str, str]], key: str = "") -> Any:
        if isinstance(obj, dict):
            return {k: self._walk(v, pairs, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._walk(v, pairs, key) for v in obj]
        if isinstance(obj, str) and (key in URI_KEYS or key in PATH_KEYS):
            return self._swap(obj, pairs)
        return obj

    def outward(self, message: Any) -> Any:
        """A message to the server: host paths become /work paths."""
        return self._walk(message, self._pairs)

    def inward(self, message: Any) -> Any:
        """A message from the server: /work paths become host paths."""
        return self._walk(message, [(b, a) for a, b in self._pairs])


def runtime_binary(sandbox: Sandbox, path: str, which: Which) -> str:
    """The runtime's executable on spyglass's PATH (looked up by the launcher, the one
    module that finds programs), or ContainerError naming it."""
    found = which(sandbox.runtime, path)
    if found is None:
        raise ContainerError(f"container runtime {sandbox.runtime!r} not found on PATH "
                             f"([sandbox] runtime; install {sandbox.runtime} or set "
                             "runtime = 'bubblewrap')")
    return str(Path(found).absolute())


Check = Callable[[list[str]], tuple[int | None, str]]  # argv → (exit code or None, stderr)
Which = Callable[[str, str], str | None]  # (program, PATH) → its path, or None


def check_image(binary: str, sandbox: Sandbox, check: Check) -> None:
    """ContainerError unless the runtime has the image locally (nothing is ever pulled);
    `check` runs the runtime's `image inspect` (through the launcher, on the host)."""
    code, why = check([binary, "image", "inspect", "--format", "{{.Id}}", sandbox.image])
    if code is None:
        raise ContainerError(f"container runtime {sandbox.runtime!r} did not answer within "
                             f"{CHECK_TIMEOUT:.0f}s ({why or 'no message'})")
    if code != 0:
        raise ContainerError(f"container image {sandbox.image!r} not found in "
                             f"{sandbox.runtime} (build or load it first; spyglass never "
                             f"pulls)" + (f": {why[:200]}" if why else ""))


def plan(command: tuple[str, ...], workspace: Path, env: Mapping[str, str],
         binds: tuple[str, ...], sandbox: Sandbox, check: Check, which: Which) -> Plan:
    """The container launch of `command` (resolved inside the image) for `workspace`."""
    for path in binds:
        if path == INSIDE or path.startswith(INSIDE + "/"):
            raise ContainerError(f"bind {path!r} lies under {INSIDE}, where the workspace "
                                 "is mounted in the container")
    binary = runtime_binary(sandbox, env["PATH"], which)
    check_image(binary, sandbox, check)
    name = f"spyglass-{os.getpid()}-{secrets.token_hex(6)}"
    argv = [binary, "run", "-i", "--rm", "--name", name, "--pull", "never",
            "--network", sandbox.network, "--init", "--cap-drop=ALL",
            "--security-opt", "no-new-privileges", "--read-only", "--log-driver", "none"]
    if sandbox.runtime == "podman":
        argv.append("--unsetenv-all")  # no image or runtime defaults beside the -e pairs
    argv += ["-v", f"{workspace}:{INSIDE}:ro", "-w", INSIDE]
    for path in binds:  # the host config's binds: the server's own files, read-only
        argv += ["-v", f"{path}:{path}:ro"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    argv += [sandbox.image, *command]
    cleanup = [binary, "rm", "-f", *(["-t", "0"] if sandbox.runtime == "podman" else []), name]
    return Plan(argv, {"PATH": env["PATH"]}, cleanup, PathMap(workspace))
