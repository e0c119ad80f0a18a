"""Each known language server configured so that its interpreter and tool discovery never
picks a repository's program (docs/bridge.md, "Servers never run repository programs"):
basedpyright's interpreter pinned to a host Python, gopls on the local toolchain without
cgo or downloads, typescript-language-server on its own tsserver without plugins, clangd
without project config files or compiler queries. Servers are known by their program's
name; an unknown server gets the launcher's rules only."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spyglass.bridge.binds import inside, package_trees
from spyglass.bridge.container import INSIDE
from spyglass.bridge.launcher import LaunchError, child_env, find_binary
from spyglass.config import LspServer

Json = Any
HOST_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")


@dataclass(frozen=True)
class Posture:
    """What a server is started with once hardened: its command, environment entries
    forced over the host's (NAME=value), the settings answered to workspace/configuration
    (JSON text, by section), initializationOptions (JSON text) and the host programs it
    runs besides itself (made visible in the sandbox like the server)."""

    kind: str
    command: tuple[str, ...]
    env: tuple[str, ...] = ()
    settings: str = "{}"
    init_options: str = "null"
    programs: tuple[str, ...] = ()


def kind_of(command: tuple[str, ...], exe: Path | None = None) -> str:
    """Which known server a command runs ('' for none): by the program's file names."""
    names = [Path(w).name for w in command if not w.startswith("-")]
    if exe is not None:
        names.append(exe.resolve().name)
    for name in names:
        stem = name.split(".")[0]
        if stem in ("basedpyright-langserver", "pyright-langserver"):
            return "pyright"
        if stem == "gopls":
            return "gopls"
        if stem == "typescript-language-server":
            return "tsls"
        if stem.startswith("clangd"):
            return "clangd"
    return ""


def host_python() -> str:
    """A host interpreter for a server that asks one for its search paths."""
    for candidate in (*HOST_PYTHONS, getattr(sys, "_base_executable", ""), sys.executable):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise LaunchError("no host Python interpreter to pin the Python server to")


def _pyright(server: LspServer, root: Path, exe: Path | None, settings: dict[str, Json]
             ) -> Posture:
    """basedpyright runs `python.pythonPath`, else a `.venv/bin/python` in the workspace,
    else `python3` on PATH: the interpreter is always the host's. A workspace config's
    venvPath/venv only names folders it reads (never an interpreter it runs)."""
    found = settings.get("python")
    python: dict[str, Json] = found if isinstance(found, dict) else {}
    given = python.get("pythonPath")
    boxed = exe is None  # in a container: paths are the image's, the workspace is /work
    ok = isinstance(given, str) and given.startswith("/") and not inside(
        Path(os.path.realpath(given)), root) and not (boxed and inside(Path(given),
                                                                       Path(INSIDE)))
    pin = given if ok and isinstance(given, str) else (HOST_PYTHONS[0] if boxed
                                                       else host_python())
    settings["python"] = {**python, "pythonPath": pin}
    if not boxed:
        _venv_packages(settings, root)
    # The interpreter is run with the workspace as working directory: no '' on sys.path.
    return Posture("pyright", server.command, ("PYTHONSAFEPATH=1",), json.dumps(settings),
                   programs=() if boxed else (pin,))


def _venv_packages(settings: dict[str, Json], root: Path) -> None:
    """The workspace venv's site-packages as extra search paths (read, never run): the
    packages basedpyright would have found through `.venv/bin/python`. Settings of a
    workspace without a config file only (a config file's own venvPath/venv is read)."""
    found = [p for p in sorted(root.glob(".venv/lib*/python3*/site-packages"))
             if p.is_dir() and inside(p.resolve(), root)]
    if not found:
        return
    section = "basedpyright" if isinstance(settings.get("basedpyright"), dict) and \
        isinstance(settings["basedpyright"].get("analysis"), dict) else "python"
    holder: dict[str, Json] = settings.setdefault(section, {})
    analysis: dict[str, Json] = holder["analysis"] if isinstance(holder.get("analysis"),
                                                                  dict) else {}
    extra: list[Json] = analysis["extraPaths"] if isinstance(analysis.get("extraPaths"),
                                                             list) else []
    holder["analysis"] = {**analysis, "extraPaths": [*extra, *map(str, found)]}


def _gopls(server: LspServer, root: Path, exe: Path | None, settings: dict[str, Json]
           ) -> Posture:
    """gopls runs `go list`: the local toolchain only (a go.mod/go.work `toolchain` line
    would download and run another), no module downloads, no cgo (no C compiler or
    pkg-config run on the repository's directives); GOFLAGS keeps the host's flags but
    those that run a program (-toolexec, -exec) or rewrite go.mod (-mod=mod)."""
    flags = next((e.partition("=")[2] for e in reversed(server.env)
                  if e.startswith("GOFLAGS=")), os.environ.get("GOFLAGS", "")
                 if "GOFLAGS" in server.env else "")
    kept = [f for f in flags.split() if not f.startswith(("-toolexec", "--toolexec", "-exec",
                                                          "--exec", "-mod=mod", "--mod=mod"))]
    forced = ("GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0", "GOFLAGS=" + " ".join(kept))
    return Posture("gopls", server.command, forced, json.dumps(settings))


def _tsls(server: LspServer, root: Path, exe: Path | None, settings: dict[str, Json]) -> Posture:
    """typescript-language-server prefers the workspace's node_modules/typescript (its
    tsserver.js would run, and it loads the plugins a tsconfig names from beside itself):
    its own tsserver is pinned, no plugins, no automatic typings download."""
    if exe is None:  # a container: its tree must be bound from the host, to be checked here
        named = Path(server.command[0])
        modules = [p for p in named.parents if p.name == "node_modules"]
        trees = [modules[-1]] if modules and any(inside(modules[-1], Path(b))
                                                 for b in server.binds) else []
        if not trees:
            raise LaunchError("typescript-language-server in a container: give its command as "
                              "a path in a node_modules tree that `binds` brings from the "
                              "host (with typescript beside it), so its own tsserver is used")
    else:
        trees = [t for p in (exe, exe.resolve()) for t in package_trees(p)]
    tsserver = next((t / "typescript" / "lib" / "tsserver.js" for t in trees
                     if (t / "typescript" / "lib" / "tsserver.js").is_file()), None)
    if tsserver is None:
        raise LaunchError("typescript-language-server needs the typescript package installed "
                          "beside it (npm install typescript next to it): the repository's "
                          "own typescript is never run")
    init = {"tsserver": {"path": str(tsserver)}, "plugins": [],
            "disableAutomaticTypingAcquisition": True}
    return Posture("tsls", server.command, (), json.dumps(settings), json.dumps(init))


def _clangd(server: LspServer, root: Path, exe: Path | None, settings: dict[str, Json]
            ) -> Posture:
    """clangd runs the compiler a compile_commands.json names only when --query-driver
    allows it (never allowed here), and a `.clangd` file can change flags, name a
    compiler or an external index: project config is off."""
    if any(a.startswith("--query-driver") for a in server.command[1:]):
        raise LaunchError("clangd: --query-driver is never allowed (clangd would run the "
                          "compiler a repository's compile_commands.json names)")
    args = [a for a in server.command[1:] if not a.startswith("--enable-config")]
    return Posture("clangd", (server.command[0], *args, "--enable-config=false"), (),
                   json.dumps(settings))


KINDS: dict[str, Callable[[LspServer, Path, Path | None, dict[str, Json]], Posture]] = {
    "pyright": _pyright, "gopls": _gopls, "tsls": _tsls, "clangd": _clangd}


def harden(server: LspServer, root: Path, host_env: dict[str, str] | None = None
           ) -> Posture:
    """The posture `server` starts with in workspace `root`; LaunchError when it may not."""
    settings = json.loads(server.settings)
    if server.protocol != "lsp" or not server.command:
        return Posture("", server.command, (), server.settings)
    boxed = server.execution == "sandbox" and server.sandbox.container
    exe = None if boxed else find_binary(
        server.command[0], child_env(server.env, host_env, root.resolve())["PATH"])
    make = KINDS.get(kind_of(server.command, exe))
    if make is None:
        return Posture("", server.command, (), server.settings)
    return make(server, root.resolve(), exe, settings if isinstance(settings, dict) else {})
